"""What stats, the leaderboard, history and reviews look like: embeds and text."""

from __future__ import annotations

import io

import discord

from bot.core.models import Game, Variant
from bot.core.policy import Marks
from bot.core.rating import INITIAL_RATING
from bot.core.records import Leaderboard, Review
from bot.core.review import cell_name
from bot.core.rules import lapsed_unplayed
from bot.core.stats import MEMBERS, PlayerStats
from bot.discord_ui.render_common import CLASSIC, message_link, player_name, relative_time
from bot.i18n import text
from bot.pictures import draw_rating_chart

DEFAULT_COLOUR = discord.Colour.blurple().value
VERDICTS = {
    (1, 1): "verdict.keeps_win",
    (0, 0): "verdict.keeps_draw",
    (-1, -1): "verdict.keeps_loss",
    (1, 0): "verdict.win_to_draw",
    (1, -1): "verdict.win_to_loss",
    (0, -1): "verdict.draw_to_loss",
}
BEST_SHOWN = 6
"""Squares listed after a mistake: on 5×5 a dozen may keep the value."""
MESSAGE_LIMIT = 2000
"""Discord's limit on a message's content."""


def records_game(variant: Variant, locale: object = None) -> str:
    """The game a member's records are about, named as /ttt stats offers it: the classic
    boards share one record and rating, ultimate has its own."""
    return text(f"choice.game.{variant}", locale)


def game_label(variant: Variant, size: int, locale: object = None) -> str:
    """One game's board: ``3×3`` to ``5×5``, or ultimate (not its 9×9 grid of squares)."""
    return text(f"game.label.{variant}", locale, size=size)


def stats_embed(
    name: str, stats: PlayerStats, locale: object = None, colour: int = DEFAULT_COLOUR
) -> discord.Embed:
    embed = discord.Embed(
        title=text("stats.title", locale, name=name),
        description=text("records.game", locale, game=records_game(stats.variant, locale)),
        colour=colour,
    )
    kinds = sorted(stats.by_opponent, key=lambda k: (k != MEMBERS, k))
    for kind in kinds:
        record = stats.by_opponent[kind]
        label = (
            text("stats.members", locale)
            if kind == MEMBERS
            else text("stats.bot", locale, difficulty=text(f"choice.difficulty.{kind}", locale))
        )
        embed.add_field(
            name=label,
            value=text("stats.record", locale, wins=record.wins, losses=record.losses,
                       draws=record.draws),
            inline=False,
        )  # fmt: skip
    embed.add_field(
        name=text("stats.streak", locale),
        value=text(
            "stats.streak_value", locale, current=stats.current_streak, best=stats.best_streak
        ),
        inline=False,
    )
    ratings = stats.ratings
    if len(ratings) >= 2:  # the chart's facts as text too, for screen readers
        embed.add_field(
            name=text("stats.rating", locale),
            value=text("stats.rating_value", locale, now=round(ratings[-1]),
                       first=round(ratings[0]), games=len(ratings) - 1,
                       low=round(min(ratings)), high=round(max(ratings))),
            inline=False,
        )  # fmt: skip
        embed.set_image(url=f"attachment://{CHART_FILE}")
    return embed


CHART_FILE = "rating.png"


def rating_chart(name: str, stats: PlayerStats, locale: object = None) -> discord.File | None:
    """The member's rating over their rated games as a picture (:data:`CHART_FILE`, which
    :func:`stats_embed` shows), or None with fewer than one rated game. Drawing takes a
    few milliseconds: call it off the event loop."""
    if len(stats.ratings) < 2:
        return None
    png = draw_rating_chart(
        text("stats.chart_title", locale, name=name,
             game=text(f"records.short.{stats.variant}", locale)),
        list(stats.ratings),
        text("stats.chart_caption", locale, count=len(stats.ratings) - 1),
    )  # fmt: skip
    return discord.File(io.BytesIO(png), filename=CHART_FILE)


def leaderboard_embed(
    board: Leaderboard, locale: object = None, colour: int = DEFAULT_COLOUR
) -> discord.Embed:
    top, mine, against_bot = board.top, board.mine, board.against_bot
    lines = [
        text("board.row", locale, rank=i, name=f"<@{r.user_id}>", rating=round(r.rating),
             wins=r.wins, losses=r.losses, draws=r.draws)
        for i, r in enumerate(top, start=1)
    ]  # fmt: skip
    embed = discord.Embed(
        title=text("board.title", locale, game=records_game(board.variant, locale)),
        description=text("board.rated", locale, initial=int(INITIAL_RATING))
        + "\n"
        + ("\n".join(lines) if lines else text("board.empty", locale)),
        colour=colour,
    )
    if mine is None:
        embed.add_field(
            name=text("board.you", locale), value=text("board.you_unrated", locale), inline=False
        )
    else:
        rank, r = mine
        embed.add_field(
            name=text("board.you", locale),
            value=text("board.you_value", locale, rank=rank, rating=round(r.rating), wins=r.wins,
                       losses=r.losses, draws=r.draws),
            inline=False,
        )  # fmt: skip
    for difficulty, records in against_bot.items():
        rows = [
            text("board.vs_bot_row", locale, rank=i, name=f"<@{r.user_id}>", wins=r.wins,
                 losses=r.losses, draws=r.draws)
            for i, r in enumerate(records, start=1)
        ]  # fmt: skip
        embed.add_field(
            name=text(
                "board.vs_bot", locale, difficulty=text(f"choice.difficulty.{difficulty}", locale)
            ),
            value="\n".join(rows)
            or text(
                "board.vs_bot_empty",
                locale,
                difficulty=text(f"choice.difficulty.{difficulty}", locale),
            ),
            inline=True,
        )
    return embed


def how_it_ended(game: Game) -> str:
    """The catalog key saying how a finished game ended, in a history line: a
    correspondence game nobody moved in says it lapsed, as its board does, not that its
    message was deleted (both end abandoned, without a result)."""
    reason = game.ending.reason if game.ending else "abandoned"
    if reason == "abandoned" and lapsed_unplayed(game):
        return "how.no_first_move"
    return f"how.{reason}"


def history_embed(
    name: str,
    user_id: int,
    games: list[Game],
    locale: object = None,
    colour: int = DEFAULT_COLOUR,
) -> discord.Embed:
    lines = []
    for game in games:
        score = game.score_of(user_id)
        result = {
            1.0: "history.win",
            0.0: "history.loss",
            0.5: "history.draw",
            None: "history.abandoned",
        }[score]
        mark = game.mark_of(user_id) or "X"
        lines.append(
            text(
                "history.row",
                locale,
                result=text(result, locale),
                opponent=player_name(game, "O" if mark == "X" else "X", locale),
                how=text(how_it_ended(game), locale),
                when=relative_time(game.finished_at or game.updated_at),
                board=game_label(game.variant, game.size, locale),
                link=message_link(game.guild_id, game.channel_id, game.message_id),
            )
            + (text("history.hinted", locale) if game.hinted else "")
            + (text("history.tournament", locale) if game.tournament_match_id else "")
        )
    return discord.Embed(
        title=text("history.title", locale, name=name), description="\n".join(lines), colour=colour
    )


def review_text(review: Review, locale: object = None, marks: Marks = CLASSIC) -> str:
    """Every move with its verdict, in the marks of the game's server."""
    game, verdicts = review.game, review.verdicts
    lines = [
        text(
            "review.title",
            locale,
            x=player_name(game, "X", locale),
            o=player_name(game, "O", locale),
            mark_x=marks.x,
            mark_o=marks.o,
        )
    ]
    for v in verdicts:
        line = text(
            "review.move",
            locale,
            number=v.number,
            mark=marks.of(v.mark),
            square=cell_name(v.cell, game.size),
            verdict=text(VERDICTS[(v.before, v.after)], locale),
        )
        if v.mistake:
            names = [cell_name(c, game.size) for c in v.best]
            more = len(names) > BEST_SHOWN or not v.complete  # "…": maybe others as good
            squares = ", ".join(names[:BEST_SHOWN]) + (", …" if more else "")
            line += text("review.best", locale, squares=squares)
        lines.append(line)
    mistakes = sum(v.mistake for v in verdicts)
    summary = (
        text("review.summary", locale, count=mistakes) if mistakes else text("review.clean", locale)
    )
    while len("\n".join([*lines, summary])) > MESSAGE_LIMIT:  # a 5×5 game's 25 moves
        lines.pop(1)  # the opening moves go first: a mistake there is shown in the summary
    return "\n".join([*lines, summary])
