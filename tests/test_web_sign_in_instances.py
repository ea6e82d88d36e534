"""The Activity's sign-in reads the instance before it spends anything members need: junk
naming instances that are not running is refused from what Discord said once (kept a
while), reads of ids not kept have a budget of their own, and sign-ins from running
instances (each instance's share of them) are the members' alone."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
from test_web_sign_in_limits import post_session

from bot.web.instances import UNKNOWN_FOR

from discord_emulator import DiscordEmulator
from web_harness import bot_with_web, sign_in


def instance_reads(emu: DiscordEmulator) -> int:
    return sum(1 for r in emu.requests if r.method == "GET" and "/activity-instances/" in r.path)


def junk_ids(first: int, count: int) -> list[str]:
    """Ids shaped like Discord's, naming launches and places that never were."""
    return [f"i-{9_000_000 + n}-gc-{7_000 + n}-{8_000 + n}" for n in range(first, first + count)]


def refused_for_junk(answer: tuple[int, dict[str, Any]]) -> bool:
    """Not running (Discord said so), or a lookup refused before Discord was asked: the
    code was never sent either way."""
    status, body = answer
    if status == 403:
        return body["error"] == "not_in_instance"
    return status == 429 and body["error"] == "busy" and body["code_spent"] is False


async def test_junk_naming_instances_not_running_spends_none_of_the_members_sign_ins(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Six sign-ins a minute for everyone, four reads of ids not kept: 300 junk sign-ins
    flow around each member's, and every member signs in on the first try."""
    members = [emulator.create_user(f"member{n}") for n in range(6)]
    token = emulator.rate_limits.token
    unlimited = aiohttp.TCPConnector(limit=0)
    async with (
        bot_with_web(emulator, tmp_path / "ttt.sqlite3", sign_ins_overall=6,
                     instance_lookups=4) as (_, base, _),
        aiohttp.ClientSession(connector=unlimited) as http,
    ):  # fmt: skip
        await sign_in(emulator, http, base, members[0])  # a lookup; kept from now on
        answers: list[tuple[int, dict[str, Any]]] = []
        for n, member in enumerate(members[1:]):
            junk = [post_session(http, base, f"junk{i:026d}", instance)
                    for i, instance in enumerate(junk_ids(60 * n, 60))]  # fmt: skip
            *refused, _ = await asyncio.gather(*junk, sign_in(emulator, http, base, member))
            answers += refused
        assert len(answers) == 300 and all(refused_for_junk(a) for a in answers)
        # each junk id read cost one call, within what the first member left of the
        # budget; no junk code went to Discord
        junk_reads = [r for r in emulator.requests if "/activity-instances/i-9" in r.path]
        assert sum(a[0] == 403 for a in answers) == len(junk_reads) == 3
        assert token.calls == 6  # the members' codes, each on its first try


async def test_an_unknown_id_is_asked_of_discord_once_while_it_is_kept(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice = emulator.create_user("alice")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3") as (_, base, http):
        (junk,) = junk_ids(0, 1)
        for n in range(20):
            status, body = await post_session(http, base, f"junk{n:026d}", junk)
            assert (status, body["error"]) == (403, "not_in_instance")
        assert instance_reads(emulator) == 1
        emulator.advance(UNKNOWN_FOR - 1)
        assert (await post_session(http, base, "junk", junk))[0] == 403
        assert instance_reads(emulator) == 1
        emulator.advance(1)
        assert (await post_session(http, base, "junk", junk))[0] == 403
        assert instance_reads(emulator) == 2  # asked again once its while is over
        assert emulator.rate_limits.token.calls == 0
        await sign_in(emulator, http, base, alice)


async def test_junk_naming_a_running_instance_spends_that_instances_share_only(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """An attacker who knows a running instance's id (any participant sees it) spends
    its share: its members wait (the exposure docs/run/under-abuse.md names); every
    other instance's members sign in."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    elsewhere = emulator.create_channel(emulator.guild, "elsewhere")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", sign_ins_per_instance=3) as (
        _, base, http,
    ):  # fmt: skip
        known = emulator.launch_activity(alice)
        answers = [await post_session(http, base, f"junk{n:026d}", known) for n in range(10)]
        assert [a[0] for a in answers] == [400] * 3 + [429] * 7  # three codes went to Discord
        assert all(a[1]["code_spent"] is False for a in answers[3:])
        await sign_in(emulator, http, base, bob, elsewhere)  # another instance: untouched
        status, body = await post_session(http, base, emulator.authorize(alice), known)
        assert (status, body["error"], body["code_spent"]) == (429, "busy", False)
        assert 19 < body["retry_after"] <= 20  # three a minute: one back every 20 s
        emulator.advance(body["retry_after"])
        await sign_in(emulator, http, base, alice)


async def test_new_launches_are_read_while_junk_spends_the_lookups_of_new_ids(
    emulator: DiscordEmulator, tmp_path
) -> None:
    """Junk naming ids never seen spends their share of the lookups; a channel where the
    Activity ran before has a share of its own, so its next launch signs in at once; and
    a launch in a place never seen, refused once, gets in when its page asks again with
    the same id (a share that junk asking each id once never touches)."""
    alice, carol = emulator.create_user("alice"), emulator.create_user("carol")
    fresh = emulator.create_channel(emulator.guild, "fresh")
    async with bot_with_web(emulator, tmp_path / "ttt.sqlite3", instance_lookups=2) as (
        _, base, http,
    ):  # fmt: skip
        first = await sign_in(emulator, http, base, alice)
        emulator.leave_activity(alice, emulator.launch_activity(alice))  # it ends with her
        answers = [await post_session(http, base, f"junk{n:026d}", junk)
                   for n, junk in enumerate(junk_ids(0, 10))]  # fmt: skip
        assert [a[0] for a in answers] == [403] + [429] * 9  # one read left, then spent
        again = await sign_in(emulator, http, base, alice)  # a new launch, the same channel
        assert again.channel_id == first.channel_id and again.session != first.session
        instance = emulator.launch_activity(carol, fresh)
        code = emulator.authorize(carol)
        status, body = await post_session(http, base, code, instance)
        assert (status, body["error"], body["code_spent"]) == (429, "busy", False)
        more = [await post_session(http, base, f"junk{n:026d}", junk)
                for n, junk in enumerate(junk_ids(100, 10))]  # fmt: skip
        assert [a[0] for a in more] == [429] * 10  # new ids: still spent
        status, body = await post_session(http, base, code, instance)  # as her page does
        assert status == 200, body
