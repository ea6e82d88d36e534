"""The compiled search (engine/ultimate/_csearch.c) agrees with the Python it replaces:
the same perft counts, the same playout and the same tree, node for node, for the same
random numbers, the same proofs; and the reference player's moves do not change when its
playouts run compiled.

``pip install -e .`` builds the module (gcc and Python's headers are on every machine
this runs on); a missing module fails here rather than slowing the engine unnoticed."""

from __future__ import annotations

import random
import sys
import threading
from pathlib import Path

import pytest

from engine.ultimate import UltimateBoard, cell_of
from engine.ultimate.fast import Position, perft, playout
from engine.ultimate.mcts import PythonTree, make_tree

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from ultimate_reference import ReferencePlayer

from engine.ultimate import _csearch


def fields(p: Position) -> tuple[list[int], list[int], int, int, int, int]:
    return p.me, p.them, p.mine_won, p.theirs_won, p.done, p.forced


def random_positions(seed: int, count: int, longest: int = 60) -> list[UltimateBoard]:
    rng, boards = random.Random(seed), []
    while len(boards) < count:
        board = UltimateBoard.new()
        for _ in range(rng.randrange(0, longest)):
            if board.is_over():
                break
            board = board.play(rng.choice(board.legal_moves()))
        if not board.is_over():
            boards.append(board)
    return boards


@pytest.mark.parametrize(("depth", "count"), [(1, 81), (2, 720), (3, 6336), (4, 55080)])
def test_compiled_perft_from_the_start(depth: int, count: int) -> None:
    assert _csearch.perft(*fields(Position.of(UltimateBoard.new())), depth) == count


def test_compiled_perft_agrees_in_random_positions() -> None:
    for board in random_positions(3, 60):
        p = Position.of(board)
        assert _csearch.perft(*fields(p), 3) == perft(p, 3), board.to_string()


@pytest.mark.parametrize("decisive", [False, True])
def test_a_compiled_playout_is_the_python_playout_for_the_same_seed(decisive: bool) -> None:
    results = set()
    for i, board in enumerate(random_positions(5, 300)):
        p = Position.of(board)
        compiled = _csearch.playout(*fields(p), random.Random(i).random, decisive)
        plain = playout(*fields(p.copy()), random.Random(i).random, decisive)
        assert compiled == plain, board.to_string()
        results.add(compiled)
    assert results == {0.0, 0.5, 1.0}


def test_a_failing_random_source_raises() -> None:
    def broken() -> float:
        raise RuntimeError("no numbers")

    with pytest.raises(RuntimeError, match="no numbers"):
        _csearch.playout(*fields(Position.of(UltimateBoard.new())), broken)


def test_both_trees_prove_the_same_positions() -> None:
    """Positions a few moves from the end: whatever both searches prove, they agree on."""
    proved = 0
    late = [b for b in random_positions(9, 300, longest=90) if b.move_count >= 40]
    for board in late[:30]:
        p = Position.of(board)
        compiled, plain = make_tree(p), PythonTree(p)
        compiled.search(None, 1000, seed=2)
        plain.search(None, 1000, seed=2)
        if compiled.proven is not None and plain.proven is not None:
            assert compiled.proven == plain.proven, board.to_string()
            proved += 1
    assert proved >= 5


Stats = tuple[int, float, int | None]


def by_path(nodes: list[tuple[int, int, int, float, int | None]]) -> dict[tuple[int, ...], Stats]:
    """A tree's nodes keyed by the moves from the root: (visits, wins, proven)."""
    paths: list[tuple[int, ...]] = []
    table: dict[tuple[int, ...], Stats] = {}
    for parent, move, visits, wins, proven in nodes:
        path = () if parent < 0 else (*paths[parent], move)
        paths.append(path)
        table[path] = (visits, wins, proven)
    return table


def test_both_trees_grow_identically_from_the_same_random_numbers() -> None:
    """Node for node: the same children, visits, wins and proofs, with both searches'
    defaults (exploration, decisive playouts), from the opening, the middle game and
    positions near the end (where proofs are made), after a few hundred iterations."""
    boards = [UltimateBoard.new(), *random_positions(21, 2, longest=30)]
    boards += [b for b in random_positions(23, 40, longest=90) if b.move_count >= 45][:2]
    deepest = proofs = roots_proved = 0
    for board in boards:
        for seed in (1, 2):
            p = Position.of(board)
            compiled, plain = make_tree(p), PythonTree(p)
            assert isinstance(compiled, _csearch.Tree)
            ran = compiled.search(None, 400, random=random.Random(seed).random)
            assert plain.search(None, 400, seed=seed) == ran
            tree = by_path(compiled.nodes())
            assert by_path(plain.nodes()) == tree, board.to_string()
            assert plain.best_moves() == compiled.best_moves()
            assert plain.proven == compiled.proven
            deepest = max(deepest, *map(len, tree))
            proofs += sum(proven is not None for _, _, proven in tree.values())
            roots_proved += compiled.proven is not None
    assert deepest >= 4 and proofs >= 20 and roots_proved >= 1


def test_a_failing_random_source_stops_a_compiled_search_and_leaves_its_tree_whole() -> None:
    numbers = random.Random(4).random
    calls = 0

    def failing() -> float:
        nonlocal calls
        calls += 1
        if calls == 500:
            raise RuntimeError("no numbers")
        return numbers()

    tree = make_tree(Position.of(UltimateBoard.new()))
    with pytest.raises(RuntimeError, match="no numbers"):
        tree.search(None, 1000, random=failing)
    nodes = tree.nodes()
    assert 1 < len(nodes) < 500 and tree.visits == len(nodes) - 1
    assert all(visits >= 1 for _, _, visits, _, _ in nodes)
    assert sum(v for parent, _, v, _, _ in nodes if parent == 0) == tree.visits


def test_a_compiled_search_is_reproducible_and_advances_to_a_child() -> None:
    p = Position.of(UltimateBoard.new().play(cell_of(4, 4)))
    first, second = make_tree(p), make_tree(p)
    assert first.search(None, 5000, seed=7) == second.search(None, 5000, seed=7) == 5000
    assert first.best_moves() == second.best_moves()
    move = first.best_moves()[0]
    stats = first.child_stats(move)
    assert stats is not None and first.visits == 5000
    assert first.advance(move) and first.visits == stats[0]
    assert not first.advance(cell_of(4, 4))  # taken: no such child


def test_a_tree_refuses_other_calls_while_a_thread_searches_it() -> None:
    """The search runs without the GIL: touching its nodes meanwhile is refused."""
    tree = make_tree(Position.of(UltimateBoard.new()))
    worker = threading.Thread(target=tree.search, args=(1.0, None))
    worker.start()
    refused = False
    while worker.is_alive() and not refused:
        try:
            tree.best_moves()
        except RuntimeError:
            refused = True
    worker.join()
    assert refused
    assert tree.best_moves()  # free again


def test_the_reference_plays_the_same_moves_with_compiled_playouts() -> None:
    for i, board in enumerate(random_positions(13, 6, longest=30)):
        moves = {
            ReferencePlayer(300, seed=i, mode=mode).choose_from(board.x, board.o, board.last)
            for mode in ("playouts", "python")
        }
        assert len(moves) == 1


def test_the_compiled_reference_is_plain_uct() -> None:
    """No proofs in plain mode: a won position stays unproved, its winning move is found
    by visits alone, and the reference plays it."""
    p = Position.of(about_to_win_board())
    tree = make_tree(p)
    assert isinstance(tree, _csearch.Tree)
    tree.search(None, 3000, 1, 1.4142, decisive=False, solver=False)
    assert tree.proven is None and tree.visits == 3000
    stats = tree.child_stats(cell_of(8, 2))
    assert stats is not None and stats[2] == 1 and stats[0] > 500
    board = about_to_win_board()
    assert ReferencePlayer(3000, seed=1).choose_from(board.x, board.o, board.last) == cell_of(8, 2)


def about_to_win_board() -> UltimateBoard:
    """X has won small boards 0 and 4 and is sent to board 8, holding its squares 0 and 1."""
    xs = [cell_of(b, s) for b in (0, 4) for s in (0, 1, 2)] + [cell_of(8, 0), cell_of(8, 1)]
    os = [*[cell_of(b, s) for b in (1, 2, 5, 6) for s in (3, 5)][:7], cell_of(3, 8)]
    return UltimateBoard(sum(1 << c for c in xs), sum(1 << c for c in os), cell_of(3, 8))
