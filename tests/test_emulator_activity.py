"""Discord's side of the Activity in the emulator: the OAuth2 code exchange and the Bearer
token's /users/@me, activity instances and their route, the entry point command and the
LAUNCH_ACTIVITY answer, shown with plain HTTP requests and with a discord.py client."""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands
from discord.http import Route

from discord_emulator import DiscordEmulator, EmuUser
from discord_emulator.oauth import ACCESS_TOKEN_LIFETIME, CODE_LIFETIME

ENTRY_POINT = {"name": "launch", "description": "Open the board", "type": 4, "handler": 1,
               "integration_types": [0, 1], "contexts": [0, 1, 2]}  # fmt: skip


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


async def until(condition: Any, timeout: float = 5) -> None:
    """Wait for what the bot does after its first answer (the emulator returns at that)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


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


async def test_the_token_route_is_rate_limited_as_discords_routes_are(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    """Every answer tells the bucket; past the limit a 429 with Retry-After; a call made
    while a Retry-After runs is counted, as a client obeying Discord never makes one."""
    limit = emulator.rate_limits.token
    limit.set(2, 10.0)
    answers = []
    for _ in range(3):
        async with http.post(f"{emulator.api_base}/oauth2/token", data={
            "client_id": emulator.client_id, "client_secret": emulator.client_secret,
            "grant_type": "authorization_code", "code": "junk",
        }) as res:  # fmt: skip
            answers.append((res.status, dict(res.headers), await res.json()))
    (first, one, _), (second, zero, _), (third, over, body) = answers
    assert (first, second, third) == (400, 400, 429)
    assert (one["X-RateLimit-Limit"], one["X-RateLimit-Remaining"]) == ("2", "1")
    assert zero["X-RateLimit-Remaining"] == "0" and 0 < float(zero["X-RateLimit-Reset-After"]) <= 10
    assert one["X-RateLimit-Bucket"] == over["X-RateLimit-Bucket"]
    assert body["global"] is False and 0 < body["retry_after"] <= 10
    assert body["retry_after"] <= int(over["Retry-After"]) <= 10  # whole seconds, rounded up
    assert over["Via"] and over["X-RateLimit-Scope"] == "user"
    assert (limit.calls, limit.limited, limit.early) == (3, 1, 0)  # past the limit, not early
    assert (await exchange(emulator, http, "junk"))[0] == 429
    assert (limit.limited, limit.early) == (2, 1)  # within the Retry-After it gave
    emulator.advance(10)
    status, _ = await exchange(emulator, http, "junk")
    assert status == 400 and (limit.calls, limit.early) == (5, 1)
    emulator.faults.add("POST", "/oauth2/token", 429, retry_after=30)
    assert (await exchange(emulator, http, "junk"))[0] == 429  # as a sub-limit does
    emulator.advance(29)
    assert (await exchange(emulator, http, "junk"))[0] == 400  # in the bucket, but early
    assert limit.early == 2


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


# -- entry point commands ---------------------------------------------------------------
async def put_commands(
    emu: DiscordEmulator, session: aiohttp.ClientSession, body: list[dict[str, Any]],
    guild: int | None = None,
) -> tuple[int, Any]:  # fmt: skip
    where = f"/guilds/{guild}" if guild is not None else ""
    url = f"{emu.api_base}/applications/{emu.application_id}{where}/commands"
    return await call(session, "PUT", url, json=body, headers=bot_auth(emu))


async def test_an_app_has_one_entry_point_global_and_without_options(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    slash = {"name": "ttt", "description": "Play", "type": 1}
    refused = [
        [ENTRY_POINT, ENTRY_POINT | {"name": "open"}],
        [ENTRY_POINT | {"options": [{"type": 5, "name": "x", "description": "x"}]}],
        [slash | {"handler": 1}],
    ]
    for body in refused:
        status, answer = await put_commands(emulator, http, body)
        assert (status, answer["code"]) == (400, 50035), body
    status, _ = await put_commands(emulator, http, [ENTRY_POINT], guild=emulator.guild.id)
    assert status == 400 and len(emulator.violations) == 4
    emulator.violations.clear()
    status, stored = await put_commands(emulator, http, [slash, ENTRY_POINT])
    assert status == 200 and [(c["type"], c.get("handler")) for c in stored] == [(1, None), (4, 1)]
    url = f"{emulator.api_base}/applications/{emulator.application_id}/commands"
    status, _ = await call(http, "POST", url, json=ENTRY_POINT | {"name": "open"},
                           headers=bot_auth(emulator))  # fmt: skip
    assert status == 400 and "already has an entry point" in emulator.violations.pop()
    status, edited = await call(http, "POST", url, json=ENTRY_POINT | {"handler": 2},
                                headers=bot_auth(emulator))  # fmt: skip
    assert status == 200 and edited["id"] == stored[1]["id"] and edited["handler"] == 2
    emulator.embedded = False
    assert (await put_commands(emulator, http, [ENTRY_POINT]))[0] == 400
    assert "Activities enabled" in emulator.violations.pop()


async def test_a_bulk_overwrite_cannot_drop_the_entry_point(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    launch = emulator.add_default_entry_point()
    assert (launch["type"], launch["handler"], launch["name"]) == (4, 2, "launch")
    slash = {"name": "ttt", "description": "Play"}
    status, answer = await put_commands(emulator, http, [slash])
    assert (status, answer["code"]) == (400, 50240) and "Primary Entry Point" in answer["message"]
    assert emulator.commands() == [launch] and emulator.violations
    emulator.violations.clear()
    assert (await put_commands(emulator, http, [slash], guild=emulator.guild.id))[0] == 200
    status, stored = await put_commands(emulator, http, [slash, {"name": "launch", "type": 4}])
    assert status == 200 and stored[1]["id"] == launch["id"]
    assert "documents no default" in emulator.violations.pop()


# -- with a discord.py client ---------------------------------------------------------
class OpenButton(discord.ui.View):
    def __init__(self, log: dict[str, Any]) -> None:
        super().__init__(timeout=None)
        self.log = log

    @discord.ui.button(label="Open", custom_id="open")
    async def open(
        self, interaction: discord.Interaction, _: discord.ui.Button[OpenButton]
    ) -> None:
        self.log["button"] = await interaction.response.launch_activity()


class LaunchingTree(app_commands.CommandTree):
    """discord.py 2.7.1 has no AppCommandType for the entry point: its interaction must
    be answered before the tree looks for a context menu of type 4 (and fails)."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        data: Any = interaction.data or {}
        if data.get("type") != 4:
            return True
        log = self.client.log  # type: ignore[attr-defined]
        log["entry"] = data
        await asyncio.sleep(log.get("entry_delay", 0))
        try:
            log["launched"] = await interaction.response.launch_activity()
        except discord.NotFound as exc:
            log["late"] = exc.code
        return False


class ActivityBot(discord.Client):
    def __init__(self, handler: int) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = LaunchingTree(self)
        self.log: dict[str, Any] = {}
        self.handler = handler
        log = self.log

        @self.tree.command(name="play", description="Open the Activity")
        async def play(interaction: discord.Interaction) -> None:
            log["play"] = await interaction.response.launch_activity()
            interaction.response._response_type = None  # past discord.py's own guard
            try:
                await interaction.response.send_message("again")
            except discord.HTTPException as exc:
                log["again"] = (exc.status, exc.code)

        @self.tree.command(name="board", description="A button that opens the Activity")
        async def board(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("board", view=OpenButton(log))

        @self.tree.command(name="quiet", description="Left for the test to answer")
        async def quiet(interaction: discord.Interaction) -> None:
            log["quiet"] = interaction

    async def setup_hook(self) -> None:
        """tree.sync() cannot send a type 4 command: the bulk overwrite adds it by hand."""
        assert self.application_id is not None
        payload = [c.to_dict(self.tree) for c in self.tree.get_commands()]
        payload.append(ENTRY_POINT | {"handler": self.handler})
        await self.http.bulk_upsert_global_commands(self.application_id, payload)


@contextlib.asynccontextmanager
async def activity_bot(emu: DiscordEmulator, handler: int = 1) -> AsyncIterator[ActivityBot]:
    old_base, old_gateway = Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = emu.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emu.gateway_url)
    client = ActivityBot(handler)
    task = asyncio.create_task(client.start(emu.token))
    try:
        await emu.wait_until_ready(timeout=10)
        await emu.wait_for_commands(timeout=10)
        yield client
    finally:
        await client.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)
        Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_base, old_gateway


async def test_the_app_handled_entry_point_reaches_the_bot_which_launches(
    emulator: DiscordEmulator,
) -> None:
    alice = emulator.create_user("alice")
    async with activity_bot(emulator) as bot:
        assert bot.application_flags.embedded  # READY's application flags say so
        res = await emulator.invoke_entry_point(alice)
        assert not isinstance(res, str) and res.type == 12 and res.message is None
        assert bot.log["entry"] == {"id": emulator.commands()[-1]["id"], "name": "launch",
                                    "type": 4}  # fmt: skip
        launched = bot.log["launched"]
        assert res.activity_instance_id is not None
        assert launched.activity_id == launched.resource.id == res.activity_instance_id
        assert emulator.activity_instance(res.activity_instance_id)["users"] == [str(alice.id)]  # type: ignore[index]

        emulator.interaction_deadline, bot.log["entry_delay"] = 0.2, 0.4
        late = await emulator.invoke_entry_point(alice)
        await until(lambda: "late" in bot.log)
        assert not isinstance(late, str) and late.type is None and bot.log["late"] == 10062
        assert len(emulator.violations) == 2, emulator.violations
        assert all("deadline" in v or "no initial response" in v for v in emulator.violations)
        emulator.violations.clear()


async def test_discord_launches_the_entry_point_itself_when_it_handles_it(
    emulator: DiscordEmulator,
) -> None:
    alice = emulator.create_user("alice")
    async with activity_bot(emulator, handler=2) as bot:
        instance = await emulator.invoke_entry_point(alice)
        assert isinstance(instance, str) and emulator.interactions == {}
        assert emulator.activity_instance(instance)["users"] == [str(alice.id)]  # type: ignore[index]
        assert "entry" not in bot.log
        with pytest.raises(discord.HTTPException) as refused:
            await bot.tree.sync()  # discord.py's own sync leaves the entry point out
        assert refused.value.code == 50240
        emulator.violations.clear()


async def test_launch_activity_answers_a_command_or_a_click_once(
    emulator: DiscordEmulator,
) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with activity_bot(emulator) as bot:
        res = await emulator.invoke(alice, "play")
        instance = res.activity_instance_id
        assert res.type == 12 and instance is not None and bot.log["play"].resource.id == instance
        await until(lambda: "again" in bot.log)
        assert bot.log["again"] == (400, 40060)
        assert "second initial response" in emulator.violations.pop()
        board = await emulator.invoke(bob, "board")
        click = await emulator.click(bob, board.message, "open")  # type: ignore[arg-type]
        assert click.type == 12 and click.activity_instance_id == instance
        users = emulator.activity_instance(instance)["users"]  # type: ignore[index]
        assert users == [str(alice.id), str(bob.id)]

        emulator.embedded, emulator.interaction_deadline = False, 0.3
        no_activity = await emulator.invoke(alice, "play")
        assert no_activity.type is None and "no Activity" in emulator.violations[0]
        emulator.violations.clear()


async def test_the_callback_answer_matches_the_spec(
    emulator: DiscordEmulator, http: aiohttp.ClientSession
) -> None:
    alice = emulator.create_user("alice")
    async with activity_bot(emulator) as bot:
        invoking = asyncio.create_task(emulator.invoke(alice, "quiet"))
        await until(lambda: "quiet" in bot.log)
        interaction = bot.log["quiet"]
        path = f"/interactions/{interaction.id}/{interaction.token}/callback"
        status, answer = await call(http, "POST", f"{emulator.api_base}{path}?with_response=true",
                                    json={"type": 12})  # fmt: skip
        res = await invoking
        instance = res.activity_instance_id
        assert status == 200 and answer == {
            "interaction": {"id": str(interaction.id), "type": 2, "activity_instance_id": instance},
            "resource": {"type": 12, "activity_instance": {"id": instance}},
        }
        assert spec_problem(emulator, "POST", path, answer) is None
        autocomplete = emulator._new_record(alice, 4, emulator.channel, "play")
        emulator.interactions[autocomplete.id] = autocomplete
        path = f"/interactions/{autocomplete.id}/{autocomplete.token}/callback"
        status, answer = await call(http, "POST", f"{emulator.api_base}{path}", json={"type": 12})
        assert (status, answer["code"]) == (400, 50035)
        assert "type 4 cannot launch" in emulator.violations.pop()
        del emulator.interactions[autocomplete.id]  # the emulator sends no autocomplete
