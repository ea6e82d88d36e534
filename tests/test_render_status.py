"""The chat's status line and challenge text, rendered directly for every board, with
and without a turn deadline, in every language: no dangling ", ." where a deadline is
missing, and no parentheses within parentheses in an open challenge."""

from __future__ import annotations

import discord
import pytest

from bot.core import rules
from bot.core.models import Challenge, Game, GameUpdate
from bot.discord_ui.render_game import challenge_content, game_message, relative_time

LANGUAGES = ["en", "fr", "de", "es", "pt-BR"]
BOARDS = [("classic", 3), ("classic", 4), ("classic", 5), ("ultimate", 9)]


def shown(update: GameUpdate, locale: str) -> str:
    """The text a member reads on the game's message: its content, or its layout's text."""
    content, view = game_message(update, locale)
    if content is not None:
        return content
    return "\n".join(
        item.content for item in view.walk_children() if isinstance(item, discord.ui.TextDisplay)
    )


def member_game(variant: str, size: int, deadline: float | None) -> Game:
    game = rules.new_game(guild_id=1, channel_id=2, size=size, player_x=11, player_o=22,
                          now=0.0, variant=variant)  # type: ignore[arg-type]  # fmt: skip
    return game.with_changes(turn_deadline=deadline)


@pytest.mark.parametrize("locale", LANGUAGES)
@pytest.mark.parametrize(("variant", "size"), BOARDS)
def test_the_status_line_names_a_deadline_only_when_there_is_one(
    variant: str, size: int, locale: str
) -> None:
    untimed = shown(GameUpdate(member_game(variant, size, None)), locale)
    status = untimed.splitlines()[-1]
    assert "<@11>" in status and "❌" in status, status
    assert not status.rstrip(".").rstrip().endswith(","), status
    assert ", ." not in untimed and ",." not in untimed
    timed = shown(GameUpdate(member_game(variant, size, 1_000_000.0)), locale)
    assert timed.splitlines()[-1].endswith(f"{relative_time(1_000_000.0)}.")


def open_challenge(variant: str, size: int) -> Challenge:
    return Challenge(id=1, guild_id=1, channel_id=2, message_id=None, challenger_id=11,
                     opponent_id=None, x_player="random", size=size, k=3, status="pending",
                     expires_at=60.0, created_at=0.0,
                     variant=variant)  # type: ignore[arg-type]  # fmt: skip


def depth(said: str) -> int:
    deepest = level = 0
    for char in said:
        level += {"(": 1, ")": -1}.get(char, 0)
        deepest = max(deepest, level)
    return deepest


@pytest.mark.parametrize("locale", LANGUAGES)
@pytest.mark.parametrize(("variant", "size"), BOARDS)
def test_an_open_challenge_names_its_board_in_one_pair_of_parentheses(
    variant: str, size: int, locale: str
) -> None:
    said = challenge_content(open_challenge(variant, size), locale)
    assert depth(said) == 1, said
    assert said.count("(") == said.count(")") == 1, said
