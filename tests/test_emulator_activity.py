"""Discord's side of the Activity in the emulator: the OAuth2 code exchange and the Bearer
token's /users/@me, activity instances and their route, shown with plain HTTP requests."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from discord_emulator import DiscordEmulator, EmuUser
from discord_emulator.oauth import ACCESS_TOKEN_LIFETIME, CODE_LIFETIME


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def call(
    session: aiohttp.ClientSession, method: str, url: str, **kwargs: Any
) -> tuple[int, Any]:
    async with session.request(method, url, **kwargs) as resp:
        return resp.status, (await resp.json() if resp.status != 204 else None)


async def exchange(
    emu: DiscordEmulator, session: aiohttp.ClientSession, code: str, **form: str
) -> tuple[int, Any]:
    """The web service's token request, as the Activity starter's server sends it."""
    body = {"client_id": emu.client_id, "client_secret": emu.client_secret,
            "grant_type": "authorization_code", "code": code} | form  # fmt: skip
    return await call(session, "POST", f"{emu.api_base}/oauth2/token", data=body)


async def me(emu: DiscordEmulator, session: aiohttp.ClientSession, auth: str) -> tuple[int, Any]:
    return await call(session, "GET", f"{emu.api_base}/users/@me",
                      headers={"Authorization": auth})  # fmt: skip


def bot_auth(emu: DiscordEmulator) -> dict[str, str]:
    return {"Authorization": f"Bot {emu.token}"}


def instance_url(emu: DiscordEmulator, instance_id: str) -> str:
    return f"{emu.api_base}/applications/{emu.application_id}/activity-instances/{instance_id}"


def spec_problem(emu: DiscordEmulator, method: str, path: str, body: Any) -> str | None:
    """Why the emulator's answer is not what the spec describes (None without the spec)."""
    if emu.validator is None:
        return None
    return emu.validator.response_problem(method, path, body)


# -- OAuth2 --------------------------------------------------------------------------
async def test_a_code_buys_one_token_which_reads_its_user(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    alice = emulator.create_user("alice", locale="fr")
    code = emulator.authorize(alice)
    status, token = await exchange(emulator, http, code)
    assert status == 200, token
    assert token["token_type"] == "Bearer" and token["scope"] == "identify"
    assert token["expires_in"] == ACCESS_TOKEN_LIFETIME == 604800
    assert len({token["access_token"], token["refresh_token"], code}) == 3
    status, user = await me(emulator, http, f"Bearer {token['access_token']}")
    assert status == 200 and user["id"] == str(alice.id) and user["username"] == "alice"
    assert user["locale"] == "fr" and "email" not in user
    assert spec_problem(emulator, "GET", "/users/@me", user) is None

    status, again = await exchange(emulator, http, code)
    invalid = {"error": "invalid_grant", "error_description": 'Invalid "code" in request.'}
    assert (status, again) == (400, invalid)
    status, forged = await exchange(emulator, http, "x" * 30)
    assert (status, forged["error"]) == (400, "invalid_grant")
    assert emulator.violations == []  # a member's bad code is no fault of the app


async def test_the_client_proves_its_secret_before_the_code_is_spent(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    code = emulator.authorize(emulator.create_user("alice"))
    status, body = await exchange(emulator, http, code, client_secret="not-it")
    assert (status, body) == (401, {"error": "invalid_client"})
    assert "client credentials" in emulator.violations.pop()
    basic = base64.b64encode(f"{emulator.client_id}:{emulator.client_secret}".encode()).decode()
    form = {"grant_type": "authorization_code", "code": code}
    status, token = await call(http, "POST", f"{emulator.api_base}/oauth2/token", data=form,
                               headers={"Authorization": f"Basic {basic}"})  # fmt: skip
    assert status == 200 and token["token_type"] == "Bearer"


async def test_a_code_lasts_ten_minutes(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    alice = emulator.create_user("alice")
    fresh, stale = emulator.authorize(alice), emulator.authorize(alice)
    emulator.advance(CODE_LIFETIME - 1)
    assert (await exchange(emulator, http, fresh))[0] == 200
    emulator.advance(2)
    status, body = await exchange(emulator, http, stale)
    assert (status, body["error"]) == (400, "invalid_grant")


async def test_the_token_route_takes_a_form_not_json(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    code = emulator.authorize(emulator.create_user("alice"))
    body = {"client_id": emulator.client_id, "client_secret": emulator.client_secret,
            "grant_type": "authorization_code", "code": code}  # fmt: skip
    status, answer = await call(http, "POST", f"{emulator.api_base}/oauth2/token", json=body)
    assert (status, answer) == (401, {"error": "invalid_client"})  # no field was read
    assert "form-encoded" in emulator.violations[0]
    emulator.violations.clear()
    status, answer = await exchange(emulator, http, code, grant_type="password")
    assert (status, answer["error"]) == (400, "unsupported_grant_type")
    status, answer = await exchange(emulator, http, "")
    assert (status, answer["error"]) == (400, "invalid_request")
    assert len(emulator.violations) == 2
    emulator.violations.clear()
    assert (await exchange(emulator, http, code))[0] == 200  # none of them spent it


async def test_a_redirect_uri_must_match_the_authorization(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    alice, uri = emulator.create_user("alice"), "https://127.0.0.1"
    with pytest.raises(ValueError, match="not registered"):
        emulator.authorize(alice, redirect_uri=uri)
    emulator.oauth.redirect_uris.append(uri)
    status, body = await exchange(emulator, http, emulator.authorize(alice, redirect_uri=uri))
    assert (status, body["error"]) == (400, "invalid_grant")  # the exchange must repeat it
    code = emulator.authorize(alice, redirect_uri=uri)
    assert (await exchange(emulator, http, code, redirect_uri=uri))[0] == 200
    status, body = await exchange(emulator, http, emulator.authorize(alice),
                                  redirect_uri="https://elsewhere")  # fmt: skip
    assert (status, body["error"]) == (400, "invalid_grant")
    assert (await exchange(emulator, http, emulator.authorize(alice), redirect_uri=uri))[0] == 200


async def test_a_refresh_token_is_used_once(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    alice = emulator.create_user("alice")
    _, token = await exchange(emulator, http, emulator.authorize(alice, ("identify", "email")))
    form = {"grant_type": "refresh_token", "refresh_token": token["refresh_token"]}
    status, fresh = await exchange(emulator, http, "", **form)
    assert status == 200 and fresh["scope"] == "identify email"
    status, user = await me(emulator, http, f"Bearer {fresh['access_token']}")
    assert status == 200 and user["email"] and user["verified"] is True
    assert (await exchange(emulator, http, "", **form))[0] == 400


async def test_bearer_tokens_expire_and_read_nothing_else(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    _, token = await exchange(emulator, http, emulator.authorize(emulator.create_user("alice")))
    bearer = f"Bearer {token['access_token']}"
    unauthorized = (401, {"message": "401: Unauthorized", "code": 0})
    channel_url = f"{emulator.api_base}/channels/{emulator.channel.id}"
    assert await call(http, "GET", channel_url, headers={"Authorization": bearer}) == unauthorized
    assert await me(emulator, http, "Bearer " + "y" * 30) == unauthorized
    emulator.advance(ACCESS_TOKEN_LIFETIME - 1)
    assert (await me(emulator, http, bearer))[0] == 200
    emulator.advance(2)
    assert await me(emulator, http, bearer) == unauthorized
    status, bot = await me(emulator, http, f"Bot {emulator.token}")
    assert status == 200 and bot["id"] == str(emulator.application_id) and bot["bot"] is True


def test_only_known_users_and_documented_scopes_are_authorized(emulator: DiscordEmulator) -> None:
    stranger, bot = EmuUser(12345, "stranger"), emulator.create_user("b", bot=True)
    owner = emulator.owner
    for user, scopes in [(stranger, ["identify"]), (bot, ["identify"]), (owner, ["identity"]),
                         (owner, [])]:  # fmt: skip
        with pytest.raises(ValueError):
            emulator.authorize(user, scopes)
    assert emulator.authorize(emulator.owner, ("identify", "guilds"))


# -- activity instances ---------------------------------------------------------------
async def test_a_channel_has_one_instance_that_ends_with_its_last_user(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    first = emulator.launch_activity(alice)
    assert emulator.launch_activity(bob, emulator.channel) == first
    status, body = await call(
        http, "GET", instance_url(emulator, first), headers=bot_auth(emulator)
    )
    guild, channel = emulator.guild.id, emulator.channel.id
    assert status == 200 and body == {
        "application_id": str(emulator.application_id), "instance_id": first,
        "launch_id": body["launch_id"], "users": [str(alice.id), str(bob.id)],
        "location": {"id": f"gc-{guild}-{channel}", "kind": "gc", "channel_id": str(channel),
                     "guild_id": str(guild)},
    }  # fmt: skip
    assert first == f"i-{body['launch_id']}-gc-{guild}-{channel}"
    path = f"/applications/{emulator.application_id}/activity-instances/{first}"
    assert spec_problem(emulator, "GET", path, body) is None

    emulator.leave_activity(alice, first)
    assert emulator.activity_instance(first)["users"] == [str(bob.id)]  # type: ignore[index]
    emulator.leave_activity(bob, first)
    gone = await call(http, "GET", instance_url(emulator, first), headers=bot_auth(emulator))
    assert gone == (404, {"message": "404: Not Found", "code": 0})
    again = emulator.launch_activity(bob)
    assert again != first and emulator.activity_instance(again)["users"] == [str(bob.id)]  # type: ignore[index]
    assert emulator.violations == []


async def test_a_dm_instance_is_a_private_channel_and_a_member_is_in_one_activity(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    in_dm = emulator.launch_activity(alice, emulator.open_private(alice, bob))
    payload = emulator.activity_instance(in_dm)
    assert payload is not None and payload["location"]["kind"] == "pc"
    assert "guild_id" not in payload["location"] and in_dm.endswith(payload["location"]["id"])
    path = f"/applications/{emulator.application_id}/activity-instances/{in_dm}"
    assert spec_problem(emulator, "GET", path, payload) is None
    in_server = emulator.launch_activity(alice)
    assert emulator.activity_instance(in_dm) is None  # she left it; it had no one else
    assert emulator.activity_instance(in_server)["users"] == [str(alice.id)]  # type: ignore[index]
    with pytest.raises(ValueError, match="cannot see"):
        emulator.launch_activity(bob, emulator.open_dm(alice))
    with pytest.raises(LookupError):
        emulator.leave_activity(bob, in_server)


async def test_the_instance_route_wants_the_bot_and_its_application(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    alice = emulator.create_user("alice")
    instance = emulator.launch_activity(alice)
    _, token = await exchange(emulator, http, emulator.authorize(alice))
    bearer = {"Authorization": f"Bearer {token['access_token']}"}
    assert (await call(http, "GET", instance_url(emulator, instance), headers=bearer))[0] == 401
    other_app = instance_url(emulator, instance).replace(str(emulator.application_id), "1234", 1)
    assert (await call(http, "GET", other_app, headers=bot_auth(emulator)))[0] == 403
    assert "wrong application id" in emulator.violations.pop()
    emulator.embedded = False
    with pytest.raises(ValueError, match="no Activity"):
        emulator.launch_activity(alice)
