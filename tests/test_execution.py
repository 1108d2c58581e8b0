"""run_tool_use and run_tool_uses: the pipeline's stage order and its fault paths (EXEC-1..5, PERM-8, PAIR, CONC-5)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

import pytest
from anthropic.types import ToolUseBlockParam
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl import (
    ExecutionContext,
    HookContext,
    HookMatcher,
    Hooks,
    PermissionContext,
    Tool,
    ToolContext,
    ToolOutput,
    build_tool,
    parse_rule,
    run_tool_use,
    run_tool_uses,
)
from reference_impl.execution import BatchResult, CallControl, ToolRunOutcome
from reference_impl.permissions import (
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from reference_impl.tools import ValidationResult

T = TypeVar("T")
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def run(coro: Coroutine[Any, Any, T]) -> T:
    async def guarded() -> T:
        return await asyncio.wait_for(coro, 10.0)

    return asyncio.run(guarded())


class Log:
    """What happened, in order: hook calls, host questions, tool calls."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def tool(self, name: str, output: Any = "done", *, fail: bool = False, **options: Any) -> Tool:
        async def call(tool_input: Mapping[str, Any], _context: ToolContext) -> ToolOutput:
            self.events.append(("call", dict(tool_input)))
            if fail:
                raise RuntimeError(f"{name} broke")
            return ToolOutput(content=output)

        def validate(tool_input: Mapping[str, Any], _context: ToolContext) -> ValidationResult:
            if "forbidden" in tool_input:
                return ValidationResult.invalid(f"{name} does not accept 'forbidden'")
            return ValidationResult.valid()

        options.setdefault("validate_input", validate)
        return build_tool(name, f"The {name} tool.", call, input_json_schema=SCHEMA, **options)

    def hook(self, event: str, answer: Mapping[str, Any]) -> Any:
        async def callback(hook_input: dict[str, Any], _id: str | None, _ctx: HookContext) -> dict[str, Any]:
            self.events.append((event, dict(hook_input.get("tool_input", {}))))
            return dict(answer)

        return callback

    def host(self, answer: PermissionResult) -> Any:
        async def can_use_tool(
            name: str, tool_input: dict[str, Any], _ctx: ToolPermissionContext
        ) -> PermissionResult:
            self.events.append(("host", dict(tool_input)))
            return answer

        return can_use_tool

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]


def context(
    tmp: Path,
    tools: list[Tool],
    *,
    rules: tuple[tuple[str, str], ...] = (),
    hooks: dict[str, Any] | None = None,
    host: Any = None,
    base_tools: tuple[Tool, ...] = (),
) -> ExecutionContext:
    permission = PermissionContext(
        rules=tuple(parse_rule(text, behavior, "projectSettings") for text, behavior in rules),  # type: ignore[arg-type]
        cwd=tmp,
        can_prompt=host is not None,
    )
    events = {event: [HookMatcher(matcher=None, hooks=[cb])] for event, cb in (hooks or {}).items()}
    return ExecutionContext(
        tools=tools,
        permission_context=permission,
        session_dir=tmp / "session",
        hooks=Hooks(events),
        can_use_tool=host,
        base_tools=base_tools,
    )


def block(name: str, tool_input: Any, tool_use_id: str = "toolu_1") -> ToolUseBlockParam:
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}


def one(ctx: ExecutionContext, b: ToolUseBlockParam) -> ToolRunOutcome:
    return run(run_tool_use(b, CallControl(abort=asyncio.Event()), ctx))


def text(outcome: ToolRunOutcome) -> str:
    content = outcome.result.get("content")
    return content if isinstance(content, str) else str(content)


def pre_allow(updated: Mapping[str, Any] | None = None) -> dict[str, Any]:
    specific: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
    if updated is not None:
        specific["updatedInput"] = dict(updated)
    return {"hookSpecificOutput": specific}


# -- EXEC-1: stage order ------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [{"n": "x"}, {}, {"n": 1, "forbidden": True}, "not an object"])
def test_invalid_input_reaches_neither_hooks_nor_permissions(tmp_path: Path, bad: Any) -> None:
    """EXEC-1: schema and own validation run before hooks and the host; nothing else runs."""
    log = Log()
    ctx = context(
        tmp_path,
        [log.tool("Alpha")],
        rules=(("Alpha", "ask"),),
        hooks={"PreToolUse": log.hook("PreToolUse", pre_allow({"n": 1}))},
        host=log.host(PermissionResultAllow()),
    )
    outcome = one(ctx, block("Alpha", bad))
    assert log.events == []
    assert outcome.result.get("is_error") is True
    assert text(outcome).strip()


def test_stage_order_hook_then_host_then_call_then_post(tmp_path: Path) -> None:
    """EXEC-1: PreToolUse, then the host (on ask), then the call, then PostToolUse."""
    log = Log()
    ctx = context(
        tmp_path,
        [log.tool("Alpha")],
        rules=(("Alpha", "ask"),),
        hooks={
            "PreToolUse": log.hook("PreToolUse", {}),
            "PostToolUse": log.hook("PostToolUse", {}),
            "PostToolUseFailure": log.hook("PostToolUseFailure", {}),
        },
        host=log.host(PermissionResultAllow()),
    )
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert log.kinds() == ["PreToolUse", "host", "call", "PostToolUse"]
    assert outcome.result.get("content") == "done"


@pytest.mark.parametrize(
    ("rules", "pre", "host", "stage"),
    [
        ((("Alpha", "deny"),), {}, PermissionResultAllow(), "rule"),
        (
            (("Alpha", "allow"),),
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "no",
                }
            },
            PermissionResultAllow(),
            "hook",
        ),
        ((("Alpha", "ask"),), {}, PermissionResultDeny(message="user said no"), "host"),
    ],
)
def test_rejected_call_never_runs(
    tmp_path: Path,
    rules: tuple[tuple[str, str], ...],
    pre: dict[str, Any],
    host: PermissionResult,
    stage: str,
) -> None:
    """EXEC-1: a deny by a rule, a hook or the host means the call never runs and the result is an error."""
    log = Log()
    ctx = context(
        tmp_path,
        [log.tool("Alpha")],
        rules=rules,
        hooks={"PreToolUse": log.hook("PreToolUse", pre)},
        host=log.host(host),
    )
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert "call" not in log.kinds(), stage
    assert outcome.result.get("is_error") is True
    assert ctx.decision_log.decisions["toolu_1"].behavior == "deny"
    if stage != "host":
        assert "host" not in log.kinds()


def test_unknown_tool_is_an_error(tmp_path: Path) -> None:
    """PAIR-2: an unknown name gets an error naming it."""
    outcome = one(context(tmp_path, []), block("Nope", {"n": 1}))
    assert outcome.result.get("is_error") is True
    assert "Nope" in text(outcome)


# -- PERM-8: headless ----------------------------------------------------------------------------


def test_headless_ask_is_denied(tmp_path: Path) -> None:
    """PERM-8: with nobody to ask and no PermissionRequest hook, an ask is a deny."""
    log = Log()
    ctx = context(tmp_path, [log.tool("Alpha")], rules=(("Alpha", "ask"),))
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert log.events == []
    assert outcome.result.get("is_error") is True
    assert ctx.decision_log.decisions["toolu_1"].reason.stage == "headless"


def test_headless_permission_request_hook_may_allow(tmp_path: Path) -> None:
    """PERM-8: a PermissionRequest hook decides when nobody can be asked."""
    log = Log()
    answer = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}
    ctx = context(
        tmp_path,
        [log.tool("Alpha")],
        rules=(("Alpha", "ask"),),
        hooks={"PermissionRequest": log.hook("PermissionRequest", answer)},
    )
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert log.kinds() == ["PermissionRequest", "call"]
    assert outcome.result.get("is_error") is not True


# -- EXEC-2: rewritten input ---------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    source=st.sampled_from(["hook", "host"]),
    rewritten=st.one_of(
        st.fixed_dictionaries({"n": st.integers(0, 9)}),
        st.fixed_dictionaries({"n": st.integers(100, 109)}),
        st.just({"n": "x"}),
        st.just({"n": 1, "forbidden": True}),
    ),
)
def test_rewritten_input_is_validated_and_judged_again(
    source: str, rewritten: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """EXEC-2: a hook's or the host's rewrite is validated again and judged by the rules again; the call
    gets exactly the final input."""
    tmp = tmp_path_factory.mktemp("exec2")
    log = Log()
    denied_tool = log.tool("Alpha", permission_target=lambda i: None)
    # A deny rule on inputs >= 100 through the tool's own permission check.
    from reference_impl.tools import ToolPermissionCheck

    def check(tool_input: Mapping[str, Any], _ctx: ToolContext) -> ToolPermissionCheck:
        if isinstance(tool_input.get("n"), int) and tool_input["n"] >= 100:
            return ToolPermissionCheck("deny", message="n too large")
        return ToolPermissionCheck("passthrough")

    tool = denied_tool.with_changes(check_permissions=check)
    if source == "hook":
        ctx = context(
            tmp,
            [tool],
            rules=(("Alpha", "allow"),),
            hooks={"PreToolUse": log.hook("PreToolUse", pre_allow(rewritten))},
        )
    else:
        ctx = context(
            tmp,
            [tool],
            rules=(("Alpha", "ask"),),
            host=log.host(PermissionResultAllow(updated_input=rewritten)),
        )
    outcome = one(ctx, block("Alpha", {"n": 1}))
    calls = [data for kind, data in log.events if kind == "call"]
    valid = isinstance(rewritten.get("n"), int) and "forbidden" not in rewritten
    if valid and rewritten["n"] < 100:
        assert calls == [rewritten]
        assert outcome.result.get("is_error") is not True
    else:
        assert calls == []
        assert outcome.result.get("is_error") is True


# -- EXEC-3: aliases -----------------------------------------------------------------------------


def test_alias_in_pool_and_in_base_tools(tmp_path: Path) -> None:
    """EXEC-3: an alias resolves through the pool and through the base tools of old transcripts."""
    log = Log()
    tool = log.tool("Alpha", aliases=("OldAlpha",))
    pooled = context(tmp_path, [tool], rules=(("Alpha", "allow"),))
    assert one(pooled, block("OldAlpha", {"n": 1})).result.get("content") == "done"
    base_only = context(tmp_path, [], rules=(("Alpha", "allow"),), base_tools=(tool,))
    assert one(base_only, block("OldAlpha", {"n": 2})).result.get("content") == "done"
    assert (
        one(base_only, block("Alpha", {"n": 3})).result.get("is_error") is True
    )  # not an alias: not in the pool


# -- EXEC-5: post hooks --------------------------------------------------------------------------


@pytest.mark.parametrize("fail", [False, True])
def test_post_hooks_follow_the_outcome(tmp_path: Path, fail: bool) -> None:
    """EXEC-5: PostToolUse after success only, PostToolUseFailure after failure only; context follows."""
    log = Log()
    ctx = context(
        tmp_path,
        [log.tool("Alpha", fail=fail)],
        rules=(("Alpha", "allow"),),
        hooks={
            "PostToolUse": log.hook(
                "PostToolUse",
                {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "after-ok"}},
            ),
            "PostToolUseFailure": log.hook(
                "PostToolUseFailure",
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PostToolUseFailure",
                        "additionalContext": "after-fail",
                    }
                },
            ),
        },
    )
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert log.kinds() == ["call", "PostToolUseFailure" if fail else "PostToolUse"]
    extra = " ".join(str(b.get("text")) for b in outcome.extra_blocks)
    assert ("after-fail" in extra) == fail
    assert ("after-ok" in extra) == (not fail)
    assert (outcome.result.get("is_error") is True) == fail


def test_post_hook_block_and_output_update(tmp_path: Path) -> None:
    """EXEC-5: a block reason reaches the model; updatedMCPToolOutput is for MCP tools only."""
    log = Log()
    answer = {
        "decision": "block",
        "reason": "stop-this",
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": "replaced"},
    }
    ctx = context(
        tmp_path,
        [log.tool("Alpha", "original")],
        rules=(("Alpha", "allow"),),
        hooks={"PostToolUse": log.hook("PostToolUse", answer)},
    )
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert outcome.result.get("content") == "original"  # not an MCP tool
    assert any("stop-this" in str(b.get("text")) for b in outcome.extra_blocks)


# -- fault paths ---------------------------------------------------------------------------------


def test_failing_host_never_allows(tmp_path: Path) -> None:
    """A host callback that raises is a deny, not a crash and not an allow."""
    log = Log()

    async def broken(_name: str, _input: dict[str, Any], _ctx: ToolPermissionContext) -> PermissionResult:
        raise RuntimeError("prompt crashed")

    ctx = context(tmp_path, [log.tool("Alpha")], rules=(("Alpha", "ask"),), host=broken)
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert log.events == []
    assert outcome.result.get("is_error") is True


def test_a_host_is_not_asked_when_nobody_can_prompt(tmp_path: Path) -> None:
    """PERM-8: with ``can_prompt=False`` (a background agent) the host callback is never asked, even if
    one is set: the ask is denied, as headless."""
    log = Log()
    ctx = context(
        tmp_path, [log.tool("Alpha")], rules=(("Alpha", "ask"),), host=log.host(PermissionResultAllow())
    )
    ctx.permission_context = dataclasses.replace(ctx.permission_context, can_prompt=False)
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert log.events == []
    assert outcome.result.get("is_error") is True
    assert "Nobody can be asked" in text(outcome)


def test_crashing_validator_rejects(tmp_path: Path) -> None:
    """A tool's validate_input that raises rejects the call (fail closed)."""
    log = Log()

    def crash(_input: Mapping[str, Any], _ctx: ToolContext) -> ValidationResult:
        raise ValueError("validator bug")

    ctx = context(tmp_path, [log.tool("Alpha", validate_input=crash)], rules=(("Alpha", "allow"),))
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert log.events == []
    assert outcome.result.get("is_error") is True
    assert "validator bug" in text(outcome)


def test_undeliverable_output_is_an_error(tmp_path: Path) -> None:
    """An output that can't be mapped to a tool_result becomes an error result, not a crash."""
    log = Log()
    ctx = context(tmp_path, [log.tool("Alpha", 12345)], rules=(("Alpha", "allow"),))
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert outcome.result.get("is_error") is True
    assert outcome.failed


def test_tool_raising_is_an_error_with_text(tmp_path: Path) -> None:
    """PAIR-3: a raising tool gives is_error and its message."""
    log = Log()
    ctx = context(tmp_path, [log.tool("Alpha", fail=True)], rules=(("Alpha", "allow"),))
    outcome = one(ctx, block("Alpha", {"n": 1}))
    assert outcome.result.get("is_error") is True
    assert "Alpha broke" in text(outcome)


def test_batch_aborted_before_call_never_starts(tmp_path: Path) -> None:
    """CONC-5: a call scheduled together with the one whose start set the batch abort does not start."""
    started: list[str] = []
    abort = asyncio.Event()

    def tool(name: str) -> Tool:
        async def call(_input: Mapping[str, Any], context: ToolContext) -> ToolOutput:
            started.append(context.tool_use_id)
            abort.set()  # the first call to start aborts the batch (as a user interrupt would)
            return ToolOutput(content="done")

        return build_tool(name, "safe", call, input_json_schema=SCHEMA, is_concurrency_safe=lambda _i: True)

    ctx = context(tmp_path, [tool("Alpha"), tool("Bravo")], rules=(("Alpha", "allow"), ("Bravo", "allow")))
    batch: BatchResult = run(
        run_tool_uses(
            [block("Alpha", {"n": 1}, "toolu_a"), block("Bravo", {"n": 2}, "toolu_b")], ctx, abort=abort
        )
    )
    assert started == ["toolu_a"]
    by_id = {r["tool_use_id"]: r for r in batch.user_content if r.get("type") == "tool_result"}
    assert set(by_id) == {"toolu_a", "toolu_b"}
    assert by_id["toolu_b"].get("is_error") is True


def test_batch_results_first_and_in_order(tmp_path: Path) -> None:
    """PAIR-1, PAIR-5: results in tool_use order, before the hooks' blocks."""
    log = Log()
    ctx = context(
        tmp_path,
        [log.tool("Alpha"), log.tool("Bravo", fail=True)],
        rules=(("Alpha", "allow"), ("Bravo", "allow")),
        hooks={
            "PostToolUse": log.hook(
                "PostToolUse",
                {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "c"}},
            )
        },
    )
    blocks = [
        block("Bravo", {"n": 1}, "toolu_1"),
        block("Nope", {}, "toolu_2"),
        block("Alpha", {"n": 2}, "toolu_3"),
    ]
    batch = run(run_tool_uses(blocks, ctx))
    types = [b["type"] for b in batch.user_content]
    assert [b.get("tool_use_id") for b in batch.user_content[:3]] == ["toolu_1", "toolu_2", "toolu_3"]
    assert types == ["tool_result"] * 3 + ["text"]
