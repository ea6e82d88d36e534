"""Ultimate against the bot, through the emulator: a move answered by the bot, a hint
(a "thinking" answer first, then the engine's square, said to be its judgement and not a
proof), and the review of the finished game worked out in the review worker."""

from __future__ import annotations

from ultimate_harness import button_id, game_id, play, replay, wait_for_ply

from bot.discord_ui import custom_ids
from bot.i18n import text as catalog_text

from bot_harness import eventually, running_bot, settings_for
from discord_emulator import DiscordEmulator, find_button, text_of

ENGINE_NOTE = catalog_text("ultimate.engine_note", "en")


def square(cell: int) -> str:
    """A square of the 9×9 grid as members read it (A1 top left), worked out here again."""
    board, small = divmod(cell, 9)
    row, col = board // 3 * 3 + small // 3, board % 3 * 3 + small % 3
    return f"{'ABCDEFGHI'[col]}{row + 1}"


async def final_content(emu: DiscordEmulator, res) -> str:
    """The answer after a "thinking" one: its first follow-up (or the edited original)."""
    assert res.type == 5 and res.ephemeral, (res.type, res.content)
    await eventually(lambda: res.followups or res.content, "the answer after thinking")
    return res.followups[0]["content"] if res.followups else res.content


async def test_a_hint_and_a_review_against_the_bot(emulator: DiscordEmulator, tmp_path) -> None:
    alice = emulator.create_user("alice")
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        res = await emulator.invoke(alice, "ttt start", {"difficulty": "easy", "first": "me",
                                                         "game": "ultimate"})  # fmt: skip
        assert res.type == 4 and "the bot (easy)" in res.text
        message = res.message
        res = await play(emulator, alice, message, 40)
        assert res.type == 7
        message = await wait_for_ply(emulator, message, 2)  # the bot's reply
        game = game_id(message)
        stored = await bot.repo.get_game(game)
        assert stored is not None and stored.moves[0] == 40 and len(stored.moves) == 2
        # the hint: thinking first, then the engine's square on the grid
        res = await emulator.click(alice, message, button_id(message, custom_ids.HintClick),
                                   wait_final=True)  # fmt: skip
        content = await final_content(emulator, res)
        board = replay(stored.moves)
        lines = content.splitlines()
        assert lines[0] == "💡 **Hint** for ❌, just for you:"
        grid = "".join(lines[1:12]).replace(" ", "")
        lit = [i for i, ch in enumerate(grid) if ch == "💡"]
        assert len(lit) == 1
        (named,) = [c for c in board.legal_moves() if square(c) in content]
        assert f"**{square(named)}**" in content and ENGINE_NOTE in content
        assert bot.hints.worker_pids()  # worked out in the hint process, not the event loop
        # the game is marked; then alice resigns and asks for the review
        res = await emulator.click(alice, message, button_id(message, custom_ids.ResignClick))
        assert res.type == 7 and "💡 Played with a hint." in text_of(res.message)
        review = find_button(res.message, label="Review")
        res = await emulator.click(alice, res.message, review["custom_id"], wait_final=True)
        content = await final_content(emulator, res)
        assert content.startswith(f"Review: <@{alice.id}> (❌) vs the bot (easy) (⭕)")
        assert ENGINE_NOTE in content
        moves = [line for line in content.splitlines() if " — the engine preferred " in line]
        for line in moves:  # "1. ❌ E5 — the engine preferred **D4**; …"
            number, _, cell = line.split(" — ")[0].split(" ")
            played = stored.moves[int(number.rstrip(".")) - 1]
            assert cell == square(played)
        if not moves:
            assert "The engine found no move that cost its player much." in content
        assert bot.reviews.worker_pids()


async def test_a_hint_is_only_for_the_player_to_move(emulator: DiscordEmulator, tmp_path) -> None:
    alice, klaus = emulator.create_user("alice"), emulator.create_user("klaus", locale="de")
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        res = await emulator.invoke(alice, "ttt start", {"difficulty": "easy", "first": "me",
                                                         "game": "ultimate"})  # fmt: skip
        hint = button_id(res.message, custom_ids.HintClick)
        refused = await emulator.click(klaus, res.message, hint)
        assert refused.ephemeral and refused.content.startswith("Nur wer in diesem Spiel spielt")
        stored = await bot.repo.get_game(game_id(res.message))
        assert stored is not None and not stored.hinted
