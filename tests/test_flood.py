"""A flood of clicks with big boards among them: every interaction is acknowledged in
time and answered once, whatever the engine is doing."""

from __future__ import annotations

import asyncio
import random

from engine import Board

from bot_harness import board_of, cell_id, running_bot, settings_for
from discord_emulator import DiscordEmulator

CHANNELS = 48
BIG = 12  # of them on 4×4 against unbeatable, whose searches go to the engine pool
ROUNDS = 3


async def test_a_flood_with_big_boards_is_answered_in_time(
    emulator: DiscordEmulator, tmp_path
) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", engine_workers=1)
    rng = random.Random(3)
    async with running_bot(emulator, settings):
        members = [emulator.create_user(f"m{i}") for i in range(CHANNELS)]
        rooms = [emulator.create_channel(emulator.guild, f"flood-{i}") for i in range(CHANNELS)]

        async def start(i: int) -> dict:
            options = {"first": "me", "difficulty": "unbeatable" if i < BIG else "medium"}
            if i < BIG:
                options["size"] = 4
            res = await emulator.invoke(members[i], "ttt start", options, channel=rooms[i])
            assert res.type == 4, res
            return res.message

        messages = await asyncio.gather(*(start(i) for i in range(CHANNELS)))
        answered = 0

        def board(i: int, message: dict) -> Board:
            return Board.from_string(board_of(message), k=3 if i >= BIG else 4)

        for _ in range(ROUNDS):

            async def click(i: int) -> None:
                nonlocal answered
                current = emulator.message(messages[i]["id"])
                if board(i, current).is_over() or board(i, current).to_move != "X":
                    return
                cell = rng.choice(board(i, current).legal_moves())
                res = await emulator.click(members[i], current, cell_id(current, cell))
                assert res.type in (6, 7), res  # acknowledged: an update, or a deferral
                answered += 1

            async def replied(i: int) -> None:
                """Until the bot's reply, searched on after the answer, is on the board."""
                await emulator.wait_for_message(
                    lambda m: (
                        m["id"] == messages[i]["id"]
                        and (board(i, m).is_over() or board(i, m).to_move == "X")
                    ),
                    include_existing=True,
                )

            await asyncio.gather(*(click(i) for i in range(CHANNELS)))
            await asyncio.gather(*(replied(i) for i in range(CHANNELS)))
        assert answered >= CHANNELS * 2
    # the emulator fixture fails the test on any interaction left unanswered past 3 s
    assert not [v for v in emulator.violations if "no initial response" in v]
