"""Ultimate tic-tac-toe as a :class:`~bot.core.variants.protocol.GameVariant`: nine 3×3
boards in a 3×3 grid (:class:`engine.UltimateBoard`); a move sends the opponent to the
small board of the same place, and one sent to a decided board moves anywhere (a free
move: the member first chooses a small board to look into). No solver reaches its
positions: hints and reviews are the engine's estimate (:mod:`bot.core.engine_advice`)."""

from __future__ import annotations

from bot.core.engine_advice import EngineHint, engine_hint, engine_review
from bot.core.hints import Hint
from bot.core.models import Game, Variant
from bot.core.refusals import Refusal
from bot.core.variants.protocol import Review, Runner
from engine import UltimateBoard


class Ultimate:
    name: Variant = "ultimate"
    sized = False
    keeps_agents = False
    """No agent of the bot's own: its moves are searched in the engine's pool, whose
    worker keeps each game's tree from one move to the next (engine/pool_worker.py); with
    no pool (tests), by an agent made for the move."""

    def shape(self, size: int) -> tuple[int, int]:
        return UltimateBoard.size, 3  # three in a row, in a small board and across them

    def label(self, size: int) -> str:
        return "ultimate"

    def illegal_move(self, board: UltimateBoard, cell: int) -> Refusal:
        """Taken (or off the board), or an empty square outside the small board the mover
        is sent to (or in a decided one)."""
        if not 0 <= cell < board.cell_count or board[cell]:
            return Refusal("move.taken")
        forced = board.forced_board
        if forced is None:
            return Refusal("move.elsewhere_any")
        return Refusal("move.elsewhere", board_key=f"ultimate.board.{forced}")

    def board_choice(self, board: UltimateBoard) -> list[int] | None:
        return board.playable_boards() if board.forced_board is None else None

    def no_board_choice(self, board: UltimateBoard) -> Refusal:
        if board.forced_board is None:
            return Refusal("move.stale")
        return Refusal("move.board_forced", board_key=f"ultimate.board.{board.forced_board}")

    def instant_hint(self, board: UltimateBoard) -> Hint | None:
        return None  # a search of 0.6 s: never on the event loop

    async def hint(self, board: UltimateBoard, run: Runner) -> Hint | EngineHint:
        return await run(engine_hint, board.x, board.o, board.last)

    async def review(self, game: Game, run: Runner) -> Review:
        return Review(game, [], await run(engine_review, game.moves))


ULTIMATE = Ultimate()
