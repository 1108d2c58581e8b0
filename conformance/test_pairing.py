"""Every tool_use gets exactly one tool_result: PAIR-1, PAIR-2, PAIR-3, PAIR-4, PAIR-5.

Every failure path a harness has is driven with ``execution`` alone (unknown tool, invalid input, the
tool's own validation, a raise, shell siblings of a failing shell call, which the harness may cancel
or not); the paths made by rules, hooks, the host, timeouts and aborts are added by their own tests,
each needing that capability, so a harness without a permission engine is judged on pairing without
any rule in play.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import (
    BLANKS,
    CORE_KINDS,
    NAMES,
    allow_rules,
    assume_receivable,
    batches,
    check_pairing,
    execute,
    is_error,
    ok_tool,
    plan_batch,
    scenario_root,
    text_of,
    tool_results,
    tool_use,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HookSpec, ToolBehavior, ToolSpec

SHELL_KINDS = ("shell_ok", "shell_raise")
RULE_KINDS = ("rule_deny", "headless_ask")
EXECUTION_KINDS = (*CORE_KINDS, *RULE_KINDS)
HOOK_HOST_KINDS = ("ok", "raise", "hook_deny", "hook_crash", "host_deny", "host_crash", "schema")
COMMAND_KINDS = ("ok", "hook_exit2", "hook_garbage")
Capabilities = frozenset[str]

success_behaviors = st.sampled_from(
    [
        ToolBehavior("text", text="plain text"),
        ToolBehavior("text", chars=300, fill="日本"),
        ToolBehavior("json", value={"answer": 42, "items": [1, 2]}),
        ToolBehavior("image"),
        ToolBehavior("empty"),
        ToolBehavior("sleep", seconds=0.0, text="slept"),
    ]
)


def run_plan(new_harness: Callable[[], Any], kinds: list[str], capabilities: Capabilities) -> Any:
    assume_receivable(kinds, capabilities)
    plan = plan_batch(kinds, permissions="permissions" in capabilities)
    with scenario_root() as root:
        run = execute(new_harness(), root, plan.tools, plan.tool_uses, **plan.options())
    return plan, run


@requires("execution")
@pytest.mark.requirement("PAIR-1", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    behaviors=st.lists(success_behaviors, min_size=1, max_size=6),
    safe=st.lists(st.booleans(), min_size=6, max_size=6),
    repeats=st.lists(st.integers(0, 5), max_size=3),
)
@example(behaviors=[ToolBehavior("text", text="plain text")], safe=[True] * 6, repeats=[0])
def test_each_tool_use_answered_once(
    new_harness: Callable[[], Any],
    toolharness_capabilities: Capabilities,
    behaviors: list[ToolBehavior],
    safe: list[bool],
    repeats: list[int],
) -> None:
    """PAIR-1: the next user message answers each tool_use id exactly once, nothing else, results first.

    The batch may repeat calls: the same tool with the same input again, under its own id, each
    repeat answered on its own.
    """
    tools = [
        ok_tool(NAMES[i], b, concurrency_safe=safe[i], read_only=safe[i]) for i, b in enumerate(behaviors)
    ]
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(len(behaviors))]
    for r, target in enumerate(repeats):
        i = target % len(behaviors)
        uses.append(tool_use(f"toolu_{i:02d}_again_{r}", NAMES[i], {"n": i}))
    with scenario_root() as root:
        run = execute(new_harness(), root, tools, uses, rules=allow_rules(tools, toolharness_capabilities))
    check_pairing(run)


@requires("execution", "hooks")
@pytest.mark.requirement("PAIR-1", "MUST")
@settings(max_examples=15, deadline=None)
@given(count=st.integers(1, 4), with_context=st.lists(st.booleans(), min_size=4, max_size=4))
def test_results_come_before_hook_blocks(
    new_harness: Callable[[], Any],
    toolharness_capabilities: Capabilities,
    count: int,
    with_context: list[bool],
) -> None:
    """PAIR-1: blocks a harness adds (hook additional context) come after every tool_result."""
    tools = [ok_tool(NAMES[i]) for i in range(count)]
    hooks = [
        HookSpec("PostToolUse", "context", matcher=NAMES[i], context=f"note for {NAMES[i]}")
        for i in range(count)
        if with_context[i]
    ] + [HookSpec("PreToolUse", "context", matcher=NAMES[0], context="before the call")]
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(count)]
    with scenario_root() as root:
        run = execute(
            new_harness(), root, tools, uses, hooks=hooks, rules=allow_rules(tools, toolharness_capabilities)
        )
    check_pairing(run)


@requires("execution")
@pytest.mark.requirement("PAIR-2", "MUST")
@settings(max_examples=40, deadline=None)
@given(kinds=batches((*CORE_KINDS, *SHELL_KINDS), max_size=7))
def test_pairing_survives_failures(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, kinds: list[str]
) -> None:
    """The PAIR-2 property, stated below.

    PAIR-2: pairing holds with unknown tools, invalid input, own validation, raise, and shell siblings
    of a failed shell call (cancelled or not), mixed in one batch; no rule, hook or host involved.
    """
    _plan, run = run_plan(new_harness, kinds, toolharness_capabilities)
    check_pairing(run)


@requires("execution", "permissions")
@pytest.mark.requirement("PAIR-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(kinds=batches(EXECUTION_KINDS, max_size=6).filter(lambda k: bool(set(k) & set(RULE_KINDS))))
def test_pairing_survives_rule_denials(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, kinds: list[str]
) -> None:
    """PAIR-2: pairing holds when deny rules and asks nobody can answer (headless) reject calls."""
    _plan, run = run_plan(new_harness, kinds, toolharness_capabilities)
    check_pairing(run)


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PAIR-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(kinds=batches(HOOK_HOST_KINDS, max_size=6))
@example(kinds=["host_crash", "ok", "host_crash"])
def test_pairing_survives_hooks_and_host(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, kinds: list[str]
) -> None:
    """PAIR-2: pairing holds when hooks block or crash and the host rejects or its prompt crashes, mixed with raises."""
    _plan, run = run_plan(new_harness, kinds, toolharness_capabilities)
    check_pairing(run)


@requires("execution", "command_hooks")
@pytest.mark.requirement("PAIR-2", "MUST")
@settings(max_examples=4, deadline=None)
@given(kinds=batches(COMMAND_KINDS, min_size=2, max_size=3).filter(lambda k: "ok" in k and len(set(k)) > 1))
def test_pairing_survives_command_hooks(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, kinds: list[str]
) -> None:
    """PAIR-2: pairing holds when a command hook blocks with exit code 2 or prints garbage."""
    _plan, run = run_plan(new_harness, kinds, toolharness_capabilities)
    check_pairing(run)


@requires("execution", "timeouts")
@pytest.mark.requirement("PAIR-2", "MUST")
@settings(max_examples=4, deadline=None)
@given(kinds=batches(("ok", "raise", "timeout"), min_size=2, max_size=4).filter(lambda k: "timeout" in k))
@example(kinds=["timeout", "ok", "timeout"])
@example(kinds=["raise", "timeout"])  # a failure beside the hang, in every run (not only when drawn)
def test_pairing_survives_timeouts(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, kinds: list[str]
) -> None:
    """PAIR-2: pairing holds when a call hangs past the call timeout."""
    _plan, run = run_plan(new_harness, kinds, toolharness_capabilities)
    check_pairing(run)


@requires("execution", "result_persistence")
@pytest.mark.requirement("PAIR-2", "MUST")
@settings(max_examples=8, deadline=None)
@given(
    kinds=st.lists(st.sampled_from(["large", "text", "raise"]), min_size=1, max_size=4).filter(
        lambda k: "large" in k
    )
)
@example(kinds=["large", "large", "text"])
def test_pairing_survives_a_result_that_cannot_be_saved(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, kinds: list[str]
) -> None:
    """PAIR-2/PAIR-3: a result too large to inline, whose file can't be written (the session directory is a file), still gets exactly one result.

    That result is either delivered (a success with text) or an error that says so; the other calls
    of the batch end as they would have: a plain call succeeds with its text, a raising one fails.
    """
    tools = [
        ok_tool(
            NAMES[i],
            ToolBehavior("text", chars=60_000)
            if k == "large"
            else ToolBehavior("raise", message=f"{NAMES[i]} broke")
            if k == "raise"
            else ToolBehavior("text", text=f"{NAMES[i]} done"),
            max_result_size_chars=1_000,
        )
        for i, k in enumerate(kinds)
    ]
    uses = [tool_use(f"toolu_{i:02d}_{k}", NAMES[i], {"n": i}) for i, k in enumerate(kinds)]
    with scenario_root() as root:
        session = root / "session"
        session.rmdir()
        session.write_text("a file where the session directory should be\n", encoding="utf-8")
        run = execute(new_harness(), root, tools, uses, rules=allow_rules(tools, toolharness_capabilities))
    check_pairing(run)
    by_id = run.results_by_id()
    for use, kind in zip(uses, kinds, strict=True):
        result = by_id[use["id"]]
        where = f"{use['id']} ({kind}) with an unwritable session directory: {result!r}"[:600]
        assert text_of(result).strip(), f"empty result: {where}"
        if kind == "text":
            assert not is_error(result), where
            assert f"{use['name']} done" in text_of(result), where
        elif kind == "raise":
            assert is_error(result), where


ABORT_BATCH_KINDS = ("text", "wait_abort", "hang", "raise", "unknown", "schema", "repeat")
"""What a call of an aborted batch does: a behaviour of its tool, or a failure before it runs (an
unknown tool, invalid input), or a repeat of the call before it (same tool, same input, its own id)."""


@requires("execution", "abort")
@pytest.mark.requirement("PAIR-2", "MUST")
@settings(max_examples=15, deadline=None)
@given(
    kinds=st.lists(st.sampled_from(ABORT_BATCH_KINDS), min_size=1, max_size=6),
    safe=st.lists(st.booleans(), min_size=6, max_size=6),
    after=st.integers(1, 6),
)
@example(kinds=["text", "raise", "wait_abort"], safe=[False] * 6, after=3)
@example(kinds=["unknown", "wait_abort", "repeat", "schema"], safe=[True] * 6, after=1)
def test_pairing_survives_abort(
    new_harness: Callable[[], Any],
    toolharness_capabilities: Capabilities,
    kinds: list[str],
    safe: list[bool],
    after: int,
) -> None:
    """PAIR-2: pairing holds when the batch is aborted after some calls started.

    The batch mixes calls that were running or queued when the abort came with calls that failed
    before running (an unknown tool, invalid input) and repeats of a call (same tool, same input).
    """
    tools: list[ToolSpec] = []
    uses: list[dict[str, Any]] = []
    blockers: list[int] = []
    for i, kind in enumerate(kinds):
        if kind == "repeat" and uses and str(uses[-1]["name"]) in {t.name for t in tools}:
            uses.append(tool_use(f"toolu_{i:02d}_repeat", uses[-1]["name"], dict(uses[-1]["input"])))
            if str(uses[-1]["name"]) in {tools[b].name for b in blockers}:
                blockers.append(len(tools) - 1)
            continue
        if kind == "unknown":
            uses.append(tool_use(f"toolu_{i:02d}_unknown", f"Missing{NAMES[i]}", {"n": i}))
            continue
        behavior = ToolBehavior(kind if kind in ("text", "wait_abort", "hang", "raise") else "text")  # type: ignore[arg-type]
        tools.append(ok_tool(NAMES[i], behavior, concurrency_safe=safe[i], read_only=safe[i]))
        if kind in ("wait_abort", "hang"):
            blockers.append(len(tools) - 1)
        uses.append(
            tool_use(f"toolu_{i:02d}_{kind}", NAMES[i], {"n": "not a number" if kind == "schema" else i})
        )
    if not blockers:
        # Make sure the abort fires: otherwise a batch that never aborts would hang here.
        tools.append(ok_tool("Zulu", ToolBehavior("wait_abort"), concurrency_safe=safe[0], read_only=safe[0]))
        uses.append(tool_use("toolu_zz_wait_abort", "Zulu", {"n": 0}))
    # Calls up to the first blocking one start whatever the schedule, so the trigger is reachable.
    first = next(
        i
        for i, u in enumerate(uses)
        if any(u["name"] == t.name and t.behavior.kind in ("wait_abort", "hang") for t in tools)
    )
    runnable = [
        u
        for u in uses[: first + 1]
        if u["name"] in {t.name for t in tools} and u["input"]["n"] != "not a number"
    ]
    after = max(1, min(after, len(runnable)))
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            tools,
            uses,
            abort_after_starts=after,
            rules=allow_rules(tools, toolharness_capabilities),
        )
    check_pairing(run)


def check_errors_have_text(plan: Any, run: Any) -> None:
    """PAIR-3 on one run: failures are is_error with text, successes are not errors."""
    by_id = run.results_by_id()
    for tool_use_id in plan.expected_failures():
        result = by_id.get(tool_use_id)
        assert result is not None, f"no tool_result for {tool_use_id}"
        assert is_error(result), (
            f"{tool_use_id} ({plan.kinds[tool_use_id]}) failed but is_error is not true: {result}"
        )
        assert text_of(result).strip(), (
            f"{tool_use_id} ({plan.kinds[tool_use_id]}) is an error without text: {result}"
        )
        reason = plan.reasons.get(tool_use_id)
        assert reason is None or reason in text_of(result), (
            f"{tool_use_id} ({plan.kinds[tool_use_id]}): the error does not say what went wrong "
            f"({reason!r}): {text_of(result)!r}"
        )
    for tool_use_id in plan.expected_successes():
        result = by_id.get(tool_use_id)
        assert result is not None, f"no tool_result for {tool_use_id}"
        assert not is_error(result), (
            f"{tool_use_id} ({plan.kinds[tool_use_id]}) succeeded but is_error: {result}"
        )


@requires("execution")
@pytest.mark.requirement("PAIR-3", "MUST")
@settings(max_examples=30, deadline=None)
@given(kinds=batches(CORE_KINDS, max_size=6))
def test_failures_are_errors_with_text(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, kinds: list[str]
) -> None:
    """The PAIR-3 property, stated below.

    PAIR-3: a failed call's tool_result (unknown tool, invalid input, own validation, raise) has
    is_error true and non-empty text that says what went wrong (the validator's message, the
    exception's); a successful one is not marked as an error.
    """
    check_errors_have_text(*run_plan(new_harness, kinds, toolharness_capabilities))


# A schema with a parameter at the top level, one inside an object and one inside an array, so an
# error text that says "(root)" or nothing where the parameter was is told apart from one that names it.
SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string"},
        "options": {
            "type": "object",
            "properties": {"max_depth": {"type": "integer"}},
            "required": ["max_depth"],
        },
        "globs": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["pattern"],
}
# (the input, the parameter the text must name): each breaks the schema in one place only.
SCHEMA_BREAKS: list[tuple[dict[str, Any], str]] = [
    ({}, "pattern"),
    ({"pattern": 7}, "pattern"),
    ({"pattern": "x", "options": {}}, "max_depth"),
    ({"pattern": "x", "options": {"max_depth": "deep"}}, "max_depth"),
    ({"pattern": "x", "options": "deep"}, "options"),
    ({"pattern": "x", "globs": "*.py"}, "globs"),
]


@requires("execution")
@pytest.mark.requirement("PAIR-3", "MUST")
@settings(max_examples=12, deadline=None)
@given(breaks=st.lists(st.sampled_from(SCHEMA_BREAKS), min_size=1, max_size=3), ok_first=st.booleans())
@example(breaks=[({"pattern": "x", "options": {"max_depth": "deep"}}, "max_depth")], ok_first=False)
@example(breaks=[({"pattern": 7}, "pattern"), ({"pattern": "x", "globs": "*.py"}, "globs")], ok_first=True)
def test_schema_errors_name_the_parameter(
    new_harness: Callable[[], Any],
    toolharness_capabilities: Capabilities,
    breaks: list[tuple[dict[str, Any], str]],
    ok_first: bool,
) -> None:
    """The PAIR-3 property for input that fails the schema, stated below.

    PAIR-3: the error text tells the model what went wrong: for an input that breaks the tool's
    schema in one place (a required parameter missing, a value of the wrong type, at the top level
    or inside an object or array), the text names that parameter. A valid call beside them succeeds.
    """
    tool = ToolSpec(
        name="Search",
        description="Search the files.",
        input_schema=SEARCH_SCHEMA,
        behavior=ToolBehavior("text", text="found it"),
    )
    calls = [(f"toolu_{i:02d}_bad", tool_input, name) for i, (tool_input, name) in enumerate(breaks)]
    valid = ("toolu_99_valid", {"pattern": "x", "options": {"max_depth": 2}, "globs": ["*.py"]}, "")
    calls = [valid, *calls] if ok_first else [*calls, valid]
    uses = [tool_use(tool_use_id, "Search", tool_input) for tool_use_id, tool_input, _ in calls]
    with scenario_root() as root:
        run = execute(new_harness(), root, [tool], uses, rules=allow_rules([tool], toolharness_capabilities))
    check_pairing(run)
    by_id = run.results_by_id()
    assert not is_error(by_id["toolu_99_valid"]), f"a valid call failed: {by_id['toolu_99_valid']}"
    for tool_use_id, tool_input, name in calls:
        if not name:
            continue
        result = by_id[tool_use_id]
        assert is_error(result), f"{tool_input!r} breaks the schema, yet {tool_use_id} is no error: {result}"
        assert name in text_of(result), (
            f"the error for {tool_input!r} does not name the parameter {name!r}: {text_of(result)!r}"
        )


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PAIR-3", "MUST")
@settings(max_examples=30, deadline=None)
@given(kinds=batches(EXECUTION_KINDS + HOOK_HOST_KINDS, max_size=6))
@example(kinds=["ok", "host_crash", "host_deny"])
def test_denials_are_errors_with_text(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, kinds: list[str]
) -> None:
    """PAIR-3: a call denied by a rule, a hook or the host (or whose permission prompt crashed) gets is_error and non-empty text too; a hook's or the host's reason is in it."""
    check_errors_have_text(*run_plan(new_harness, kinds, toolharness_capabilities))


@requires("execution", "timeouts")
@pytest.mark.requirement("PAIR-3", "MUST")
@settings(max_examples=3, deadline=None)
@given(position=st.integers(0, 2))
def test_timeout_is_an_error_with_text(
    new_harness: Callable[[], Any], toolharness_capabilities: Capabilities, position: int
) -> None:
    """PAIR-3: a call that times out gets is_error and non-empty text."""
    kinds = ["ok", "ok", "ok"]
    kinds[position] = "timeout"
    plan, run = run_plan(new_harness, kinds, toolharness_capabilities)
    result = run.results_by_id()[plan.expected_failures()[0]]
    assert is_error(result), f"a timed-out call is not marked is_error: {result}"
    assert text_of(result).strip(), f"a timed-out call's error has no text: {result}"


# Every shape of empty output: ``""`` (the ``empty`` behaviour or a blank string), an empty list of
# content blocks, and a list of one to three blank text blocks.
EMPTY_OUTPUTS = st.one_of(
    st.just(ToolBehavior("empty")),
    BLANKS.map(lambda blank: ToolBehavior("text", text=blank)),
    st.lists(BLANKS.map(lambda blank: {"type": "text", "text": blank}), max_size=3).map(
        lambda blocks: ToolBehavior("json", value=blocks)
    ),
)


@requires("execution")
@pytest.mark.requirement("PAIR-4", "MUST")
@settings(max_examples=25, deadline=None)
@given(empties=st.lists(EMPTY_OUTPUTS, min_size=1, max_size=3), others=st.integers(0, 2))
@example(empties=[ToolBehavior("empty")], others=0)
@example(empties=[ToolBehavior("json", value=[])], others=1)
@example(empties=[ToolBehavior("json", value=[{"type": "text", "text": ""}] * 2)], others=0)
def test_empty_output_gets_placeholder(
    new_harness: Callable[[], Any],
    toolharness_capabilities: Capabilities,
    empties: list[ToolBehavior],
    others: int,
) -> None:
    """PAIR-4: a tool that returns nothing gets a non-empty, non-error tool_result (a placeholder).

    Nothing is every empty shape: ``""``, whitespace only, an empty list of content blocks ``[]``,
    a list of blank text blocks; beside calls with output in the same batch.
    """
    behaviors = [*empties, *(ToolBehavior("text", text="something") for _ in range(others))]
    tools = [ok_tool(NAMES[i], b) for i, b in enumerate(behaviors)]
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(len(behaviors))]
    with scenario_root() as root:
        run = execute(new_harness(), root, tools, uses, rules=allow_rules(tools, toolharness_capabilities))
    by_id = run.results_by_id()
    for index, behavior in enumerate(empties):
        result = by_id[f"toolu_{index:02d}"]
        said = f"{NAMES[index]}'s empty output ({behavior.kind} {behavior.text if behavior.value is None else behavior.value!r})"
        content = result.get("content")
        assert content not in (None, "", []), f"{said} was sent empty: {result}"
        assert text_of(result).strip(), f"{said} has no placeholder text: {result}"
        assert not is_error(result), f"{said} is marked as an error: {result}"
    for index in range(len(empties), len(behaviors)):
        result = by_id[f"toolu_{index:02d}"]
        assert "something" in text_of(result), f"{NAMES[index]}'s output beside empty ones was lost: {result}"


def check_result_order(
    new_harness: Callable[[], Any], capabilities: Capabilities, kinds: list[str], sleeps: list[float]
) -> None:
    """PAIR-5 on one batch whose successful calls finish in an order unrelated to the batch order."""
    assume_receivable(kinds, capabilities)
    plan = plan_batch(kinds, permissions="permissions" in capabilities)
    # Successful calls finish in an order unrelated to the batch order.
    plan.tools = [
        t
        if t.behavior.kind != "text"
        else ok_tool(
            t.name,
            ToolBehavior("sleep", seconds=sleeps[i], text=f"{t.name} done"),
            concurrency_safe=True,
            read_only=True,
            rejects_when=t.rejects_when,
        )
        for i, t in enumerate(plan.tools)
    ]
    with scenario_root() as root:
        run = execute(new_harness(), root, plan.tools, plan.tool_uses, **plan.options())
    order = [r.get("tool_use_id") for r in tool_results(run.content)]
    assert order == [b["id"] for b in plan.tool_uses], (
        f"results in order {order}, tool_uses in order {[b['id'] for b in plan.tool_uses]}"
    )


SLEEPS = st.lists(st.sampled_from([0.0, 0.002, 0.01]), min_size=6, max_size=6)


@requires("execution")
@pytest.mark.requirement("PAIR-5", "SHOULD")
@settings(max_examples=30, deadline=None)
@given(kinds=batches(CORE_KINDS, min_size=2, max_size=6), sleeps=SLEEPS)
def test_results_in_tool_use_order(
    new_harness: Callable[[], Any],
    toolharness_capabilities: Capabilities,
    kinds: list[str],
    sleeps: list[float],
) -> None:
    """PAIR-5: tool_results follow the order of their tool_use blocks, early failures included."""
    check_result_order(new_harness, toolharness_capabilities, kinds, sleeps)


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PAIR-5", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(kinds=batches(EXECUTION_KINDS + HOOK_HOST_KINDS, min_size=2, max_size=6), sleeps=SLEEPS)
def test_denied_results_in_tool_use_order(
    new_harness: Callable[[], Any],
    toolharness_capabilities: Capabilities,
    kinds: list[str],
    sleeps: list[float],
) -> None:
    """PAIR-5: the order holds when rules, hooks and the host reject calls early."""
    check_result_order(new_harness, toolharness_capabilities, kinds, sleeps)
