"""Request-body validation against Discord's official OpenAPI 3.1 spec plus extra rules."""

from __future__ import annotations

import json
import os
import re
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, NoReturn

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from . import components
from .components import IS_COMPONENTS_V2

SPEC_URI = "urn:discord-openapi"
ENV_VAR = "TTT_DISCORD_OPENAPI"
PROJECT_ROOT = Path(__file__).resolve().parents[2]

_warned = False
_type_keyword = Draft202012Validator.VALIDATORS["type"]


def _snowflake_type(validator: Any, types: Any, instance: Any, schema: dict[str, Any]) -> Any:
    """Discord accepts snowflakes as JSON integers too (discord.py sends attachment ids as 0)."""
    if (
        schema.get("format") == "snowflake"
        and isinstance(instance, int)
        and not isinstance(instance, bool)
        and instance >= 0
    ):
        return
    yield from _type_keyword(validator, types, instance, schema)


_one_of_keyword = Draft202012Validator.VALIDATORS["oneOf"]
_any_of_keyword = Draft202012Validator.VALIDATORS["anyOf"]
_admitted_types: dict[int, frozenset[Any] | None] = {}


def _resolve(validator: Any, schema: Any) -> Any:
    while isinstance(schema, dict) and "$ref" in schema and len(schema) == 1:
        schema = validator._resolver.lookup(schema["$ref"]).contents
    return schema


def _admitted(validator: Any, branch: Any) -> frozenset[Any] | None:
    """The values of ``type`` a branch accepts (const or enum), or None if it says nothing."""
    key = id(branch)
    if key not in _admitted_types:
        try:
            prop = _resolve(
                validator, _resolve(validator, branch).get("properties", {}).get("type")
            )
            if isinstance(prop, dict) and "const" in prop:
                _admitted_types[key] = frozenset([prop["const"]])
            elif isinstance(prop, dict) and isinstance(prop.get("enum"), list):
                _admitted_types[key] = frozenset(prop["enum"])
            else:
                _admitted_types[key] = None
        except Exception:
            _admitted_types[key] = None
    return _admitted_types[key]


def _other_constant(validator: Any, branch: Any, instance: Any) -> bool:
    """True if the branch is a constant of the instance's own type but another value."""
    if type(instance) not in (int, str):
        return False
    try:
        const = _resolve(validator, branch).get("const", instance)
    except Exception:
        return False
    return type(const) is type(instance) and const != instance


def _discriminated(keyword: Any) -> Any:
    """oneOf/anyOf that first drops the branches whose ``type`` property cannot accept the
    instance's ``type``: such a branch fails anyway, so the verdict is the same, but the
    spec's big component unions no longer cost ~20 ms a request."""

    def check(validator: Any, branches: Any, instance: Any, schema: dict[str, Any]) -> Any:
        if len(branches) > 2:
            if isinstance(instance, dict) and "type" in instance:
                value = instance["type"]
                kept = [b for b in branches if (a := _admitted(validator, b)) is None or value in a]
            else:  # enums written as unions of constants
                kept = [b for b in branches if not _other_constant(validator, b, instance)]
            if kept:
                branches = kept
        yield from keyword(validator, branches, instance, schema)

    return check


DiscordValidator = validators.extend(
    Draft202012Validator,
    {
        "type": _snowflake_type,
        "oneOf": _discriminated(_one_of_keyword),
        "anyOf": _discriminated(_any_of_keyword),
    },
)


def default_spec_path() -> Path:
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    return PROJECT_ROOT.parent / "shared" / "discord-api-spec" / "openapi.json"


def spec_missing_notice(path: Path) -> str:
    return (
        f"Discord OpenAPI spec not found at {path}: REST request bodies are NOT validated "
        f"(set {ENV_VAR} or provide ../shared/discord-api-spec/openapi.json)"
    )


def warn_spec_missing(path: Path) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(spec_missing_notice(path), stacklevel=2)


class BodyError(Exception):
    """A request body rejected like Discord does (400, code 50035)."""

    def __init__(
        self,
        summary: str,
        errors: dict[str, Any],
        code: int = 50035,
        message: str = "Invalid Form Body",
    ) -> None:
        super().__init__(summary)
        self.summary = summary
        self.errors = errors
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors:
            data["errors"] = self.errors
        return data


_CODES = {
    "maxLength": ("BASE_TYPE_MAX_LENGTH", "Must be {limit} or fewer in length."),
    "minLength": ("BASE_TYPE_MIN_LENGTH", "Must be {limit} or more in length."),
    "maxItems": ("BASE_TYPE_MAX_LENGTH", "Must be {limit} or fewer in length."),
    "minItems": ("BASE_TYPE_MIN_LENGTH", "Must be {limit} or more in length."),
    "required": ("BASE_TYPE_REQUIRED", "This field is required"),
    "enum": ("BASE_TYPE_CHOICES", "Value must be one of {limit}."),
    "type": ("BASE_TYPE_BAD_TYPE", "Invalid type: expected {limit}."),
}


def discord_errors(path: list[str | int], code: str, message: str) -> dict[str, Any]:
    """Discord's nested error shape: {"a": {"0": {"b": {"_errors": [...]}}}}."""
    node: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for key in reversed(path):
        node = {str(key): node}
    return node


def _is_discriminator_miss(error: ValidationError, depth: int) -> bool:
    path = list(error.absolute_path)
    return error.validator in ("enum", "const") and len(path) == depth + 1 and path[-1] == "type"


def _leaves(error: ValidationError) -> list[ValidationError]:
    """Leaf errors; in anyOf/oneOf, branches whose "type" discriminator mismatched are dropped."""
    if not error.context:
        return [error]
    branches: dict[Any, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    depth = len(error.absolute_path)
    kept = [
        errs
        for errs in branches.values()
        if not any(_is_discriminator_miss(leaf, depth) for e in errs for leaf in _leaves_raw(e))
    ] or list(branches.values())
    out: list[ValidationError] = []
    for errs in kept:
        for sub in errs:
            out.extend(_leaves(sub))
    return out


def _leaves_raw(error: ValidationError) -> list[ValidationError]:
    if not error.context:
        return [error]
    return [leaf for sub in error.context for leaf in _leaves_raw(sub)]


_WEAK = {"enum", "const", "type", "oneOf", "anyOf"}


def deepest_error(errors: list[ValidationError]) -> ValidationError:
    """The most relevant error: deepest instance path, then non-discriminator validators."""
    leaves = [leaf for e in errors for leaf in _leaves(e)]
    return max(
        leaves,
        key=lambda e: (
            len(e.absolute_path),
            e.validator not in _WEAK,
            -len(e.absolute_schema_path),
        ),
    )


def format_path(path: Any) -> str:
    out = "$"
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


VALID_KEPT, VALID_KEPT_FROM = 32, 4096
"""How many large bodies (of at least VALID_KEPT_FROM characters as JSON) stay known valid."""


class SpecValidator:
    """Validates (method, path, body) against the OpenAPI spec; validators cached per operation."""

    def __init__(self, spec_path: Path) -> None:
        self.spec_path = spec_path
        with open(spec_path, encoding="utf-8") as fh:
            self.spec: dict[str, Any] = json.load(fh)
        resource = Resource.from_contents(self.spec, default_specification=DRAFT202012)
        self.registry: Registry = Registry().with_resource(SPEC_URI, resource)
        self._routes: list[tuple[re.Pattern[str], str, int]] = []
        for template in self.spec["paths"]:
            regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            self._routes.append((re.compile(f"^{regex}$"), template, template.count("{")))
        self._routes.sort(key=lambda r: r[2])
        self._validators: dict[tuple[str, str], Any] = {}
        self._valid: dict[tuple[str, str, str], None] = {}
        """Large bodies found valid (an insertion-ordered set, at most VALID_KEPT): each
        test's bot syncs the same command tree, whose validation took ~0.4 s a test."""

    def match(self, method: str, path: str) -> str | None:
        for regex, template, _ in self._routes:
            if regex.match(path) and method.lower() in self.spec["paths"][template]:
                return template
        return None

    def validator(self, method: str, template: str) -> Any:
        key = (method.lower(), template)
        if key not in self._validators:
            op = self.spec["paths"][template][key[0]]
            content = (op.get("requestBody") or {}).get("content") or {}
            if "application/json" not in content:
                self._validators[key] = None
            else:
                pointer = "/".join(
                    p.replace("~", "~0").replace("/", "~1")
                    for p in (
                        "paths",
                        template,
                        key[0],
                        "requestBody",
                        "content",
                        "application/json",
                    )
                )
                schema = {"$ref": f"{SPEC_URI}#/{pointer}/schema"}
                self._validators[key] = DiscordValidator(schema, registry=self.registry)
        return self._validators[key]

    def validate(self, method: str, path: str, body: Any) -> str | None:
        """Raise BodyError if invalid. Returns the matched template (None if not in spec)."""
        template = self.match(method, path)
        if template is None or body is None:
            return template
        validator = self.validator(method, template)
        if validator is None:
            return template
        seen = None
        if isinstance(body, dict | list):
            dumped = json.dumps(body, sort_keys=True)
            if len(dumped) >= VALID_KEPT_FROM:
                seen = (method.lower(), template, dumped)
                if seen in self._valid:
                    return template  # the same body validated before: the same answer
        errors = list(validator.iter_errors(body))
        if not errors and seen is not None:
            if len(self._valid) >= VALID_KEPT:
                del self._valid[next(iter(self._valid))]
            self._valid[seen] = None
        if errors:
            err = deepest_error(errors)
            code, msg = _CODES.get(str(err.validator), ("BASE_TYPE_INVALID", "Invalid value."))
            limit = err.validator_value
            message = msg.format(limit=limit) if "{limit}" in msg else msg
            raise BodyError(
                f"{method} {template}: {format_path(err.absolute_path)}: {err.message}",
                discord_errors(list(err.absolute_path), code, message),
            )
        return template

    def response_problem(self, method: str, path: str, body: Any, status: int = 200) -> str | None:
        """Why ``body`` is not what the spec says ``method path`` answers with ``status``
        (None if it is): for checking the emulator's own answers in tests.

        Raises:
            LookupError: the spec describes no such route or answer.
        """
        template = self.match(method, path)
        if template is None:
            raise LookupError(f"{method} {path} is not in the spec")
        answer = self.spec["paths"][template][method.lower()]["responses"].get(str(status))
        if answer is None:
            raise LookupError(f"the spec has no {status} answer for {method} {template}")
        if "$ref" in answer:  # "#/components/responses/..."
            pointer = answer["$ref"].removeprefix("#/")
        else:
            pointer = "/".join(p.replace("~", "~0").replace("/", "~1")
                               for p in ("paths", template, method.lower(), "responses",
                                         str(status)))  # fmt: skip
        schema = {"$ref": f"{SPEC_URI}#/{pointer}/content/application~1json/schema"}
        errors = list(DiscordValidator(schema, registry=self.registry).iter_errors(body))
        if not errors:
            return None
        err = deepest_error(errors)
        return f"{format_path(err.absolute_path)}: {err.message}"


@lru_cache(maxsize=4)
def load_validator(spec_path: Path) -> SpecValidator:
    """One SpecValidator per spec file per session (validators are cached inside)."""
    return SpecValidator(spec_path)


def check_message_body(body: dict[str, Any], prefix: list[str | int], *, create: bool) -> None:
    """Rules Discord enforces that the OpenAPI spec does not express (the components' own
    in :mod:`.components`; an edit's rules that depend on the message in
    :func:`check_edit`)."""

    if not isinstance(body, dict):
        return
    content = body.get("content")
    if isinstance(content, str) and len(content) > 2000:
        fail(prefix, ["content"], "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
    v2 = bool(int(body.get("flags") or 0) & IS_COMPONENTS_V2)
    try:
        components.check(body, v2=v2, create=create)
    except components.ComponentRuleError as err:
        fail(prefix, err.path, err.code, err.message)
    if create and not (content or body.get("embeds") or body.get("components")
                       or body.get("attachments")):  # fmt: skip
        raise BodyError(
            f"{format_path(prefix)}: Cannot send an empty message",
            {},
            50006,
            "Cannot send an empty message",
        )


def check_edit(message: dict[str, Any], body: dict[str, Any], prefix: list[str | int]) -> None:
    """An edit's rules that depend on the message it edits (IS_COMPONENTS_V2 set before,
    or set now while the message still has content)."""
    try:
        components.check_edit(message, body)
    except components.ComponentRuleError as err:
        fail(prefix, err.path, err.code, err.message)


def fail(prefix: list[str | int], path: list[str | int], code: str, message: str) -> NoReturn:
    full = prefix + path
    raise BodyError(f"{format_path(full)}: {message}", discord_errors(full, code, message))
