# The compiled module's interface (engine/ultimate/_csearch.c).
from collections.abc import Callable, Sequence

def perft(
    me: Sequence[int],
    them: Sequence[int],
    mine_won: int,
    theirs_won: int,
    done: int,
    forced: int,
    depth: int,
    /,
) -> int: ...
def playout(
    me: Sequence[int],
    them: Sequence[int],
    mine_won: int,
    theirs_won: int,
    done: int,
    forced: int,
    random: Callable[[], float],
    decisive: bool = False,
    /,
) -> float: ...

class Tree:
    def __init__(
        self,
        me: Sequence[int],
        them: Sequence[int],
        mine_won: int,
        theirs_won: int,
        done: int,
        forced: int,
        /,
    ) -> None: ...
    @property
    def proven(self) -> int | None: ...
    @property
    def visits(self) -> int: ...
    @property
    def size(self) -> int: ...
    def search(
        self,
        seconds: float | None,
        iterations: int | None,
        seed: int = 1,
        exploration: float = 0.7,
        decisive: bool = True,
        solver: bool = True,
        random: Callable[[], float] | None = None,
    ) -> int: ...
    def nodes(self) -> list[tuple[int, int, int, float, int | None]]: ...
    def best_moves(self) -> list[int]: ...
    def child_stats(self, move: int, /) -> tuple[int, float, int | None] | None: ...
    def advance(self, move: int, /) -> bool: ...
