"""What a tournament looks like in Discord: its message (sign-up with Join and Leave,
then the round in play, the standings and the champion as text beside a picture of the
bracket or the table) and each match's message in its thread (with Ready)."""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

import discord

from bot.core.tournaments.models import Match, Tournament
from bot.core.tournaments.view import TournamentView
from bot.discord_ui import custom_ids
from bot.discord_ui.render_common import Unlistened, button, relative_time
from bot.discord_ui.render_records import game_label
from bot.i18n import text
from bot.pictures import BracketMatch, draw_bracket, draw_table

PICTURE_PREFIX = "tournament-"
CONTENT_LIMIT = 2000
"""Discord's limit on a message's content."""


def mention(user_id: int | None) -> str:
    return "—" if user_id is None else f"<@{user_id}>"


def heading(t: Tournament, locale: object) -> str:
    return text(
        "tournament.head", locale, name=t.name, format=text(f"choice.format.{t.format}", locale),
        size=game_label(t.variant, t.size, locale), best_of=t.best_of,
        organiser=mention(t.organiser_id),
    )  # fmt: skip


# --- the tournament's message ------------------------------------------------------------


def tournament_content(view: TournamentView, locale: object) -> str:
    """Every fact the picture shows, as text (screen readers, text-only clients)."""
    t = view.tournament
    lines = [heading(t, locale)]
    if t.status == "signup":
        lines.append(text("tournament.signup", locale, count=len(view.entrants),
                          limit=t.max_players))  # fmt: skip
        if t.signup_closes_at is not None:
            lines.append(text("tournament.closes", locale, when=relative_time(t.signup_closes_at)))
        else:
            lines.append(text("tournament.by_hand", locale))
        players = ", ".join(mention(p) for p in view.seeds)
        lines.append(text("tournament.players", locale, players=players or "—"))
        return _fit(lines)
    if t.status == "cancelled":
        lines.append(text("tournament.cancelled", locale))
    elif t.status == "finished":
        lines.append(text("tournament.champion", locale, member=mention(t.champion)))
    if t.round:
        lines.append(text("tournament.round", locale, number=t.round))
        lines += [match_line(view, m, locale) for m in view.round_matches(t.round)]
    if t.format != "single" and view.matches:
        lines.append(text("tournament.standings", locale))
        for place, s in enumerate(view.standings(), start=1):
            breaks = " · ".join(f"{b:g}" for b in s.tiebreaks)
            out = text("tournament.removed_mark", locale) if s.player in view.removed else ""
            lines.append(f"{place}. {mention(s.player)}: {s.points:g} ({breaks}){out}")
    return _fit(lines)


def _fit(lines: list[str]) -> str:
    content = "\n".join(lines)
    return content if len(content) <= CONTENT_LIMIT else content[: CONTENT_LIMIT - 1] + "…"


def match_state(view: TournamentView, match: Match, locale: object) -> str:
    if match.second is None:
        return text("tournament.state.bye", locale)
    if match.status == "waiting":
        return text("tournament.state.waiting", locale)
    if match.status == "playing":
        score = view.outcomes(match)
        return text("tournament.state.playing", locale, first=score.count("first"),
                    second=score.count("second"))  # fmt: skip
    if match.result is None:  # closed undecided: the tournament was cancelled
        return text("tournament.state.undecided", locale)
    if match.result == "draw":
        return text("tournament.state.drawn", locale)
    if match.result == "none":
        return text("tournament.state.none", locale)
    key = "tournament.state.forfeit" if match.forfeit else "tournament.state.won"
    return text(key, locale, member=mention(match.winner))


def match_line(view: TournamentView, match: Match, locale: object) -> str:
    return text(
        "tournament.match_line", locale, number=match.number, first=mention(match.first),
        second=mention(match.second), state=match_state(view, match, locale),
    )  # fmt: skip


def signup_view(t: Tournament, locale: object) -> discord.ui.View | None:
    if t.status != "signup":
        return None
    view = Unlistened()
    view.add_item(button(custom_ids.join(t.id), text("tournament.button.join", locale),
                          discord.ButtonStyle.success))  # fmt: skip
    view.add_item(button(custom_ids.leave(t.id), text("tournament.button.leave", locale),
                          discord.ButtonStyle.secondary))  # fmt: skip
    return view


@dataclass(frozen=True)
class Picture:
    """A drawn bracket or table, named by its content (``tournament-<hash>.png``): the
    message that carries it says which picture it shows, to whichever process edits it
    next (see :func:`shown_picture`)."""

    data: bytes
    description: str

    @property
    def filename(self) -> str:
        return f"{PICTURE_PREFIX}{hashlib.sha256(self.data).hexdigest()[:12]}.png"

    def file(self) -> discord.File:
        """A new upload of it (a file is read once: one per request)."""
        return discord.File(io.BytesIO(self.data), filename=self.filename,
                            description=self.description)  # fmt: skip

    def embed(self, colour: int) -> discord.Embed:
        return discord.Embed(colour=colour).set_image(url=f"attachment://{self.filename}")


def picture(view: TournamentView, locale: object) -> Picture | None:
    """The bracket (single elimination) or the table (round robin, Swiss) once play has
    begun; None in sign-up. CPU work of some milliseconds: call it off the event loop."""
    t = view.tournament
    if t.round == 0:
        return None
    title = text("tournament.picture_title", locale, name=t.name,
                 game=game_label(t.variant, t.size, locale))  # fmt: skip
    data = _bracket(view, title, locale) if t.format == "single" else _table(view, title, locale)
    return Picture(data, text("tournament.picture_alt", locale))


def shown_picture(message: discord.Message) -> str | None:
    """The name of the tournament picture ``message`` carries (None: none, or one from
    before pictures were named by their content, which is never the one wanted)."""
    return next((a.filename for a in message.attachments
                 if a.filename.startswith(PICTURE_PREFIX)), None)  # fmt: skip


def _bracket(view: TournamentView, title: str, locale: object) -> bytes:
    names = {e.user_id: e.name for e in view.entrants}
    first = view.round_matches(1)
    total = max(1, (len(first) * 2 - 1).bit_length())
    rounds: list[list[BracketMatch]] = []
    for number in range(1, total + 1):
        played = view.round_matches(number)
        if played:
            rounds.append([
                BracketMatch(
                    names.get(m.first), None if m.second is None else names.get(m.second),
                    None if m.status != "done" else 0 if m.result == "first" else 1,
                )
                for m in played
            ])  # fmt: skip
        else:
            rounds.append([BracketMatch(None, None)] * max(1, len(first) >> (number - 1)))
    heads = [_round_name(number, total, locale) for number in range(1, total + 1)]
    return draw_bracket(title, heads, rounds)


def _round_name(number: int, total: int, locale: object) -> str:
    if number == total:
        return text("tournament.final", locale)
    if number == total - 1:
        return text("tournament.semi_final", locale)
    return text("tournament.round_name", locale, number=number)


def _table(view: TournamentView, title: str, locale: object) -> bytes:
    names = {e.user_id: e.name for e in view.entrants}
    breaks = (
        ["tournament.col.head_to_head", "tournament.col.sonneborn"]
        if view.tournament.format == "round_robin"
        else ["tournament.col.buchholz"]
    )
    header = ["#", text("tournament.col.player", locale), text("tournament.col.points", locale)]
    header += [text(key, locale) for key in breaks]
    rows = [
        [str(place), names.get(s.player, str(s.player)), f"{s.points:g}",
         *(f"{b:g}" for b in s.tiebreaks)]
        for place, s in enumerate(view.standings(), start=1)
    ]  # fmt: skip
    return draw_table(title, header, rows)


# --- a match's message -------------------------------------------------------------------


def match_content(view: TournamentView, match: Match, locale: object) -> str:
    t = view.tournament
    lines = [
        text(
            "tournament.match_intro",
            locale,
            first=mention(match.first),
            second=mention(match.second),
            number=match.number,
            round=match.round,
            name=t.name,
            game=game_label(t.variant, t.size, locale),
            best_of=t.best_of,
        ),
    ]
    if match.status == "waiting":
        if match.start_by is not None:
            lines.append(text("tournament.ready_by", locale, when=relative_time(match.start_by)))
        for player, ready in ((match.first, match.first_ready), (match.second, match.second_ready)):
            if ready:
                lines.append(text("tournament.is_ready", locale, member=mention(player)))
    else:
        lines.append(match_state(view, match, locale))
    return "\n".join(lines)


def match_view(match: Match, locale: object) -> discord.ui.View | None:
    if match.status != "waiting":
        return None
    view = Unlistened()
    view.add_item(button(custom_ids.ready(match.id), text("tournament.button.ready", locale),
                          discord.ButtonStyle.primary))  # fmt: skip
    return view


def match_mentions(match: Match) -> discord.AllowedMentions:
    return discord.AllowedMentions(
        users=[discord.Object(p) for p in match.players], everyone=False, roles=False
    )


def thread_name(view: TournamentView, match: Match, locale: object) -> str:
    names = {e.user_id: e.name for e in view.entrants}
    first, second = names.get(match.first, "?"), names.get(match.second or 0, "?")
    game = game_label(view.tournament.variant, view.tournament.size, locale)
    name = text("tournament.thread", locale, number=match.number, game=game, first=first,
                second=second)  # fmt: skip
    return name[:100]
