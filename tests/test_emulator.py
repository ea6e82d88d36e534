"""The Discord emulator proven against an unmodified discord.py client in the same event loop."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import zlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands
from discord.http import Route

from discord_emulator import CommandError, DiscordEmulator, buttons, find_button


class Board(discord.ui.View):
    def __init__(self, log: dict[str, Any]) -> None:
        super().__init__(timeout=None)
        self.log = log

    @discord.ui.button(label="A", custom_id="ttt:a", style=discord.ButtonStyle.primary)
    async def a(self, interaction: discord.Interaction, button: discord.ui.Button[Board]) -> None:
        button.disabled = True
        self.log.setdefault("clicks", []).append(("a", interaction.user.id))
        await interaction.response.edit_message(content="A pressed", view=self)

    @discord.ui.button(label="B", custom_id="ttt:b")
    async def b(self, interaction: discord.Interaction, button: discord.ui.Button[Board]) -> None:
        seen = [c.disabled for row in interaction.message.components for c in row.children]  # type: ignore[union-attr]
        self.log.setdefault("clicks", []).append(("b", interaction.user.id, seen))
        await interaction.response.edit_message(content="B pressed")


class EmuBot(discord.Client):
    def __init__(self, persistent: bool = False) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.1)
        self.tree = app_commands.CommandTree(self)
        self.log: dict[str, Any] = {}
        self.persistent = persistent
        self.tree.add_command(self._group())

        @self.tree.command(name="setup", description="Only in servers")
        @app_commands.guild_only()
        async def setup(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("set up", ephemeral=True)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py sleeps 5 s before a re-IDENTIFY (real rate limit); not needed here."""

    async def setup_hook(self) -> None:
        if self.persistent:
            self.add_view(Board(self.log))
        await self.tree.sync()

    def _group(self) -> app_commands.Group:
        log = self.log
        group = app_commands.Group(name="ttt", description="Tic-tac-toe")

        @group.command(name="start", description="Challenge someone")
        @app_commands.choices(
            difficulty=[app_commands.Choice(name=n, value=n) for n in ("easy", "hard")]
        )
        async def start(
            interaction: discord.Interaction,
            opponent: discord.Member,
            difficulty: app_commands.Choice[str] | None = None,
        ) -> None:
            log["start"] = (interaction.user.id, opponent.id, opponent.name, difficulty)
            await interaction.response.send_message(f"{opponent.mention}?", view=Board(log))

        @group.command(name="where", description="Says where it was used")
        async def where(interaction: discord.Interaction) -> None:
            log["where"] = interaction
            await interaction.response.send_message("here", view=Board(log))

        @group.command(name="file", description="Sends a file")
        async def file(interaction: discord.Interaction) -> None:
            data = discord.File(io.BytesIO(b"xo"), filename="board.txt")
            await interaction.response.send_message("board", file=data)

        @group.command(name="secret", description="Ephemeral")
        async def secret(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("only you", ephemeral=True)

        @group.command(name="slow", description="Deferred")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(0.1)
            await interaction.edit_original_response(content="done")
            await interaction.followup.send("psst", ephemeral=True)

        @group.command(name="late", description="Misses the deadline")
        async def late(interaction: discord.Interaction) -> None:
            await asyncio.sleep(0.7)
            try:
                await interaction.response.send_message("too late")
            except discord.NotFound as exc:
                log["late"] = exc.code

        @group.command(name="double", description="Acknowledges twice")
        async def double(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("one")
            interaction.response._response_type = None  # bypass discord.py's own guard
            try:
                await interaction.response.send_message("two")
            except discord.HTTPException as exc:
                log["double"] = (exc.status, exc.code)

        @group.command(name="rows", description="Too many action rows")
        async def rows(interaction: discord.Interaction) -> None:
            row = {
                "type": 1,
                "components": [{"type": 2, "style": 1, "label": "x", "custom_id": ""}],
            }
            comps = [json.loads(json.dumps(row)) for _ in range(6)]
            for i, c in enumerate(comps):
                c["components"][0]["custom_id"] = f"r{i}"
            route = Route(
                "POST",
                "/interactions/{i}/{t}/callback",
                i=interaction.id,
                t=interaction.token,
            )
            body = {"type": 4, "data": {"content": "rows", "components": comps}}
            try:
                await self.http.request(route, json=body)
            except discord.HTTPException as exc:
                log["rows"] = (exc.status, exc.code, str(exc))
            await interaction.response.send_message("fallback")

        return group


@contextlib.asynccontextmanager
async def running_bot(emu: DiscordEmulator, *, persistent: bool = False) -> AsyncIterator[EmuBot]:
    """Run an EmuBot against `emu`, pointing discord.py at it and restoring the URLs after."""
    old_base, old_gateway = Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = emu.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emu.gateway_url)
    client = EmuBot(persistent=persistent)
    ready, synced = emu.ready_count + 1, emu.sync_count + 1
    task = asyncio.create_task(client.start(emu.token))
    try:
        await emu.wait_until_ready(timeout=10, count=ready)
        await emu.wait_for_commands(timeout=10, count=synced)
        yield client
    finally:
        await client.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)
        Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway


@pytest.fixture
async def bot(emulator: DiscordEmulator) -> AsyncIterator[EmuBot]:
    async with running_bot(emulator) as client:
        yield client


async def test_ready_guild_and_sync(emulator: DiscordEmulator, bot: EmuBot) -> None:
    await bot.wait_until_ready()
    guild = bot.get_guild(emulator.guild.id)
    assert guild is not None and guild.get_channel(emulator.channel.id) is not None
    assert bot.user is not None and bot.user.id == emulator.application_id
    assert emulator.identify_payloads[0]["intents"] == discord.Intents.default().value
    assert emulator.sync_count == 1
    cmd, setup = emulator.commands()
    assert setup["name"] == "setup" and setup["contexts"] == [0]
    assert cmd["name"] == "ttt" and {o["name"] for o in cmd["options"]} >= {"start", "slow"}
    assert ("PUT", f"/applications/{emulator.application_id}/commands") in [
        r[:2] for r in emulator.requests
    ]


async def test_invoke_buttons_and_click_state(emulator: DiscordEmulator, bot: EmuBot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "difficulty": "hard"})
    assert res.type == 4 and not res.ephemeral
    assert bot.log["start"][:3] == (alice.id, bob.id, "bob")
    assert bot.log["start"][3].value == "hard"
    assert res.content == f"<@{bob.id}>?"
    assert [[b["custom_id"] for b in row] for row in buttons(res.message)] == [["ttt:a", "ttt:b"]]
    assert emulator.channel_messages(emulator.channel)[-1]["id"] == res.message["id"]

    r2 = await emulator.click(bob, res.message, "ttt:a")
    assert r2.type == 7 and r2.content == "A pressed"
    assert find_button(r2.message, label="A")["disabled"] is True
    with pytest.raises(PermissionError):
        await emulator.click(bob, res.message, "ttt:a")
    with pytest.raises(LookupError):
        await emulator.click(bob, res.message, "nope")
    r3 = await emulator.click(alice, res.message["id"], "ttt:b")
    assert r3.type == 7 and emulator.message(res.message["id"])["content"] == "B pressed"
    assert bot.log["clicks"][-1] == ("b", alice.id, [True, False])


async def test_invoke_rejects_what_a_client_cannot_send(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    alice = emulator.create_user("alice")
    with pytest.raises(CommandError, match="unknown option"):
        await emulator.invoke(alice, "ttt start", {"opponent": alice, "speed": 3})
    with pytest.raises(CommandError, match="choices"):
        await emulator.invoke(alice, "ttt start", {"opponent": alice, "difficulty": "insane"})
    with pytest.raises(CommandError, match="missing required"):
        await emulator.invoke(alice, "ttt start")
    with pytest.raises(CommandError, match="not a synced command"):
        await emulator.invoke(alice, "chess")


async def test_ephemeral_and_deferred(emulator: DiscordEmulator, bot: EmuBot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt secret")
    assert res.type == 4 and res.ephemeral and res.message["flags"] & 64
    assert res.message["id"] not in [m["id"] for m in emulator.channel_messages(emulator.channel)]

    res = await emulator.invoke(alice, "ttt slow")
    assert res.type == 5 and res.message["flags"] & 128
    final = await res.wait_for_edit(timeout=5, count=2)
    assert final is not None and final["content"] == "done" and not final["flags"] & 128
    assert [f["content"] for f in res.followups] == ["psst"]
    assert res.followups[0]["flags"] & 64


async def test_invalid_body_rejected_and_recorded(emulator: DiscordEmulator, bot: EmuBot) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt rows")
    assert res.content == "fallback"
    status, code, text = bot.log["rows"]
    assert (status, code) == (400, 50035) and "components" in text
    assert len(emulator.violations) == 1 and "5 or fewer" in emulator.violations[0]
    emulator.violations.clear()

    channel = bot.get_channel(emulator.channel.id)
    assert isinstance(channel, discord.TextChannel)
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="x", custom_id="x" * 101))
    with pytest.raises(discord.HTTPException) as info:
        await channel.send("hi", view=view)
    assert info.value.status == 400 and info.value.code == 50035
    assert "custom_id" in emulator.violations[0]
    emulator.violations.clear()

    if emulator.validator is None:
        return  # spec absent: only the emulator's own rules apply (reported in the summary)
    route = Route("POST", "/channels/{c}/messages", c=emulator.channel.id)
    with pytest.raises(discord.HTTPException):
        await bot.http.request(route, json={"content": 5})
    assert "$.content" in emulator.violations[0] and "not of type" in emulator.violations[0]
    emulator.violations.clear()


async def test_channel_message_edit_and_fetch(emulator: DiscordEmulator, bot: EmuBot) -> None:
    channel = bot.get_channel(emulator.channel.id)
    assert isinstance(channel, discord.TextChannel)
    msg = await channel.send("board", embed=discord.Embed(title="t"))
    waiter = asyncio.create_task(emulator.wait_for_message(lambda m: m["content"] == "expired"))
    await asyncio.sleep(0)
    fetched = await channel.fetch_message(msg.id)
    await fetched.edit(content="expired")
    edited = await waiter
    assert edited["id"] == str(msg.id) and edited["embeds"][0]["title"] == "t"
    assert edited["edited_timestamp"] is not None
    await fetched.delete()
    with pytest.raises(discord.NotFound):
        await channel.fetch_message(msg.id)


@pytest.mark.slow  # waits seconds for a timer
async def test_deadline_and_double_ack(emulator: DiscordEmulator, bot: EmuBot) -> None:
    emulator.interaction_deadline = 0.5
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt late")
    assert res.type is None
    await asyncio.sleep(0.4)
    assert bot.log["late"] == 10062
    assert any("no initial response within 0.5s" in v for v in emulator.violations)
    assert any("after" in v and "deadline" in v for v in emulator.violations)
    emulator.violations.clear()

    res = await emulator.invoke(alice, "ttt double")
    assert res.content == "one"
    await asyncio.sleep(0.1)
    assert bot.log["double"] == (400, 40060)
    assert len(emulator.violations) == 1 and "second initial response" in emulator.violations[0]
    emulator.violations.clear()


async def test_gateway_drop_resume(emulator: DiscordEmulator, bot: EmuBot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob})
    await emulator.drop_gateway(code=4000)
    await emulator.wait_until_resumed(timeout=10)
    assert emulator.gateway.resumes == 1 and len(emulator.identify_payloads) == 1
    r2 = await emulator.click(bob, res.message, "ttt:a")
    assert r2.type == 7 and r2.content == "A pressed"


async def _raw_ws(emu: DiscordEmulator, query: str = "?v=10&encoding=json") -> Any:
    session = aiohttp.ClientSession()
    ws = await session.ws_connect(emu.gateway_url + query)
    return session, ws


async def test_raw_gateway_uncompressed_and_errors(emulator: DiscordEmulator) -> None:
    session, ws = await _raw_ws(emulator)
    async with session:
        hello = await ws.receive_json()
        assert hello["op"] == 10 and hello["d"]["heartbeat_interval"] == 41250
        await ws.send_json({"op": 1, "d": None})
        assert (await ws.receive_json())["op"] == 11
        await ws.send_json(
            {"op": 2, "d": {"token": emulator.token, "intents": 1, "properties": {}}}
        )
        ready = await ws.receive_json()
        assert ready["t"] == "READY" and ready["s"] == 1
        assert ready["d"]["resume_gateway_url"] == emulator.gateway_url
        guild = await ws.receive_json()
        assert guild["t"] == "GUILD_CREATE" and guild["d"]["member_count"] == 2
        await ws.close()
    session, ws = await _raw_ws(emulator, "?v=10&encoding=json&compress=zlib-stream")
    async with session:
        inflater = zlib.decompressobj()
        msg = await ws.receive_bytes()
        assert msg.endswith(b"\x00\x00\xff\xff")
        assert json.loads(inflater.decompress(msg))["op"] == 10
        await ws.send_json({"op": 6, "d": {"token": emulator.token, "session_id": "x", "seq": 1}})
        assert json.loads(inflater.decompress(await ws.receive_bytes())) == {
            "op": 9,
            "s": None,
            "t": None,
            "d": False,
        }
        await ws.send_json({"op": 2, "d": {"token": "wrong", "intents": 1, "properties": {}}})
        closed = await ws.receive()
        assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4004


async def test_login_failure_and_unknown_route(emulator: DiscordEmulator) -> None:
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    old = Route.BASE
    Route.BASE = emulator.api_base
    try:
        with pytest.raises(discord.LoginFailure):
            await http.static_login("not-the-token")
        await http.close()
        http = discord.http.HTTPClient(asyncio.get_running_loop())
        await http.static_login(emulator.token)
        with pytest.raises(discord.NotFound):
            await http.request(Route("GET", "/guilds/{g}/bans", g=emulator.guild.id))
    finally:
        await http.close()
        Route.BASE = old
    assert emulator.violations == [f"GET /guilds/{emulator.guild.id}/bans: unknown route"]
    emulator.violations.clear()


def test_deepest_error_in_callback_union(openapi_spec_path: Any) -> None:
    if openapi_spec_path is None:
        pytest.skip("Discord OpenAPI spec not available")
    from discord_emulator.validation import BodyError, load_validator

    validator = load_validator(openapi_spec_path)
    body = {
        "type": 7,
        "data": {"components": [{"type": 1, "components": [{"type": 2, "style": "x"}]}]},
    }
    with pytest.raises(BodyError) as info:
        validator.validate("POST", "/interactions/1/abc/callback", body)
    assert "$.data.components[0].components[0].style" in info.value.summary
    assert "components" in info.value.errors["data"]


async def test_bot_restart_persistent_view(emulator: DiscordEmulator) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with running_bot(emulator) as first:
        res = await emulator.invoke(alice, "ttt start", {"opponent": bob})
        assert first.log["start"][1] == bob.id
    async with running_bot(emulator, persistent=True) as second:
        assert emulator.ready_count == 2 and emulator.sync_count == 2
        assert [c["name"] for c in emulator.commands()] == ["ttt", "setup"]
        r2 = await emulator.click(bob, res.message, "ttt:a")
        assert r2.type == 7 and second.log["clicks"] == [("a", bob.id)]


async def test_file_upload_token_expiry_and_followup_rules(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    alice = emulator.create_user("alice")
    res = await emulator.invoke(alice, "ttt file")
    assert res.type == 4 and res.message["attachments"][0]["filename"] == "board.txt"
    method, path, body, _ = emulator.requests[-1]
    assert method == "POST" and path.endswith("/callback") and body["data"]["content"] == "board"

    emulator.token_lifetime = 0.0
    webhook = discord.Webhook.from_url(
        f"https://discord.com/api/webhooks/{emulator.application_id}/{res.token}",
        client=bot,
    )
    with pytest.raises(discord.HTTPException) as info:
        await webhook.send("late follow-up", wait=True)
    assert info.value.status == 401 and info.value.code == 50027
    assert "expiry" in emulator.violations[0]
    emulator.violations.clear()


async def test_invalidated_session_reidentifies(emulator: DiscordEmulator, bot: EmuBot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    res = await emulator.invoke(alice, "ttt start", {"opponent": bob})
    emulator.gateway.request_reconnect()
    await emulator.wait_until_resumed(timeout=10)
    await emulator.drop_gateway(code=4000, invalidate=True)
    await emulator.wait_until_ready(timeout=15, count=2)
    assert len(emulator.identify_payloads) == 2
    r2 = await emulator.click(bob, res.message, "ttt:b")
    assert r2.type == 7 and r2.content == "B pressed"


async def test_a_dm_with_the_bot(emulator: DiscordEmulator, bot: EmuBot) -> None:
    alice, bob = emulator.create_user("alice", locale="de"), emulator.create_user("bob")
    dm = emulator.open_dm(alice)
    assert emulator.open_dm(alice) is dm and dm.type == 1 and dm.guild_id is None
    res = await emulator.invoke(alice, "ttt where", channel=dm)
    assert res.type == 4 and res.content == "here"
    interaction: discord.Interaction = bot.log["where"]
    payload = emulator.interactions[res.id].payload
    assert "guild_id" not in payload and "member" not in payload and "guild_locale" not in payload
    assert payload["user"]["id"] == str(alice.id) and payload["context"] == 1
    assert payload["authorizing_integration_owners"] == {"0": "0"}
    assert interaction.guild_id is None and type(interaction.user) is discord.User
    assert isinstance(interaction.channel, discord.DMChannel)
    assert (
        interaction.channel.recipient is not None and interaction.channel.recipient.id == alice.id
    )
    assert interaction.context.dm_channel and not interaction.context.guild
    perms = interaction.app_permissions
    assert perms.embed_links and not perms.send_messages and not perms.view_channel
    assert str(interaction.locale) == "de"
    assert emulator.channel_messages(dm)[-1]["id"] == res.message["id"]
    assert res.message["id"] not in [m["id"] for m in emulator.channel_messages(emulator.channel)]

    # a click in the DM, then an edit over REST as a bot makes when nobody clicked
    r2 = await emulator.click(alice, res.message, "ttt:a")
    assert r2.type == 7 and r2.content == "A pressed"
    message = bot.get_partial_messageable(dm.id).get_partial_message(int(res.message["id"]))
    await message.edit(content="timed out")
    assert emulator.message(res.message["id"])["content"] == "timed out"
    sent = await bot.get_partial_messageable(dm.id).send("hello again")
    assert emulator.channel_messages(dm)[-1]["id"] == str(sent.id)
    # message events from a DM (default intents include DIRECT_MESSAGES) name no server
    session = emulator.gateway.current
    assert session is not None
    events = [e["d"] for e in session.events if e["t"] in ("MESSAGE_CREATE", "MESSAGE_UPDATE")]
    in_dm = [d for d in events if d["channel_id"] == str(dm.id)]
    assert len(in_dm) == 4  # the reply, the click's edit, the REST edit, the new message
    assert not any("guild_id" in d or "member" in d for d in in_dm)

    # what Discord refuses: a server-only command, someone else in alice's DM
    with pytest.raises(CommandError, match="cannot be used in a DM"):
        await emulator.invoke(alice, "setup", channel=dm)
    with pytest.raises(ValueError, match="not in this DM"):
        await emulator.invoke(bob, "ttt where", channel=dm)
    res = await emulator.invoke(alice, "setup")
    assert res.content == "set up"


def png_bytes(width: int, height: int) -> bytes:
    """A real PNG of that size (the emulator reads an image's size from its header)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (43, 45, 49)).save(out, format="PNG")
    return out.getvalue()


async def test_files_are_kept_and_embeds_show_them(emulator: DiscordEmulator, bot: EmuBot) -> None:
    channel = bot.get_channel(emulator.channel.id)
    assert isinstance(channel, discord.TextChannel)
    picture = png_bytes(120, 80)
    embed = discord.Embed(title="bracket").set_image(url="attachment://bracket.png")
    sent = await channel.send(embed=embed, file=discord.File(io.BytesIO(picture), "bracket.png"))
    stored = emulator.message(sent.id)
    (attachment,) = stored["attachments"]
    assert (attachment["filename"], attachment["size"]) == ("bracket.png", len(picture))
    assert (attachment["width"], attachment["height"], attachment["content_type"]) == (
        120, 80, "image/png")  # fmt: skip
    assert stored["embeds"][0]["image"]["url"] == attachment["url"]  # as Discord resolves it
    assert emulator.attachment(sent.id, "bracket.png") == picture
    assert sent.embeds[0].image.url == attachment["url"]  # what discord.py was answered
    # an edit adds a redrawn picture and keeps the first; the bytes are the new ones
    redrawn = png_bytes(160, 80)
    second = discord.File(io.BytesIO(redrawn), "standings.png")
    edited = await sent.edit(attachments=[sent.attachments[0], second])
    assert [a.filename for a in edited.attachments] == ["bracket.png", "standings.png"]
    assert emulator.attachment(sent.id, "standings.png") == redrawn
    # an edit that names no attachments keeps them all, uploading nothing (Discord's Edit
    # Message: only the attachments field removes or replaces files)
    edited = await sent.edit(content="round 2")
    assert [a.filename for a in edited.attachments] == ["bracket.png", "standings.png"]
    assert emulator.message(sent.id)["embeds"][0]["image"]["url"] == attachment["url"]
    assert [a["filename"] for a in emulator.uploads[sent.id]] == ["bracket.png", "standings.png"]
    assert emulator.violations == []
    # an embed naming a file the message does not carry is the bot's mistake
    await channel.send(embed=discord.Embed().set_image(url="attachment://missing.png"))
    assert any("attachment://missing.png" in v for v in emulator.violations)
    emulator.violations.clear()


async def test_an_interaction_answer_keeps_its_file(emulator: DiscordEmulator, bot: EmuBot) -> None:
    res = await emulator.invoke(emulator.create_user("alice"), "ttt file")
    assert res.message["attachments"][0]["filename"] == "board.txt"
    assert emulator.attachment(res.message, "board.txt") == b"xo"


async def test_threads_from_a_message_and_standalone(
    emulator: DiscordEmulator, bot: EmuBot
) -> None:
    channel = bot.get_channel(emulator.channel.id)
    assert isinstance(channel, discord.TextChannel)
    starter = await channel.send("round 1")
    thread = await starter.create_thread(name="Match 1: alice vs bob")
    assert thread.id == starter.id and thread.parent_id == channel.id  # Discord's rule
    emu_thread = emulator.channels[thread.id]
    assert emu_thread.is_thread and emu_thread.type == 11
    assert emulator.message(starter.id)["thread"]["id"] == str(thread.id)
    for _ in range(50):  # THREAD_CREATE reaches discord.py's cache
        if bot.get_channel(thread.id) is not None:
            break
        await asyncio.sleep(0.02)
    assert isinstance(bot.get_channel(thread.id), discord.Thread)
    posted = await thread.send("<@1> <@2>, your match")
    assert emulator.message(posted.id)["channel_id"] == str(thread.id)
    with pytest.raises(discord.HTTPException) as again:
        await starter.create_thread(name="twice")
    assert again.value.code == 160004
    # an interaction in the thread comes from it, and is answered there
    res = await emulator.invoke(emulator.create_user("alice"), "ttt where", channel=emu_thread)
    assert res.message["channel_id"] == str(thread.id)
    assert bot.log["where"].channel.id == thread.id
    private = await channel.create_thread(name="organisers")  # no message: private
    assert private.type == discord.ChannelType.private_thread
    assert emulator.violations == []


async def test_threads_need_their_permissions(emulator: DiscordEmulator, bot: EmuBot) -> None:
    from discord_emulator.state import PERM_CREATE_PUBLIC_THREADS, PERM_SEND_MESSAGES_IN_THREADS

    channel = bot.get_channel(emulator.channel.id)
    assert isinstance(channel, discord.TextChannel)
    thread = await (await channel.send("allowed")).create_thread(name="allowed")
    emulator.channels[thread.id].app_permissions &= ~PERM_SEND_MESSAGES_IN_THREADS
    with pytest.raises(discord.Forbidden) as denied:
        await thread.send("not here")
    assert denied.value.code == 50013
    emulator.channel.app_permissions &= ~PERM_CREATE_PUBLIC_THREADS
    with pytest.raises(discord.Forbidden):
        await (await channel.send("refused")).create_thread(name="refused")
