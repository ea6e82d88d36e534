"""A puzzle as data, and the shipped set (``engine/data/puzzles.jsonl``).

The file is JSON Lines: a header line (``{"format": 1, ...}``: how it was generated,
see :mod:`engine.puzzles.generate`), then one puzzle a line, sorted by board kind, then
``n``, then id. A puzzle line holds:

- ``id``: the board kind and a hash of the position up to symmetry (so the same
  position found again keeps its id across regenerations), e.g. ``"5x5-3f9a0c12d4"``;
- ``kind``: ``"3x3"``, ``"4x4"``, ``"5x5"`` or ``"ultimate"``;
- ``position``: the board's string (:meth:`engine.Board.to_string` or
  :meth:`engine.UltimateBoard.to_string`, which :meth:`Puzzle.board` parses back);
- ``to_move``: ``"X"`` or ``"O"``, the solver;
- ``n``: the solver wins within ``n`` of its own moves (the winning one included), and
  not within ``n - 1``;
- ``first``: the only first move that wins within ``n`` (a cell number);
- ``line``: the main line, ``2n - 1`` cells: the solver's move, the longest defence,
  and so on to the winning move (:func:`engine.puzzles.proof.main_line`);
- ``choices``: the solver's legal first moves; ``solved_by``: the agents of the ladder
  (``easy``, ``medium``, seeded as the generator seeds them) that solve it against the
  longest defence; ``rating``: a starting puzzle rating from those facts
  (:func:`seed_rating`), for the bot's Glicko-2 to move from;
- ``refutations`` (5×5 only; absent elsewhere): the stored verdict and refutation of
  every other move of the solver along the line (:mod:`engine.puzzles.refutations`).
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from engine.board import Board
from engine.ultimate.board import UltimateBoard

FORMAT = 1
DATA = Path(__file__).resolve().parent.parent / "data"
PUZZLES_PATH = DATA / "puzzles.jsonl"

PuzzleBoard = Board | UltimateBoard
KINDS: tuple[str, ...] = ("3x3", "4x4", "5x5", "ultimate")
"""The boards puzzles are set on, in the file's order."""
MIN_N = {"3x3": 2, "4x4": 3, "5x5": 3, "ultimate": 2}
"""The shortest win a puzzle of each kind asks (the solver's moves): none is trivial."""
MAX_N = {"3x3": 5, "4x4": 6, "5x5": 5, "ultimate": 3}
"""The longest win proven for each kind: past it a position is not made a puzzle."""
DROPPED_WHEN_SOLVED_BY: dict[str, frozenset[str]] = {
    "4x4": frozenset({"easy", "medium"}),
    "5x5": frozenset({"medium"}),
    "ultimate": frozenset({"medium"}),
}
"""A position is no puzzle of its kind when these agents all solve it
(:mod:`engine.puzzles.generate`): on 5×5 and ultimate the medium agent, on 4×4 easy and
medium both (a puzzle one of them fails: as lichess keeps a position where a real player
missed the win, easy standing for a casual member). 3×3 is not filtered."""


def dropped(kind: str, solved_by: Iterable[str]) -> bool:
    """True when a position of ``kind`` solved by ``solved_by`` is no puzzle."""
    agents = DROPPED_WHEN_SOLVED_BY.get(kind)
    return agents is not None and agents <= set(solved_by)


_PARSE: dict[str, Callable[[str], PuzzleBoard]] = {
    "3x3": Board.from_string,
    "4x4": Board.from_string,
    "5x5": Board.from_string,
    "ultimate": UltimateBoard.from_string,
}
STARTS: dict[str, PuzzleBoard] = {
    "3x3": Board.new(3),
    "4x4": Board.new(4),
    "5x5": Board.new(5),
    "ultimate": UltimateBoard.new(),
}
"""The empty board of each kind (where the generator's games start)."""
_KIND_OF = {("classic", 3): "3x3", ("classic", 4): "4x4", ("classic", 5): "5x5"}
_KIND_OF[("ultimate", UltimateBoard.size)] = "ultimate"


_REFUTATION_CHARS = frozenset(".#" + string.ascii_letters)
"""What a stored refutation is written with (:mod:`engine.puzzles.refutations`)."""


class UnknownPuzzle(LookupError):
    """No puzzle in the set has that id."""


class BadPuzzleFile(ValueError):
    """A puzzle file that cannot be read (bad JSON, a missing field, a bad position)."""


def kind_of(board: PuzzleBoard) -> str:
    """The puzzle kind of a board ("3x3", "4x4", "5x5", "ultimate").

    Raises:
        ValueError: a board puzzles are not set on (another size or k).
    """
    kind = _KIND_OF.get((board.variant, board.size))
    if kind is None or _PARSE[kind](board.to_string()) != board:
        raise ValueError(f"no puzzles on {board.variant} {board.size}×{board.size}")
    return kind


def parse_board(kind: str, position: str) -> PuzzleBoard:
    """The board of a puzzle kind from its string.

    Raises:
        ValueError: an unknown kind, or a bad position (engine.InvalidBoard).
    """
    parse = _PARSE.get(kind)
    if parse is None:
        raise ValueError(f"unknown puzzle kind {kind!r}: one of {', '.join(KINDS)}")
    board = parse(position)  # the kind's parser: the board reads back (kind_of's check)
    if _KIND_OF.get((board.variant, board.size)) != kind:
        raise ValueError(f"{position!r} is not a {kind} position")
    return board


def puzzle_id(kind: str, canonical_key: object) -> str:
    """A short id from the position's key up to symmetry: stable across regenerations."""
    digest = hashlib.sha256(f"{kind}:{canonical_key}".encode()).hexdigest()
    return f"{kind}-{digest[:10]}"


def seed_rating(n: int, choices: int, solved_by: Iterable[str]) -> int:
    """A starting rating for a puzzle, before any member has tried it: 1000 for a win in
    two that the easy agent solves, +250 a move more, +150 for each of easy and medium
    that fails it, +50 when more than 12 first moves are open. A guess for Glicko-2 to
    correct (its deviation should start wide), not a measurement."""
    solved = set(solved_by)
    rating = 1000 + 250 * (n - 2)
    rating += 150 * ("easy" not in solved) + 150 * ("medium" not in solved)
    return rating + 50 * (choices > 12)


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One proven puzzle (see the module's docstring for the fields)."""

    id: str
    kind: str
    position: str
    to_move: str
    n: int
    first: int
    line: tuple[int, ...]
    choices: int
    solved_by: tuple[str, ...]
    rating: int
    refutations: tuple[str, ...] = ()

    def board(self) -> PuzzleBoard:
        """The puzzle's position (the solver to move)."""
        return parse_board(self.kind, self.position)

    def to_json(self) -> str:
        """One line of the set's file (keys sorted, no spaces: byte-stable)."""
        fields = {name: getattr(self, name) for name in self.__slots__}
        fields["line"] = list(self.line)
        fields["solved_by"] = list(self.solved_by)
        if self.refutations:
            fields["refutations"] = list(self.refutations)
        else:  # the kinds without them: their lines as they were
            del fields["refutations"]
        return json.dumps(fields, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Puzzle:
        """Parse :meth:`to_json`'s line.

        Raises:
            BadPuzzleFile: bad JSON, a missing or mistyped field, or a bad position.
        """
        try:
            raw = json.loads(text)
            puzzle = cls(
                id=str(raw["id"]),
                kind=str(raw["kind"]),
                position=str(raw["position"]),
                to_move=str(raw["to_move"]),
                n=int(raw["n"]),
                first=int(raw["first"]),
                line=tuple(int(c) for c in raw["line"]),
                choices=int(raw["choices"]),
                solved_by=tuple(str(a) for a in raw["solved_by"]),
                rating=int(raw["rating"]),
                refutations=tuple(str(r) for r in raw.get("refutations", ())),
            )
            board = puzzle.board()
        except (ValueError, KeyError, TypeError) as exc:
            raise BadPuzzleFile(f"bad puzzle line {text[:80]!r}: {exc}") from None
        if board.to_move != puzzle.to_move or len(puzzle.line) != 2 * puzzle.n - 1:
            raise BadPuzzleFile(f"puzzle {puzzle.id}: the side to move or the line is wrong")
        if puzzle.refutations and (
            len(puzzle.refutations) != puzzle.n
            or any(len(row) != board.cell_count for row in puzzle.refutations)
            or not set("".join(puzzle.refutations)) <= _REFUTATION_CHARS
        ):
            raise BadPuzzleFile(f"puzzle {puzzle.id}: its refutations do not fit its line")
        return puzzle


def read(path: Path) -> tuple[dict[str, object], list[Puzzle]]:
    """The header and the puzzles of a set's file.

    Raises:
        BadPuzzleFile: the file's header or a line cannot be read.
        OSError: the file cannot be opened.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        header = json.loads(lines[0]) if lines else {}
    except ValueError as exc:
        raise BadPuzzleFile(f"bad header: {exc}") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise BadPuzzleFile(f"{path}: not a puzzle set of format {FORMAT}")
    return header, [Puzzle.from_json(line) for line in lines[1:] if line]


def write(path: Path, header: dict[str, object], puzzles: Iterable[Puzzle]) -> None:
    """Write a set: the header, then the puzzles in the file's order."""
    order = {kind: i for i, kind in enumerate(KINDS)}
    ranked = sorted(puzzles, key=lambda p: (order[p.kind], p.n, p.id))
    text = json.dumps({**header, "format": FORMAT}, sort_keys=True, separators=(",", ":"))
    body = "".join(p.to_json() + "\n" for p in ranked)
    path.write_text(text + "\n" + body, encoding="utf-8")


@cache
def _shipped() -> tuple[dict[str, object], tuple[Puzzle, ...]]:
    header, puzzles = read(PUZZLES_PATH)
    return header, tuple(puzzles)


def load() -> tuple[Puzzle, ...]:
    """The shipped set, read once per process (in the file's order).

    Raises:
        BadPuzzleFile: the shipped file is damaged.
    """
    return _shipped()[1]


def set_seed() -> int:
    """The seed the shipped set was generated from (its header's; 0 if it says none).

    Raises:
        BadPuzzleFile: the shipped file is damaged.
    """
    seed = _shipped()[0].get("seed")
    return seed if isinstance(seed, int) else 0


@cache
def _by_id() -> dict[str, Puzzle]:
    return {p.id: p for p in load()}


def by_id(puzzle: str) -> Puzzle:
    """The shipped puzzle with this id.

    Raises:
        UnknownPuzzle: no puzzle has it (a LookupError).
    """
    found = _by_id().get(puzzle)
    if found is None:
        raise UnknownPuzzle(f"no puzzle {puzzle!r}")
    return found
