"""An independent exact solver for N×N, k in a row (5×5 here), to check ``engine.exact``.

Shares no code with ``engine``: lines are recomputed here and the search is a plain
alpha-beta over the three game values (+1, 0, -1 for the side to move) with a table of
bounds. Its only shortcuts are the textbook ones, each exact: a win now is taken; two
open threats of the opponent lose; one must be blocked; a position where nobody can
complete a line any more is a draw; and a cell in no line that either side can still
complete is never tried while another cell is (a mark there changes nothing but the
turn, and in this game an extra mark never hurts). With ``pairing`` it also stops
where a side provably cannot complete a line: when disjoint pairs of empty cells can be
chosen, one pair inside each line that side could still fill, the other side answers
every move into a pair with its partner (a pairing strategy; found here by exhaustive
backtracking, not the engine's greedy pass). The tests run it both ways.
"""

from __future__ import annotations


def line_masks(size: int, k: int) -> list[int]:
    masks = []
    for r in range(size):
        for c in range(size):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= rr < size and 0 <= cc < size for rr, cc in cells):
                    masks.append(sum(1 << (rr * size + cc) for rr, cc in cells))
    return masks


def bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


class Solver:
    """Exact values of positions given as ``(mover's cells, opponent's cells)`` masks."""

    def __init__(self, size: int = 5, k: int = 4, pairing: bool = True) -> None:
        self.size, self.k, self.pairing = size, k, pairing
        self.lines = line_masks(size, k)
        self.full = (1 << size * size) - 1
        self.bounds: dict[tuple[int, int], tuple[int, int]] = {}

    def paired(self, attacker: int, defender: int, empty: int) -> bool:
        """True if a pairing blocks every line the attacker could still fill."""
        open_lines = [line & empty for line in self.lines if not line & defender]
        if any(free.bit_count() < 2 for free in open_lines):
            return False
        budget = [400]

        def solve(todo: list[int], used: int) -> bool:
            if not todo:
                return True
            budget[0] -= 1
            if budget[0] < 0:
                return False
            line = min(todo, key=lambda free: (free & ~used).bit_count())
            cells = bits(line & ~used)
            for i, a in enumerate(cells):
                for b in cells[i + 1 :]:
                    pair = 1 << a | 1 << b
                    rest = [free for free in todo if free & pair != pair]
                    if solve(rest, used | pair):
                        return True
            return False

        return solve(open_lines, 0)

    def has_line(self, marks: int) -> bool:
        return any(marks & line == line for line in self.lines)

    def value(self, me: int, opp: int, alpha: int = -1, beta: int = 1) -> int:
        """Value for the side to move (``me``) of a running position."""
        empty = self.full & ~(me | opp)
        threats = 0
        live = 0
        for line in self.lines:
            if not line & opp:
                live |= line
                if (line & empty).bit_count() == 1:
                    return 1  # complete it now
            if not line & me:
                live |= line
                if (line & empty).bit_count() == 1:
                    threats |= line & empty
        if empty.bit_count() == 1:
            return 0
        if threats.bit_count() > 1:
            return -1
        if not live & empty:
            return 0  # no line can be completed by anyone
        if self.pairing:
            if alpha >= 0 and self.paired(me, opp, empty):
                return 0  # we cannot win: at most a draw, and a draw is not enough
            if beta <= 0 and self.paired(opp, me, empty):
                return 0  # they cannot win: at least a draw, which is enough
        low, high = self.bounds.get((me, opp), (-1, 1))
        if low == high:
            return low
        if low >= beta:
            return low
        if high <= alpha:
            return high
        alpha, beta = max(alpha, low), min(beta, high)
        best, start_alpha = -1, alpha
        for cell in self.ordered(me, opp, threats or live & empty):
            score = -self.value(opp, me | 1 << cell, -beta, -alpha)
            best = max(best, score)
            alpha = max(alpha, score)
            if alpha >= beta:
                break
        if best <= start_alpha:
            high = min(high, best)
        elif best >= beta:
            low = max(low, best)
        else:
            low = high = best
        self.bounds[(me, opp)] = (low, high)
        return best

    def ordered(self, me: int, opp: int, cells: int) -> list[int]:
        """Cells that give the mover k-1 in a line the opponent has not entered, first."""
        making = 0
        for line in self.lines:
            if not line & opp and (line & me).bit_count() == self.k - 2:
                making |= line
        return bits(cells & making) + bits(cells & ~making)

    def child_value(self, me: int, opp: int, cell: int) -> int:
        """Value for the mover of playing ``cell``."""
        mine = me | 1 << cell
        if self.has_line(mine):
            return 1
        if mine | opp == self.full:
            return 0
        return -self.value(opp, mine)

    def keeping(self, text: str) -> tuple[int, set[int]]:
        """(value for the side to move, the moves that keep it) of a running position
        given as a row-major string of '.', 'X' and 'O'."""
        x = sum(1 << i for i, ch in enumerate(text) if ch == "X")
        o = sum(1 << i for i, ch in enumerate(text) if ch == "O")
        me, opp = (x, o) if text.count("X") == text.count("O") else (o, x)
        options = {
            cell: self.child_value(me, opp, cell) for cell, ch in enumerate(text) if ch == "."
        }
        top = max(options.values())
        return top, {cell for cell, v in options.items() if v == top}
