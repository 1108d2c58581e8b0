"""Messages: tool_use blocks, batches of them with faults, and whole conversations with compaction.

Conversation histories are lists of Messages API messages (``{"role", "content"}``) with
optional compact-boundary entries between them::

    {"type": "compact_boundary", "discovered_tools": ["mcp__docs__search"], "summary": "..."}

A boundary says "compact here"; ``discovered_tools`` is the sorted set of tools that
``tool_reference`` blocks had named up to that point (the set a harness must carry across the
compaction, DEFER-7). Drop the boundary entries and what remains is a valid conversation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from pytest_toolharness._strategies.instances import (
    INVALID_INSTANCE_KINDS,
    can_break,
    instances_of,
    invalid_instances_of,
    schema_validator,
)
from pytest_toolharness._strategies.rules import shell_commands
from pytest_toolharness._strategies.schemas import WORDS, descriptions
from pytest_toolharness._strategies.tools import tool_names
from pytest_toolharness.specs import ToolSpec

__all__ = [
    "BatchFault",
    "ToolUseBatch",
    "is_compact_boundary",
    "message_histories",
    "tool_use_batches",
    "tool_use_blocks",
    "tool_use_ids",
]

BatchFault: TypeAlias = Literal["unknown_tool", "invalid_input"]

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# Tool inputs stay objects on the wire, so an invalid input is broken inside the object.
_OBJECT_BREAKS = tuple(k for k in INVALID_INSTANCE_KINDS if k != "wrong_root_type")


def tool_use_ids() -> st.SearchStrategy[str]:
    """Tool use ids shaped like the API's: ``toolu_01`` and 22 letters and digits."""
    return st.text(alphabet=_BASE62, min_size=22, max_size=22).map(lambda s: "toolu_01" + s)


def _numbered_id(stem: str, index: int) -> str:
    """A tool use id made unique by its last four characters (Hypothesis loves drawing duplicates)."""
    return "toolu_01" + stem + "".join(_BASE62[(index // 62**k) % 62] for k in (3, 2, 1, 0))


def _id_stems() -> st.SearchStrategy[str]:
    return st.text(alphabet=_BASE62, min_size=18, max_size=18)


def _check_tools(tools: Sequence[ToolSpec], *, allow_empty: bool = False) -> list[ToolSpec]:
    specs = list(tools)
    if not all(isinstance(t, ToolSpec) for t in specs):
        raise InvalidArgument("tools must be a sequence of ToolSpec")
    if not specs and not allow_empty:
        raise InvalidArgument("tools must not be empty")
    return specs


def _input_for(spec: ToolSpec) -> st.SearchStrategy[Any]:
    """A valid input; the field a permission rule matches gets a realistic command or path."""
    valid = instances_of(spec.input_schema)
    field = spec.permission_field
    if field is None or spec.permission_kind not in ("shell", "read", "edit"):
        return valid
    realistic = (
        shell_commands()
        if spec.permission_kind == "shell"
        else st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(lambda ws: "./" + "/".join(ws))
    )
    # Only where the schema accepts it: the final check keeps the input valid.
    candidate = st.tuples(valid, realistic).map(
        lambda p: {**p[0], field: p[1]} if isinstance(p[0], dict) else p[0]
    )
    return st.one_of(valid, candidate).filter(lambda v: _valid(spec, v))


def _valid(spec: ToolSpec, value: Any) -> bool:
    return schema_validator(spec.input_schema).is_valid(value)


def _block(tool_use_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}


def _named(name: str, inputs: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[str, Any]]:
    return inputs.map(lambda value: (name, value))


def _valid_calls(specs: Sequence[ToolSpec]) -> st.SearchStrategy[tuple[str, Any]]:
    """``(name, valid input)`` for one of ``specs``; built once per strategy, not per draw."""
    return st.one_of([_named(spec.name, _input_for(spec)) for spec in specs])


def _invalid_calls(specs: Sequence[ToolSpec]) -> st.SearchStrategy[tuple[str, Any]] | None:
    breakable = [s for s in specs if can_break(s.input_schema, _OBJECT_BREAKS)]
    if not breakable:
        return None
    return st.one_of(
        [_named(s.name, invalid_instances_of(s.input_schema, kinds=_OBJECT_BREAKS)) for s in breakable]
    )


def tool_use_blocks(tools: Sequence[ToolSpec]) -> st.SearchStrategy[dict[str, Any]]:
    """One ``tool_use`` block for one of ``tools``, with an input valid for its schema."""
    calls = _valid_calls(_check_tools(tools))
    return st.builds(lambda i, call: _block(i, call[0], call[1]), tool_use_ids(), calls)


@dataclass(frozen=True, slots=True)
class ToolUseBatch:
    """One assistant turn's tool_use blocks and the faults planted in it.

    ``faults[i]`` says how block ``i`` was broken: None (a valid call), ``unknown_tool`` (a name
    no tool has) or ``invalid_input`` (input that fails the tool's schema). ``abort_after_starts``
    is the fault plan's interrupt: abort once that many calls have started (None: never).
    """

    tool_uses: list[dict[str, Any]]
    faults: tuple[BatchFault | None, ...]
    abort_after_starts: int | None

    @property
    def ids(self) -> list[str]:
        """The tool_use ids in block order."""
        return [block["id"] for block in self.tool_uses]


@st.composite
def _batches(
    draw: st.DrawFn,
    valid: st.SearchStrategy[tuple[str, Any]],
    invalid: st.SearchStrategy[tuple[str, Any]] | None,
    unknown_names: st.SearchStrategy[str],
    min_size: int,
    max_size: int,
    faults: bool,
) -> ToolUseBatch:
    size = draw(st.integers(min_size, max_size))
    ids = [_numbered_id(draw(_id_stems()), i) for i in range(size)]
    blocks: list[dict[str, Any]] = []
    planted: list[BatchFault | None] = []
    for tool_use_id in ids:
        fault: BatchFault | None = None
        if faults and draw(st.integers(0, 3)) == 0:
            fault = draw(
                st.sampled_from(
                    ["unknown_tool", "invalid_input"] if invalid is not None else ["unknown_tool"]
                )
            )
        if fault == "unknown_tool":
            blocks.append(_block(tool_use_id, draw(unknown_names), {}))
        else:
            name, tool_input = draw(invalid if fault == "invalid_input" and invalid is not None else valid)
            blocks.append(_block(tool_use_id, name, tool_input))
        planted.append(fault)
    abort = draw(st.one_of(st.none(), st.integers(0, size))) if faults else None
    return ToolUseBatch(blocks, tuple(planted), abort)


def tool_use_batches(
    tools: Sequence[ToolSpec], *, min_size: int = 1, max_size: int = 5, faults: bool = True
) -> st.SearchStrategy[ToolUseBatch]:
    """Batches of tool_use blocks (unique ids) for ``tools``, as one assistant turn holds them.

    With ``faults`` some blocks name an unknown tool or carry schema-invalid input, and the batch
    may carry an abort plan (PAIR-2, CONC-5). Without, every block is a valid call.
    """
    specs = _check_tools(tools)
    if not 1 <= min_size <= max_size:
        raise InvalidArgument(f"tool_use_batches needs 1 <= min_size <= max_size, got {min_size}, {max_size}")
    known = {s.name for s in specs} | {a for s in specs for a in s.aliases}
    unknown_names = tool_names().map(lambda n: n + "Missing").filter(lambda n: n not in known)
    return _batches(_valid_calls(specs), _invalid_calls(specs), unknown_names, min_size, max_size, faults)


def is_compact_boundary(entry: Mapping[str, Any]) -> bool:
    """Whether a history entry is a compact boundary rather than a message."""
    return entry.get("type") == "compact_boundary"


def _is_deferred(spec: ToolSpec) -> bool:
    return (spec.is_mcp or spec.should_defer) and not spec.always_load


@st.composite
def _histories(
    draw: st.DrawFn,
    calls: st.SearchStrategy[tuple[str, Any]] | None,
    deferred: list[str],
    max_turns: int,
    with_compaction: bool,
    search_tool: str,
) -> list[dict[str, Any]]:
    used_ids: set[str] = set()
    discovered: set[str] = set()
    history: list[dict[str, Any]] = [{"role": "user", "content": draw(descriptions())}]

    def new_id() -> str:
        # Ids are unique across the whole conversation (PAIR-6).
        tool_use_id = _numbered_id(draw(_id_stems()), len(used_ids))
        used_ids.add(tool_use_id)
        return tool_use_id

    for turn in range(draw(st.integers(1, max_turns))):
        if with_compaction and turn > 0 and draw(st.integers(0, 3)) == 0:
            history.append(
                {
                    "type": "compact_boundary",
                    "discovered_tools": sorted(discovered),
                    "summary": draw(descriptions()),
                }
            )
        content: list[dict[str, Any]] = []
        if draw(st.booleans()):
            content.append({"type": "text", "text": draw(descriptions())})
        uses: list[tuple[dict[str, Any], list[str] | None]] = []
        search: bool = draw(st.booleans())
        if deferred and search:
            chosen = sorted(draw(st.lists(st.sampled_from(deferred), min_size=1, max_size=3, unique=True)))
            block = _block(new_id(), search_tool, {"query": "select:" + ",".join(chosen), "max_results": 5})
            uses.append((block, chosen))
        if calls is not None:
            for _ in range(draw(st.integers(0 if content or uses else 1, 3))):
                name, tool_input = draw(calls)
                uses.append((_block(new_id(), name, tool_input), None))
        if not content and not uses:
            content.append({"type": "text", "text": draw(descriptions())})
        content.extend(block for block, _ in uses)
        history.append({"role": "assistant", "content": content})
        if not uses:
            history.append({"role": "user", "content": draw(descriptions())})
            continue
        results: list[dict[str, Any]] = []
        for block, referenced in uses:
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": block["id"]}
            if referenced is not None:
                result["content"] = [{"type": "tool_reference", "tool_name": name} for name in referenced]
                discovered.update(referenced)
            else:
                result["content"] = draw(
                    st.one_of(descriptions(), descriptions().map(lambda t: [{"type": "text", "text": t}]))
                )
                if draw(st.integers(0, 4)) == 0:
                    result["is_error"] = True
            results.append(result)
        if draw(st.booleans()):
            results.append({"type": "text", "text": draw(descriptions())})  # text goes after the results
        history.append({"role": "user", "content": results})
    return history


def message_histories(
    tools: Sequence[ToolSpec],
    *,
    max_turns: int = 4,
    with_compaction: bool = True,
    search_tool: str = "ToolSearch",
) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Valid conversations over ``tools``: user first and last, roles alternating.

    Every tool_use (ids unique across the conversation) is answered by exactly one tool_result in
    the next user message, results first and in block order. When some tools are deferred (MCP
    or ``should_defer``, and not ``always_load``), the assistant sometimes calls ``search_tool``
    with ``select:...`` and the result holds ``tool_reference`` blocks naming them. With
    ``with_compaction``, compact-boundary entries may sit before an assistant turn (see the
    module docs for their shape).
    """
    specs = _check_tools(tools, allow_empty=True)
    if max_turns < 1:
        raise InvalidArgument(f"max_turns must be >= 1, got {max_turns}")
    if not isinstance(search_tool, str) or not search_tool:
        raise InvalidArgument(f"search_tool must be a non-empty name, got {search_tool!r}")
    deferred = sorted({s.name for s in specs if _is_deferred(s)})
    calls = _valid_calls(specs) if specs else None
    return _histories(calls, deferred, max_turns, with_compaction, search_tool)
