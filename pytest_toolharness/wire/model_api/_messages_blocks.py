"""The Messages API's content-block rules, as data: which fields each block type has, and their checks.

A request's blocks are checked the way the API's own validation checks them (pydantic models with
``extra="forbid"`` behind a union tagged by ``type``), answering with the API's own texts, e.g.
``messages.1.content.0.tool_result.content.0.type: Field required`` or
``messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'``: the path names
the block by its type, then the field.

:data:`BLOCK_FIELDS` is the one table of block types the suite models (required and allowed fields,
read from the anthropic SDK's request types);
:data:`PASSTHROUGH_BLOCKS` are real block types of the API whose fields are not checked here (server
tools' blocks, MCP blocks, compaction); anything else is an unknown tag. The texts were taken from
the API's answers quoted in public issues (see ``docs/wire.md``, "The scripted API's validation"), but
for the few no public report quotes (``cache_control.type`` / ``.ttl``, ``is_error``): those are worded by
us in pydantic's format, listed in ``docs/wire.md``, "Worded by us".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Required, get_origin, get_type_hints

from anthropic.types import beta

from pytest_toolharness.wire.model_api._api_error import ApiError

__all__ = [
    "BLOCK_FIELDS",
    "CACHE_CONTROL_LIMIT",
    "ID_PATTERN",
    "PASSTHROUGH_BLOCKS",
    "RESULT_CONTENT_TYPES",
    "THINKING_TYPES",
    "TOOL_NAME_PATTERN",
    "BlockFields",
    "cache_control_count",
    "check_block",
]

ID_PATTERN = "^[a-zA-Z0-9_-]+$"
"""What a ``tool_use.id`` (and a ``tool_result.tool_use_id``) must match."""
TOOL_NAME_PATTERN = "^[a-zA-Z0-9_-]{1,128}$"
"""What the name of a custom tool in ``tools`` must match."""
CACHE_CONTROL_LIMIT = 4
"""How many blocks (tools, system and message blocks) may carry ``cache_control`` in one request."""
THINKING_TYPES = ("thinking", "redacted_thinking")


@dataclass(frozen=True, slots=True)
class BlockFields:
    """A block type's fields: the ones it must have and every one it may have (``type`` included)."""

    required: tuple[str, ...]
    optional: tuple[str, ...] = ()

    @property
    def allowed(self) -> frozenset[str]:
        """Every field the block may carry."""
        return frozenset(("type", *self.required, *self.optional))


def _fields(param: type) -> BlockFields:
    """A block's fields as the anthropic SDK's request type for it declares them (``Required[...]`` or not)."""
    hints = get_type_hints(param, include_extras=True)
    required = tuple(sorted(k for k, v in hints.items() if get_origin(v) is Required and k != "type"))
    optional = tuple(sorted(k for k, v in hints.items() if get_origin(v) is not Required))
    return BlockFields(required, optional)


BLOCK_FIELDS: Mapping[str, BlockFields] = {
    "text": _fields(beta.BetaTextBlockParam),
    "image": _fields(beta.BetaImageBlockParam),
    "document": _fields(beta.BetaRequestDocumentBlockParam),
    "search_result": _fields(beta.BetaSearchResultBlockParam),
    "tool_use": _fields(beta.BetaToolUseBlockParam),
    "tool_result": _fields(beta.BetaToolResultBlockParam),
    # Signed blocks go back as they came: no cache_control (the API: "Extra inputs are not permitted").
    "thinking": _fields(beta.BetaThinkingBlockParam),
    "redacted_thinking": _fields(beta.BetaRedactedThinkingBlockParam),
    # The tool search beta's reference to a deferred tool, inside a tool_result.
    "tool_reference": _fields(beta.BetaToolReferenceBlockParam),
}
"""Every block type the validation models, with the fields the SDK's (beta) request types give it.

The SDK is generated from the API's own schema, so its request types are the one source for which
fields a block must and may have: a field it does not declare is refused as the API refuses it.
"""

PASSTHROUGH_BLOCKS = frozenset(
    {
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
        "compaction",
    }
)
"""Real block types whose fields this validation leaves to the API (a harness under test rarely sends them)."""

RESULT_CONTENT_TYPES = ("document", "image", "search_result", "text", "tool_reference")
"""The block types a ``tool_result``'s list content may hold (``tool_reference`` with tool search)."""

_MESSAGE_TYPES = tuple(sorted({*BLOCK_FIELDS, *PASSTHROUGH_BLOCKS} - {"tool_reference"}))
# fullmatch, not the pattern's own ^...$: in Python "$" also matches before a final newline.
_ID_RE = re.compile(ID_PATTERN.removeprefix("^").removesuffix("$"))


def _tags(types: Sequence[str]) -> str:
    return ", ".join(f"'{t}'" for t in types)


def _check_fields(block: Mapping[str, Any], path: str, types: Sequence[str]) -> ApiError | None:
    """The tag and the fields of one block (its path without the type)."""
    kind = block.get("type")
    if kind is None:
        return ApiError(f"{path}.type: Field required")
    if not isinstance(kind, str) or kind not in types:
        return ApiError(
            f"{path}: Input tag '{kind}' found using 'type' does not match any of the expected tags: "
            f"{_tags(types)}"
        )
    fields = BLOCK_FIELDS.get(kind)
    if fields is None:
        return None
    for name in fields.required:
        if name not in block:
            return ApiError(f"{path}.{kind}.{name}: Field required")
    for name in sorted(set(block) - fields.allowed):
        return ApiError(f"{path}.{kind}.{name}: Extra inputs are not permitted")
    return _check_cache_control(block, f"{path}.{kind}")


def _check_cache_control(block: Mapping[str, Any], path: str) -> ApiError | None:
    control = block.get("cache_control")
    if control is None:
        return None
    if not isinstance(control, Mapping):
        return ApiError(
            f"{path}.cache_control: Input should be a valid dictionary or object to extract fields from"
        )
    # Worded by us (no real body is public): docs/wire.md, "Worded by us".
    if control.get("type") != "ephemeral":
        return ApiError(f"{path}.cache_control.type: Input should be 'ephemeral'")
    if "ttl" in control and control["ttl"] not in ("5m", "1h"):
        return ApiError(f"{path}.cache_control.ttl: Input should be '5m' or '1h'")
    if block.get("type") == "text" and block.get("text") == "":
        return ApiError(f"{path}: cache_control cannot be set for empty text blocks")
    return None


def _check_string(block: Mapping[str, Any], path: str, name: str) -> ApiError | None:
    if not isinstance(block[name], str):
        return ApiError(f"{path}.{name}: Input should be a valid string")
    return None


def _check_result_content(content: Any, path: str) -> ApiError | None:
    """A tool_result's ``content``: a string, or a list of text / image / search_result / document blocks."""
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        # The API's union reports its first member: a bare object, number or null is not a string.
        return ApiError(f"{path}: Input should be a valid string")
    for index, item in enumerate(content):
        where = f"{path}.{index}"
        if not isinstance(item, Mapping):
            return ApiError(f"{where}: Input should be a valid dictionary or object to extract fields from")
        error = _check_fields(item, where, RESULT_CONTENT_TYPES)
        if error is not None:
            return error
        if item["type"] == "text":
            error = _check_string(item, f"{where}.text", "text")
            if error is not None:
                return error
    return None


def check_block(block: Any, path: str) -> ApiError | None:
    """The first problem of one message content block at ``path`` (``messages.1.content.0``), or None.

    Checks the tag, the required and forbidden fields, ``cache_control`` (shape; never on signed
    blocks; never on an empty text), text blocks' text (a string, non-empty, not only whitespace),
    tool_use ids and inputs, tool_result ids and content shapes.
    """
    if not isinstance(block, Mapping):
        return ApiError(f"{path}: Input should be a valid dictionary or object to extract fields from")
    error = _check_fields(block, path, _MESSAGE_TYPES)
    if error is not None:
        return error
    kind = block["type"]
    where = f"{path}.{kind}"
    if kind == "text":
        error = _check_string(block, where, "text")
        if error is not None:
            return error
        if not block["text"]:
            return ApiError("messages: text content blocks must be non-empty")
        if not block["text"].strip():
            return ApiError("messages: text content blocks must contain non-whitespace text")
    elif kind == "tool_use":
        for name in ("id", "name"):
            error = _check_string(block, where, name)
            if error is not None:
                return error
        if not _ID_RE.fullmatch(block["id"]):
            return ApiError(f"{where}.id: String should match pattern '{ID_PATTERN}'")
        if not isinstance(block["input"], Mapping):
            return ApiError(f"{where}.input: Input should be a valid dictionary")
    elif kind == "tool_result":
        error = _check_string(block, where, "tool_use_id")
        if error is not None:
            return error
        if not _ID_RE.fullmatch(block["tool_use_id"]):
            return ApiError(f"{where}.tool_use_id: String should match pattern '{ID_PATTERN}'")
        if "content" in block:
            error = _check_result_content(block["content"], f"{where}.content")
            if error is not None:
                return error
        if "is_error" in block and not isinstance(block["is_error"], bool):
            return ApiError(f"{where}.is_error: Input should be a valid boolean")  # worded by us
    elif kind == "thinking":
        for name in ("thinking", "signature"):
            error = _check_string(block, where, name)
            if error is not None:
                return error
    return None


def cache_control_count(body: Mapping[str, Any]) -> int:
    """How many blocks of a request carry ``cache_control``: tools, system blocks, message blocks (nested too)."""

    def count(items: Any) -> int:
        if not isinstance(items, list):
            return 0
        found = 0
        for item in items:
            if isinstance(item, Mapping):
                found += item.get("cache_control") is not None
                if item.get("type") == "tool_result":
                    found += count(item.get("content"))
        return found

    total = count(body.get("tools")) + count(body.get("system"))
    for message in body.get("messages") or ():
        if isinstance(message, Mapping):
            total += count(message.get("content"))
    return total
