"""The page's sign-in when the web service says "not now" (a 429 of its limits): it tries
again by itself after the wait told, with a new code from the Discord client when the
refused one was spent, the same one otherwise, and then plays as usual."""

from __future__ import annotations

import pytest

from activity_frame.fixtures import ActivityClient
from activity_stub import StubActivityServer, eventually, open_page

pytestmark = pytest.mark.browser


async def test_a_sign_in_refused_for_now_is_tried_again_with_a_code_that_was_not_spent(
    activity_client: ActivityClient, stub: StubActivityServer
) -> None:
    codes = iter(f"code-{n}" for n in range(1, 10))
    stub.codes = {f"code-{n}" for n in range(1, 10)}
    stub.sign_in_refusals = [
        {"error": "too_often", "reason": "wait", "retry_after": 0.01, "code_spent": True},
        {"error": "busy", "reason": "wait", "retry_after": 0.01, "code_spent": False},
    ]  # fmt: skip
    page = await open_page(activity_client, stub, [], authorize=lambda args: next(codes))
    await page.activity.get_by_role("button", name="Play the bot").wait_for(timeout=15_000)
    sent = [r["body"]["code"] for r in stub.requests if r["path"].endswith("/api/session")]
    assert sent == ["code-1", "code-2", "code-2"]  # a new code only for the spent one
    assert (await page.commands()).count("AUTHORIZE") == 2
    await eventually(lambda: stub.connects == 1)  # signed in: the live socket is open
    assert page.errors == []
