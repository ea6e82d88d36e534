"""``Retry-After`` as HTTP says it (issue 53): whole seconds, at least one, rounded up,
whatever fraction of a second a budget says; the JSON body keeps the wait as it is."""

from __future__ import annotations

from bot.web.service import retry_after

from discord_emulator import DiscordEmulator
from web_harness import bot_with_web, sign_in


def test_a_wait_is_whole_seconds_rounded_up_and_never_zero() -> None:
    assert [retry_after(s) for s in (0.001, 0.5, 1.0, 1.001, 29.5, 30.0)] == [
        "1", "1", "1", "2", "30", "30"]  # fmt: skip


async def test_a_sign_in_refused_for_half_a_second_says_retry_after_1(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Everyone's sign-ins spent (two a minute here), the next back in half a second: the
    body says 0.5, the header 1 (``0.5`` is no value a client must understand)."""
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", sign_ins_overall=2) as (
        _, base, http,
    ):  # fmt: skip
        await sign_in(emulator, http, base, alice)
        await sign_in(emulator, http, base, alice)
        emulator.advance(29.5)  # the budget's clock is the emulator's: one back in 0.5 s
        instance = emulator.launch_activity(alice)
        async with http.post(f"{base}/api/session", json={
            "code": emulator.authorize(alice), "instance_id": instance,
        }) as res:  # fmt: skip
            body = await res.json()
            assert (res.status, body["error"]) == (429, "busy"), body
            assert 0 < body["retry_after"] <= 0.5
            assert res.headers["Retry-After"] == "1"
