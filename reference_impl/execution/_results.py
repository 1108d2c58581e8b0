"""Tool results on the wire: mapping, the empty placeholder, persistence of large results, budgets.

Follows Claude Code's ``toolResultStorage.ts`` (004 §9.6):

- an empty output becomes ``(<ToolName> completed with no output)`` (PAIR-4); "empty" is decided as
  Claude Code's ``isToolResultContentEmpty`` does: no content, a whitespace-only string, an empty list,
  or a list of text blocks that are all whitespace;
- a result over its tool's ``max_result_size_chars`` is saved whole to
  ``<session_dir>/tool-results/<tool_use_id>.txt`` (or ``.json``) and replaced by a
  ``<persisted-output>`` block with the path and a 2,000-byte preview cut on a character boundary
  (RESULT-1); results holding an image or a ``tool_reference`` block, and tools with an unlimited
  size, are never persisted (RESULT-2);
- the tool_results of one user message stay within 200,000 characters by replacing the largest fresh
  results first (RESULT-3);
- every decision is frozen in a :class:`ContentReplacementState`, so later requests re-send identical
  bytes, and the state can be rebuilt from the transcript on resume (RESULT-4).

Nothing is truncated silently: whatever the model does not see in full is in a file it is told about.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, cast

from anthropic.types import ToolResultBlockParam

from reference_impl._repeats import repeated
from reference_impl._wire import wire_json
from reference_impl.tools import Tool, ToolOutput

__all__ = [
    "MAX_TOOL_RESULTS_PER_MESSAGE_CHARS",
    "PERSISTED_OUTPUT_CLOSING_TAG",
    "PERSISTED_OUTPUT_TAG",
    "PREVIEW_SIZE_BYTES",
    "TOOL_RESULTS_DIR",
    "ContentReplacementState",
    "apply_message_budget",
    "content_size",
    "empty_output_placeholder",
    "format_size",
    "is_exempt_content",
    "is_result_content_empty",
    "map_tool_output",
    "maybe_persist_large_result",
    "rebuild_replacement_state",
    "utf8_prefix",
]

MAX_TOOL_RESULTS_PER_MESSAGE_CHARS = 200_000
"""Claude Code's ``MAX_TOOL_RESULTS_PER_MESSAGE_CHARS``: the budget of one user message's results."""

PREVIEW_SIZE_BYTES = 2_000
PERSISTED_OUTPUT_TAG = "<persisted-output>"
PERSISTED_OUTPUT_CLOSING_TAG = "</persisted-output>"
TOOL_RESULTS_DIR = "tool-results"

# The API's own pattern for tool_use ids; anything else could escape the results folder.
_TOOL_USE_ID = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
# Blocks that must reach the model as they are: images (9.6.1) and tool_reference (9.6.5).
_EXEMPT_BLOCK_TYPES = ("image", "tool_reference")


@dataclass(eq=True)
class ContentReplacementState:
    """The frozen replacement decisions of a session (Claude Code's ``ContentReplacementState``).

    ``seen_ids`` are the tool_use ids whose budget decision was made; ``replacements`` maps each
    replaced id to the exact text the model saw instead of the result. A decision is never changed:
    recording a different replacement for an id raises.
    """

    seen_ids: set[str] = field(default_factory=set)
    replacements: dict[str, str] = field(default_factory=dict)

    def record(self, tool_use_id: str, replacement: str) -> None:
        """Freeze ``replacement`` as what the model sees for ``tool_use_id``."""
        previous = self.replacements.get(tool_use_id)
        if previous is not None and previous != replacement:
            raise ValueError(f"tool_use id {tool_use_id!r} already has a different frozen replacement")
        self.replacements[tool_use_id] = replacement

    def copy(self) -> ContentReplacementState:
        """An independent copy (for a forked or speculative request)."""
        return ContentReplacementState(set(self.seen_ids), dict(self.replacements))


def empty_output_placeholder(tool_name: str, *, is_error: bool = False) -> str:
    """The text sent instead of an empty output (PAIR-4).

    An empty error gets ``(<ToolName> failed with no output)`` so that it still says what went wrong
    (PAIR-3); Claude Code only has the success form.
    """
    return f"({tool_name} failed with no output)" if is_error else f"({tool_name} completed with no output)"


def is_result_content_empty(content: object) -> bool:
    """Whether a tool_result's content counts as empty (Claude Code's ``isToolResultContentEmpty``).

    Whitespace-only text is empty (the check trims). Any non-text block (image, tool_reference, ...)
    makes the content non-empty.
    """
    if content is None or content == "":
        return True
    if isinstance(content, str):
        return content.strip() == ""
    if isinstance(content, Sequence):
        return all(
            isinstance(block, Mapping)
            and block.get("type") == "text"
            and (not isinstance(block.get("text"), str) or block["text"].strip() == "")
            for block in content
        )
    return False


def is_exempt_content(content: object) -> bool:
    """Whether a result must reach the model as it is: it holds an image or a tool_reference (RESULT-2)."""
    if isinstance(content, str) or not isinstance(content, Sequence):
        return False
    return any(isinstance(b, Mapping) and b.get("type") in _EXEMPT_BLOCK_TYPES for b in content)


def content_size(content: object) -> int:
    """The size of a result's content in characters, as the budgets count it.

    Text counts its characters; a non-text block counts the characters of its wire JSON (an exempt
    block still counts, so a budget sees everything that is sent).
    """
    if content is None:
        return 0
    if isinstance(content, str):
        return len(content)
    if isinstance(content, Sequence):
        total = 0
        for block in content:
            if (
                isinstance(block, Mapping)
                and block.get("type") == "text"
                and isinstance(block.get("text"), str)
            ):
                total += len(block["text"])
            else:
                total += len(wire_json(block))
        return total
    return len(wire_json(content))


def format_size(size_bytes: int) -> str:
    """A byte count as Claude Code's ``formatFileSize`` prints it: ``"512 bytes"``, ``"117.2KB"``, ``"2MB"``.

    One decimal, rounded half up on the exact value (as JavaScript's ``toFixed``), a trailing ``.0``
    dropped.
    """
    if size_bytes < 0:
        raise ValueError(f"a size can't be negative: {size_bytes}")
    if size_bytes < 1024:
        return f"{size_bytes} bytes"
    value = Decimal(size_bytes) / 1024
    for unit in ("KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            text = str(value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
            return (text[:-2] if text.endswith(".0") else text) + unit
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def utf8_prefix(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 encoding fits in ``max_bytes``; never splits a character."""
    data = _encode(text)
    if len(data) <= max_bytes:
        return text
    cut = max_bytes
    # Step back over continuation bytes (10xxxxxx) so the cut falls before a character's first byte.
    while cut > 0 and data[cut] & 0xC0 == 0x80:
        cut -= 1
    return data[:cut].decode("utf-8")


def _encode(text: str) -> bytes:
    # A lone surrogate can't be UTF-8 (nor sent to the API); it becomes U+FFFD instead of crashing.
    return text.encode("utf-8", errors="replace")


def _check_id(tool_use_id: object) -> str:
    if not isinstance(tool_use_id, str) or not _TOOL_USE_ID.match(tool_use_id):
        raise ValueError(f"invalid tool_use_id {tool_use_id!r}: expected letters, digits, '_' or '-'")
    return tool_use_id


def _check_blocks(blocks: Sequence[Any], tool_name: str) -> list[dict[str, Any]]:
    checked: list[dict[str, Any]] = []
    for index, block in enumerate(blocks):
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            raise ValueError(f"{tool_name}: output block {index} is not a content block with a 'type'")
        checked.append(dict(block))
    return checked


def map_tool_output(tool_name: str, output: ToolOutput | str, tool_use_id: str) -> ToolResultBlockParam:
    """A tool's output as the ``tool_result`` block the model gets.

    Text stays text; a list of content blocks stays a list; a JSON value (a mapping) becomes its
    compact wire JSON text. An empty output becomes the placeholder (PAIR-4). ``is_error`` is set only
    when the output is an error.
    """
    _check_id(tool_use_id)
    if isinstance(output, str):
        output = ToolOutput(content=output)
    raw = output.content
    content: str | list[dict[str, Any]]
    if isinstance(raw, str):
        content = raw
    elif isinstance(raw, Mapping):
        content = wire_json(raw)
    elif isinstance(raw, Sequence):
        content = _check_blocks(raw, tool_name)
    else:
        raise TypeError(f"{tool_name}: output content must be text, content blocks or a JSON object")
    if is_result_content_empty(content):
        content = empty_output_placeholder(tool_name, is_error=output.is_error)
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if output.is_error:
        result["is_error"] = True
    return cast(ToolResultBlockParam, result)


def _payload(content: object) -> tuple[str, str]:
    """The text saved for ``content`` and its file extension."""
    if isinstance(content, str):
        try:
            parsed = json.loads(content)
        except ValueError:
            return content, "txt"
        return content, "json" if isinstance(parsed, dict | list) else "txt"
    return wire_json(content), "json"


def _is_persisted(content: object) -> bool:
    return isinstance(content, str) and content.startswith(PERSISTED_OUTPUT_TAG)


def _replacement(path: Path, data: bytes, text: str) -> str:
    return (
        f"{PERSISTED_OUTPUT_TAG}\nOutput too large ({format_size(len(data))}). Full output saved to: {path}\n\n"
        f"Preview (first {format_size(PREVIEW_SIZE_BYTES)}):\n{utf8_prefix(text, PREVIEW_SIZE_BYTES)}\n"
        f"{PERSISTED_OUTPUT_CLOSING_TAG}"
    )


def _save(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; an existing identical file is fine, a different one an error."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            # link() never replaces an existing file, so two writers can't clobber each other.
            os.link(tmp, path)
        except FileExistsError:
            if path.read_bytes() != data:
                raise FileExistsError(
                    f"{path} already holds a different tool result; refusing to overwrite it"
                ) from None
        except OSError:
            # A filesystem without hard links: check, then rename (still atomic for readers).
            if path.exists():
                if path.read_bytes() != data:
                    raise FileExistsError(
                        f"{path} already holds a different tool result; refusing to overwrite it"
                    ) from None
            else:
                os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _persist(content: object, tool_use_id: str, session_dir: Path) -> str:
    """Save ``content`` whole and return the ``<persisted-output>`` text that replaces it."""
    text, ext = _payload(content)
    path = Path(session_dir).absolute() / TOOL_RESULTS_DIR / f"{tool_use_id}.{ext}"
    data = _encode(text)
    _save(path, data)
    return _replacement(path, data, text)


def _with_content(result: ToolResultBlockParam, content: str) -> ToolResultBlockParam:
    return cast(ToolResultBlockParam, {**result, "content": content})


def maybe_persist_large_result(
    result: ToolResultBlockParam, tool: Tool, session_dir: Path, state: ContentReplacementState
) -> ToolResultBlockParam:
    """Apply the per-tool limit to one result (RESULT-1, RESULT-2, PAIR-4).

    An id with a frozen replacement gets exactly that text again (RESULT-4). Empty content becomes
    the placeholder. A result over ``tool.max_result_size_chars`` (strictly more characters) is saved
    whole and replaced; results with an image or tool_reference block and unlimited tools pass
    unchanged. A failure to save raises ``OSError`` (the caller turns it into an error result) rather
    than sending something cut.
    """
    tool_use_id = _check_id(result.get("tool_use_id"))
    frozen = state.replacements.get(tool_use_id)
    if frozen is not None:
        return _with_content(result, frozen)
    content = result.get("content")
    if is_result_content_empty(content):
        return _with_content(
            result, empty_output_placeholder(tool.name, is_error=bool(result.get("is_error")))
        )
    limit = tool.max_result_size_chars
    if math.isinf(limit) or is_exempt_content(content) or _is_persisted(content):
        return result
    if content_size(content) <= limit:
        return result
    replacement = _persist(content, tool_use_id, session_dir)
    state.record(tool_use_id, replacement)
    return _with_content(result, replacement)


def apply_message_budget(
    results: Sequence[ToolResultBlockParam],
    state: ContentReplacementState,
    session_dir: Path,
    *,
    exempt_ids: Collection[str] = (),
    limit: int = MAX_TOOL_RESULTS_PER_MESSAGE_CHARS,
) -> list[ToolResultBlockParam]:
    """Keep one user message's tool_results within ``limit`` characters (RESULT-3, RESULT-4).

    Frozen replacements are re-applied byte for byte. Then, while the total is over the limit, the
    largest *fresh* result (never seen before, not exempt by id or content, not already persisted)
    is saved and replaced; ties go to the earlier result. Results seen in an earlier call keep their
    decision forever, so the total can stay over the limit only when what remains is exempt or
    frozen (changing earlier bytes would break the prompt cache). All ids end up seen.
    """
    ids = [_check_id(r.get("tool_use_id")) for r in results]
    duplicates = repeated(ids)
    if duplicates:
        raise ValueError(f"tool_use id(s) with more than one result in a message: {', '.join(duplicates)}")
    out: list[ToolResultBlockParam] = []
    for tool_use_id, result in zip(ids, results, strict=True):
        frozen = state.replacements.get(tool_use_id)
        out.append(result if frozen is None else _with_content(result, frozen))
    sizes = [content_size(r.get("content")) for r in out]
    total = sum(sizes)
    if total > limit:
        fresh = [
            index
            for index, tool_use_id in enumerate(ids)
            if tool_use_id not in state.seen_ids
            and tool_use_id not in state.replacements
            and tool_use_id not in exempt_ids
            and not is_exempt_content(out[index].get("content"))
            and not _is_persisted(out[index].get("content"))
        ]
        for index in sorted(fresh, key=lambda i: (-sizes[i], i)):
            if total <= limit:
                break
            content = out[index].get("content")
            text, ext = _payload(content)
            path = Path(session_dir).absolute() / TOOL_RESULTS_DIR / f"{ids[index]}.{ext}"
            data = _encode(text)
            replacement = _replacement(path, data, text)
            if len(replacement) >= sizes[index]:
                break  # the rest are no larger, so replacing them can't shrink the message
            _save(path, data)
            state.record(ids[index], replacement)
            out[index] = _with_content(out[index], replacement)
            total += len(replacement) - sizes[index]
    state.seen_ids.update(ids)
    return out


def _text_of(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and len(content) == 1:
        block = content[0]
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
            return cast(str, block["text"])
    return None


def rebuild_replacement_state(messages: Iterable[object]) -> ContentReplacementState:
    """The replacement state of a resumed session, rebuilt from its transcript (RESULT-4).

    The transcript is the record: every tool_result id in a user message was seen, and a result
    whose text is a ``<persisted-output>`` block was replaced by exactly that text. Entries that are
    not API messages (attachments, boundaries) are skipped.
    """
    state = ContentReplacementState()
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str) or not isinstance(content, Sequence):
            continue
        for block in content:
            if not isinstance(block, Mapping) or block.get("type") != "tool_result":
                continue
            tool_use_id = block.get("tool_use_id")
            if not isinstance(tool_use_id, str):
                continue
            state.seen_ids.add(tool_use_id)
            text = _text_of(block.get("content"))
            if text is not None and text.startswith(PERSISTED_OUTPUT_TAG):
                state.replacements[tool_use_id] = text
    return state
