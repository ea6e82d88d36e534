"""How a game reads in the operator's log: one line, where, who and what board."""

from __future__ import annotations

from bot.core.models import Game
from bot.core.variants import variant_of


def describe(game: Game) -> str:
    """One line for the log: where, who, what board (its variant's label).

    A function beside the models, not a method of :class:`Game`: the label is the variant's
    to give, and the variants import the models, so the models may not import them back.

    Raises:
        KeyError: the game names no variant the bot plays.
    """
    if game.bot_side is None:
        players = f"member {game.player_x} (X) vs member {game.player_o} (O)"
    else:
        member = game.player_o if game.bot_side == "X" else game.player_x
        players = f"member {member} vs the bot ({game.difficulty}, {game.bot_side})"
    where = f"server {game.guild_id}" if game.guild_id is not None else "a DM"
    shape = variant_of(game.variant).label(game.size)
    return f"{where}, channel {game.channel_id}, {players}, {shape}"
