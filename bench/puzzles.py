"""Re-prove the whole shipped puzzle set and print the table the issue asks for.

    python bench/puzzles.py            # every puzzle
    python bench/puzzles.py --per 50   # the first 50 of each board and n (a quick look)

For each board and ``n``: how many puzzles, how many re-prove (the side to move wins
within ``n`` and not sooner, exactly one first move does, the line's replies are the
longest defence: :func:`engine.puzzles.verify.problems`), how often the ladder's easy
and medium agents solve them (playing the solver's side against the longest defence,
seeded as the generator seeds them), the time to prove one (cold tables: each board's
first puzzle pays for them; CPU time, so other work on the machine does not count), and
the engine's CPU time to answer a puzzle move (judge the
main line's move and pick the reply) beside the time the hard agent takes for a game
move on the same positions.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import get_agent
from engine.puzzles import judge, load, reply, solves
from engine.puzzles.generate import agent
from engine.puzzles.records import KINDS, Puzzle
from engine.puzzles.verify import problems


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def answer_times(puzzle: Puzzle) -> tuple[float, float]:
    """Seconds to judge and answer each of the solver's main-line moves, and seconds for
    the hard agent to choose a move in the same positions (a game's bot move)."""
    board = puzzle.board()
    hard = get_agent("hard", seed=0, time_budget=2.0, variant=board.variant)
    answer = game = 0.0
    for step in range(puzzle.n):
        move = puzzle.line[2 * step]
        began = time.process_time()
        judge(board, move, puzzle.n - step)
        after = board.play(move)
        if not after.is_over():
            reply(after, puzzle.n - step - 1)
        answer += time.process_time() - began
        began = time.process_time()
        hard.choose(board)
        game += time.process_time() - began
        if after.is_over():
            break
        board = after.play(puzzle.line[2 * step + 1])
    return answer / puzzle.n, game / puzzle.n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per", type=int, default=None, help="at most this many per row")
    parser.add_argument("--answers", type=int, default=20, help="puzzles timed per board")
    args = parser.parse_args(argv)
    rows: dict[tuple[str, int], list[Puzzle]] = defaultdict(list)
    for puzzle in load():
        rows[(puzzle.kind, puzzle.n)].append(puzzle)
    print(f"machine: {machine()}")
    header = (
        f"{'board':<9}{'n':>3}{'puzzles':>9}{'proven':>8}{'unique':>8}"
        f"{'easy':>7}{'medium':>8}{'prove ms':>10}{'max ms':>8}"
    )
    print(header)
    print("-" * len(header))
    began_all, cpu_all = time.perf_counter(), time.process_time()
    failures = 0
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for kind in KINDS:
        for n in sorted(m for k, m in rows if k == kind):
            puzzles = rows[(kind, n)][: args.per]
            proven = unique = easy = medium = 0
            times = []
            for puzzle in puzzles:
                began = time.process_time()
                found = problems(puzzle)
                times.append(time.process_time() - began)
                if found:
                    failures += 1
                    print(f"  {puzzle.id}: {found}", file=sys.stderr)
                proven += not found
                unique += not any("first move" in f for f in found)
                board = puzzle.board()
                easy += solves(agent("easy", board), board, n)
                medium += solves(agent("medium", board), board, n)
            count = len(puzzles)
            for i, v in enumerate((count, unique, easy, medium)):
                totals[kind][i] += v
            print(
                f"{kind:<9}{n:>3}{count:>9}{proven:>8}{100 * unique / count:>7.0f}%"
                f"{100 * easy / count:>6.0f}%{100 * medium / count:>7.0f}%"
                f"{1000 * statistics.mean(times):>10.1f}{1000 * max(times):>8.0f}"
            )
    print("-" * len(header))
    for kind, (count, unique, easy, medium) in totals.items():
        print(
            f"{kind:<9}{'all':>3}{count:>9}{'':>8}{100 * unique / count:>7.0f}%"
            f"{100 * easy / count:>6.0f}%{100 * medium / count:>7.0f}%"
        )
    wall, cpu = time.perf_counter() - began_all, time.process_time() - cpu_all
    print(f"proved and played in {wall:.0f} s ({cpu:.0f} CPU s), {failures} failing")
    print()
    print(f"{'board':<9}{'puzzle move ms':>16}{'game move ms (hard)':>21}")
    for kind in KINDS:
        sample = [p for p in load() if p.kind == kind][: args.answers]
        pairs = [answer_times(p) for p in sample]
        print(
            f"{kind:<9}{1000 * statistics.mean(a for a, _ in pairs):>16.1f}"
            f"{1000 * statistics.mean(g for _, g in pairs):>21.1f}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
