"""What a player sees, privately, behind a correspondence board's Options: more time for
the opponent's move and a draw (offer, or accept the opponent's), as buttons whose ids
carry the game and the ply seen. The core decides who may; this only shows it."""

from __future__ import annotations

from typing import Any

import discord

from bot.core.courtesy import CourtesyAction, CourtesyChoices, CourtesyDone
from bot.discord_ui import custom_ids
from bot.discord_ui.render_common import Drawn, relative_time
from bot.i18n import text


def choices_message(choices: CourtesyChoices, viewer: int, locale: object) -> tuple[str, Drawn]:
    """The private message's text and its two buttons (one disabled where it cannot
    act now: more time on the member's own move or given already; an offer standing)."""
    game = choices.update.game
    opponent = f"<@{game.player_o if viewer == game.player_x else game.player_x}>"
    lines = [text("courtesy.choices", locale, opponent=opponent, days=game.days_per_move)]
    if choices.offer == "accept":
        lines.append(text("courtesy.offer_from", locale, opponent=opponent))
    elif choices.offer == "standing":
        lines.append(text("courtesy.offer_standing", locale, opponent=opponent))
    draw: CourtesyAction = "accept" if choices.offer == "accept" else "offer"
    buttons = [
        _button(custom_ids.courtesy(game.id, game.ply, "time"), text("button.more_time", locale),
                discord.ButtonStyle.primary, disabled=not choices.may_give_time),
        _button(custom_ids.courtesy(game.id, game.ply, draw),
                text(f"button.{draw}_draw", locale), discord.ButtonStyle.secondary,
                disabled=choices.offer == "standing"),
    ]  # fmt: skip
    return "\n".join(lines), Drawn([{"type": 1, "components": buttons}])


def done_text(done: CourtesyDone, viewer: int, locale: object) -> str:
    """The private answer to a courtesy click that was carried out."""
    game = done.update.game
    opponent = f"<@{game.player_o if viewer == game.player_x else game.player_x}>"
    if done.done == "time":
        deadline = relative_time(game.turn_deadline or 0.0)
        return text("courtesy.done.time", locale, player=opponent, deadline=deadline)
    return text(f"courtesy.done.{done.done}", locale, opponent=opponent)


def _button(
    custom_id: str, label: str, style: discord.ButtonStyle, *, disabled: bool
) -> dict[str, Any]:
    return {"type": 2, "style": style.value, "label": label, "custom_id": custom_id,
            "disabled": disabled}  # fmt: skip
