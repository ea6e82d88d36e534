"""The Activity's sign-in under abuse: every call to Discord within its rate limits (the
OAuth2 ones through ttt's limiter, read by the emulator's token route; the bot's through
discord.py's client), a sign-in that would have to wait refused at once with a 429 that
says how long and whether its code was spent, budgets for everyone and for each member,
and the 401/403/429 answers drawn from Discord counted in /metrics."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from bot.discord_calls import INVALID
from bot.i18n import text
from bot.settings import Settings, SettingsError

from bot_harness import TOKEN, eventually, free_port
from discord_emulator import DiscordEmulator
from discord_emulator.interactions import WAIT_CEILING
from web_harness import bot_with_web, sign_in

JUNK = 300


async def metrics(port: int) -> dict[str, float]:
    """The /metrics page's samples, by name with labels."""
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/metrics") as r:
        assert r.status == 200
        lines = (await r.text()).splitlines()
    return {k: float(v) for k, _, v in (line.rpartition(" ") for line in lines if line[:1] != "#")}


async def post_session(
    http: aiohttp.ClientSession, base: str, code: str, instance: str, language: str = "en"
) -> tuple[int, dict[str, Any]]:
    async with http.post(f"{base}/api/session", json={"code": code, "instance_id": instance},
                         headers={"Accept-Language": language}) as res:  # fmt: skip
        return res.status, await res.json()


async def flood(
    http: aiohttp.ClientSession, base: str, instance: str, count: int = JUNK
) -> list[tuple[int, dict[str, Any]]]:
    return list(await asyncio.gather(*(post_session(http, base, f"junk{n:026d}", instance)
                                       for n in range(count))))  # fmt: skip


def refused_at_once(answer: tuple[int, dict[str, Any]]) -> bool:
    status, body = answer
    return (status == 429 and body["error"] == "busy" and body["code_spent"] is False
            and body["retry_after"] > 0 and "try again" in body["reason"])  # fmt: skip


async def test_a_flood_of_junk_sign_ins_stays_within_discords_limits_and_queues_nobody(
    emulator: DiscordEmulator, tmp_path
) -> None:
    token = emulator.rate_limits.token
    token.set(5, 10.0)  # Discord's answer: 5 calls every 10 seconds
    alice = emulator.create_user("alice")
    instance = emulator.launch_activity(alice)
    unlimited = aiohttp.TCPConnector(limit=0)  # all at once, as an attacker sends them
    async with (
        bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_, base, _),
        aiohttp.ClientSession(connector=unlimited) as http,
    ):  # fmt: skip
        first = emulator.faults.hold_until_released("POST", "/oauth2/token")  # it waits
        calls = [asyncio.create_task(post_session(http, base, f"junk{n:026d}", instance))
                 for n in range(JUNK)]  # fmt: skip
        answered = 0
        try:
            async with asyncio.timeout(WAIT_CEILING):
                for next_done in asyncio.as_completed(calls):
                    assert refused_at_once(await next_done)
                    answered += 1
                    if answered == JUNK - 1:
                        break
        except BaseException:
            first.release()  # the bot's stop need not wait for it
            raise
        # every other sign-in was answered while the one call that went out is held (its
        # request may reach Discord after the refusals reached their senders: a loaded
        # machine schedules the two in either order)
        await eventually(lambda: token.calls, "the one sign-in let through reaches Discord")
        assert token.calls == 1 and sum(not c.done() for c in calls) == 1
        first.release()
        (held,) = [c for c in calls if not c.done()]
        status, body = await held
        assert (status, body["error"]) == (400, "bad_code")

        # Discord's answer told the bucket: a second flood, a minute on, spends exactly it
        emulator.advance(60)
        answers = await flood(http, base, instance)
        bad = [a for a in answers if a[0] == 400]
        assert len(bad) == 5 and token.calls == 6
        assert all(refused_at_once(a) for a in answers if a[0] != 400)
        assert (token.limited, token.early) == (0, 0)  # no 429 drawn, none while told to wait

        # a member after the flood, trying again as her page does, after each wait told
        code, tries = emulator.authorize(alice), 0
        while (answer := await post_session(http, base, code, instance))[0] == 429:
            assert refused_at_once(answer)  # her code kept each time
            emulator.advance(answer[1]["retry_after"])
            tries += 1
            assert tries < 5, answer
        assert answer[0] == 200 and answer[1]["user"]["id"] == str(alice.id)
        assert (token.calls, token.limited, token.early) == (7, 0, 0)


async def test_a_429_from_discord_holds_every_sign_in_for_its_retry_after(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice = emulator.create_user("alice")
    token = emulator.rate_limits.token
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_, base, http):
        instance = emulator.launch_activity(alice)
        emulator.faults.add("POST", "/oauth2/token", 429, retry_after=30)
        status, body = await post_session(http, base, emulator.authorize(alice), instance)
        assert (status, body["error"], body["code_spent"]) == (429, "busy", True)  # it was sent
        assert 29 < body["retry_after"] <= 30
        for _ in range(3):
            status, body = await post_session(http, base, emulator.authorize(alice), instance)
            assert (status, body["code_spent"]) == (429, False) and body["retry_after"] <= 30
        assert token.calls == 1
        emulator.advance(30)
        await sign_in(emulator, http, base, alice)
        assert (token.calls, token.early) == (2, 0)


async def test_a_member_has_a_sign_in_budget_of_their_own(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob = emulator.create_user("alice", locale="fr"), emulator.create_user("bob")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", sign_ins_per_member=2) as (
        _, base, http,
    ):  # fmt: skip
        await sign_in(emulator, http, base, alice)
        await sign_in(emulator, http, base, alice)
        instance = emulator.launch_activity(alice)
        status, body = await post_session(http, base, emulator.authorize(alice), instance)
        assert (status, body["error"], body["code_spent"]) == (429, "too_often", True)
        assert 299 < body["retry_after"] <= 300  # ten minutes for two: one back every five
        assert body["reason"] == text("web.sign_in_often", "fr", seconds=300)
        await sign_in(emulator, http, base, bob)  # another member's budget is whole
        emulator.advance(300)
        await sign_in(emulator, http, base, alice)


async def test_everyones_budget_refuses_before_discord_is_called(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice = emulator.create_user("alice", locale="de")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", sign_ins_overall=2) as (
        _, base, http,
    ):  # fmt: skip
        await sign_in(emulator, http, base, alice)
        await sign_in(emulator, http, base, alice)
        calls = emulator.rate_limits.token.calls
        instance = emulator.launch_activity(alice)
        status, body = await post_session(http, base, emulator.authorize(alice), instance, "de-DE")
        assert (status, body["error"], body["code_spent"]) == (429, "busy", False)
        assert 29 < body["retry_after"] <= 30  # a minute for two
        assert body["reason"] == text("web.sign_in_busy", "de", seconds=30)
        assert emulator.rate_limits.token.calls == calls
        emulator.advance(30)
        await sign_in(emulator, http, base, alice)


async def test_the_bots_calls_go_through_discord_pys_client(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """A 429 on the instance route and on the member route (the sign-in's, a start's)
    is waited out by discord.py, as for any call of the bot; a raw call would fail."""
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_, base, http):
        emulator.faults.add("GET", "/activity-instances/", 429, retry_after=0.05)
        page = await sign_in(emulator, http, base, alice)
        emulator.faults.add("GET", r"/guilds/\d+/members/\d+", 429, retry_after=0.05)
        status, body = await page.post("/api/games", {"difficulty": "easy"})
        assert status == 200, body
        assert [f[2] for f in emulator.faults.injected] == [429, 429]
        instance_calls = [r for r in emulator.requests if "/activity-instances/" in r.path]
        assert len(instance_calls) == 2  # the 429, then the call again after its wait


async def test_the_401_403_and_429_drawn_are_counted_in_metrics(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice, port = emulator.create_user("alice"), free_port()
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", health_port=port) as (
        bot, base, http,
    ):  # fmt: skip
        assert (await metrics(port))['ttt_discord_invalid_answers_total{status="401"}'] == 0
        instance = emulator.launch_activity(alice)
        emulator.faults.add("POST", "/oauth2/token", 401)  # the OAuth2 session's
        status, body = await post_session(http, base, emulator.authorize(alice), instance)
        assert (status, body["error"]) == (400, "bad_code")
        emulator.faults.add("GET", "/activity-instances/", 403)  # discord.py's client's
        elsewhere = emulator.create_channel(emulator.guild, "elsewhere")  # an instance not kept
        instance = emulator.launch_activity(alice, elsewhere)
        status, body = await post_session(http, base, emulator.authorize(alice), instance)
        assert (status, body["error"]) == (502, "discord")
        drawn = await metrics(port)
        assert [drawn[f'ttt_discord_invalid_answers_total{{status="{s}"}}'] for s in INVALID] == [
            1, 1, 0,
        ]  # fmt: skip
        assert bot.invalid.recent() == 2


def test_the_sign_in_budgets_are_settings() -> None:
    defaults = Settings.from_env({"DISCORD_TOKEN": TOKEN})
    assert (defaults.sign_ins_overall, defaults.sign_ins_per_member) == (120, 10)
    given = Settings.from_env({"DISCORD_TOKEN": TOKEN, "TTT_SIGN_INS_OVERALL": "30",
                               "TTT_SIGN_INS_PER_MEMBER": "3"})  # fmt: skip
    assert (given.sign_ins_overall, given.sign_ins_per_member) == (30, 3)
    for name in ("TTT_SIGN_INS_OVERALL", "TTT_SIGN_INS_PER_MEMBER"):
        for bad in ("0", "-1", "1.5", "many"):
            with pytest.raises(SettingsError, match=name):
                Settings.from_env({"DISCORD_TOKEN": TOKEN, name: bad})
