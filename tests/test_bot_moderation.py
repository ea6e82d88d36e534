"""Moderation through the emulator: /ttt stop, /ttt board, and the opt-in turn ping, as
members see them, in English and another language."""

from __future__ import annotations

import pytest

from bot.discord_ui import custom_ids

from bot_harness import (
    accepted_member_game,
    board_of,
    cell_id,
    running_bot,
    settings_for,
    with_marks,
)
from discord_emulator import DiscordEmulator, buttons, find_button, text_of
from discord_emulator.state import DEFAULT_PERMISSIONS, PERM_MANAGE_GUILD, PERM_MANAGE_MESSAGES

# what each language's texts say, for the assertions (the server's and members' language)
SAYS = {
    "en-US": {"stopped": "ended by a moderator", "not_mod": "Manage Messages",
              "done": "You ended the game", "moved": "This board was posted again",
              "none": "You have no running game", "ping": "it's your move",
              "which": "2 games are running"},
    "de": {"stopped": "von einem Moderator", "not_mod": "Nachrichten verwalten",
           "done": "Du hast die Partie beendet", "moved": "Dieses Spielfeld wurde neu gepostet",
           "none": "Du hast in diesem Kanal keine laufende Partie", "ping": "du bist am Zug",
           "which": "laufen 2 Partien"},
    "fr": {"stopped": "arrêtée par un modérateur", "not_mod": "Gérer les messages",
           "done": "Tu as arrêté la partie", "moved": "Cette grille a été repostée",
           "none": "Tu n'as aucune partie en cours", "ping": "c'est ton tour",
           "which": "2 parties sont en cours"},
}  # fmt: skip


def speaking(emulator: DiscordEmulator, locale: str, *names: str):
    """The server in ``locale`` and members who speak it."""
    emulator.guild.locale = locale
    return [emulator.create_user(name, locale=locale) for name in names]


def link_to(emulator: DiscordEmulator, message: dict) -> str:
    return f"/{emulator.guild.id}/{message['channel_id']}/{message['id']}"


def all_disabled(message: dict) -> bool:
    """Every square and Resign off (a finished game's Review may stay)."""
    return all(
        b.get("disabled")
        for row in buttons(message)
        for b in row
        if not isinstance(custom_ids.parse(b["custom_id"]), custom_ids.ReviewClick)
    )


async def once_edited(emulator: DiscordEmulator, message: dict, says: str) -> dict:
    """``message`` as soon as it says ``says`` (an edit made after the answer)."""
    return await emulator.wait_for_message(
        lambda m: m["id"] == message["id"] and says in text_of(m), include_existing=True
    )


@pytest.mark.parametrize("locale", ["en-US", "de"])
async def test_a_moderator_stops_a_game_and_a_member_cannot(
    emulator: DiscordEmulator, tmp_path, locale: str
) -> None:
    alice, bob, mod = speaking(emulator, locale, "alice", "bob", "mod")
    mod.permissions = DEFAULT_PERMISSIONS | PERM_MANAGE_MESSAGES
    says = SAYS[locale]
    async with running_bot(emulator, settings_for(emulator, tmp_path / "db.sqlite3")):
        board = await accepted_member_game(emulator, alice, bob)
        board = (await emulator.click(alice, board, cell_id(board, 4))).message
        res = await emulator.invoke(bob, "ttt stop")
        assert res.ephemeral and says["not_mod"] in res.content
        assert not all_disabled(emulator.message(board["id"]))  # nothing changed
        res = await emulator.invoke(mod, "ttt stop")
        assert res.ephemeral and res.content.startswith(says["done"])
        assert link_to(emulator, board) in res.content
        stopped = await once_edited(emulator, board, says["stopped"])
        assert says["stopped"] in stopped["content"] and f"<@{mod.id}>" in stopped["content"]
        assert board_of(stopped) == "....X...." and all_disabled(stopped)  # Review stays
        assert find_button(stopped, label="Rematch") is None
        res = await emulator.invoke(mod, "ttt stop")
        assert res.ephemeral and "<@" not in res.content  # nothing left to stop
        res = await emulator.invoke(alice, "ttt leaderboard")
        assert f"<@{alice.id}>" not in str(res.embeds)  # nobody rated


async def test_with_several_games_the_moderator_names_a_player(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob, carol, mod = speaking(emulator, "fr", "alice", "bob", "carol", "mod")
    mod.permissions = DEFAULT_PERMISSIONS | PERM_MANAGE_MESSAGES
    settings = settings_for(emulator, tmp_path / "db.sqlite3", games_per_channel=2)
    async with running_bot(emulator, settings):
        first = await accepted_member_game(emulator, alice, bob)
        second = (await emulator.invoke(carol, "ttt start", {"first": "me"})).message
        res = await emulator.invoke(mod, "ttt stop")
        assert res.ephemeral and SAYS["fr"]["which"] in res.content
        assert link_to(emulator, first) in res.content and link_to(emulator, second) in res.content
        res = await emulator.invoke(mod, "ttt stop", {"member": carol})
        assert res.ephemeral and link_to(emulator, second) in res.content
        assert all_disabled(await once_edited(emulator, second, SAYS["fr"]["stopped"]))
        assert not all_disabled(emulator.message(first["id"]))


@pytest.mark.parametrize(("locale", "size"), [("en-US", 3), ("fr", 4), ("en-US", 5)])
async def test_a_player_posts_the_board_again(
    emulator: DiscordEmulator, tmp_path, locale: str, size: int
) -> None:
    alice, carol = speaking(emulator, locale, "alice", "carol")
    says = SAYS[locale]
    async with running_bot(emulator, settings_for(emulator, tmp_path / "db.sqlite3")):
        res = await emulator.invoke(
            alice, "ttt start", {"difficulty": "easy", "first": "me", "size": size}
        )
        await emulator.click(alice, res.message, cell_id(res.message, 0))
        old = await with_marks(emulator, res.message, 2)  # the bot's reply is on it
        res = await emulator.invoke(carol, "ttt board")
        assert res.ephemeral and res.content.startswith(says["none"])
        res = await emulator.invoke(alice, "ttt board")
        new = res.message
        assert res.type == 4 and not res.ephemeral and new["id"] != old["id"]
        assert board_of(new) == board_of(old) and not all_disabled(new)
        retired = await once_edited(emulator, old, says["moved"])
        assert all_disabled(retired) and board_of(retired) == board_of(old)
        assert says["moved"] in text_of(retired) and link_to(emulator, new) in text_of(retired)
        # a client that still shows the old buttons gets a private answer, not a move
        stale = await emulator.click(alice, old, cell_id(old, 1), force=True)
        assert stale.ephemeral and link_to(emulator, new) in stale.content
        assert board_of(emulator.message(old["id"])) == board_of(old)
        res = await emulator.click(alice, new, cell_id(new, board_of(new).index(".")))
        assert res.type == 7
        assert board_of(await with_marks(emulator, new, 4)).count(".") == size * size - 4


async def test_the_board_posted_again_after_a_restart(emulator: DiscordEmulator, tmp_path) -> None:
    alice, bob = speaking(emulator, "de", "alice", "bob")
    settings = settings_for(emulator, tmp_path / "db.sqlite3")
    async with running_bot(emulator, settings):
        old = await accepted_member_game(emulator, alice, bob)
    async with running_bot(emulator, settings):
        new = (await emulator.invoke(bob, "ttt board")).message
        await once_edited(emulator, old, SAYS["de"]["moved"])
        stale = await emulator.click(alice, old, cell_id(old, 4), force=True)
        assert stale.ephemeral and SAYS["de"]["moved"] in stale.content
        res = await emulator.click(alice, new, cell_id(new, 4))
        assert res.type == 7 and board_of(res.message) == "....X...."
        resign = next(
            b["custom_id"]
            for row in buttons(new)
            for b in row
            if isinstance(custom_ids.parse(b["custom_id"]), custom_ids.ResignClick)
        )
        stale = await emulator.click(bob, old, resign, force=True)
        assert stale.ephemeral and emulator.message(new["id"])["content"] == res.content


def ping_for(user, says: str):
    return lambda m: m["content"].startswith(f"<@{user.id}>") and says in m["content"]


def ping_request(emulator: DiscordEmulator, message: dict) -> dict:
    """The body the bot sent to create ``message``."""
    path = f"/channels/{message['channel_id']}/messages"
    sent = [r.body for r in emulator.requests if r.method == "POST" and r.path == path]
    return next(b for b in sent if b.get("content") == message["content"])


@pytest.mark.parametrize("locale", ["en-US", "fr"])
async def test_the_turn_ping_mentions_the_mover_and_goes_when_the_turn_passes(
    emulator: DiscordEmulator, tmp_path, locale: str
) -> None:
    alice, bob = speaking(emulator, locale, "alice", "bob")
    says = SAYS[locale]["ping"]
    settings = settings_for(emulator, tmp_path / "db.sqlite3", turn_ping=True)
    async with running_bot(emulator, settings):
        board = await accepted_member_game(emulator, alice, bob)  # alice moves first
        ping = await emulator.wait_for_message(ping_for(alice, says), include_existing=True)
        assert link_to(emulator, board) in ping["content"]
        body = ping_request(emulator, ping)
        assert body["allowed_mentions"] == {"parse": [], "users": [alice.id]}
        board = (await emulator.click(alice, board, cell_id(board, 4))).message
        second = await emulator.wait_for_message(ping_for(bob, says))
        assert not emulator.has_message(ping["id"])  # taken before the next was sent
        assert ping_request(emulator, second)["allowed_mentions"]["users"] == [bob.id]
        board = (await emulator.click(bob, board, cell_id(board, 0))).message
        third = await emulator.wait_for_message(ping_for(alice, says))
        await emulator.wait_until_deleted(second["id"])
        # the game ends: the last ping goes, and no new one comes
        resign = next(
            b["custom_id"]
            for row in buttons(board)
            for b in row
            if isinstance(custom_ids.parse(b["custom_id"]), custom_ids.ResignClick)
        )
        await emulator.click(alice, board, resign)
        await emulator.wait_until_deleted(third["id"])
        pings = [m for m in emulator.channel_messages(emulator.channel) if says in m["content"]]
        assert pings == []


async def test_a_ping_deleted_by_a_member_is_no_error_and_a_stop_removes_it(
    emulator: DiscordEmulator, tmp_path
) -> None:
    alice, bob, mod = speaking(emulator, "de", "alice", "bob", "mod")
    mod.permissions = DEFAULT_PERMISSIONS | PERM_MANAGE_MESSAGES
    says = SAYS["de"]["ping"]
    settings = settings_for(emulator, tmp_path / "db.sqlite3", turn_ping=True)
    async with running_bot(emulator, settings):
        board = await accepted_member_game(emulator, alice, bob)
        ping = await emulator.wait_for_message(ping_for(alice, says), include_existing=True)
        emulator.delete_message(int(ping["id"]))  # a member tidied up
        board = (await emulator.click(alice, board, cell_id(board, 4))).message
        second = await emulator.wait_for_message(ping_for(bob, says))
        await emulator.invoke(mod, "ttt stop")
        await emulator.wait_until_deleted(second["id"])
    # the bot did try to delete the first ping, and took Discord's 404 in its stride
    tried = [(e[0], e[2]) for e in emulator.error_responses if str(ping["id"]) in e[1]]
    assert tried == [("DELETE", 404)]


async def test_no_ping_when_off_or_against_the_bot(emulator: DiscordEmulator, tmp_path) -> None:
    alice, bob, admin = speaking(emulator, "en-US", "alice", "bob", "admin")
    admin.permissions = DEFAULT_PERMISSIONS | PERM_MANAGE_GUILD
    settings = settings_for(emulator, tmp_path / "db.sqlite3")
    async with running_bot(emulator, settings):
        board = await accepted_member_game(emulator, alice, bob)
        await emulator.click(alice, board, cell_id(board, 4))
        res = await emulator.invoke(alice, "ttt resign")
        assert res.ephemeral
        res = await emulator.invoke(admin, "ttt config", {"turn_ping": True})
        fields = {f["name"]: f["value"] for f in res.embeds[0]["fields"]}
        assert fields["Turn ping"] == "yes"
        res = await emulator.invoke(alice, "ttt start", {"difficulty": "easy", "first": "me"})
        await emulator.click(alice, res.message, cell_id(res.message, 4))
        assert (await emulator.invoke(alice, "ttt resign")).ephemeral
    creates = [r for r in emulator.requests if r.method == "POST" and r.path.endswith("/messages")]
    assert creates == []  # every message was an interaction's answer: no ping was sent
    async with running_bot(emulator, settings):  # the setting outlives a restart
        res = await emulator.invoke(admin, "ttt config")
        fields = {f["name"]: f["value"] for f in res.embeds[0]["fields"]}
        assert fields["Turn ping"] == "yes"
        await accepted_member_game(emulator, alice, bob)
        await emulator.wait_for_message(ping_for(alice, "it's your move"), include_existing=True)
