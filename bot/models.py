"""Domain records: a game and a challenge, as stored. Immutable; change with ``replace``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from engine import Board

Status = Literal["running", "finished"]
EndReason = Literal["line", "draw", "resign", "timeout", "abandoned"]
ChallengeStatus = Literal["pending", "accepted", "declined", "expired"]
XChoice = Literal["challenger", "opponent", "random"]


@dataclass(frozen=True, slots=True)
class Game:
    id: int
    guild_id: int | None
    channel_id: int
    message_id: int | None
    size: int
    k: int
    player_x: int
    player_o: int
    bot_side: Literal["X", "O"] | None
    difficulty: str | None
    moves: tuple[int, ...]
    status: Status
    result: Literal["X", "O", "draw"] | None
    end_reason: EndReason | None
    turn_deadline: float | None
    created_at: float
    updated_at: float
    finished_at: float | None = None
    rematch_of: int | None = None

    @property
    def board(self) -> Board:
        board = Board.new(self.size, self.k)
        for cell in self.moves:
            board = board.play(cell)
        return board

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def running(self) -> bool:
        return self.status == "running"

    def player(self, mark: str) -> int:
        return self.player_x if mark == "X" else self.player_o

    def mark_of(self, user_id: int) -> Literal["X", "O"] | None:
        """The side a user plays; in a bot game the bot's side is never a member's."""
        if user_id == self.player_x and self.bot_side != "X":
            return "X"
        if user_id == self.player_o and self.bot_side != "O":
            return "O"
        return None

    def with_changes(self, **changes: object) -> Game:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class Challenge:
    id: int
    guild_id: int | None
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int
    x_player: XChoice
    size: int
    k: int
    status: ChallengeStatus
    expires_at: float
    created_at: float
    game_id: int | None = None
    rematch_of: int | None = None

    def with_changes(self, **changes: object) -> Challenge:
        return replace(self, **changes)
