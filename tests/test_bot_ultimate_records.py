"""Ultimate in members' records and tournaments, as members see them: /ttt stats and
/ttt leaderboard choose the game (``game``: the classic boards by default, or ultimate),
/ttt history marks each game's board, /ttt tournament create plays ultimate and says
so, and its match is played on the ultimate chat board and rated in the ultimate
ratings."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
import ultimate_harness as ultimate
from test_bot_tournaments import _ids, until, waiting_matches
from test_core_ultimate import X_WINS

from bot.core import rules
from bot.core.repository import Repository
from bot.core.stats import PlayerStats
from bot.core.tournaments.models import Entrant, Match, Tournament
from bot.core.tournaments.view import TournamentView
from bot.discord_ui import custom_ids, render_records, render_tournament
from bot.discord_ui.custom_ids import JoinClick, ReadyClick

from bot_harness import accepted_member_game, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator
from discord_emulator.state import DEFAULT_PERMISSIONS, PERM_MANAGE_GUILD


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


async def ultimate_game_won_by_x(repo: Repository, guild_id: int, channel_id: int,
                                 x: int, o: int) -> int:  # fmt: skip
    """A finished ultimate game between members that X wins (stored as the game service
    stores one, which rates it): its id. Ultimate's board in the chat is another part's;
    records only need the game."""
    now = time.time()
    game = await repo.create_game(rules.new_game(
        guild_id=guild_id, channel_id=channel_id, size=3, player_x=x, player_o=o, now=now,
        variant="ultimate",
    ))  # fmt: skip
    running = game
    for cell in X_WINS:
        running = rules.advance(running, cell, now, 600.0)
    assert running.ending is not None and running.ending.winner == "X"
    await repo.save_game(running, expected_ply=0)
    return game.id


def description_lines(res) -> list[str]:
    (embed,) = res.embeds
    return str(embed.get("description", "")).splitlines()


async def test_records_choose_the_game_in_french(emulator: DiscordEmulator, bot) -> None:
    guild = emulator.create_guild("Le serveur", locale="fr")
    channel = guild.channels[0]
    amelie = emulator.create_user("amelie", locale="fr", guilds=[guild])
    bruno = emulator.create_user("bruno", locale="fr", guilds=[guild])
    await emulator.wait_until_ready()
    # a classic 3×3 game Amélie wins, then an ultimate game Bruno wins
    message = await accepted_member_game(emulator, amelie, bruno, "me", channel=channel)
    for i, cell in enumerate((0, 3, 1, 4, 2)):
        res = await emulator.click(amelie if i % 2 == 0 else bruno, message,
                                   cell_id(message, cell))  # fmt: skip
        assert res.type == 7, res.content
        message = res.message
    res = await emulator.invoke(amelie, "ttt stats", {"game": "ultimate"}, channel=channel)
    assert res.ephemeral
    assert res.content == f"<@{amelie.id}> n'a encore fini aucune partie d'ultimate ici."
    await ultimate_game_won_by_x(bot.repo, guild.id, channel.id, bruno.id,
                                               amelie.id)  # fmt: skip

    res = await emulator.invoke(amelie, "ttt stats", channel=channel)
    assert res.ephemeral
    assert description_lines(res) == ["Jeu : **grilles classiques (3×3 à 5×5)**"]
    (embed,) = res.embeds
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Contre des membres"] == "1 victoire · 0 défaite · 0 nul"
    res = await emulator.invoke(amelie, "ttt stats", {"game": "ultimate"}, channel=channel)
    assert description_lines(res) == ["Jeu : **ultimate (neuf grilles en une)**"]
    (embed,) = res.embeds
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Contre des membres"] == "0 victoire · 1 défaite · 0 nul"
    assert fields["Classement"].startswith("**984** ")  # her ultimate rating, not 1016
    (attachment,) = res.message["attachments"]
    assert attachment["filename"] == "rating.png"

    # the leaderboard is public, in the server's language, one game at a time
    res = await emulator.invoke(bruno, "ttt leaderboard", {"game": "ultimate"}, channel=channel)
    assert not res.ephemeral
    (embed,) = res.embeds
    assert embed["title"] == "Classement : ultimate (neuf grilles en une)"
    assert description_lines(res)[1:] == [
        f"1. <@{bruno.id}> — **1016** (1-0-0)", f"2. <@{amelie.id}> — **984** (0-1-0)",
    ]  # fmt: skip
    res = await emulator.invoke(bruno, "ttt leaderboard", channel=channel)
    (embed,) = res.embeds
    assert embed["title"] == "Classement : grilles classiques (3×3 à 5×5)"
    assert description_lines(res)[1] == f"1. <@{amelie.id}> — **1016** (1-0-0)"

    # history lists both games, each with its board: ultimate, not 9×9
    res = await emulator.invoke(amelie, "ttt history", channel=channel)
    newest, older = description_lines(res)
    assert newest.startswith(f"**Défaite** vs <@{bruno.id}> — une ligne, ")
    assert " · ultimate · [partie](" in newest and "9×9" not in newest
    assert newest.endswith(f"(<#{channel.id}>)")  # stored without a board message
    assert older.startswith(f"**Victoire** vs <@{bruno.id}> — une ligne, ")
    assert " · 3×3 · [partie](" in older


async def test_the_game_options_are_synced_with_their_translations(emulator, bot) -> None:
    (group,) = emulator.commands()
    by_name = {o["name"]: o for o in group["options"]}
    tournament = {o["name"]: o for o in by_name["tournament"]["options"]}
    for command in (by_name["stats"], by_name["leaderboard"], tournament["create"]):
        game = next(o for o in command["options"] if o["name"] == "game")
        assert not game.get("required")
        assert game["name_localizations"]["fr"] == "jeu"
        assert game["name_localizations"]["de"] == "spiel"
        # the leaderboard ranks puzzle ratings too (docs/play/puzzles.md)
        puzzles = ["puzzles"] if command is by_name["leaderboard"] else []
        assert [c["value"] for c in game["choices"]] == ["classic", "ultimate", *puzzles]
        ultimate = game["choices"][1]
        assert ultimate["name_localizations"]["es-ES"] == "ultimate (nueve tableros en uno)"
        assert ultimate["name_localizations"]["pt-BR"] == "ultimate (nove tabuleiros em um)"


async def test_an_ultimate_tournament_says_so_and_its_match_is_rated_apart(
    emulator: DiscordEmulator, bot
) -> None:
    organiser = emulator.create_user("organiser")
    organiser.permissions = DEFAULT_PERMISSIONS | PERM_MANAGE_GUILD
    amelie = emulator.create_user("amelie", locale="fr")
    bruno = emulator.create_user("bruno")
    res = await emulator.invoke(organiser, "ttt tournament create", {
        "name": "Autumn cup", "format": "single", "game": "ultimate", "size": 4,
    })  # fmt: skip
    assert res.type == 4 and not res.ephemeral, res.content
    heading = res.message["content"].splitlines()[0]
    assert heading.startswith("🏆 **Autumn cup**: single elimination, ultimate, best of 1")
    assert "4×4" not in heading and "9×9" not in heading
    message = res.message
    (join,) = _ids(message, JoinClick)
    for member in (amelie, bruno):
        res = await emulator.click(member, message, custom_ids.join(join.tournament_id))
        assert res.type == 7, res.content
        message = res.message
    stored = await bot.repo.get_tournament(join.tournament_id)
    assert stored is not None and (stored.variant, stored.size) == ("ultimate", 9)
    res = await emulator.invoke(organiser, "ttt tournament start")
    assert res.ephemeral
    # its message, redrawn with the bracket, still says which game it is
    await until(lambda: emulator.message(message["id"]).get("attachments"), what="the bracket")
    assert emulator.message(message["id"])["content"].splitlines()[0] == heading
    res = await emulator.invoke(amelie, "ttt tournament status")
    assert res.ephemeral
    assert res.content.splitlines()[0].startswith(
        "🏆 **Autumn cup** : élimination directe, ultimate, en 1 partie(s)"
    )
    # the match is an ultimate game on the chat board, rated in the ultimate ratings
    (match,) = await until(lambda: waiting_matches(emulator), what="the match")
    (ready,) = _ids(match, ReadyClick)
    # its thread and its Ready message say the game too
    thread = next(t for t in emulator.guild.threads if t.id == int(match["channel_id"]))
    assert thread.name.startswith("Match 1 (ultimate): ")
    assert "round 1 of **Autumn cup** (ultimate), best of 1." in match["content"]
    for member in (amelie, bruno):
        res = await emulator.click(member, match, custom_ids.ready(ready.match_id))
        assert res.type == 7, res.content
    board = await until(lambda: ultimate_board(emulator, match["channel_id"]), what="a board")
    game = await bot.repo.get_game(ultimate.game_id(board))
    assert game is not None and game.variant == "ultimate"
    assert game.tournament_match_id == ready.match_id
    by_id = {member.id: member for member in (amelie, bruno)}
    for i, cell in enumerate(X_WINS):
        player = by_id[game.player_x if i % 2 == 0 else game.player_o]
        res = await ultimate.play(emulator, player, board, cell)
        assert res.type == 7, res.content
        board = res.message
    guild_id = emulator.guild.id
    # the winning move's answer came after its write, which rated the game with it
    (winner, loser) = await bot.repo.leaderboard(guild_id, 10, "ultimate")
    assert (winner.user_id, winner.wins, loser.user_id, loser.losses) == (
        game.player_x, 1, game.player_o, 1
    )  # fmt: skip
    assert await bot.repo.leaderboard(guild_id, 10) == []  # the classic ratings: untouched


def ultimate_board(emu: DiscordEmulator, channel_id: str) -> dict | None:
    """The running ultimate board in a channel: squares or boards still clickable."""
    for message in reversed(emu.channel_messages(int(channel_id))):
        kinds = (custom_ids.CellClick, custom_ids.BoardClick)
        if any(isinstance(c, kinds) and not b.get("disabled") for c, b in ultimate.clicks(message)):
            return message
    return None


def test_the_tournament_picture_is_titled_with_its_game(monkeypatch) -> None:
    titles: list[str] = []

    def draw(title: str, *rest: object) -> bytes:
        titles.append(title)
        return b"png"

    monkeypatch.setattr(render_tournament, "draw_table", draw)
    t = Tournament(
        id=1, guild_id=1, channel_id=2, message_id=3, organiser_id=4, name="Cup",
        format="round_robin", rounds=0, size=9, best_of=1, max_players=8,
        signup_closes_at=None, show_up=600.0, status="running", round=1, created_at=0.0,
        variant="ultimate",
    )  # fmt: skip
    view = TournamentView(
        t, (Entrant(11, "Amélie", 0.0, seed=1), Entrant(12, "Bruno", 1.0, seed=2)),
        (Match(1, 1, 1, 1, 11, 12, "waiting"),),
    )  # fmt: skip
    render_tournament.picture(view, "fr")
    render_tournament.picture(view.__class__(replace(t, variant="classic", size=4),
                                             view.entrants, view.matches), "de")  # fmt: skip
    assert titles == ["Cup — ultimate", "Cup — 4×4"]


def test_the_rating_chart_is_titled_with_its_game(monkeypatch) -> None:
    titles: list[str] = []

    def draw(title: str, *rest: object) -> bytes:
        titles.append(title)
        return b"png"

    monkeypatch.setattr(render_records, "draw_rating_chart", draw)
    for variant, locale in (("ultimate", "fr"), ("classic", "de"), ("ultimate", "en")):
        stats = PlayerStats(ratings=(1000.0, 1016.0), variant=variant)  # type: ignore[arg-type]
        assert render_records.rating_chart("Amélie", stats, locale) is not None
    assert titles == [
        "Amélie — classement, ultimate", "Amélie — Wertung, klassische Felder",
        "Amélie — rating, ultimate",
    ]  # fmt: skip
