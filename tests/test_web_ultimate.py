"""Ultimate tic-tac-toe on the Activity's web service: the Game JSON the page reads (the 81
squares named by board and place, the boards to play in, the decided boards, the last move,
the line of boards that won), a move outside the board to play refused with its reason
and nothing changed, a start from the page, the engine's hint and review
in chat's words, and the hint's and review's marks apart from their words (drawn by the
page, not emoji).

The service runs over the core alone (SQLite, an injected clock) with the chat stood in by
a recorder: what a page sends goes through the same services as a chat click."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from bot.core.engine_advice import REVIEW_TOP, engine_review
from bot.core.models import Challenge, GameUpdate
from bot.core.records import RecordsService, Review
from bot.core.rules import illegal_move
from bot.core.variants import Runner
from bot.i18n import text
from bot.settings import WebLimits
from bot.web.api import ActivityApi
from bot.web.coaching import review_json
from bot.web.instances import Instances, lookup_budget
from bot.web.limits import WebBudgets
from bot.web.live import LiveHub
from bot.web.places import Place
from bot.web.puzzles_api import PuzzlesApi
from bot.web.service import make_app
from bot.web.sessions import Gate, Session, Sessions
from bot.web.ultimate_json import grid_name
from engine import UltimateBoard
from engine.ultimate.review import review_game

from core_harness import BOT, CHANNEL, GUILD, Core, FakeClock, open_core

ALICE, BOB = 1001, 2002
X_WINS = (4, 42, 58, 38, 18, 1, 15, 56, 24, 54, 0, 2, 21, 31, 41, 45, 8, 74, 13, 40, 11)
"""tests/test_core_ultimate.py's game: X wins across the top row of boards (0, 1, 2)."""
JUDGE_PLAYOUTS = 300
"""The engine's review here: a fixed number of playouts a position, seeded, so the test
knows its verdicts (the bot's judge searches 0.2 s a position, with the same calls)."""
EMOJI = re.compile("[\u2190-\u2bff\u2600-\u27bf\U0001f000-\U0001faff\ufe0f]")


class Members:
    """Discord's users, as the web service asks for their names."""

    client_id = 4242

    async def user(self, user_id: int) -> dict[str, Any]:
        return {"id": str(user_id), "username": {ALICE: "alice", BOB: "bob"}.get(user_id, "?")}

    async def instance(self, instance_id: str) -> dict[str, Any]:
        return {"users": [str(ALICE), str(BOB)]}

    async def get(self, path: str, /, **params: int | str) -> tuple[int, dict[str, Any]]:
        """The bot's REST client, as the instances' reads ask it."""
        assert "/activity-instances/" in path
        return 200, {"users": [str(ALICE), str(BOB)], "location": {"channel_id": str(CHANNEL)}}


class InServer:
    async def of(self, session: Session) -> Place:
        return Place(False)


@dataclass
class Service:
    core: Core
    base: str
    http: aiohttp.ClientSession
    sessions: Sessions
    shown: list[GameUpdate | Challenge] = field(default_factory=list)

    def headers(self, user_id: int, locale: str = "en") -> dict[str, str]:
        token = self.sessions.issue(user_id=user_id, name=str(user_id), avatar=None,
                                    channel_id=CHANNEL, guild_id=GUILD, instance_id="i-1",
                                    locale=locale)  # fmt: skip
        return {"Authorization": f"Bearer {token}"}

    async def call(
        self, method: str, path: str, user_id: int, body: Any = None, locale: str = "en"
    ) -> tuple[int, Any]:
        async with self.http.request(method, f"{self.base}{path}", json=body,
                                     headers=self.headers(user_id, locale)) as res:  # fmt: skip
            return res.status, await res.json()

    async def move(self, game_id: str, user_id: int, cell: int) -> tuple[int, Any]:
        game = await self.core.repo.get_game(int(game_id))
        assert game is not None
        return await self.call("POST", f"/api/games/{game_id}/move", user_id,
                               {"ply": game.ply, "cell": cell})  # fmt: skip


@contextlib.asynccontextmanager
async def core_service(
    tmp_path: Path, run: Runner, clock: FakeClock | None = None, limits: WebLimits | None = None
) -> AsyncIterator[Service]:
    """The web service over the core alone, on a test server, its reviews worked out by
    ``run`` (tests/test_bot_engine_busy.py holds it), its puzzles too (on ``clock``:
    tests/test_web_puzzles.py), within ``limits``."""
    core = await open_core(tmp_path / "ttt.sqlite3", clock or FakeClock())
    sessions = Sessions("secret")
    shown: list[GameUpdate | Challenge] = []

    async def show(item: GameUpdate | Challenge) -> bool:
        shown.append(item)
        return True

    api: ActivityApi

    async def render(update: GameUpdate, session: Session) -> dict[str, Any]:
        return await api.render(update, session)

    async def games_for(session: Session) -> list[dict[str, Any]]:
        return await api.games_for(session)

    records = RecordsService(core.repo, BOT, run)
    members = Members()
    budgets = WebBudgets.of(limits or WebLimits())
    instances = Instances(members, Members.client_id, lookup_budget(60))
    gate = Gate(sessions, core.repo.sessions_not_before, instances)
    puzzles = PuzzlesApi(puzzles=core.puzzles, gate=gate, places=InServer(),  # type: ignore[arg-type]
                         budgets=budgets)  # fmt: skip
    api = ActivityApi(games=core.games, lobby=core.lobby, records=records,
                      auth=members, gate=gate, show=show,  # type: ignore[arg-type]
                      hub=LiveHub(core.games.current, render, games_for,
                                  instance=members.instance),
                      places=InServer(), budgets=budgets, more=[puzzles.routes])  # type: ignore[arg-type]  # fmt: skip
    server = TestServer(make_app(api, core.repo.doubts))
    await server.start_server()
    try:
        async with aiohttp.ClientSession() as http:
            yield Service(core, str(server.make_url("")).rstrip("/"), http, sessions, shown)
    finally:
        await server.close()
        await core.repo.close()


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Service]:
    async def run(work: Callable[..., Any], *args: Any) -> Any:
        """The reviews' runner, with a repeatable playout count instead of the clock."""
        if work is engine_review:
            return engine_review(*args, iterations=JUDGE_PLAYOUTS)
        return work(*args)

    async with core_service(tmp_path, run) as service:
        yield service


async def member_game(service: Service) -> str:
    """A running ultimate game, Alice (X) against Bob, started as chat starts it."""
    lobby = service.core.lobby
    challenge = await lobby.challenge(guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE,
                                      opponent_id=BOB, first="me", variant="ultimate")  # fmt: skip
    return str((await lobby.accept(challenge.id, BOB, message_id=None)).game.id)


async def test_the_page_reads_the_81_squares_and_where_to_play(service: Service) -> None:
    game_id = await member_game(service)
    status, body = await service.call("GET", "/api/games", ALICE)
    (game,) = body["games"]
    assert (status, game["variant"], game["size"], len(game["cells"])) == (200, "ultimate", 9, 81)
    assert game["shape"] == "Ultimate: nine boards in one" == body["texts"]["variant.ultimate"]
    assert body["texts"]["rules"] == "Rules" and "X moves first" in body["texts"]["rules.ultimate"]
    # cell order is board by board: cell 13 is square 4 (B2) of board 1 (B1)
    assert game["cells"][13] | {"legal": None} == {"mark": None, "win": False, "legal": None,
        "board": 1, "square": 4, "label": "board B1, square B2, empty"}  # fmt: skip
    assert game["playable_boards"] == list(range(9)) and game["last_move"] is None
    assert game["where"] == "Play in any open board."
    assert all(c["legal"] for c in game["cells"])
    assert game["actions"] == ["resign"] and game["can_move"]

    for i, cell in enumerate(X_WINS[:16]):
        status, answer = await service.move(game_id, (ALICE, BOB)[i % 2], cell)
        assert status == 200, answer
    game = answer["game"]  # X (Alice) took board C1 (2); O's last move sends X to A1 (0)
    board = UltimateBoard()
    for cell in X_WINS[:16]:
        board = board.play(cell)
    assert game["board_statuses"] == [None, None, "X", None, None, None, None, None, None]
    assert game["playable_boards"] == [board.forced_board] == [0]
    assert [i for i, c in enumerate(game["cells"]) if c["legal"]] == board.legal_moves()
    assert game["last_move"] == 45 and game["where"] == "Play in the top left board."
    assert game["cells"][45]["label"] == "board C2, square A1, O, last move"
    assert game["cells"][18]["label"] == "board C1, square A1, X, board won by X"
    assert game["winning_boards"] == [] and game["to_move"] == "X"
    assert service.shown[-1].game.ply == 16  # shown in chat as a chat click is


async def test_a_move_outside_the_board_to_play_is_refused_and_changes_nothing(
    service: Service,
) -> None:
    game_id = await member_game(service)
    await service.move(game_id, ALICE, X_WINS[0])  # sends Bob to board B2 (4)
    stored = await service.core.repo.get_game(int(game_id))
    shown = len(service.shown)
    status, body = await service.move(game_id, BOB, 0)  # board A1, square A1
    assert (status, body["error"]) == (400, "wrong_board")
    assert body["reason"] == "Not there: this move must be in the centre board."
    status, body = await service.call("POST", f"/api/games/{game_id}/move", BOB,
                                      {"ply": 1, "cell": 0}, locale="fr")  # fmt: skip
    assert body["reason"] == "Pas là : ce coup doit être joué dans la petite grille au centre."
    status, body = await service.move(game_id, BOB, X_WINS[0])  # taken
    assert (status, body["error"]) == (400, "taken")
    assert await service.core.repo.get_game(int(game_id)) == stored
    assert len(service.shown) == shown

    for i, cell in enumerate(X_WINS[1:18], start=1):  # O is sent to board C1, won by X
        assert (await service.move(game_id, (ALICE, BOB)[i % 2], cell))[0] == 200
    status, body = await service.move(game_id, ALICE, 20)  # board C1's empty square C1
    assert (status, body["error"]) == (400, "wrong_board")
    assert body["reason"] == "That board is decided: play in any open board."
    assert (await service.core.repo.get_game(int(game_id))).ply == 18  # type: ignore[union-attr]


def test_the_refusal_names_the_board_only_for_an_empty_square_of_ultimate() -> None:
    from bot.core import rules

    game = rules.new_game(guild_id=GUILD, channel_id=CHANNEL, size=3, now=0.0,
                          player_x=ALICE, player_o=BOB, variant="ultimate")  # fmt: skip
    game = game.with_move(40, updated_at=0.0)
    assert illegal_move(game, 40).key == "move.taken"
    assert illegal_move(game, 81).key == "move.taken"
    refusal = illegal_move(game, 0)
    assert (refusal.key, refusal.params) == ("move.elsewhere", {"board_key": "ultimate.board.4"})
    classic = rules.new_game(guild_id=GUILD, channel_id=CHANNEL, size=3, now=0.0,
                             player_x=ALICE, player_o=BOB).with_move(4, updated_at=0.0)  # fmt: skip
    assert illegal_move(classic, 4).key == "move.taken"


async def test_a_won_game_shows_its_line_of_boards_and_the_engines_review(
    service: Service,
) -> None:
    game_id = await member_game(service)
    for i, cell in enumerate(X_WINS):
        status, body = await service.move(game_id, (ALICE, BOB)[i % 2], cell)
        assert status == 200, body
    game = body["game"]
    assert not game["running"] and game["winning_boards"] == [0, 1, 2]
    assert "three boards in a row" in game["status"]  # not the classic boards' "three in a row"
    assert game["board_statuses"][:3] == ["X", "X", "X"] and game["board_statuses"][4] == "O"
    assert game["playable_boards"] == [] and game["where"] is None
    assert not any(c["legal"] for c in game["cells"])
    assert game["actions"] == ["rematch", "review"]
    status, review = await service.call("GET", f"/api/games/{game_id}/review", ALICE)
    assert status == 200, review
    # the engine's costliest moves (as chat lists them), in the order they were played
    judged = sorted(review_game(X_WINS, top=REVIEW_TOP, iterations=JUDGE_PLAYOUTS),
                    key=lambda m: m.ply)  # fmt: skip
    assert judged and [s["ply"] for s in review["steps"]] == [m.ply + 1 for m in judged]
    for step, move in zip(review["steps"], judged, strict=True):
        assert step["text"] == (
            f"{move.ply + 1}. {move.player} {grid_name(move.move)} — the engine preferred "
            f"{grid_name(move.preferred)}; by its estimate the mover's chances fell from "
            f"about {round(100 * move.before)}% to {round(100 * move.after)}%.")  # fmt: skip
        assert step["parts"][:2] == [{"text": f"{move.ply + 1}. "}, {"mark": move.player}]
        assert (step["best"], step["last_move"]) == ([move.preferred], move.move)
        # the board after the move: the moves so far, the last one labelled as such
        assert [i for i, c in enumerate(step["cells"]) if c["mark"]] == sorted(
            X_WINS[: move.ply + 1])  # fmt: skip
        assert step["cells"][move.move]["label"].endswith(", last move")
        assert step["cells"][move.preferred]["mark"] is None
        assert len(step["board_statuses"]) == 9
    assert review["summary"] == ("This is the engine's judgement after a short search, not a "
                                 "proof: it can be wrong.\nColumns A–I from the left, rows "
                                 "1–9 from the top.")  # fmt: skip
    assert not [s for s in review["steps"] if EMOJI.search(s["text"])]
    assert not EMOJI.search(review["summary"])

    # a game the engine finds no costly move in: its final board, said so
    stored = await service.core.repo.get_game(int(game_id))
    assert stored is not None
    clean = review_json(Review(stored, [], judged=[]), "fr")
    (step,) = clean["steps"]
    assert step["text"] == "Le moteur n'a trouvé aucun coup qui ait beaucoup coûté à son joueur."
    assert step["best"] == [] and step["last_move"] == X_WINS[-1] and step["ply"] == 21
    assert clean["summary"].startswith("C'est le jugement du moteur")


def test_a_square_is_named_on_the_9x9_grid_as_in_chat() -> None:
    # cell numbers run board by board: 9 is board B1's first square, 40 the centre's centre
    assert [grid_name(c) for c in (0, 8, 9, 40, 80, 27)] == ["A1", "C3", "D1", "E5", "I9", "A4"]


async def test_the_page_starts_an_ultimate_game_against_the_bot_and_gets_a_hint(
    service: Service,
) -> None:
    status, body = await service.call("POST", "/api/games", ALICE,
                                      {"difficulty": "easy", "variant": "ultimate"})  # fmt: skip
    assert status == 200, body
    game = body["game"]
    assert (game["variant"], len(game["cells"]), game["you"]) == ("ultimate", 81, "X")
    assert game["actions"] == ["resign", "hint"]
    assert service.shown[-1].game.variant == "ultimate"  # posted in chat as /ttt start
    status, moved = await service.move(game["id"], ALICE, 40)  # the bot answers in board B2
    assert status == 200 and moved["game"]["ply"] == 2
    assert moved["game"]["cells"][moved["game"]["last_move"]]["board"] == 4
    assert moved["game"]["actions"] == ["resign", "hint"]

    status, hint = await service.call("POST", f"/api/games/{game['id']}/hint", ALICE, {"ply": 2})
    assert status == 200, hint
    (cell,) = hint["cells"]
    assert moved["game"]["cells"][cell]["legal"]  # a square X may play now
    board = text(f"ultimate.board.{cell // 9}", "en")
    lines = hint["text"].split("\n")
    assert lines[0] == "Hint for X, just for you:"
    assert re.fullmatch(rf"{grid_name(cell)} in the {board} board is the engine's choice; it "
                        r"puts your chances there at about \d+%\.", lines[1])  # fmt: skip
    assert lines[-2:] == [
        "This is the engine's judgement after a short search, not a proof: it can be wrong.",
        "Columns A–I from the left, rows 1–9 from the top.",
    ]
    assert hint["parts"][:2] == [{"text": "Hint for "}, {"mark": "X"}]
    assert "".join(p.get("text", p.get("mark", "")) for p in hint["parts"]) == hint["text"]
    assert not EMOJI.search(hint["text"])
    assert service.shown[-1].game.hinted  # the chat board says a hint was used
    status, body = await service.call("POST", f"/api/games/{game['id']}/hint", ALICE,
                                      {"ply": 2}, locale="de")  # fmt: skip
    assert status == 200 and "kein Beweis" in body["text"]
    for wrong in ({"variant": "ultimate", "size": 3}, {"variant": "giant"}):
        status, body = await service.call("POST", "/api/games", ALICE, wrong)
        assert (status, body["error"]) == (400, "bad_request"), wrong


async def test_hint_and_review_texts_keep_their_marks_apart_from_the_words(
    service: Service,
) -> None:
    status, body = await service.call("POST", "/api/games", ALICE,
                                      {"difficulty": "hard", "size": 3})  # fmt: skip
    game = body["game"]
    assert game["variant"] == "classic" and game["shape"] == "3×3, three in a row"
    assert game["actions"] == ["resign", "hint"]
    status, hint = await service.call("POST", f"/api/games/{game['id']}/hint", ALICE,
                                      {"ply": game["ply"]})  # fmt: skip
    assert status == 200, hint
    assert hint["text"].startswith("Hint for X, just for you:\n") and not EMOJI.search(hint["text"])
    assert hint["parts"][:3] == [{"text": "Hint for "}, {"mark": "X"}, {"text": ", just for you:\n"
                                 + hint["text"].split("\n", 1)[1]}]  # fmt: skip
    assert "".join(p.get("text", p.get("mark", "")) for p in hint["parts"]) == hint["text"]
    await service.move(game["id"], ALICE, 4)
    await service.call("POST", f"/api/games/{game['id']}/resign", ALICE)
    status, review = await service.call("GET", f"/api/games/{game['id']}/review", ALICE)
    first = review["steps"][0]
    assert status == 200 and first["text"].startswith("1. X B2 — ")
    assert first["parts"][:2] == [{"text": "1. "}, {"mark": "X"}]
    assert not [s for s in review["steps"] if EMOJI.search(s["text"])]


@pytest.mark.parametrize(("locale", "label", "where"), [
    ("en", "board C1, square A1, X, board won by X", "Play in the top left board."),
    ("fr", "grille C1, case A1, X, grille gagnée par X",
     "Joue dans la petite grille en haut à gauche."),
    ("de", "Brett C1, Feld A1, X, Brett gewonnen von X", "Spiel im kleinen Spielfeld oben links."),
    ("es", "tablero C1, casilla A1, X, tablero ganado por X",
     "Juega en el tablero pequeño arriba a la izquierda."),
    ("pt-BR", "tabuleiro C1, casa A1, X, tabuleiro ganho por X",
     "Jogue no tabuleiro pequeno superior esquerdo."),
])  # fmt: skip
async def test_the_squares_and_where_to_play_in_five_languages(
    service: Service, locale: str, label: str, where: str
) -> None:
    game_id = await member_game(service)
    for i, cell in enumerate(X_WINS[:16]):
        assert (await service.move(game_id, (ALICE, BOB)[i % 2], cell))[0] == 200
    status, body = await service.call("GET", "/api/games", ALICE, locale=locale)
    (game,) = body["games"]
    assert status == 200
    assert (game["cells"][18]["label"], game["where"]) == (label, where)
    assert len(body["texts"]["rules.ultimate"].split("\n")) == 4 and not EMOJI.search(
        body["texts"]["rules.ultimate"])  # fmt: skip


async def test_a_challenge_from_the_page_can_be_to_ultimate(service: Service) -> None:
    status, body = await service.call("POST", "/api/games", ALICE,
                                      {"opponent_id": str(BOB), "variant": "ultimate"})  # fmt: skip
    assert (status, body) == (200, {"challenge": True})
    challenge = service.shown[-1]
    assert isinstance(challenge, Challenge) and challenge.variant == "ultimate"
    accepted = await service.core.lobby.accept(challenge.id, BOB, message_id=None)
    status, body = await service.call("GET", "/api/games", BOB)
    assert [g["variant"] for g in body["games"]] == ["ultimate"]
    assert body["games"][0]["id"] == str(accepted.game.id)
