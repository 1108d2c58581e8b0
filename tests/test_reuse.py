"""Work done once and reused: schema-cache keys and parsed bases, single validation per batched call,
hook runners with no hooks, the hook base input, tool-search params made only when counted.

Each reuse must leave the observable behaviour as it was: same bytes, rewritten inputs validated
again (EXEC-2), fresh objects where a caller may change them.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import ToolParam, ToolUseBlockParam
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, model_validator

from reference_impl import (
    ExecutionContext,
    HookContext,
    HookMatcher,
    Hooks,
    PermissionContext,
    RequestBuilder,
    Tool,
    ToolContext,
    ToolOutput,
    build_tool,
    mcp_tool,
    parse_rule,
    run_tool_use,
    run_tool_uses,
    wire_bytes,
    wire_json,
)
from reference_impl.execution import CallControl
from reference_impl.hooks import (
    HookBaseInput,
    PermissionRequestOutcome,
    PostToolUseOutcome,
    PreToolUseOutcome,
    run_permission_request,
    run_post_tool_use,
    run_post_tool_use_failure,
    run_pre_tool_use,
)
from reference_impl.request import ToolSchemaCache, input_schema_for_model, tool_to_param
from reference_impl.tools import DescriptionContext, ToolSearchMode, ToolSearchSetting, is_tool_search_enabled
from tests.test_notices import built_in, mcp

CONTEXT = DescriptionContext(model="claude-sonnet-4-6", cwd=Path("/work"))
HELLO: list[Any] = [{"role": "user", "content": "hello"}]


async def _ok(_input: Mapping[str, Any], _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="ok")


# -- the schema cache ----------------------------------------------------------------------------


def _raw_tool(properties: Mapping[str, Any]) -> Tool:
    return mcp_tool("srv", "t", "A tool.", {"type": "object", "properties": dict(properties)}, _ok)


def test_shared_params_share_only_nested_values() -> None:
    cache = ToolSchemaCache()
    tool = _raw_tool({"q": {"type": "string"}})
    one = tool_to_param(tool, cache, description_context=CONTEXT, share_nested=True)
    two = tool_to_param(tool, cache, description_context=CONTEXT, defer_loading=True, share_nested=True)
    assert one is not two
    assert one["input_schema"] is two["input_schema"]
    assert "defer_loading" not in one
    assert two.get("defer_loading") is True
    # The default stays a deep copy.
    fresh = tool_to_param(tool, cache, description_context=CONTEXT)
    assert fresh["input_schema"] is not one["input_schema"]
    assert wire_bytes(fresh) == wire_bytes(one)


JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
PROPERTY = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "object"])},
    optional={
        "description": st.text(max_size=20),
        "default": JSON_LEAF,
        "enum": st.lists(JSON_LEAF, max_size=3),
    },
)


@given(
    st.dictionaries(st.text(min_size=1, max_size=8), PROPERTY, max_size=4),
    st.booleans(),
    st.booleans(),
)
def test_shared_and_copied_params_have_the_same_bytes(
    properties: dict[str, Any], defer: bool, mark: bool
) -> None:
    """CACHE-3: a param sharing the cache's nested objects is byte-for-byte the copied one."""
    tool = _raw_tool(properties)
    cache = ToolSchemaCache()
    control = {"type": "ephemeral"} if mark and not defer else None
    options: dict[str, Any] = {
        "description_context": CONTEXT,
        "defer_loading": defer,
        "cache_control": control,
    }
    copied = tool_to_param(tool, cache, **options)
    shared = tool_to_param(tool, cache, share_nested=True, **options)
    assert wire_bytes(shared) == wire_bytes(copied)


@given(
    st.text(max_size=30),
    st.dictionaries(st.text(max_size=8), PROPERTY, max_size=4),
    st.booleans(),
    st.sampled_from([None, True, False]),
)
def test_rendered_base_is_the_wire_json_of_the_base(
    description: str, properties: dict[str, Any], strict: bool, eager: bool | None
) -> None:
    """SNAP-1: the base joined from JSON pieces is byte-for-byte wire_json of the base object."""
    schema = {"type": "object", "properties": properties}
    tool = build_tool(
        "mcp__s__t", description, _ok, input_json_schema=schema, strict=strict, eager_input_streaming=eager
    )
    expected: dict[str, Any] = {"name": tool.name, "description": description, "input_schema": schema}
    if strict:
        expected["strict"] = True
    if eager is not None:
        expected["eager_input_streaming"] = eager
    assert ToolSchemaCache().base_json(tool, CONTEXT) == wire_json(expected)
    modelled = build_tool("Count", description, _ok, input_model=_Counted)
    assert ToolSchemaCache().base_json(modelled, CONTEXT) == wire_json(
        {"name": "Count", "description": description, "input_schema": input_schema_for_model(_Counted)}
    )


# -- request building ----------------------------------------------------------------------------


POOL = (built_in("Read"), built_in("ToolSearch"), mcp("slack", "send"), mcp("github", "search"))


def test_requests_share_schemas_not_tool_dicts() -> None:
    """A later request's bytes don't depend on what a caller did to an earlier request's tool dicts."""
    builder = RequestBuilder(model="claude-sonnet-4-6", max_tokens=64)
    first = builder.build(POOL, HELLO)
    before = wire_bytes(first.params["tools"])
    for tool in first.params["tools"]:
        tool["description"] = "changed"
        tool.pop("defer_loading", None)
    second = builder.build(POOL, HELLO)
    assert wire_bytes(second.params["tools"]) == before
    assert second.params["tools"][2] is not first.params["tools"][2]
    assert second.params["tools"][2]["input_schema"] is first.params["tools"][2]["input_schema"]


def test_token_counter_gets_copies() -> None:
    """DEFER-8: in tst-auto the caller's counter sees the deferred tools; changing them changes no request."""
    seen: list[str] = []

    def counter(params: Sequence[ToolParam]) -> int:
        for param in params:
            seen.append(param["name"])
            param["input_schema"]["properties"] = {"junk": {"type": "string"}}
        return 10**9

    setting = ToolSearchSetting(ToolSearchMode.TST_AUTO)
    builder = RequestBuilder(
        model="claude-sonnet-4-6", max_tokens=64, tool_search=setting, token_counter=counter
    )
    built = builder.build(POOL, HELLO)
    assert built.tool_search_enabled
    assert seen == ["mcp__slack__send", "mcp__github__search"]
    assert b"junk" not in wire_bytes(built.params)
    assert b"junk" not in wire_bytes(builder.build(POOL, HELLO).params)


@pytest.mark.parametrize(
    ("mode", "counted"),
    [(ToolSearchMode.TST, False), (ToolSearchMode.STANDARD, False), (ToolSearchMode.TST_AUTO, True)],
)
def test_deferred_params_made_only_when_counted(mode: ToolSearchMode, counted: bool) -> None:
    calls: list[int] = []

    def make() -> list[ToolParam]:
        calls.append(1)
        return [{"name": "mcp__s__t", "description": "x" * 100, "input_schema": {"type": "object"}}]

    enabled = is_tool_search_enabled(
        make, setting=ToolSearchSetting(mode), model="claude-sonnet-4-6", search_tool_available=True
    )
    assert calls == ([1] if counted else [])
    assert enabled is (mode is ToolSearchMode.TST)


# -- execution -----------------------------------------------------------------------------------

VALIDATIONS: list[dict[str, Any]] = []


class _Counted(BaseModel):
    n: int

    @model_validator(mode="before")
    @classmethod
    def _count(cls, data: Any) -> Any:
        VALIDATIONS.append(dict(data) if isinstance(data, Mapping) else {"raw": data})
        return data


def _always(_input: Mapping[str, Any]) -> bool:
    return True


def _context(tmp: Path, hooks: Hooks | None = None) -> ExecutionContext:
    tool = build_tool("Count", "counts", _ok, input_model=_Counted, is_concurrency_safe=_always)
    rules = (parse_rule("Count", "allow", "userSettings"),)
    return ExecutionContext(
        tools=[tool],
        permission_context=PermissionContext(rules=rules, cwd=tmp),
        session_dir=tmp / "session",
        hooks=hooks or Hooks(),
    )


def _block(i: int, tool_input: Any) -> ToolUseBlockParam:
    return {"type": "tool_use", "id": f"toolu_{i}", "name": "Count", "input": tool_input}


def test_batch_validates_each_input_once(tmp_path: Path) -> None:
    """The executor's predicates and the pipeline share one schema validation per call (EXEC-1 intact)."""
    VALIDATIONS.clear()
    blocks = [_block(1, {"n": 1}), _block(2, {"n": "bad"}), _block(3, {"n": 3})]
    result = asyncio.run(run_tool_uses(blocks, _context(tmp_path)))
    assert [o.result.get("is_error", False) for o in result.outcomes] == [False, True, False]
    assert "InputValidationError" in str(result.outcomes[1].result["content"])
    assert VALIDATIONS == [{"n": 1}, {"n": "bad"}, {"n": 3}]


def test_rewritten_input_is_validated_again_in_a_batch(tmp_path: Path) -> None:
    """EXEC-2: a PreToolUse hook's updatedInput is a new input: validated, and rejected when invalid."""

    async def rewrite(hook_input: dict[str, Any], _id: str | None, _ctx: HookContext) -> dict[str, Any]:
        n = hook_input["tool_input"]["n"]
        updated = {"n": n + 1} if n == 1 else {"n": "rewritten badly"}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}

    hooks = Hooks({"PreToolUse": [HookMatcher(hooks=[rewrite])]})
    VALIDATIONS.clear()
    result = asyncio.run(run_tool_uses([_block(1, {"n": 1}), _block(2, {"n": 2})], _context(tmp_path, hooks)))
    assert result.outcomes[0].result.get("is_error") is None
    assert "updated input was rejected" in str(result.outcomes[1].result["content"])
    assert sorted(map(str, VALIDATIONS)) == sorted(
        map(str, [{"n": 1}, {"n": 2}, {"n": 2}, {"n": "rewritten badly"}])
    )


def test_no_validation_carried_out_of_a_batch(tmp_path: Path) -> None:
    """After the batch, the same block object changed in place is validated afresh by run_tool_use."""
    ctx = _context(tmp_path)
    block = _block(1, {"n": 1})
    assert asyncio.run(run_tool_uses([block], ctx)).outcomes[0].result.get("is_error") is None
    block["input"]["n"] = "now invalid"
    outcome = asyncio.run(run_tool_use(block, CallControl(abort=asyncio.Event()), ctx))
    assert outcome.result.get("is_error") is True


# -- hooks ---------------------------------------------------------------------------------------

BASE = HookBaseInput(session_id="s", transcript_path="", cwd="/work")


def test_runners_without_hooks_give_fresh_empty_outcomes() -> None:
    """HOOK-2: with nothing matching, each runner's outcome is the aggregate of no runs, never shared."""

    async def run_all(hooks: Hooks) -> list[Any]:
        common: dict[str, Any] = {"tool_name": "Read", "tool_input": {}, "tool_use_id": "t", "base": BASE}
        return [
            await run_pre_tool_use(hooks, **common),
            await run_post_tool_use(hooks, tool_response="ok", **common),
            await run_post_tool_use_failure(hooks, error="boom", **common),
            await run_permission_request(hooks, **common),
        ]

    seen: list[str] = []

    async def other(hook_input: dict[str, Any], _id: str | None, _ctx: HookContext) -> dict[str, Any]:
        seen.append(hook_input["hook_event_name"])
        return {}

    only_bash = Hooks(
        {event: [HookMatcher(matcher="Bash", hooks=[other])] for event in ("PreToolUse", "PostToolUse")}
    )
    for hooks in (Hooks(), only_bash):
        first, second = asyncio.run(run_all(hooks)), asyncio.run(run_all(hooks))
        assert first == [
            PreToolUseOutcome(),
            PostToolUseOutcome(),
            PostToolUseOutcome(),
            PermissionRequestOutcome(),
        ]
        assert all(a is not b and a.errors is not b.errors for a, b in zip(first, second, strict=True))
    assert seen == []


def test_hook_base_follows_the_context(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    base = ctx.hook_base()
    assert ctx.hook_base() is base
    ctx.permission_context = dataclasses.replace(ctx.permission_context, mode="plan")
    assert ctx.hook_base().permission_mode == "plan"
    ctx.session_id = "another"
    assert ctx.hook_base() == HookBaseInput("another", "", str(tmp_path), "plan")
