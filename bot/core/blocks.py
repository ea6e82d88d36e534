"""Blocks: a member declines every challenge from another (``/ttt block``). The bot cannot
see Discord's own blocks, so members tell it. While a block stands no game starts
between the two through a challenge, a rematch or an open challenge, whichever of them
asks: the member blocked is told only that the challenge was not accepted (never of a
block), the member who blocked is reminded that they did."""

from __future__ import annotations

from bot.core.refusals import Refusal
from bot.core.repository import Store


async def check_blocks(store: Store, acting: int, other: int) -> None:
    """Whether ``acting`` may challenge ``other``, or take their challenge.

    Raises:
        Refusal: ``block.yours``, ``acting`` blocked ``other``; ``challenge.not_accepted``,
            ``other`` blocked ``acting`` (said as a plain no).
    """
    blockers = await store.blockers_between(acting, other)
    if acting in blockers:
        raise Refusal("block.yours", member=f"<@{other}>")
    if blockers:
        raise Refusal("challenge.not_accepted")


async def block(store: Store, user_id: int, member_id: int, *, bot_user_id: int,
                now: float) -> bool:  # fmt: skip
    """``user_id`` blocks ``member_id``; False if they had already.

    Raises:
        Refusal: themselves, or the bot (which never challenges anybody).
    """
    if member_id == user_id:
        raise Refusal("block.self")
    if member_id == bot_user_id:
        raise Refusal("block.bot")
    return await store.block_member(user_id, member_id, now)


async def unblock(store: Store, user_id: int, member_id: int) -> bool:
    """``user_id`` lifts their block of ``member_id``; False if there was none."""
    return await store.unblock_member(user_id, member_id)
