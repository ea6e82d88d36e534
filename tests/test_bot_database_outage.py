"""PostgreSQL out of reach for a while (the database refusing connections, every backend
terminated: what a restart of the server looks like to the bot): every interaction is
still answered, and what fell due meanwhile shows within seconds of its return."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator

import asyncpg
import pytest

from bot.core.models import Ending
from bot.discord_ui import custom_ids

from bot_harness import BotProcess, board_of, bot_process_env, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator
from fault_harness import locked, out_of_reach, told, waiting_backend

pytestmark = pytest.mark.postgres


Click = tuple[int, int, str]
"""A click during a fault: the ply and square clicked, and what its answer told."""


async def keep_clicking(emu: DiscordEmulator, member, board: dict, seconds: float) -> list[Click]:
    """Click a free square of ``board`` again and again for ``seconds`` (a member who does
    not give up); every click must be answered (the emulator enforces the 3 s)."""
    clicks: list[Click] = []
    end = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < end:
        current = emu.message(board["id"])
        free = board_of(current).find(".")
        if free < 0:
            break
        click = custom_ids.parse(cell_id(current, free))
        assert isinstance(click, custom_ids.CellClick)
        res = await emu.click(member, current, cell_id(current, free))
        assert res.type is not None, "a click went unanswered"
        clicks.append((click.ply, click.cell, told(res)))
        await asyncio.sleep(0.2)
    return clicks


def agrees(clicks: list[Click], moves: tuple[int, ...]) -> bool:
    """Whether what each click was told is true of the moves stored: a click told nothing
    changed was not played (unless a later click on the same square got through), one
    shown was; one told 'not confirmed' may be either."""
    played = {(ply, cell) for ply, cell in enumerate(moves)}
    for i, (ply, cell, said) in enumerate(clicks):
        later = {(p, c) for p, c, s in clicks[i + 1 :] if s != "nothing"}
        if said == "nothing" and (ply, cell) in played - later:
            return False
        if said == "shown" and (ply, cell) not in played:
            return False
    return True


@pytest.mark.parametrize(
    ("listener_too", "outage"), [(True, 6.0), (False, 4.0)], ids=["all", "queries only"]
)
async def test_an_outage_is_answered_and_a_timeout_due_in_it_shows_soon_after(
    emulator: DiscordEmulator, pg_server, pg_database: str, tmp_path, listener_too: bool,
    outage: float,
) -> None:  # fmt: skip
    """Members keep clicking through the outage: each click is answered in time and told
    the truth, and the boards equal the store within 5 s of its end. A click whose write
    was cut off (it waited for a row lock when the outage began, and was applied during
    it) is told it is not confirmed, and shows as stored after the outage. The turn
    timeout that fell due meanwhile shows by the timekeeper's retries (the queries only:
    the notifications never stopped), or by the notification connection's return."""
    turn = 12.0  # alice's turn runs out in the outage; carol's only after the checks
    settings = settings_for(emulator, tmp_path / "unused.sqlite3", database_url=pg_database,
                            turn_timeout=turn)  # fmt: skip
    alice, carol = emulator.create_user("alice"), emulator.create_user("carol")
    players = [emulator.create_user(f"player{i}") for i in range(4)]
    channels = [emulator.create_channel(emulator.guild, f"game-{i}") for i in range(5)]
    loop = asyncio.get_running_loop()
    async with running_bot(emulator, settings) as bot:
        started = loop.time()
        start = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard"})
        board = start.message
        boards = [
            (await emulator.invoke(p, "ttt start", {"first": "me"}, channel=c)).message
            for p, c in zip(players, channels[:4], strict=True)
        ]
        cut = (await emulator.invoke(carol, "ttt start", {"first": "me", "difficulty": "hard"},
                                     channel=channels[4])).message  # fmt: skip
        (carols,) = await bot.repo.running_games_in(channels[4].id)
        locker = await asyncpg.connect(
            pg_database, server_settings={"application_name": "ttt-test locker"}
        )
        await asyncio.sleep(started + turn - outage / 2 - loop.time())
        await locked(locker, carols.id)
        cut_click = asyncio.ensure_future(emulator.click(carol, cut, cell_id(cut, 4)))
        watcher = await asyncpg.connect(
            pg_database, server_settings={"application_name": "ttt-test locker"}
        )
        waiting = await waiting_backend(watcher)
        await watcher.close()
        async with out_of_reach(pg_server, pg_database, listener_too, spare=[waiting]):
            res = await emulator.click(alice, board, cell_id(board, 4))
            # the apology, in time: nothing was sent, or (the bot's pooled connection cut
            # by the outage as the click went out on it) not confirmed
            assert told(res) in ("nothing", "unconfirmed")
            assert board_of(emulator.message(board["id"])) == "." * 9  # nothing shown
            assert told(await cut_click) == "unconfirmed"  # sent; its answer never came
            await locker.execute("COMMIT")  # and so the cut-off write is applied
            clicks = await asyncio.gather(
                *(
                    keep_clicking(emulator, p, b, outage)
                    for p, b in zip(players, boards, strict=True)
                )
            )  # the turn's deadline passes while out of reach
            assert min(len(c) for c in clicks) >= 3
        await locker.close()
        back = loop.time()
        for _ in range(200):
            if "ran out of time" in emulator.message(board["id"])["content"]:
                break
            await asyncio.sleep(0.05)
        shown_after = loop.time() - back
        assert "ran out of time" in emulator.message(board["id"])["content"]
        assert shown_after < 5, f"the timeout showed {shown_after:.1f} s after the database"
        (game,) = await bot.repo.finished_games_of(emulator.guild.id, alice.id)
        assert game.ending == Ending("timeout", "O") and game.moves == ()

        async def seen_and_stored() -> list[tuple[str, str]]:
            pairs = []
            for player, shown in zip([*players, carol], [*boards, cut], strict=True):
                stored = await bot.repo.running_games_in(int(shown["channel_id"]))
                stored += await bot.repo.finished_games_of(emulator.guild.id, player.id)
                (game,) = [g for g in stored if g.message_id == int(shown["id"])]
                pairs.append((board_of(emulator.message(shown["id"])), game.board.to_string()))
            return pairs

        while True:  # what each member sees is what is stored, within 5 s
            pairs = await seen_and_stored()
            if all(seen == stored for seen, stored in pairs):
                break
            assert loop.time() - back < 5, f"boards still differ from the store: {pairs}"
            await asyncio.sleep(0.05)
        (carols,) = await bot.repo.running_games_in(channels[4].id)
        assert carols.moves[0] == 4 and carols.ply == 2  # the cut-off click was applied
        for player, said in zip(players, clicks, strict=True):  # and every answer was true
            (stored,) = await bot.repo.running_games_in(
                int(boards[players.index(player)]["channel_id"])
            ) or await bot.repo.finished_games_of(emulator.guild.id, player.id)
            assert agrees(said, stored.moves), (said, stored.moves)
    assert not emulator.violations


def server_processes(pg_server) -> list[int]:
    """The PostgreSQL server's postmaster and every process it started."""
    postmaster = int((pg_server.data_dir / "postmaster.pid").read_text().split()[0])
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as file:
                if int(file.read().rpartition(")")[2].split()[1]) == postmaster:
                    children.append(int(entry))
    return [postmaster, *children]


@contextlib.contextmanager
def frozen(pg_server) -> Iterator[None]:
    """The server stopped dead (SIGSTOP): connections stay open, nothing answers."""
    processes = server_processes(pg_server)
    for pid in processes:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in processes:
            os.kill(pid, signal.SIGCONT)


async def boards_and_store(emu: DiscordEmulator, repo, channel_ids) -> list[tuple[str, str]]:
    """Each game of the channels (running, or finished in the last minute) as its message
    shows it and as stored: a game stored without any message shows ``-``."""
    pairs = []
    for channel_id in channel_ids:
        for game in await repo.running_games_in(channel_id):
            shown = "-"
            if game.message_id is not None and emu.has_message(game.message_id):
                shown = board_of(emu.message(game.message_id))
            pairs.append((shown, game.board.to_string()))
    return pairs


async def until_boards_match(emu: DiscordEmulator, repo, channel_ids, seconds: float) -> float:
    """Seconds until every board in the channels equals the store (fails after
    ``seconds``, showing the pairs that differ)."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    while True:
        pairs = await boards_and_store(emu, repo, channel_ids)
        if all(shown == stored for shown, stored in pairs):
            return loop.time() - began
        assert loop.time() - began < seconds, f"boards still differ from the store: {pairs}"
        await asyncio.sleep(0.05)


async def busy_pool(emu: DiscordEmulator, games: int = 4) -> None:
    """Members starting and playing games at once, as on a busy server: the bot's pooled
    connections then hold its statements prepared, so a start or a click sends them in one
    message (on a connection that never ran one, the prepare is what meets a fault)."""
    players = [emu.create_user(f"warm{i}") for i in range(games)]
    channels = [emu.create_channel(emu.guild, f"warm-{i}") for i in range(games)]
    starts = await asyncio.gather(*(
        emu.invoke(p, "ttt start", {"first": "me", "difficulty": "hard"}, channel=c)
        for p, c in zip(players, channels, strict=True)
    ))  # fmt: skip
    await asyncio.gather(*(
        emu.click(p, s.message, cell_id(s.message, 0))
        for p, s in zip(players, starts, strict=True)
    ))  # fmt: skip


async def test_a_frozen_database_gets_every_interaction_a_true_answer_in_time(
    emulator: DiscordEmulator, pg_server, pg_database: str, tmp_path, capsys
) -> None:
    """Queries time out: each interaction gets its apology within Discord's 3 s (the
    emulator records a violation otherwise). A write that was sent may be applied when the
    server thaws: its member is told it is not confirmed, never that nothing changed,
    and within 5 s of the thaw every board equals the store."""
    settings = settings_for(emulator, tmp_path / "unused.sqlite3", database_url=pg_database)
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    elsewhere = emulator.create_channel(emulator.guild, "elsewhere")
    async with running_bot(emulator, settings) as bot:
        start = await emulator.invoke(alice, "ttt start", {"first": "me", "difficulty": "hard"})
        board = start.message
        await busy_pool(emulator)  # so each write is sent whole to the frozen server
        with frozen(pg_server):
            click, started, stats = await asyncio.gather(
                emulator.click(alice, board, cell_id(board, 4)),
                emulator.invoke(bob, "ttt start", {"first": "me"}, channel=elsewhere),
                emulator.invoke(alice, "ttt stats"),
            )
            answers = {"click": told(click), "start": told(started), "stats": told(stats)}
            await asyncio.sleep(0.5)  # wait-ok: the outage lasts this long past the answers
        caught_up = await until_boards_match(
            emulator, bot.repo, [int(board["channel_id"]), elsewhere.id], 5.0
        )
        (game,) = await bot.repo.running_games_in(int(board["channel_id"]))
        in_elsewhere = await bot.repo.running_games_in(elsewhere.id)
        with capsys.disabled():  # for the record: what each was told, what was stored
            print(f"\nfrozen: told {answers}; stored: alice's game {game.board.to_string()}, "
                  f"bob's start {'stored' if in_elsewhere else 'not stored'}; boards equal "
                  f"the store {caught_up:.2f} s after the thaw")  # fmt: skip
        # the two writes were sent: nobody can know whether they landed
        assert answers == {"click": "unconfirmed", "start": "unconfirmed", "stats": "nothing"}
        # (and the boards show what was stored, whichever way it went: checked above)
        current = emulator.message(board["id"])
        free = board_of(current).find(".")
        res = await emulator.click(alice, current, cell_id(current, free))
        assert res.type == 7 and board_of(res.message)[free] == "X"  # play goes on
    assert not emulator.violations, emulator.violations


async def test_a_sigterm_on_postgresql_logs_no_warning(
    emulator: DiscordEmulator, pg_database: str, tmp_path
) -> None:
    """A deploy stops every process with SIGTERM: that is no lost connection."""
    env = bot_process_env(emulator, tmp_path / "unused.sqlite3", TTT_DATABASE_URL=pg_database)
    bot = BotProcess(env, tmp_path)
    try:
        await bot.wait_until_ready(emulator, 1)
        res = await emulator.invoke(emulator.create_user("alice"), "ttt start", {"first": "me"})
        assert res.type == 4
    finally:
        code = await bot.stop(signal.SIGTERM)
    assert code == 0, bot.stderr
    assert bot.lines[-1].endswith("bot: stopped"), bot.stderr
    assert not [line for line in bot.lines if "WARNING" in line or "ERROR" in line], bot.stderr
