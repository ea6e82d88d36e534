"""Buttons that survive restarts: DynamicItems parsed from the custom_id grammar.

They only route: each click goes to the controller, which asks the service to decide.
Registered in ``TTTBot.setup_hook``, so clicks on messages sent before a restart work.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord

from bot import custom_ids

if TYPE_CHECKING:
    from bot.client import TTTBot


def _bot(interaction: discord.Interaction[Any]) -> TTTBot:
    return interaction.client


class CellButton(discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.CELL_TEMPLATE):
    def __init__(self, game_id: int, ply: int, cell: int, button: discord.ui.Button | None = None):
        super().__init__(button or discord.ui.Button(custom_id=custom_ids.cell(game_id, ply, cell)))
        self.game_id, self.ply, self.cell = game_id, ply, cell

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> CellButton:
        return cls(int(match["game"]), int(match["ply"]), int(match["cell"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).controller.on_cell(interaction, self.game_id, self.ply, self.cell)


class ResignButton(discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.RESIGN_TEMPLATE):
    def __init__(self, game_id: int, button: discord.ui.Button | None = None):
        super().__init__(button or discord.ui.Button(custom_id=custom_ids.resign(game_id)))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> ResignButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).controller.on_resign_button(interaction, self.game_id)


class RematchButton(
    discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.REMATCH_TEMPLATE
):
    def __init__(self, game_id: int, button: discord.ui.Button | None = None):
        super().__init__(button or discord.ui.Button(custom_id=custom_ids.rematch(game_id)))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> RematchButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).controller.on_rematch(interaction, self.game_id)


class AcceptButton(discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.ACCEPT_TEMPLATE):
    def __init__(self, challenge_id: int, button: discord.ui.Button | None = None):
        super().__init__(button or discord.ui.Button(custom_id=custom_ids.accept(challenge_id)))
        self.challenge_id = challenge_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> AcceptButton:
        return cls(int(match["challenge"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).controller.on_accept(interaction, self.challenge_id)


class DeclineButton(
    discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.DECLINE_TEMPLATE
):
    def __init__(self, challenge_id: int, button: discord.ui.Button | None = None):
        super().__init__(button or discord.ui.Button(custom_id=custom_ids.decline(challenge_id)))
        self.challenge_id = challenge_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> DeclineButton:
        return cls(int(match["challenge"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).controller.on_decline(interaction, self.challenge_id)


class ReviewButton(discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.REVIEW_TEMPLATE):
    def __init__(self, game_id: int, button: discord.ui.Button | None = None):
        super().__init__(button or discord.ui.Button(custom_id=custom_ids.review(game_id)))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> ReviewButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).records.on_review(interaction, game_id=self.game_id)


class ForgetButton(discord.ui.DynamicItem[discord.ui.Button], template=custom_ids.FORGET_TEMPLATE):
    def __init__(self, user_id: int, confirmed: bool, button: discord.ui.Button | None = None):
        custom_id = custom_ids.forget(user_id, confirmed)
        super().__init__(button or discord.ui.Button(custom_id=custom_id))
        self.user_id, self.confirmed = user_id, confirmed

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str], /
    ) -> ForgetButton:
        return cls(int(match["user"]), match["answer"] == "yes")

    async def callback(self, interaction: discord.Interaction) -> None:
        await _bot(interaction).records.on_forget_answer(interaction, self.user_id, self.confirmed)


DYNAMIC_ITEMS = (
    CellButton,
    ResignButton,
    RematchButton,
    AcceptButton,
    DeclineButton,
    ReviewButton,
    ForgetButton,
)
