"""Engine work past its limits, as members see it: in chat (over the gateway and over
HTTP) a Review click is answered at once with a private "busy" in the clicker's
language, before any "thinking", and nothing reaches an engine worker; a Hint click for
the position in front of the member is never refused: past the hints' bound it is
answered "thinking" and waits its turn; on the page, the review route answers 429 with
the reason while a member's review is worked out.

In chat the limits are held through the bot's own gate (a request in flight for the
member, a worker's queue full); the core's tests hold real computations
(tests/test_core_engine_gate.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from test_core_reviews_kept import FOUR_BY_FOUR, within
from test_web_ultimate import core_service

from bot.discord_ui import custom_ids

from bot_harness import eventually, running_bot, settings_for
from core_harness import CHANNEL, GUILD, play
from discord_emulator import DiscordEmulator, buttons

BUSY_MEMBER = {
    "de": "Für dich wird schon ein Tipp oder eine Analyse berechnet: Warte auf die Antwort "
    "und frag dann noch einmal.",
    "fr": "Un indice ou une analyse est déjà en cours de calcul pour toi : attends sa réponse, "
    "puis redemande.",
}
BUSY = {
    "fr": "Le moteur est occupé par les indices et analyses d'autres membres. Réessaie dans "
    "une minute.",
    "pt-BR": "O motor está ocupado agora com dicas e revisões de outros membros. Tente de novo "
    "daqui a um minuto.",
}


@pytest.fixture
async def bot(emulator: DiscordEmulator, transport: str, tmp_path):  # type: ignore[no-untyped-def]
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", review_queue=1, hint_queue=1)
    async with running_bot(emulator, settings) as bot:
        yield bot


def click_of(message: dict[str, Any], kind: type) -> str:
    (found,) = [b["custom_id"] for row in buttons(message) for b in row
                if isinstance(custom_ids.parse(b["custom_id"]), kind)]  # fmt: skip
    return found


async def four_by_four(emulator: DiscordEmulator, user: Any, channel: Any) -> dict[str, Any]:
    """A 4×4 game against the bot, the member to move; its board."""
    res = await emulator.invoke(
        user, "ttt start", {"first": "me", "size": 4, "difficulty": "easy"}, channel
    )
    return res.message


async def test_a_click_past_the_engines_limits_is_refused_privately_in_the_members_language(
    emulator: DiscordEmulator, transport: str, bot: Any
) -> None:
    klaus = emulator.create_user("klaus", locale="de")
    amelie = emulator.create_user("amelie", locale="fr")
    joao = emulator.create_user("joao", locale="pt-BR")
    board = await four_by_four(emulator, klaus, emulator.channel)
    res = await emulator.click(klaus, board, click_of(board, custom_ids.ResignClick))
    finished = res.message
    review = click_of(finished, custom_ids.ReviewClick)
    gate = bot.engine_gate

    # Klaus has a hint or review in flight: his Review click is refused, to him alone
    with gate.member(klaus.id):
        res = await emulator.click(klaus, finished, review)
    assert (res.type, res.ephemeral, res.content) == (4, True, BUSY_MEMBER["de"])

    # the reviews' worker and its line (TTT_REVIEW_QUEUE=1) hold this server's own
    # reviews: Amélie's is refused (another server's would wait its turn)
    place = ("server", emulator.guild.id)
    gate.take("review", place)
    waiting = gate.enter("review", place)
    try:
        res = await emulator.click(amelie, finished, review)
    finally:
        waiting.close()
        gate.give_back("review", place)
    assert (res.type, res.ephemeral, res.content) == (4, True, BUSY["fr"])

    # the hints' worker is full (TTT_HINT_QUEUE=1): João's Hint on his own 4×4 board is
    # not refused; "thinking", it waits its turn, and comes once the place is free
    other = emulator.create_channel(emulator.guild, "more-games")
    board = await four_by_four(emulator, joao, other)
    game_id = custom_ids.parse(click_of(board, custom_ids.ResignClick)).game_id
    gate.take("hint", place)
    try:
        click = asyncio.ensure_future(
            emulator.click(joao, board, click_of(board, custom_ids.HintClick), wait_final=True)
        )
        await eventually(lambda: gate.waiting("hint") == 1, "João's hint waiting its turn")
        assert not (await bot.repo.get_game(game_id)).hinted
    finally:
        gate.give_back("hint", place)
    res = await click
    content = res.followups[0]["content"] if res.followups else res.content
    assert (res.type, res.ephemeral) == (5, True) and content.startswith("💡 **Dica**"), res
    assert (await bot.repo.get_game(game_id)).hinted
    assert bot.reviews.worker_pids() == []  # no review reached an engine worker
    assert gate.refused == {"engine.busy_member": 1, "engine.busy": 1}


@pytest.fixture
async def page(tmp_path):  # type: ignore[no-untyped-def]
    """The web service over the core alone (tests/test_web_ultimate.py's), its reviews
    worked out by a runner the test holds."""
    release, started = asyncio.Event(), asyncio.Event()
    calls: list[str] = []

    async def run(work: Callable[..., Any], *args: Any) -> Any:
        calls.append(work.__name__)
        started.set()
        await release.wait()
        return work(*args)

    try:
        async with core_service(tmp_path, run) as service:
            yield service, started, release, calls
    finally:
        release.set()


async def test_the_pages_review_is_refused_with_429_while_the_members_own_is_worked_out(
    page: Any,
) -> None:
    service, started, release, calls = page
    alice, bob = 1001, 2002
    core = service.core
    challenge = await core.lobby.challenge(guild_id=GUILD, channel_id=CHANNEL, user_id=alice,
                                           opponent_id=bob, first="me", size=4)  # fmt: skip
    game_id = (await core.lobby.accept(challenge.id, bob, message_id=None)).game.id
    await play(core, game_id, *(((alice if u == 101 else bob), c) for u, c in FOUR_BY_FOUR))
    path = f"/api/games/{game_id}/review"
    first = asyncio.ensure_future(service.call("GET", path, alice))
    await within(started.wait())  # the first is with the engine
    status, body = await service.call("GET", path, alice, locale="fr")
    assert (status, body) == (429, {"error": "busy", "reason": BUSY_MEMBER["fr"]})
    assert calls == ["review_moves"] and not first.done()
    release.set()
    status, review = await first
    assert status == 200 and len(review["steps"]) == len(FOUR_BY_FOUR)
    # kept: asked again (Bob this time), it is read, not worked out
    status, again = await service.call("GET", path, bob)
    assert (status, again["steps"]) == (200, review["steps"]) and calls == ["review_moves"]
