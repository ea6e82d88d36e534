"""Ultimate in chat, the clicks a board must withstand: a square outside the board to
play, an old board's click, someone else's, each answered privately with nothing changed;
a restart mid-game; a game where only a member's own install reaches; custom emoji marks
that 81 squares could not hold; every new text in five languages."""

from __future__ import annotations

import pytest
from test_bot_ultimate import ultimate_duel
from ultimate_harness import boards, button_id, game_id, play, ply, squares

from bot.discord_ui import custom_ids
from bot.i18n import text as catalog_text

from bot_harness import eventually, running_bot, settings_for
from discord_emulator import DiscordEmulator, text_of

LANGUAGES = ["en-US", "fr", "de", "es-ES", "pt-BR"]
MANAGE_GUILD = 1 << 5


@pytest.fixture
async def bot(emulator: DiscordEmulator, tmp_path):
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")) as bot:
        yield bot


async def test_forged_and_stale_clicks_change_nothing(emulator: DiscordEmulator, bot) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    klaus = emulator.create_user("klaus", locale="de")
    message = await ultimate_duel(emulator, alice, bob)
    game = game_id(message)
    first = await play(emulator, alice, message, 40)  # the centre: bob is sent there
    old = first.message
    res = await play(emulator, bob, old, 36)  # bob's top left: alice is sent to board 0
    assert res.type == 7
    message = res.message
    before, shown = await bot.repo.get_game(game), emulator.message(message["id"])
    # a square outside the board to play, forged: its own reason, privately
    outside = custom_ids.cell(game, 2, 80)
    res = await emulator.click(alice, message, outside, force=True)
    assert res.ephemeral
    assert res.content == "Not there: this move must be in the **top left** board."
    # in the member's language
    res = await emulator.click(alice, message, outside, locale="fr", force=True)
    assert res.ephemeral
    assert (
        res.content == "Pas là : ce coup doit être joué dans la petite grille **en haut à gauche**."
    )
    # an old board's square (ply 1), someone else's click, the waiting player's click
    res = await emulator.click(alice, old, custom_ids.cell(game, 1, 37), force=True)
    assert res.ephemeral and "out of date" in res.content
    res = await emulator.click(klaus, message, squares(message)[0]["custom_id"])
    assert res.ephemeral and res.content.startswith("Du spielst in diesem Spiel nicht mit")
    res = await emulator.click(bob, message, squares(message)[0]["custom_id"])
    assert res.ephemeral and res.content.startswith("It's not your turn")
    # a board chosen on an old ply is out of date; by a forged id while the move is not
    # free, it is told where the move must be
    res = await emulator.click(alice, message, custom_ids.board(game, 1, 5), force=True)
    assert res.ephemeral and "out of date" in res.content
    res = await emulator.click(alice, message, custom_ids.board(game, 2, 5), force=True)
    assert res.ephemeral
    assert res.content == "No board to choose: this move must be in the **top left** board."
    assert await bot.repo.get_game(game) == before
    assert emulator.message(message["id"]) == shown


async def test_a_decided_board_sends_a_free_move(
    emulator: DiscordEmulator, transport: str, bot
) -> None:
    """X takes the top-left board; whoever is sent there next moves freely."""
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    message = await ultimate_duel(emulator, alice, bob)
    for user, cell in [(alice, 1), (bob, 9), (alice, 2), (bob, 18), (alice, 0)]:
        res = await play(emulator, user, message, cell)
        assert res.type == 7, res.content
    message = res.message  # X won board 0, and O is sent there: a free move, saying why
    assert sorted(boards(message)) == list(range(9)) and not squares(message)
    assert ("🟨 Free move for ⭕: sent to the **↖️ top left** board, which is won, so any"
            " open board.") in text_of(message)  # fmt: skip
    assert "Last move: ❌ on the ↖️ top left square of the **↖️ top left** board." in (
        text_of(message)
    )
    assert boards(message)[0].get("disabled") and boards(message)[0]["emoji"]["name"] == "❌"
    res = await play(emulator, bob, message, 27)  # board 3's top left: X is sent to board 0
    message = res.message
    assert sorted(boards(message)) == list(range(9)) and ply(message) == 6
    # a decided board may not be chosen, even by a forged id
    res = await emulator.click(alice, message, custom_ids.board(game_id(message), 6, 0),
                               force=True)  # fmt: skip
    assert res.ephemeral and res.content == "That board is decided: play in any open board."
    res = await play(emulator, alice, message, 44)  # board 4's bottom right
    assert res.type == 7 and ply(res.message) == 7


async def test_a_restart_mid_game_plays_on(
    emulator: DiscordEmulator, transport: str, tmp_path
) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with running_bot(emulator, settings):
        message = await ultimate_duel(emulator, alice, bob)
        res = await play(emulator, alice, message, 40)
        # bob looks into nothing yet: the board is sent to the centre
        assert sorted(squares(res.message)) == list(range(36, 45))
        res = await emulator.click(alice, res.message, squares(res.message)[36]["custom_id"])
        assert res.ephemeral  # not alice's turn
    async with running_bot(emulator, settings) as bot:
        message = emulator.message(message["id"])
        res = await play(emulator, bob, message, 36)
        assert res.type == 7 and sorted(squares(res.message)) == list(range(9))
        stored = await bot.repo.get_game(game_id(message))
        assert stored is not None and stored.moves == (40, 36)


async def test_a_chosen_board_survives_a_restart(emulator: DiscordEmulator, tmp_path) -> None:
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3")
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    async with running_bot(emulator, settings):
        message = await ultimate_duel(emulator, alice, bob)
        res = await emulator.click(alice, message, boards(message)[2]["custom_id"])
        assert sorted(squares(res.message)) == list(range(18, 27))
    async with running_bot(emulator, settings):
        chosen = emulator.message(message["id"])
        res = await emulator.click(alice, chosen, squares(chosen)[20]["custom_id"])
        assert res.type == 7 and sorted(squares(res.message)) == list(range(18, 27))


async def test_a_game_where_only_a_members_install_reaches(emulator: DiscordEmulator, bot) -> None:
    alice = emulator.create_user("alice")
    alice.installed = True
    bob = emulator.create_user("bob")
    dm = emulator.open_private(alice, bob)
    message = await ultimate_duel(emulator, alice, bob, dm)
    for user, cell in [(alice, 40), (bob, 36), (alice, 4)]:
        res = await play(emulator, user, message, cell)
        assert res.type == 7 and not res.ephemeral, res.content
    message = res.message
    assert "plays in the **⏺️ centre** board." in text_of(message)
    assert [r for r in emulator.requests if f"/channels/{dm.id}" in r.path] == []
    stored = await bot.repo.get_game(game_id(message))
    assert stored is not None and stored.guest and stored.moves == (40, 36, 4)


async def test_custom_emoji_marks_always_fit(emulator: DiscordEmulator, tmp_path) -> None:
    admin = emulator.create_user("admin")
    admin.permissions = MANAGE_GUILD
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    long = "a_custom_emoji_named_at_length_"  # 31 characters: each mark is 53
    marks = [emulator.create_emoji(f"{long}{c}") for c in "xoe"]
    async with running_bot(emulator, settings_for(emulator, tmp_path / "ttt.sqlite3")):
        res = await emulator.invoke(admin, "ttt config", {"mark_x": marks[0], "mark_o": marks[1],
                                                          "mark_empty": marks[2]})  # fmt: skip
        assert "Nothing was changed" not in res.content, res.content
        message = await ultimate_duel(emulator, alice, bob)
        said = text_of(message)  # no empty square shown yet (all may be played): they fit
        assert said.startswith(f"{marks[0]} <@{alice.id}>") and len(said) <= 4000
        res = await play(emulator, alice, message, 40)
        # 72 empty squares in custom marks would not fit: the grid shows classic marks
        said = text_of(res.message)
        assert len(said) <= 4000 and marks[2] not in said and said.count("⬜") == 72
        assert said.startswith(f"❌ <@{alice.id}>")
        # the buttons keep the server's own marks
        (mark,) = [b["emoji"] for b in squares(res.message).values() if b.get("emoji")]
        assert f"<:{mark['name']}:{mark['id']}>" == marks[0]
        assert emulator.violations == []


@pytest.mark.parametrize("locale", LANGUAGES)
async def test_every_new_text_in_each_language(emulator: DiscordEmulator, bot, locale: str) -> None:
    guild = emulator.create_guild("Server", locale=locale)
    channel = guild.channels[0]
    alice = emulator.create_user("alice", locale=locale, guilds=[guild])
    bob = emulator.create_user("bob", locale=locale, guilds=[guild])
    await emulator.wait_until_ready()

    def said(key: str, **params: object) -> str:
        return catalog_text(key, locale, **params)

    res = await emulator.invoke(alice, "ttt start", {"opponent": bob, "first": "me",
                                                     "game": "ultimate"}, channel)  # fmt: skip
    assert said("challenge.ultimate") in res.content
    res = await emulator.click(bob, res.message, button_id(res.message, custom_ids.AcceptClick))
    message = res.message
    assert said("ultimate.free", lit="🟨", mark="❌") in text_of(message)
    res = await emulator.click(alice, message, boards(message)[4]["custom_id"])
    board = f"⏺️ {said('ultimate.board.4')}"
    assert said("ultimate.chosen", lit="🟨", mark="❌", board=board) in text_of(res.message)
    assert said("button.back") in [b.get("label") for b in _buttons(res.message)]
    res = await emulator.click(alice, res.message, squares(res.message)[44]["custom_id"])
    text = text_of(res.message)
    sent = f"↘️ {said('ultimate.board.8')}"
    assert said("ultimate.forced", lit="🟨", mark="⭕", board=sent) in text
    # the last move named as the grid shows it: its square's place in its small board
    square, board = f"↘️ {said('ultimate.square.8')}", f"⏺️ {said('ultimate.board.4')}"
    assert said("ultimate.last", mark="❌", square=square, board=board) in text
    forged = custom_ids.cell(game_id(res.message), 1, 0)
    refused = await emulator.click(bob, res.message, forged, force=True)
    assert refused.content == said("move.elsewhere", board=said("ultimate.board.8"))
    forged = custom_ids.board(game_id(res.message), 1, 3)
    refused = await emulator.click(bob, res.message, forged, force=True)
    assert refused.content == said("move.board_forced", board=said("ultimate.board.8"))
    help_ = await emulator.invoke(alice, "ttt help", channel=channel)
    await eventually(lambda: any(said("help.ultimate") in f["content"] for f in help_.followups),
                     "the rules of ultimate after the help")  # fmt: skip


def _buttons(message: dict) -> list[dict]:
    from discord_emulator import buttons

    return [b for row in buttons(message) for b in row]


async def test_a_timeout_ends_an_ultimate_game(emulator: DiscordEmulator, tmp_path) -> None:
    alice, bob = emulator.create_user("alice"), emulator.create_user("bob")
    settings = settings_for(emulator, tmp_path / "ttt.sqlite3", turn_timeout=1.5)
    async with running_bot(emulator, settings):
        message = await ultimate_duel(emulator, alice, bob)
        await play(emulator, alice, message, 40)
        shown = await eventually(
            lambda: "ran out of time" in text_of(emulator.message(message["id"])),
            "the timeout shown on the board",
        )
        assert shown
        final = emulator.message(message["id"])
        assert f"<@{bob.id}> ran out of time" in text_of(final)
        assert all(b.get("disabled") for b in boards(final).values())
