"""Puzzles on the Activity's web service (issue 49, "on the live board too"): the routes
over the core's PuzzleService on a real SQLite file, its day fixed by an injected clock
(tests/test_web_ultimate.py's core_service). Today's daily started and played to solved
on the page, in the page's words; a wrong and a slow move failed with the reply that
refutes them and the solution; Retry; an attempt started in chat shown on the page and a
page's move seen by the chat's next click (stale, nothing counted twice); and every
refusal a 4xx with a reason that changes nothing: another member's attempt, no attempt,
a bad body, puzzles turned off, the engine busy, the member's budget spent."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from test_web_ultimate import ALICE, BOB, Service, core_service

from bot.core.review import cell_name
from bot.i18n import text
from bot.settings import WebLimits
from bot.web.page_text import plain
from engine import Board, EnginePool
from engine.puzzles import by_id

from core_harness import GUILD, FakeClock
from puzzle_harness import day_clock, puzzle_of

DAILY_5X5, DAILY_ULTIMATE, DAILY_3X3 = 1, 2, 7
"""Daily #1 (2026-12-01) is a 5×5 win in 4 (X to move); #2 an ultimate puzzle (which
stores no refutations: a wrong move searches); #7 a 3×3 win in 2 (O to move)."""


async def direct(work: Callable[..., Any], *args: Any) -> Any:
    return work(*args)


def rows(service: Service) -> list[str]:
    """The whole database, as SQL: what a refusal must leave as it was."""
    path = service.core.repo.path  # type: ignore[attr-defined]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return list(db.iterdump())


def square(cell: int, size: int = 5) -> str:
    return cell_name(cell, size)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Service]:
    async with core_service(tmp_path, direct, day_clock(DAILY_5X5)) as service:
        yield service


async def test_todays_daily_is_started_and_solved_on_the_page_and_the_chat_sees_it_solved(
    service: Service,
) -> None:
    status, body = await service.call("GET", "/api/puzzles", ALICE)
    assert status == 200 and body["puzzle"] is None, body
    assert body["today"] == {"number": 1, "kind": "5x5",
                             "title": "Daily puzzle #1 · 5×5, four in a row"}  # fmt: skip
    boards = [k for k in body["texts"] if k.startswith("puzzle.board.")]
    assert boards == [f"puzzle.board.{b}" for b in ("any", "3x3", "4x4", "5x5", "ultimate")]
    assert body["texts"]["puzzle.daily"] == "Today's puzzle"

    status, body = await service.call("POST", "/api/puzzles", ALICE, {"mode": "daily"})
    assert status == 200, body
    shown = body["puzzle"]
    line = puzzle_of(DAILY_5X5).line
    assert (shown["number"], shown["kind"], shown["n"], shown["moves_left"], shown["you"],
            shown["ply"], shown["status"], shown["rated"], shown["can_move"]) == (
        1, "5x5", 4, 4, "X", 0, "open", True, True)  # fmt: skip
    assert shown["goal"] == "X to move: win in 4 moves"
    assert shown["goal_parts"] == [{"mark": "X"}, {"text": " to move: win in 4 moves"}]
    assert shown["title"] == "Daily puzzle #1 · 5×5, four in a row" and shown["line"] is None
    board = Board.from_string(puzzle_of(DAILY_5X5).position)
    assert [c["mark"] for c in shown["cells"]] == [board[i] for i in range(25)]
    assert [i for i, c in enumerate(shown["cells"]) if c["legal"]] == board.legal_moves()
    assert shown["cells"][1]["label"] == "B1, X" and shown["size"] == 5
    assert shown["actions"] == [] and shown["solution"] == [] and shown["record"] is None
    assert shown["puzzle"] is None  # no id to look the answer up by while it is rated

    attempt = shown["id"]
    for ply in range(0, len(line) - 1, 2):
        status, body = await service.call("POST", f"/api/puzzles/{attempt}/move", ALICE,
                                          {"ply": ply, "cell": line[ply]})  # fmt: skip
        assert status == 200, body
        shown = body["puzzle"]
        reply = line[ply + 1]
        assert (shown["ply"], shown["last_reply"], shown["last_move"]) == (ply + 2, reply, reply)
        assert shown["line"] == f"Right! O answers {square(reply)}." and shown["puzzle"] is None
        assert shown["moves_left"] == 3 - ply // 2
        assert shown["goal"] == f"X to move: win in {shown['moves_left']} move" + (
            "s" if shown["moves_left"] > 1 else "")  # fmt: skip
    status, body = await service.call("POST", f"/api/puzzles/{attempt}/move", ALICE,
                                      {"ply": len(line) - 1, "cell": line[-1]})  # fmt: skip
    assert status == 200, body
    solved = body["puzzle"]
    assert (solved["status"], solved["outcome"], solved["can_move"], solved["to_move"]) == (
        "solved", "solved", False, None)  # fmt: skip
    assert solved["line"] == "Solved in 4 moves!" and solved["actions"] == ["retry"]
    assert solved["puzzle"] == puzzle_of(DAILY_5X5).id  # over: nothing left to spoil
    assert solved["goal"] == "X to win in 4 moves"
    won = board
    for cell in line:
        won = won.play(cell)
    assert [i for i, c in enumerate(solved["cells"]) if c["win"]] == sorted(
        won.winning_line() or ()
    )
    assert not any(c["legal"] for c in solved["cells"])
    before, after = solved["rating"]["before"], solved["rating"]["after"]
    assert before == 1500 and after > before and solved["streak"] == 1
    assert solved["record"] == f"Puzzle rating: 1500 → {after} · Daily streak: 1 day"

    # The chat's message still shows the position before the last move: its next click
    # names that ply, is answered stale with the attempt solved, and counts nothing.
    stored = rows(service)
    view = await service.core.puzzles.move(ALICE, int(attempt), len(line) - 1, line[-1])
    assert view.stale and view.attempt.status == "solved"
    # so does a page's old click (a double click, another page)
    status, body = await service.call("POST", f"/api/puzzles/{attempt}/move", ALICE,
                                      {"ply": 2, "cell": 0})  # fmt: skip
    assert (status, body["error"]) == (409, "stale"), body
    assert body["reason"] == plain(text("web.puzzle.stale", "en"))
    assert body["puzzle"]["status"] == "solved" and body["puzzle"]["ply"] == len(line)
    assert rows(service) == stored
    player = await service.core.puzzles.player(ALICE)
    assert player is not None and (player.solved, player.tried) == (1, 1)
    # and the daily asked again shows it solved, not a second attempt
    status, body = await service.call("POST", "/api/puzzles", ALICE, {"mode": "daily"})
    assert body["puzzle"]["id"] == attempt and body["puzzle"]["status"] == "solved"


async def test_a_slow_move_fails_with_the_reply_and_the_solution_in_the_members_language(
    service: Service,
) -> None:
    status, body = await service.call("POST", "/api/puzzles", BOB, {"mode": "daily"}, "de")
    attempt, line = body["puzzle"]["id"], puzzle_of(DAILY_5X5).line
    status, body = await service.call("POST", f"/api/puzzles/{attempt}/move", BOB,
                                      {"ply": 0, "cell": 6}, "de")  # B2 wins, not in 4  # fmt: skip
    assert status == 200, body
    failed = body["puzzle"]
    assert (failed["status"], failed["outcome"], failed["actions"]) == ("failed", "slow", ["retry"])
    refutation = failed["refutation"]
    assert refutation == failed["last_move"] and failed["ply"] == 2
    assert failed["line"] == (f"B2 gewinnt noch, aber nicht in 4 Zügen: O antwortet "
                              f"{square(refutation)}.")  # fmt: skip
    assert failed["solution"] == list(line)
    steps = ", ".join(f"{'XO'[i % 2]} {square(c)}" for i, c in enumerate(line))
    assert failed["solution_text"] == f"Lösung: {steps}."
    assert failed["solution_text_parts"][:2] == [{"text": "Lösung: "}, {"mark": "X"}]
    assert failed["rating"]["after"] < failed["rating"]["before"] == 1500
    assert failed["record"].startswith("Rätselwertung: 1500 → ")


async def test_a_wrong_move_fails_and_retry_starts_it_again_unrated(tmp_path: Path) -> None:
    async with core_service(tmp_path, direct, day_clock(DAILY_3X3)) as service:
        status, body = await service.call("POST", "/api/puzzles", ALICE, {"mode": "daily"})
        first = body["puzzle"]
        assert (first["kind"], first["you"], first["n"], first["rated"]) == ("3x3", "O", 2, False)
        status, body = await service.call("POST", f"/api/puzzles/{first['id']}/move", ALICE,
                                          {"ply": 0, "cell": 1})  # fmt: skip
        failed = body["puzzle"]
        assert (failed["status"], failed["outcome"]) == ("failed", "wrong"), failed
        reply = square(failed["refutation"], 3)
        assert failed["line"] == f"B1 lets the win slip: X answers {reply}."
        assert failed["solution_text"] == "Solution: O A1, X B1, O A3."
        assert failed["rating"] is None
        unrated = "Unrated: your puzzle rating stays as it was"
        assert failed["record"] == f"{unrated} · Daily streak: 0 days"

        status, body = await service.call("POST", f"/api/puzzles/{first['id']}/retry", ALICE)
        again = body["puzzle"]
        assert status == 200 and again["id"] != first["id"], body
        assert (again["retry"], again["rated"], again["ply"], again["status"]) == (
            True, False, 0, "open")  # fmt: skip
        for ply, cell in ((0, 0), (2, 6)):
            status, body = await service.call("POST", f"/api/puzzles/{again['id']}/move",
                                              ALICE, {"ply": ply, "cell": cell})  # fmt: skip
        assert body["puzzle"]["status"] == "solved", body
        assert body["puzzle"]["record"] == f"{unrated} · Daily streak: 1 day"


async def test_retry_refused_while_a_rated_puzzle_is_open(tmp_path: Path) -> None:
    """The 3×3 daily failed on the page, then a rated 4×4 training puzzle started: the
    page's Retry of the daily is a 409 naming the open puzzle, and nothing changes."""
    async with core_service(tmp_path, direct, day_clock(DAILY_3X3)) as service:
        _, body = await service.call("POST", "/api/puzzles", ALICE, {"mode": "daily"})
        first = body["puzzle"]
        wrong = {"ply": 0, "cell": 1}  # gives the win away: failed
        await service.call("POST", f"/api/puzzles/{first['id']}/move", ALICE, wrong)
        _, body = await service.call("POST", "/api/puzzles", ALICE,
                                     {"mode": "training", "board": "4x4"})  # fmt: skip
        assert body["puzzle"]["rated"] and body["puzzle"]["status"] == "open", body
        before = rows(service)
        status, body = await service.call("POST", f"/api/puzzles/{first['id']}/retry", ALICE)
        assert (status, body["error"]) == (409, "rated_open"), body
        assert body["reason"] == plain(text("puzzle.retry.open_training", board="4×4"))
        assert rows(service) == before


async def test_an_attempt_started_in_chat_is_the_one_on_the_page(service: Service) -> None:
    chat = await service.core.puzzles.open(ALICE, GUILD, "training", "4x4")  # /ttt puzzle
    status, body = await service.call("GET", "/api/puzzles", ALICE)
    shown = body["puzzle"]
    assert shown["id"] == str(chat.attempt.id) and shown["mode"] == "training"
    assert shown["title"] == "Training · 4×4, four in a row" and shown["resumed"]
    # the page's start resumes it, whatever it asked for
    status, body = await service.call("POST", "/api/puzzles", ALICE, {"mode": "daily"})
    assert body["puzzle"]["id"] == shown["id"] and body["puzzle"]["resumed"]
    # the page plays the first move; the chat's next look (a click, /ttt puzzle) sees it
    line = by_id(chat.attempt.puzzle_id).line
    status, body = await service.call("POST", f"/api/puzzles/{shown['id']}/move", ALICE,
                                      {"ply": 0, "cell": line[0]})  # fmt: skip
    assert status == 200 and body["puzzle"]["ply"] == 2, body
    seen = await service.core.puzzles.current(ALICE)
    assert seen is not None and seen.attempt.moves == tuple(line[:2])
    stale = await service.core.puzzles.move(ALICE, chat.attempt.id, 0, line[0])  # old message
    assert stale.stale and stale.attempt.moves == tuple(line[:2])
    status, body = await service.call("GET", "/api/puzzles", BOB)
    assert body["puzzle"] is None  # nobody else's


async def test_refusals_say_why_and_change_nothing(service: Service) -> None:
    status, body = await service.call("POST", "/api/puzzles", ALICE, {"mode": "daily"})
    attempt = body["puzzle"]["id"]
    before = rows(service)
    path = f"/api/puzzles/{attempt}/move"
    cases: list[tuple[int, str, str, str, Any, str | None]] = [
        (403, "not_yours", "POST", path, {"ply": 0, "cell": 12}, text("puzzle.not_yours")),
        (404, "unknown_puzzle", "POST", "/api/puzzles/99999/move", {"ply": 0, "cell": 12},
         text("puzzle.unknown")),
        (404, "unknown_puzzle", "POST", "/api/puzzles/1e3/retry", {}, text("puzzle.unknown")),
        (400, "taken", "POST", path, {"ply": 0, "cell": 1}, text("puzzle.bad_cell")),
        (400, "bad_request", "POST", path, {"ply": 0, "cell": 12.0}, None),
        (400, "bad_request", "POST", path, {"ply": True, "cell": 12}, None),
        (400, "bad_request", "POST", "/api/puzzles", {"mode": "own"}, None),
        (400, "bad_request", "POST", "/api/puzzles", {"mode": "training", "board": "6x6"}, None),
        (400, "bad_request", "POST", "/api/puzzles", {"mode": "daily", "board": "5x5"}, None),
        (400, "bad_json", "POST", path, [0, 12], None),
        (409, "still_open", "POST", f"/api/puzzles/{attempt}/retry", {},
         text("puzzle.still_open")),
    ]  # fmt: skip
    # Bob on day #1: every 3×3 puzzle is a daily to come (the first year's)
    cases.append((409, "none_left", "POST", "/api/puzzles", {"mode": "training", "board": "3x3"},
                  text("puzzle.none_left_dailies")))  # fmt: skip
    for code, error, method, where, sent, reason in cases:
        who = BOB if error in ("not_yours", "none_left") else ALICE
        status, body = await service.call(method, where, who, sent)
        assert (status, body["error"]) == (code, error), (where, sent, body)
        assert body["reason"] == (plain(reason) if reason else body["reason"]), body
    async with service.http.post(f"{service.base}{path}", json={"ply": 0, "cell": 12}) as res:
        assert res.status == 401
    assert rows(service) == before

    # puzzles off in the server: no start from its pages either
    await service.core.games.policies.configure(GUILD, {"puzzles": False})
    status, body = await service.call("POST", "/api/puzzles", BOB, {"mode": "daily"})
    assert (status, body["error"], body["reason"]) == (403, "off", plain(text("puzzle.off")))


async def test_a_busy_engine_is_a_429_with_the_wait(tmp_path: Path) -> None:
    async with core_service(tmp_path, direct, day_clock(DAILY_ULTIMATE)) as service:
        _, body = await service.call("POST", "/api/puzzles", ALICE, {"mode": "daily"})
        attempt = body["puzzle"]["id"]
        pool = EnginePool(1)
        pool.close()  # as while the process stops: the pool refuses work
        service.core.puzzles.engine.pool = pool
        before = rows(service)
        async with service.http.post(f"{service.base}/api/puzzles/{attempt}/move",
                                     json={"ply": 0, "cell": 27},  # off the line: a search
                                     headers=service.headers(ALICE)) as res:  # fmt: skip
            body = await res.json()
            assert (res.status, body["error"], body["retry_after"]) == (429, "busy", 1), body
            assert res.headers["Retry-After"] == "1"
        assert body["reason"] == plain(text("puzzle.busy"))
        assert rows(service) == before


async def test_a_members_puzzle_budget_is_refused_at_once(tmp_path: Path) -> None:
    limits = WebLimits(puzzles_per_member=2)
    async with core_service(tmp_path, direct, day_clock(DAILY_5X5), limits) as service:
        status, body = await service.call("POST", "/api/puzzles", ALICE, {"mode": "daily"})
        attempt = body["puzzle"]["id"]
        line = puzzle_of(DAILY_5X5).line
        status, body = await service.call("POST", f"/api/puzzles/{attempt}/move", ALICE,
                                          {"ply": 0, "cell": line[0]})  # fmt: skip
        assert status == 200
        before = rows(service)
        status, body = await service.call("POST", f"/api/puzzles/{attempt}/move", ALICE,
                                          {"ply": 2, "cell": line[2]})  # fmt: skip
        assert (status, body["error"]) == (429, "too_many") and body["retry_after"] >= 1, body
        assert rows(service) == before
        status, body = await service.call("POST", "/api/puzzles", BOB, {"mode": "daily"})
        assert status == 200  # another member's budget is their own


async def test_no_daily_before_the_first(tmp_path: Path) -> None:
    async with core_service(tmp_path, direct, FakeClock(day_clock(1).now - 86_400)) as service:
        status, body = await service.call("GET", "/api/puzzles", ALICE)
        assert body["today"] is None
        status, body = await service.call("POST", "/api/puzzles", ALICE, {"mode": "daily"})
        assert (status, body["error"]) == (404, "no_daily")
        assert body["reason"] == plain(text("puzzle.no_daily"))
