"""The least a discord.py bot can do to play ttt's game: the yardstick of bot_latency.py.

    DISCORD_TOKEN=… DISCORD_API_BASE=… DISCORD_GATEWAY_URL=… python bench/minimal_bot.py

The same game as ttt's against ``hard`` (the engine's own agent picks the bot's squares),
drawn the way ttt draws a 3×3 board (the emoji grid as content, one button per square,
Resign below), and custom_ids in ttt's grammar so the bench reads and clicks both bots
alike. Everything else ttt does is left out: games live in a dict (no database, nothing
survives a restart), no turn timeouts, no records, no languages, no checks beyond whose
turn it is. Each click is answered with one UPDATE_MESSAGE (the member's move and the
bot's reply together), each ``/ttt start`` with one CHANNEL_MESSAGE_WITH_SOURCE. What ttt
costs beyond this is the price of what it does beyond it.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import discord
import yarl
from discord import app_commands

from engine import Board, get_agent

EMOJI = {"X": "❌", "O": "⭕"}
GREEN, GREY = discord.ButtonStyle.success, discord.ButtonStyle.secondary


class Game:
    __slots__ = ("board", "member_id", "member_mark")

    def __init__(self, member_id: int, member_mark: str) -> None:
        self.board = Board.new()
        self.member_id = member_id
        self.member_mark = member_mark


class MinimalBot(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.none())
        self.tree = app_commands.CommandTree(self)
        self.games: dict[int, Game] = {}
        self.next_id = 1
        self.agent = get_agent("hard", seed=1)
        group = app_commands.Group(name="ttt", description="Tic-tac-toe")

        @group.command(name="start", description="Start a game against the bot")
        async def start(
            interaction: discord.Interaction, difficulty: str = "hard", first: str = "me"
        ) -> None:
            game = Game(interaction.user.id, "O" if first == "bot" else "X")
            game_id, self.next_id = self.next_id, self.next_id + 1
            self.games[game_id] = game
            if first == "random" and random.random() < 0.5:
                game.member_mark = "O"
            if game.member_mark == "O":
                game.board = game.board.play(self.agent.choose(game.board))
            content, view = render(game_id, game)
            await interaction.response.send_message(content, view=view)

        self.tree.add_command(group)

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type is not discord.InteractionType.component:
            return
        parts = str((interaction.data or {}).get("custom_id", "")).split(":")
        game = self.games.get(int(parts[2])) if len(parts) == 5 else None
        if game is None or game.board.is_over() or int(parts[3]) != game.board.move_count:
            await interaction.response.send_message("That board is out of date.", ephemeral=True)
            return
        if interaction.user.id != game.member_id:
            await interaction.response.send_message("Not your game.", ephemeral=True)
            return
        board = game.board.play(int(parts[4]))
        if not board.is_over():
            board = board.play(self.agent.choose(board))
        game.board = board
        if board.is_over():
            del self.games[int(parts[2])]
        content, view = render(int(parts[2]), game)
        await interaction.response.edit_message(content=content, view=view)


class Unlistened(discord.ui.View):
    """Buttons discord.py does not keep or dispatch: on_interaction answers every click."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_finished(self) -> bool:
        return True


def render(game_id: int, game: Game) -> tuple[str, discord.ui.View]:
    board = game.board
    over = board.is_over()
    line = board.winning_line() or ()
    view = Unlistened()
    grid = []
    for cell in range(9):
        mark = board[cell]
        grid.append(EMOJI[mark] if mark else "⬜")
        view.add_item(
            discord.ui.Button(
                custom_id=f"ttt:c:{game_id}:{board.move_count}:{cell}",
                style=GREEN if cell in line else GREY,
                emoji=EMOJI[mark] if mark else None,
                label=None if mark else "\u200b",
                disabled=mark is not None or over,
                row=cell // 3,
            )
        )
    if not over:
        view.add_item(
            discord.ui.Button(
                custom_id=f"ttt:r:{game_id}",
                label="Resign",
                row=3,
                style=discord.ButtonStyle.danger,
            )
        )
    rows = "\n".join("".join(grid[r * 3 : r * 3 + 3]) for r in range(3))
    outcome = board.outcome()
    status = "Your turn." if outcome is None else f"Game over: {outcome}."
    return f"<@{game.member_id}> vs the bot\n{rows}\n{status}", view


def main() -> None:
    if base := os.environ.get("DISCORD_API_BASE"):
        discord.http.Route.BASE = base.rstrip("/")
    if gateway := os.environ.get("DISCORD_GATEWAY_URL"):
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    MinimalBot().run(os.environ["DISCORD_TOKEN"], log_handler=None)


if __name__ == "__main__":
    main()
