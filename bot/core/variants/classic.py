"""The classic boards as a :class:`~bot.core.variants.protocol.GameVariant`: N×N, k in a
row (:class:`engine.Board`, 3×3 to 5×5). The engine solves them exactly, so their hints
(:mod:`bot.core.hints`) and reviews (:mod:`bot.core.review`) are proofs."""

from __future__ import annotations

from bot.core.engine_advice import EngineHint
from bot.core.hints import INSTANT_CELLS, Hint, hint_for
from bot.core.models import Game, Variant
from bot.core.refusals import Refusal
from bot.core.review import instant, review, review_moves
from bot.core.variants.protocol import Review, Runner
from engine import Board


class Classic:
    name: Variant = "classic"
    sized = True
    keeps_agents = True

    def shape(self, size: int) -> tuple[int, int]:
        board = Board.new(size)
        return board.size, board.k

    def label(self, size: int) -> str:
        return f"{size}×{size}"

    def illegal_move(self, board: Board, cell: int) -> Refusal:
        return Refusal("move.taken")  # taken, or off the board: every empty square is legal

    def board_choice(self, board: Board) -> list[int] | None:
        return None

    def no_board_choice(self, board: Board) -> Refusal:
        return Refusal("move.stale")  # never offered: an old or foreign click

    def instant_hint(self, board: Board) -> Hint | None:
        if board.size * board.size > INSTANT_CELLS:
            return None
        return hint_for(board.size, board.k, board.x, board.o)

    async def hint(self, board: Board, run: Runner) -> Hint | EngineHint:
        return await run(hint_for, board.size, board.k, board.x, board.o)

    async def review(self, game: Game, run: Runner) -> Review:
        if instant(game):
            return Review(game, review(game))
        return Review(game, await run(review_moves, game.size, game.k, game.moves))


CLASSIC = Classic()
