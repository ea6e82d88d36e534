"""Message components as Discord keeps them: the tree (action rows, and with the
IS_COMPONENTS_V2 flag containers, sections and text displays), the ids Discord gives
them, and the rules it enforces on them that the OpenAPI spec does not express.

Discord's rules (developers/components/reference.mdx, developers/resources/message.mdx):
a message with IS_COMPONENTS_V2 may not use ``content``, ``embeds``, ``sticker_ids`` or
``poll``; it holds at most 40 components counted through the whole tree and at most
4000 characters of text; the flag can be set by an edit (the legacy fields then have to
be emptied in the same edit) but never removed; without the flag a message holds only
action rows, at most five; an action row holds at most five buttons; a custom_id is
unique in the whole message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

IS_COMPONENTS_V2 = 1 << 15
ACTION_ROW, BUTTON, SECTION, TEXT_DISPLAY, CONTAINER = 1, 2, 9, 10, 17
V2_ONLY_TYPES = frozenset({9, 10, 11, 12, 13, 14, 17})
LEGACY_FIELDS = ("content", "embeds", "sticker_ids", "poll")
MAX_V2_COMPONENTS = 40
MAX_V2_TEXT = 4000
MAX_LEGACY_ROWS = 5
MAX_ROW_WIDTH = 5

Path = list[str | int]


class ComponentRuleError(Exception):
    """A broken rule: where in the body (Discord's error path), its code and message."""

    def __init__(self, path: Path, code: str, message: str) -> None:
        super().__init__(message)
        self.path, self.code, self.message = path, code, message


def walk(components: Any, path: Path | None = None) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every component of a tree, depth first, with its path from ``components``."""
    base: Path = ["components"] if path is None else path
    if not isinstance(components, list):
        return
    for i, comp in enumerate(components):
        if not isinstance(comp, dict):
            continue
        here = [*base, i]
        yield here, comp
        yield from walk(comp.get("components"), [*here, "components"])
        if isinstance(comp.get("accessory"), dict):
            yield [*here, "accessory"], comp["accessory"]


def count(components: Any) -> int:
    """Components as Discord counts them against the limit of 40: every node of the tree."""
    return sum(1 for _ in walk(components))


def text_of(message: dict[str, Any]) -> str:
    """What a member reads: the content, or with IS_COMPONENTS_V2 the text displays in order."""
    if not int(message.get("flags") or 0) & IS_COMPONENTS_V2:
        return str(message.get("content") or "")
    return "\n".join(
        str(c.get("content", "")) for _, c in walk(message.get("components"))
        if c.get("type") == TEXT_DISPLAY
    )  # fmt: skip


def number(components: list[dict[str, Any]], taken: set[int] | None = None) -> None:
    """Give every component without one (or with 0) the next free id, as Discord does."""
    nodes = [c for _, c in walk(components)]
    used = set(taken or ()) | {c["id"] for c in nodes if isinstance(c.get("id"), int) and c["id"]}
    next_id = 1
    for comp in nodes:
        if isinstance(comp.get("id"), int) and comp["id"]:
            continue
        while next_id in used:
            next_id += 1
        comp["id"] = next_id
        used.add(next_id)


def _filled(value: Any) -> bool:
    return value not in (None, "", [], {})


def _legacy(field: str) -> ComponentRuleError:
    return ComponentRuleError(
        [field],
        "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
        f"The '{field}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
    )


def check(body: dict[str, Any], *, v2: bool, create: bool) -> None:
    """The rules on a body's components, for a message that is (or becomes) v2 or not.

    Raises ComponentRuleError for the first broken rule."""
    components = body.get("components")
    if not isinstance(components, list):
        components = []
    if v2:
        for field in LEGACY_FIELDS:
            if _filled(body.get(field)):
                raise _legacy(field)
        if count(components) > MAX_V2_COMPONENTS:
            raise ComponentRuleError(
                ["components"], "BASE_TYPE_MAX_LENGTH",
                f"Must be {MAX_V2_COMPONENTS} or fewer in length.",
            )  # fmt: skip
        text = sum(len(str(c.get("content", ""))) for _, c in walk(components)
                   if c.get("type") == TEXT_DISPLAY)  # fmt: skip
        if text > MAX_V2_TEXT:
            raise ComponentRuleError(
                ["components"], "BASE_TYPE_MAX_LENGTH",
                f"Text displays must be {MAX_V2_TEXT} or fewer characters in total.",
            )  # fmt: skip
    else:
        if len(components) > MAX_LEGACY_ROWS:
            raise ComponentRuleError(
                ["components"], "BASE_TYPE_MAX_LENGTH",
                f"Must be {MAX_LEGACY_ROWS} or fewer in length.",
            )  # fmt: skip
        if create:
            for i, comp in enumerate(components):
                if isinstance(comp, dict) and comp.get("type") != ACTION_ROW:
                    raise ComponentRuleError(
                        ["components", i, "type"], "UNION_TYPE_CHOICES",
                        'Value of field "type" must be one of (1,).',
                    )  # fmt: skip
    _check_tree(components)


def _check_tree(components: list[Any]) -> None:
    seen: set[str] = set()
    for path, comp in walk(components):
        kind = comp.get("type")
        if kind == ACTION_ROW and len(comp.get("components") or []) > MAX_ROW_WIDTH:
            raise ComponentRuleError(
                [*path, "components"], "BASE_TYPE_MAX_LENGTH",
                f"Must be {MAX_ROW_WIDTH} or fewer in length.",
            )  # fmt: skip
        if kind == BUTTON:
            link = comp.get("style") in (5, 6)
            if not link and not comp.get("custom_id"):
                raise ComponentRuleError(
                    [*path, "custom_id"], "BASE_TYPE_REQUIRED", "A custom id is required"
                )
            if comp.get("style") == 5 and comp.get("custom_id"):
                raise ComponentRuleError(
                    path, "COMPONENT_CUSTOM_ID_URL", "A custom id and url cannot both be specified"
                )
        cid = comp.get("custom_id")
        if not isinstance(cid, str):
            continue
        if len(cid) > 100:
            raise ComponentRuleError(
                ["components"], "BASE_TYPE_MAX_LENGTH",
                f"custom_id {cid[:20]!r}...: Must be 100 or fewer in length.",
            )  # fmt: skip
        if cid in seen:
            raise ComponentRuleError(
                ["components"], "COMPONENT_CUSTOM_ID_DUPLICATED",
                f"Component custom id cannot be duplicated: {cid!r}",
            )  # fmt: skip
        seen.add(cid)


def check_edit(message: dict[str, Any], body: dict[str, Any]) -> None:
    """The rules an edit meets because of the message it edits: the flag cannot be
    removed, and a message that has or gets the flag keeps no legacy field (on the edit
    that sets the flag, ``content`` must be sent as null and ``embeds`` as [])."""
    was_v2 = bool(int(message.get("flags") or 0) & IS_COMPONENTS_V2)
    flags = body.get("flags")
    if was_v2 and flags is not None and not int(flags) & IS_COMPONENTS_V2:
        raise ComponentRuleError(
            ["flags"], "MESSAGE_CANNOT_REMOVE_COMPONENTS_V2_FLAG",
            "The IS_COMPONENTS_V2 flag cannot be removed from a message",
        )  # fmt: skip
    becomes_v2 = was_v2 or bool(int(flags or 0) & IS_COMPONENTS_V2)
    if becomes_v2:
        for field in ("content", "embeds"):
            if _filled(body[field] if field in body else message.get(field)):
                raise _legacy(field)
    elif isinstance(body.get("components"), list):
        for i, comp in enumerate(body["components"]):
            if isinstance(comp, dict) and comp.get("type") in V2_ONLY_TYPES:
                raise ComponentRuleError(
                    ["components", i, "type"], "UNION_TYPE_CHOICES",
                    'Value of field "type" must be one of (1,).',
                )  # fmt: skip
    if "components" in body:
        check(body, v2=becomes_v2, create=False)
