"""The generator's command line: ``python -m engine puzzles generate``.

``--budget``, ``--seed``, ``--again`` as :mod:`engine.puzzles.generate` says; and
``--boards 4x4`` (a comma-separated list) regenerates only those boards: the file's other
puzzles are kept line for line and its header keeps their counts, so a board's filter
can change without re-running the others (5×5 alone takes most of the budget).
``--again --boards 4x4`` replays that board's count from the header, the same bytes.
The 5×5 puzzles' refutations (:mod:`engine.puzzles.refutations`) are worked out last,
in ``--workers`` processes; ``python -m engine puzzles refute`` gives them to a set that
lacks them, changing nothing else (ids, order, the schedule).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.puzzles import generate as generate_module
from engine.puzzles import schedule
from engine.puzzles.generate import DEFAULT_BUDGET, SEED, SHARES, examine, generate
from engine.puzzles.records import PUZZLES_PATH, Puzzle, kind_of, read, write
from engine.puzzles.refutations import with_refutations

WORKERS = 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine puzzles generate",
        description=f"{generate_module.__doc__}\n{__doc__}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="CPU seconds in all")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--again", action="store_true", help="replay the header of --out")
    parser.add_argument("--boards", default=",".join(SHARES), help="e.g. 4x4: only those")
    parser.add_argument("--out", type=Path, default=PUZZLES_PATH)
    parser.add_argument("--schedule", type=Path, default=schedule.SCHEDULE_PATH)
    parser.add_argument("--days", type=int, default=schedule.DAYS, help="dailies scheduled")
    parser.add_argument("--workers", type=int, default=WORKERS, help="for the refutations")
    args = parser.parse_args(argv)
    boards = tuple(b for b in args.boards.split(",") if b)
    if not boards or not set(boards) <= set(SHARES):
        print(f"error: --boards takes some of {','.join(SHARES)}", file=sys.stderr)
        return 2
    partial = set(boards) != set(SHARES)
    old_header: dict[str, object] = {}
    old: list[Puzzle] = []
    games: dict[str, int] | None = None
    seed: int = args.seed
    caps: dict[str, int] | None = None
    if args.out.exists():
        old_header, old = read(args.out)
        if args.again or partial:
            seed, recorded, caps = replayed(old_header)
            games = recorded if args.again else None
    elif args.again or partial:
        print(f"error: --again and --boards need {args.out}", file=sys.stderr)
        return 2
    began = time.process_time()

    def report(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    header, puzzles = generate(seed, args.budget, games, caps, report, boards)
    if partial:
        header, puzzles = merged(old_header, old, header, puzzles, boards)
    lines = schedule.read_schedule(args.schedule) if args.schedule.exists() else []
    puzzles += kept_for_schedule(lines, old, puzzles)
    write(args.out, header, with_refutations(puzzles, args.workers))
    # Through the runtime's own continuation (rounds of the set once it is used up), so
    # writing days into the file changes none of them. Days past the file follow the
    # set: a new set should be written with --days past today (the docs say so).
    extended = schedule.continued(lines, puzzles, seed, args.days)
    schedule.write_schedule(args.schedule, extended)
    counts = {k: sum(p.kind == k for p in puzzles) for k in SHARES}
    print(f"{len(puzzles)} puzzles {counts}, {len(extended) - len(lines)} dailies added, "
          f"{time.process_time() - began:.0f} CPU s", file=sys.stderr)  # fmt: skip
    return 0


def refute(argv: list[str] | None = None) -> int:
    """``python -m engine puzzles refute``: the set's missing refutations worked out and
    written in, the rest of the file unchanged."""
    parser = argparse.ArgumentParser(
        prog="python -m engine puzzles refute", description=refute.__doc__
    )
    parser.add_argument("--out", type=Path, default=PUZZLES_PATH)
    parser.add_argument("--workers", type=int, default=WORKERS)
    args = parser.parse_args(argv)
    began = time.time()
    header, puzzles = read(args.out)
    done = with_refutations(puzzles, args.workers)
    write(args.out, header, done)
    given = sum(a.refutations != b.refutations for a, b in zip(puzzles, done, strict=True))
    print(f"{given} puzzles given refutations in {time.time() - began:.0f} s", file=sys.stderr)
    return 0


def merged(
    old_header: dict[str, object], old: list[Puzzle],
    header: dict[str, object], new: list[Puzzle], boards: tuple[str, ...],
) -> tuple[dict[str, object], list[Puzzle]]:  # fmt: skip
    """A whole set from an old one and a run of only ``boards``: the old puzzles of the
    other boards unchanged, the header's counts of the other boards the old ones.

    Raises:
        ValueError: the old header does not say how it was made.
    """
    _, old_games, _ = replayed(old_header)
    games = header["games"]
    assert isinstance(games, dict)
    counts = {**old_games, **{k: games[k] for k in boards}}
    kept = [p for p in old if p.kind not in boards]
    return {**header, "games": dict(sorted(counts.items()))}, kept + new


def replayed(header: dict[str, object]) -> tuple[int, dict[str, int], dict[str, int]]:
    """The seed, games and caps a set's header records.

    Raises:
        ValueError: the header lacks them.
    """
    seed, games, caps = header.get("seed"), header.get("games"), header.get("caps")
    if not (isinstance(seed, int) and isinstance(games, dict) and isinstance(caps, dict)):
        raise ValueError("the set's header does not say how it was made")
    counts = {str(k): int(v) for k, v in games.items()}
    return seed, counts, {str(k): int(v) for k, v in caps.items()}


def kept_for_schedule(lines: list[str], old: list[Puzzle], new: list[Puzzle]) -> list[Puzzle]:
    """The scheduled puzzles of the old set that ``new`` lacks, proven again.

    Raises:
        ValueError: the schedule names a puzzle in neither set, or one that no longer
            proves (the file was damaged): a past daily must never change.
    """
    have = {p.id for p in new}
    old_by_id = {p.id: p for p in old}
    kept = []
    for puzzle_id_ in dict.fromkeys(lines):
        if puzzle_id_ in have:
            continue
        puzzle = old_by_id.get(puzzle_id_)
        if puzzle is None:
            raise ValueError(f"the schedule names {puzzle_id_}, which no set holds")
        again = examine(puzzle.board(), kind_of(puzzle.board()))
        if again is None or (again.n, again.line) != (puzzle.n, puzzle.line):
            raise ValueError(f"the scheduled puzzle {puzzle_id_} no longer proves")
        kept.append(puzzle)
    return kept
