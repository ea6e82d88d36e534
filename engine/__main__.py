"""Command line: ``python -m engine arena|ladder|bench|book|sparse|puzzles``."""

from __future__ import annotations

import argparse
import itertools
import sys

from engine.agents import LADDER, VARIANTS


def _ladder(games: int, seed: int, size: int = 3, think: float | None = None) -> str:
    from engine.arena import run_arena

    header = f"{'X':<11}{'O':<11}{'X wins':>8}{'O wins':>8}{'draws':>8}"
    rows = [header, "-" * len(header)]
    pairs = [(name, "random") for name in LADDER] + [("random", name) for name in LADDER[1:]]
    for lower, upper in itertools.pairwise(LADDER[1:]):
        pairs += [(upper, lower), (lower, upper)]
    for x, o in pairs:
        r = run_arena(x, o, games, seed, size=size, think=think)
        rows.append(f"{x:<11}{o:<11}{r.x_wins:>8}{r.o_wins:>8}{r.draws:>8}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    arena = sub.add_parser("arena", help="play two agents against each other")
    arena.add_argument("--x", default="unbeatable", choices=LADDER, help="the agent playing X")
    arena.add_argument("--o", default="random", choices=LADDER, help="the agent playing O")
    arena.add_argument("--games", type=int, default=100)
    arena.add_argument("--seed", type=int, default=None)
    arena.add_argument("--size", type=int, default=3)
    arena.add_argument("--k", type=int, default=None, help="marks in a row to win")
    arena.add_argument("--variant", default="classic", choices=VARIANTS)
    arena.add_argument("--think", type=float, default=None, help="think time (s) where searched")
    ladder = sub.add_parser("ladder", help="every level against random and the level below")
    ladder.add_argument("--games", type=int, default=1000)
    ladder.add_argument("--seed", type=int, default=1)
    ladder.add_argument("--size", type=int, default=3)
    ladder.add_argument("--think", type=float, default=None, help="think time on 5×5 (s)")
    bench = sub.add_parser("bench", help="move times, cold and warm")
    bench.add_argument("--games", type=int, default=200)
    bench.add_argument(
        "--sizes",
        action="store_true",
        help="per-move times on 3×3, 4×4 and 5×5, and the event loop's stall with the pool",
    )
    bench.add_argument("--think", type=float, default=2.0, help="think time on 5×5 (s)")
    bench.add_argument("--searches", type=int, default=20, help="concurrent 5×5 searches")
    bench.add_argument(
        "--variant",
        default="classic",
        choices=VARIANTS,
        help="ultimate: perft speed, playouts/s and move times at --think",
    )
    for name, what in (("book", "opening book"), ("sparse", "sparse table")):
        table = sub.add_parser(name, help=f"regenerate the 5×5 {what} (engine/data)")
        table.add_argument("--depth", type=int, default=None, help="marks it reaches")
        table.add_argument("--workers", type=int, default=2)
        table.add_argument("--out", default=None, help="where to write it (default: the engine's)")
    sub.choices["sparse"].add_argument(
        "--progress", default=None, help="append searched positions here; take them up again"
    )
    puzzles = sub.add_parser("puzzles", help="the puzzle set (engine/data): generate it")
    puzzles.add_argument("action", choices=["generate", "refute"])
    puzzles.add_argument("rest", nargs=argparse.REMAINDER, help="see: puzzles generate -h")
    args = parser.parse_args(argv)

    try:
        if args.command == "arena":
            from engine.arena import run_arena

            result = run_arena(
                args.x, args.o, args.games, args.seed, args.size, args.k, args.think, args.variant
            )
            print(result.format())
        elif args.command in ("book", "sparse"):
            from engine import book, sparse

            forwarded = ["--workers", str(args.workers)]
            forwarded += [] if args.depth is None else ["--depth", str(args.depth)]
            forwarded += [] if args.out is None else ["--out", args.out]
            if args.command == "sparse" and args.progress is not None:
                forwarded += ["--progress", args.progress]
            return (book.main if args.command == "book" else sparse.main)(forwarded)
        elif args.command == "puzzles":
            from engine.puzzles import regenerate

            run = regenerate.main if args.action == "generate" else regenerate.refute
            return run(args.rest)
        elif args.command == "ladder":
            print(_ladder(args.games, args.seed, args.size, args.think))
        else:
            from engine import bench as engine_bench

            if args.variant == "ultimate":
                from engine.ultimate import bench as ultimate_bench

                print(ultimate_bench.run(max(1, args.games // 100), args.think))
            elif args.sizes:
                print(engine_bench.run_sizes(args.games, args.think, args.searches))
            else:
                print(engine_bench.run(games=args.games))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
