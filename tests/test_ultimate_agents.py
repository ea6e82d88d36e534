"""Ultimate tic-tac-toe's agents, its tree search and its review, fast: the searches run
a fixed number of playouts (reproducible) except where the deadline is the point."""

from __future__ import annotations

import random
import time

import pytest

from engine import LADDER, EnginePool, IllegalMove, choose_move_async, get_agent
from engine.bench import percentile
from engine.ultimate import UltimateBoard, cell_of
from engine.ultimate.agents import HARD_ITERATIONS, UltimateAgent, UltimateHard, UltimateMedium
from engine.ultimate.fast import Position
from engine.ultimate.mcts import make_tree
from engine.ultimate.review import evaluate, review_game


def make(xs: list[int], os: list[int], last: int) -> UltimateBoard:
    return UltimateBoard(sum(1 << c for c in xs), sum(1 << c for c in os), last)


def about_to_win() -> UltimateBoard:
    """X has won small boards 0 and 4, is sent to board 8 and holds its squares 0 and 1:
    square 2 wins the game."""
    xs = [cell_of(b, s) for b in (0, 4) for s in (0, 1, 2)] + [cell_of(8, 0), cell_of(8, 1)]
    os = [cell_of(b, s) for b in (1, 2, 5, 6) for s in (3, 5)][:7]
    os.append(cell_of(3, 8))
    return make(xs, os, cell_of(3, 8))


def searcher(name: str, seed: int = 1, iterations: int = 300) -> UltimateAgent:
    agent = get_agent(name, seed=seed, variant="ultimate")
    if isinstance(agent, UltimateHard):
        agent.iterations = iterations
        agent.clock = False
    if isinstance(agent, UltimateMedium):
        agent.seconds = None  # its full depth, however busy the machine
    return agent


def play(x: UltimateAgent, o: UltimateAgent, board: UltimateBoard | None = None) -> UltimateBoard:
    board = board or UltimateBoard.new()
    while not board.is_over():
        board = board.play((x if board.to_move == "X" else o).choose(board))
    return board


def test_the_factory_makes_each_level_for_ultimate_and_refuses_unknown_variants() -> None:
    for name in LADDER:
        agent = get_agent(name, seed=1, time_budget=0.5, variant="ultimate")
        assert isinstance(agent, UltimateAgent) and agent.name == name
    assert get_agent("hard", time_budget=0.5, variant="ultimate").time_budget == 0.5  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="variant"):
        get_agent("hard", variant="chess")
    with pytest.raises(ValueError, match="unknown agent"):
        get_agent("grandmaster", variant="ultimate")


@pytest.mark.parametrize("name", LADDER)
def test_every_level_plays_legal_games_and_refuses_a_finished_one(name: str) -> None:
    final = play(searcher(name, iterations=40), searcher("random", seed=2))
    assert final.outcome() is not None
    with pytest.raises(IllegalMove):
        searcher(name).choose(final)


@pytest.mark.parametrize("name", ["easy", "medium", "hard", "unbeatable"])
def test_every_level_above_random_takes_the_winning_move(name: str) -> None:
    assert searcher(name).candidates(about_to_win()) == [cell_of(8, 2)]


def test_easy_takes_a_small_board_when_it_can() -> None:
    # X holds squares 0 and 1 of board 8 and is sent there: square 2 takes the board
    board = make([cell_of(8, 0), cell_of(8, 1), cell_of(0, 8)], [27, 45, cell_of(2, 8)], 26)
    assert board.forced_board == 8
    assert searcher("easy").candidates(board) == [cell_of(8, 2)]


@pytest.mark.parametrize("compiled", [True, False])
def test_the_search_proves_a_won_position(compiled: bool) -> None:
    tree = make_tree(Position.of(about_to_win()), compiled)
    tree.search(None, 2000, seed=1)
    assert tree.proven == -1  # lost for O, who moved into it
    assert tree.best_moves() == [cell_of(8, 2)]
    assert tree.child_stats(cell_of(8, 2)) == (1, 1.0, 1)


@pytest.mark.parametrize("name", LADDER)
def test_every_level_plays_a_legal_move_from_random_positions(name: str) -> None:
    rng = random.Random(23)
    agent = searcher(name, iterations=60)
    for _ in range(30):
        board = UltimateBoard.new()
        for _ in range(rng.randrange(0, 50)):
            if board.is_over():
                break
            board = board.play(rng.choice(board.legal_moves()))
        if not board.is_over():
            assert agent.choose(board) in board.legal_moves()


def test_a_search_with_a_seed_and_fixed_playouts_is_reproducible() -> None:
    games = [play(searcher("hard", 5, 60), searcher("unbeatable", 6, 60)) for _ in range(2)]
    assert games[0] == games[1]


def test_hard_runs_its_playout_count_not_the_think_time() -> None:
    """Hard's strength is a playout count (the bench reference's 10,000), not the clock:
    with 5 s to think it still stops at its playouts (or sooner, once one move's lead
    can no longer be caught), where unbeatable searches on."""
    hard = get_agent("hard", seed=2, time_budget=5.0, variant="ultimate")
    assert isinstance(hard, UltimateHard) and hard.iterations == HARD_ITERATIONS
    began = time.process_time()
    hard.choose(UltimateBoard.new())
    assert HARD_ITERATIONS // 2 <= hard.last_search <= HARD_ITERATIONS
    assert time.process_time() - began < 2.5  # far from the 5 s it was allowed
    unbeatable = get_agent("unbeatable", seed=2, time_budget=0.6, variant="ultimate")
    assert isinstance(unbeatable, UltimateHard) and unbeatable.iterations is None


@pytest.mark.parametrize("name", ["hard", "unbeatable"])
def test_moves_respect_the_think_time(name: str) -> None:
    """The search stops at its deadline: measured in the CPU time it spends, which a busy
    machine does not stretch (the wall-clock p99 is the bench's: engine/ultimate/bench.py)."""
    think = 0.3
    agent = get_agent(name, seed=3, time_budget=think, variant="ultimate")
    rival = get_agent("random", seed=4, variant="ultimate")
    board, times = UltimateBoard.new(), []
    while not board.is_over() and len(times) < 8:
        if board.to_move == "X":
            began = time.process_time()
            board = board.play(agent.choose(board))
            times.append(time.process_time() - began)
        else:
            board = board.play(rival.choose(board))
    assert percentile(times, 0.99) <= think + 0.2
    assert max(times) <= think + 0.2


@pytest.mark.parametrize("compiled", [True, False])
def test_unbeatable_keeps_its_tree_from_one_move_to_the_next(compiled: bool) -> None:
    agent, twin = searcher("unbeatable", iterations=2000), searcher("unbeatable", iterations=2000)
    assert isinstance(agent, UltimateHard) and isinstance(twin, UltimateHard)
    agent.compiled = twin.compiled = compiled
    board = UltimateBoard.new()
    board = board.play(agent.choose(board))
    assert twin.choose(UltimateBoard.new()) == board.last and twin._tree is not None
    kept = twin._tree[1]  # the same tree (same seed), read where O must answer
    assert kept.advance(board.last)
    replies = [(s[0], c) for c in board.legal_moves() if (s := kept.child_stats(c)) is not None]
    visits, reply = max(replies)
    board = board.play(reply)
    agent.choose(board)
    assert visits > 1
    assert agent._tree is not None and agent._tree[1].visits == visits + 2000


def test_a_kept_tree_is_searched_again_not_settled_at_once() -> None:
    """A kept tree's most visited move leads by many visits: the early stop (the answer
    cannot change in the time left) must wait until the search has measured its rate."""
    agent = get_agent("unbeatable", seed=5, time_budget=0.3, variant="ultimate")
    rival = get_agent("hard", seed=6, time_budget=0.3, variant="ultimate")
    assert isinstance(agent, UltimateHard)
    board, searched = UltimateBoard.new(), []
    while len(searched) < 4 and not board.is_over():
        if board.to_move == "X":
            board = board.play(agent.choose(board))
            if agent._tree is not None and agent._tree[1].proven is None:
                searched.append(agent.last_search)
        else:
            board = board.play(rival.choose(board))
    assert all(n > 0 for n in searched), searched


def test_a_new_game_or_an_unrelated_board_gets_a_new_tree() -> None:
    agent = searcher("unbeatable", iterations=200)
    first = UltimateBoard.new().play(40)
    agent.choose(first)
    agent.choose(UltimateBoard.new().play(0))
    assert agent._tree is not None and agent._tree[1].visits == 200


def test_easy_beats_random_and_medium_beats_easy() -> None:
    for upper, lower, floor in (("easy", "random", 8), ("medium", "easy", 7)):
        score = 0.0
        for game in range(10):
            a, b = searcher(upper, seed=game), searcher(lower, seed=100 + game)
            final = play(a, b) if game % 2 == 0 else play(b, a)
            mark = "X" if game % 2 == 0 else "O"
            score += 0.5 if final.outcome() == "draw" else float(final.outcome() == mark)
        assert score >= floor, (upper, lower, score)


def test_evaluate_reads_finished_games_and_proved_wins() -> None:
    won = about_to_win().play(cell_of(8, 2))
    assert evaluate(won).value == 0.0 and evaluate(won).best is None
    assert evaluate(about_to_win(), iterations=500).value == 1.0


def test_the_review_finds_a_missed_win() -> None:
    rng = random.Random(11)
    missed = None
    while missed is None:  # a random game in which somebody threw away a won game
        board, moves = UltimateBoard.new(), []
        while not board.is_over():
            cell = rng.choice(board.legal_moves())
            wins = [c for c in board.legal_moves() if Position.of(board).copy().play(c)]
            after = board.play(cell)
            threw_away = missed is None and wins and cell not in wins and not after.is_over()
            if threw_away and evaluate(after, iterations=400).value > 0:  # a real chance
                missed = len(moves)
            moves.append(cell)
            board = after
    reviewed = review_game(moves, top=len(moves), iterations=400)
    assert [r.drop for r in reviewed] == sorted((r.drop for r in reviewed), reverse=True)
    assert all(r.preferred != r.move and r.drop > 0 for r in reviewed)
    flagged = next(r for r in reviewed if r.ply == missed)
    before = UltimateBoard.new()
    for cell in moves[:missed]:
        before = before.play(cell)
    assert flagged.before == 1.0 and before.play(flagged.preferred).outcome() == before.to_move
    assert len(review_game(moves, top=2, iterations=100)) <= 2


@pytest.mark.slow  # starts an engine worker process
async def test_the_pool_and_the_async_entry_point_play_ultimate() -> None:
    board = UltimateBoard.new().play(cell_of(4, 4))
    pool = EnginePool(workers=1)
    try:
        await pool.warm_up()  # a loaded machine may take seconds to start the worker
        move = await pool.choose(board, "hard", seed=1, time_budget=0.3)
    finally:
        pool.close()
    assert move in board.legal_moves()
    assert await choose_move_async(board, "easy", seed=1) in board.legal_moves()
    assert await choose_move_async(board, "hard", seed=1, time_budget=0.2) in board.legal_moves()
