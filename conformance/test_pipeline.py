"""The pipeline order: EXEC-1, EXEC-2, EXEC-3, EXEC-5 (EXEC-4 is not observable through the protocol)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import (
    NAMES,
    Run,
    allow_rules,
    assume_receivable,
    batches,
    execute,
    is_error,
    ok_tool,
    plan_batch,
    scenario_root,
    text_of,
    tool_use,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import (
    HookSpec,
    HostAnswer,
    HostSpec,
    RuleSpec,
    ToolBehavior,
    ToolSpec,
)

REJECTING_KINDS = (
    "schema",
    "not_object",
    "own_validation",
    "validation_crash",
    "rule_deny",
    "hook_deny",
    "host_deny",
    "headless_ask",
    "unknown",
)

SHELL_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"command": {"type": "string"}},
    "required": ["command"],
    "additionalProperties": False,
}

allowed_commands = st.builds(
    lambda w: f"echo {w}", st.from_regex(r"[a-z]{1,8}", fullmatch=True, alphabet=ths.utf8_characters())
)
denied_commands = st.builds(
    lambda w: f"rm -rf {w}", st.from_regex(r"[a-z]{1,8}", fullmatch=True, alphabet=ths.utf8_characters())
)


def shell_tool() -> ToolSpec:
    return ToolSpec(
        name="Bash",
        description="Runs a shell command.",
        input_schema=SHELL_SCHEMA,
        shell=True,
        permission_kind="shell",
        permission_field="command",
        rejects_when="forbidden",
        behavior=ToolBehavior("text", text="ran"),
    )


def all_text(run: Run) -> str:
    parts: list[str] = []
    for block in run.content:
        if block.get("type") == "tool_result":
            parts.append(text_of(block))
        elif block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "\n".join(parts)


@requires("execution")
@pytest.mark.requirement("EXEC-1", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    kinds=batches(("unknown", "schema", "not_object", "own_validation", "validation_crash", "ok"), max_size=6)
)
def test_invalid_call_never_runs(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], kinds: list[str]
) -> None:
    """EXEC-1: a call rejected by lookup, schema or its own validation never runs; the others do.

    Rejected also means an input that is no object at all, and a validator that raises. No hook, no host; allow rules only when the harness has rules (so that nobody needs to be asked).
    """
    assume_receivable(kinds, toolharness_capabilities)
    plan = plan_batch(kinds, permissions="permissions" in toolharness_capabilities)
    with scenario_root() as root:
        run = execute(new_harness(), root, plan.tools, plan.tool_uses, **plan.options())
    started = set(run.recorder.started())
    ran_anyway = [f"{i} ({plan.kinds[i]})" for i in plan.expected_failures() if i in started]
    assert not ran_anyway, f"calls ran although an earlier stage rejected them: {ran_anyway}"
    never_ran = [i for i in plan.expected_successes() if i not in started]
    assert not never_ran, f"valid calls never ran: {never_ran}"


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("EXEC-1", "MUST")
@settings(max_examples=40, deadline=None)
@given(kinds=batches((*REJECTING_KINDS, "ok"), max_size=6))
def test_rejected_call_never_runs(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], kinds: list[str]
) -> None:
    """The EXEC-1 property, stated below.

    EXEC-1: a call rejected by lookup, schema, its own validation, a hook, a rule, the host or an
    unanswerable ask never runs; the others do.
    """
    assume_receivable(kinds, toolharness_capabilities)
    plan = plan_batch(kinds)
    with scenario_root() as root:
        run = execute(new_harness(), root, plan.tools, plan.tool_uses, **plan.options())
    started = set(run.recorder.started())
    ran_anyway = [f"{i} ({plan.kinds[i]})" for i in plan.expected_failures() if i in started]
    assert not ran_anyway, f"calls ran although an earlier stage rejected them: {ran_anyway}"
    never_ran = [i for i in plan.expected_successes() if i not in started]
    assert not never_ran, f"allowed calls never ran: {never_ran}"


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("EXEC-1", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    invalid=st.sampled_from(["schema", "own_validation", "missing", "not_object", "validation_crash"]),
    ask=st.booleans(),
)
def test_invalid_input_reaches_neither_hooks_nor_permissions(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], invalid: str, ask: bool
) -> None:
    """The EXEC-1 property, stated below.

    EXEC-1: invalid input never reaches PreToolUse hooks nor the permission stage: a hook that would
    repair the input is not run (the call never runs) and the host is never asked.
    """
    assume_receivable([invalid], toolharness_capabilities)
    tool = ok_tool("Alpha", rejects_when="forbidden", validation_raises_when="fragile")
    bad_inputs: dict[str, Any] = {
        "schema": {"n": "seven"},
        "own_validation": {"n": 7, "forbidden": True},
        "missing": {},
        "not_object": ["n", 7],
        "validation_crash": {"n": 7, "fragile": True},
    }
    bad = bad_inputs[invalid]
    hooks = [HookSpec("PreToolUse", "update_input", matcher="Alpha", updated_input={"n": 7})]
    rules = [RuleSpec("Alpha", "ask" if ask else "allow")]
    host = HostSpec()
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [tool],
            [tool_use("toolu_bad", "Alpha", bad)],
            hooks=hooks,
            rules=rules,
            host=host,
        )
    assert run.recorder.started() == [], (
        f"input {bad} is invalid ({invalid}) but the call ran with {run.recorder.inputs('toolu_bad')}: "
        "the PreToolUse hook saw the invalid input and repaired it"
    )
    assert host.asked == [], f"the host was asked about invalid input {bad}: {host.asked}"
    assert is_error(run.results_by_id()["toolu_bad"]), "the invalid call's result is not an error"


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("EXEC-1", "MUST")
@settings(max_examples=20, deadline=None)
@given(stage=st.sampled_from(["hook_deny", "rule_deny", "own_validation", "schema"]))
def test_host_not_asked_after_earlier_rejection(new_harness: Callable[[], Any], stage: str) -> None:
    """The EXEC-1 property, stated below.

    EXEC-1: the host is asked only after validation, hooks and rules; an earlier rejection means it
    is never asked (an ask rule would otherwise ask it).
    """
    tool = ok_tool("Alpha", rejects_when="forbidden")
    tool_input: dict[str, Any] = {"n": 1}
    rules = [RuleSpec("Alpha(*)", "ask"), RuleSpec("Alpha", "ask")]
    hooks: list[HookSpec] = []
    if stage == "hook_deny":
        hooks.append(HookSpec("PreToolUse", "deny", matcher="Alpha"))
    elif stage == "rule_deny":
        rules = [RuleSpec("Alpha", "deny")]
    elif stage == "own_validation":
        tool_input["forbidden"] = 1
    else:
        tool_input = {"n": []}
    host = HostSpec()
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [tool],
            [tool_use("toolu_x", "Alpha", tool_input)],
            hooks=hooks,
            rules=rules,
            host=host,
        )
    assert host.asked == [], f"the host was asked although {stage} rejected the call first: {host.asked}"
    assert run.recorder.started() == [], f"the call ran although {stage} rejected it"


@requires("execution", "permissions")
@pytest.mark.requirement("EXEC-1", "MUST")
@settings(max_examples=10, deadline=None)
@given(command=st.one_of(allowed_commands, denied_commands))
@example(command="echo hi")
@example(command="rm -rf hi")
def test_content_rule_judges_the_call_itself(new_harness: Callable[[], Any], command: str) -> None:
    """The EXEC-1 property, stated below.

    EXEC-1: the permission stage judges the call's own input, before the call: a command a content rule
    denies (``Bash(rm:*)``) never runs and gets an error; one a content rule allows (``Bash(echo:*)``)
    runs with that input, nobody asked.
    """
    rules = [RuleSpec("Bash(echo:*)", "allow"), RuleSpec("Bash(rm:*)", "deny")]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [shell_tool()],
            [tool_use("toolu_sh", "Bash", {"command": command})],
            rules=rules,
        )
    result = run.results_by_id()["toolu_sh"]
    if command.startswith("rm "):
        assert run.recorder.started() == [], f"{command!r} ran although Bash(rm:*) denies it"
        assert is_error(result), f"the denied call {command!r} got a result that is not an error: {result}"
    else:
        assert run.recorder.inputs("toolu_sh") == [{"command": command}], (
            f"{command!r}, allowed by Bash(echo:*), did not run with its input: {run.recorder.inputs('toolu_sh')}; "
            f"result {result}"
        )


@requires("execution", "permissions", "hooks")
@pytest.mark.requirement("EXEC-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(original=allowed_commands, rewritten=st.one_of(allowed_commands, denied_commands))
def test_hook_rewrite_is_judged_again(new_harness: Callable[[], Any], original: str, rewritten: str) -> None:
    """The EXEC-2 property, stated below.

    EXEC-2: a PreToolUse hook's updatedInput is what permissions judge and the call gets: a rewrite
    that a deny rule matches is denied; any other rewrite runs with exactly the rewritten input.
    """
    rules = [RuleSpec("Bash(echo:*)", "allow"), RuleSpec("Bash(rm:*)", "deny")]
    hooks = [HookSpec("PreToolUse", "update_input", matcher="Bash", updated_input={"command": rewritten})]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [shell_tool()],
            [tool_use("toolu_sh", "Bash", {"command": original})],
            hooks=hooks,
            rules=rules,
        )
    inputs = run.recorder.inputs("toolu_sh")
    result = run.results_by_id()["toolu_sh"]
    if rewritten.startswith("rm "):
        assert inputs == [], (
            f"the hook rewrote {original!r} to {rewritten!r}, which a deny rule matches, yet the call ran with {inputs}"
        )
        assert is_error(result), f"the denied rewrite {rewritten!r} did not give an error result: {result}"
    else:
        assert [dict(i) for i in inputs] == [{"command": rewritten}], (
            f"the call should run once with the rewritten input {rewritten!r}, ran with {inputs}"
        )


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("EXEC-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(original=allowed_commands, rewritten=st.one_of(allowed_commands, denied_commands))
def test_host_rewrite_is_judged_again(new_harness: Callable[[], Any], original: str, rewritten: str) -> None:
    """The EXEC-2 property, stated below.

    EXEC-2: the host's updated input is judged again (a deny rule matching it denies) and is exactly
    what the call gets otherwise.
    """
    rules = [RuleSpec("Bash", "ask"), RuleSpec("Bash(rm:*)", "deny")]
    host = HostSpec(lambda _name, _input: HostAnswer("allow", updated_input={"command": rewritten}))
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [shell_tool()],
            [tool_use("toolu_sh", "Bash", {"command": original})],
            rules=rules,
            host=host,
        )
    assert [name for name, _ in host.asked] == ["Bash"], (
        f"the host should be asked once, was asked {host.asked}"
    )
    inputs = [dict(i) for i in run.recorder.inputs("toolu_sh")]
    if rewritten.startswith("rm "):
        assert inputs == [], (
            f"the host rewrote to {rewritten!r}, which a deny rule matches, yet the call ran with {inputs}"
        )
        assert is_error(run.results_by_id()["toolu_sh"]), "a denied rewrite did not give an error result"
    else:
        assert inputs == [{"command": rewritten}], (
            f"the call should run with {rewritten!r}, ran with {inputs}"
        )


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("EXEC-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    source=st.sampled_from(["hook", "host", "permission_request"]),
    bad=st.sampled_from(
        [
            {"command": 5},
            {"command": ["ls"]},
            {},
            {"command": "ls", "extra": 1},
            {"command": "ls", "forbidden": True},
        ]
    ),
)
def test_invalid_rewrite_is_rejected(
    new_harness: Callable[[], Any], source: str, bad: dict[str, Any]
) -> None:
    """The EXEC-2 property, stated below.

    EXEC-2: a rewritten input (a PreToolUse hook's updatedInput, the host's updated input, or a
    PermissionRequest hook's approval with updatedInput) that fails the schema or the tool's own
    validation is rejected: the call never runs and the result is an error. The rejection is that
    call's own: the call queued behind it still runs.
    """
    hooks: list[HookSpec] = []
    host = None
    after = ok_tool("Other")
    rules = [RuleSpec("Other", "allow")]
    if source == "hook":
        rules.append(RuleSpec("Bash", "allow"))
        hooks = [HookSpec("PreToolUse", "update_input", matcher="Bash", updated_input=bad)]
    elif source == "host":
        rules.append(RuleSpec("Bash", "ask"))
        host = HostSpec(lambda _name, _input: HostAnswer("allow", updated_input=bad))
    else:
        rules.append(RuleSpec("Bash", "ask"))
        hooks = [HookSpec("PermissionRequest", "allow", matcher="Bash", updated_input=bad)]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [shell_tool(), after],
            [tool_use("toolu_sh", "Bash", {"command": "echo hi"}), tool_use("toolu_next", "Other", {"n": 1})],
            rules=rules,
            hooks=hooks,
            host=host,
        )
    inputs = run.recorder.inputs("toolu_sh")
    assert inputs == [], (
        f"the {source} rewrote the input to the invalid {bad}, yet the call ran with {inputs}"
    )
    result = run.results_by_id()["toolu_sh"]
    assert is_error(result), f"an invalid {source} rewrite {bad} did not give an error result: {result}"
    following = run.results_by_id()["toolu_next"]
    assert not is_error(following), (
        f"the {source}'s invalid rewrite of toolu_sh also failed the call after it: {following}"
    )


@requires("execution")
@pytest.mark.requirement("EXEC-3", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(
    aliases=st.lists(
        st.from_regex(r"Old[A-Z][a-z]{2,6}", fullmatch=True, alphabet=ths.utf8_characters()),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    pick=st.integers(0, 2),
)
def test_alias_resolves(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], aliases: list[str], pick: int
) -> None:
    """EXEC-3: a tool_use naming a deprecated alias of a tool runs the current tool."""
    alias = aliases[pick % len(aliases)]
    tool = ok_tool("Alpha", aliases=tuple(aliases))
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [tool],
            [tool_use("toolu_old", alias, {"n": 3})],
            rules=allow_rules([tool], toolharness_capabilities),
        )
    assert run.recorder.started() == ["toolu_old"], f"the alias {alias!r} of Alpha did not run Alpha"
    result = run.results_by_id()["toolu_old"]
    assert not is_error(result), f"alias {alias!r} gave an error: {result}"
    assert "Alpha done" in text_of(result), f"alias {alias!r} did not give Alpha's output: {result}"


@requires("execution")
@pytest.mark.requirement("EXEC-3", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(size=st.integers(2, 4), data=st.data())
def test_a_tools_own_name_outranks_another_tools_alias(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], size: int, data: st.DataObject
) -> None:
    """EXEC-3: a call runs the tool of that name, even when another tool lists the name as its alias.

    Names are reused: a tool renamed long ago keeps its old name as an alias, and a new tool may
    take that name. Each tool draws aliases among the other tools' names and one of its own
    (``Old<Name>``); a call by each tool's name runs that tool, and a call by each own alias runs the
    tool that has it.
    """
    names = list(NAMES[:size])
    tools = []
    for name in names:
        taken = data.draw(st.lists(st.sampled_from([n for n in names if n != name]), unique=True), label=name)
        tools.append(ok_tool(name, aliases=(*taken, f"Old{name}")))
    calls = [(f"toolu_{i}", name, name) for i, name in enumerate(names)]
    calls += [(f"toolu_old_{i}", f"Old{name}", name) for i, name in enumerate(names)]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            tools,
            [tool_use(call_id, called, {"n": 1}) for call_id, called, _ in calls],
            rules=allow_rules(tools, toolharness_capabilities),
        )
    results = run.results_by_id()
    for call_id, called, owner in calls:
        result = results[call_id]
        aliases = {t.name: t.aliases for t in tools}
        assert f"{owner} done" in text_of(result), (
            f"a call of {called!r} must run {owner} (aliases {aliases}), got {result}"
        )


@requires("execution", "hooks")
@pytest.mark.requirement("EXEC-5", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    event=st.sampled_from(["PostToolUse", "PostToolUseFailure"]),
    kinds=st.lists(st.sampled_from(["text", "raise", "error_result"]), min_size=1, max_size=4),
)
@example(event="PostToolUse", kinds=["error_result"])
@example(event="PostToolUseFailure", kinds=["text", "error_result", "raise"])
def test_post_hooks_match_outcome(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    event: Literal["PostToolUse", "PostToolUseFailure"],
    kinds: list[Literal["text", "raise", "error_result"]],
) -> None:
    """The EXEC-5 property, stated below.

    EXEC-5: PostToolUse runs only after success and PostToolUseFailure only after failure; the
    hook's additional context reaches the model after that call's tool_result. A failure is a tool
    that raises or one that returns an error result (``error_result``: it completes, but reports
    is_error), in any mix with successes on one batch.
    """
    outcomes = [kind == "text" for kind in kinds]
    tools = [
        ok_tool(NAMES[i], ToolBehavior(kind, text=f"{NAMES[i]} done", message=f"{NAMES[i]} failed"))
        for i, kind in enumerate(kinds)
    ]
    hooks = [
        HookSpec(event, "context", matcher=t.name, context=f"ctx-{t.name.lower()}-marker") for t in tools
    ]
    uses = [tool_use(f"toolu_{i:02d}", NAMES[i], {"n": i}) for i in range(len(tools))]
    with scenario_root() as root:
        run = execute(
            new_harness(), root, tools, uses, hooks=hooks, rules=allow_rules(tools, toolharness_capabilities)
        )
    for index, ok in enumerate(outcomes):
        marker = f"ctx-{NAMES[index].lower()}-marker"
        where = [
            i
            for i, b in enumerate(run.content)
            if marker in (text_of(b) if b.get("type") == "tool_result" else str(b.get("text", "")))
        ]
        should_run = ok == (event == "PostToolUse")
        state = "succeeded" if ok else "failed"
        if should_run:
            assert where, f"{NAMES[index]} {state}; its {event} hook's context {marker!r} is missing"
            result_at = next(
                i for i, b in enumerate(run.content) if b.get("tool_use_id") == f"toolu_{index:02d}"
            )
            assert min(where) >= result_at, f"{event} context for {NAMES[index]} comes before its tool_result"
        else:
            assert not where, (
                f"{NAMES[index]} {state}, yet its {event} hook ran (its context {marker!r} was added)"
            )


@requires("execution", "hooks")
@pytest.mark.requirement("EXEC-5", "MUST")
@settings(max_examples=10, deadline=None)
@given(reason=st.from_regex(r"blocked-[a-z]{4,10}", fullmatch=True, alphabet=ths.utf8_characters()))
def test_post_hook_block_reaches_model(
    new_harness: Callable[[], Any], toolharness_capabilities: frozenset[str], reason: str
) -> None:
    """EXEC-5: a PostToolUse hook's block decision becomes something the model sees (its reason)."""
    tool = ok_tool("Alpha")
    hooks = [HookSpec("PostToolUse", "block", matcher="Alpha", reason=reason)]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [tool],
            [tool_use("toolu_a", "Alpha", {"n": 1})],
            hooks=hooks,
            rules=allow_rules([tool], toolharness_capabilities),
        )
    assert reason in all_text(run), (
        f"the PostToolUse block reason {reason!r} never reaches the model: {run.content}"
    )


@requires("execution", "permissions", "hooks")
@pytest.mark.requirement("EXEC-5", "MUST")
@settings(max_examples=10, deadline=None)
@given(
    replacement=st.from_regex(r"replaced-[a-z]{4,10}", fullmatch=True, alphabet=ths.utf8_characters()),
    shape=st.sampled_from(["text", "blocks", "object", "number"]),
)
def test_post_hook_output_update_replaces_mcp_output(
    new_harness: Callable[[], Any], replacement: str, shape: str
) -> None:
    """EXEC-5: a PostToolUse hook's updatedMCPToolOutput replaces an MCP tool's output before the model sees it.

    The replacement is drawn in each shape an MCP output takes: a string, a list of content blocks
    (two text blocks: both reach the model), a structured object, and a bare number.
    """
    tool = ToolSpec(
        name="mcp__notes__lookup",
        mcp_server="notes",
        mcp_tool="lookup",
        input_schema={"type": "object", "properties": {}},
        behavior=ToolBehavior("text", text="original-output"),
    )
    updated: Any = {
        "text": replacement,
        "blocks": [{"type": "text", "text": replacement}, {"type": "text", "text": f"{replacement}-more"}],
        "object": {"answer": replacement},
        "number": 7_000_000 + len(replacement),
    }[shape]
    hooks = [HookSpec("PostToolUse", "update_output", matcher="mcp__notes__lookup", updated_output=updated)]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [tool],
            [tool_use("toolu_m", "mcp__notes__lookup", {})],
            hooks=hooks,
            rules=[RuleSpec("mcp__notes__lookup", "allow")],
        )
    assert run.recorder.started() == ["toolu_m"], "the MCP tool did not run"
    text = text_of(run.results_by_id()["toolu_m"])
    wanted = {"blocks": [replacement, f"{replacement}-more"], "number": [str(updated)]}.get(
        shape, [replacement]
    )
    if shape == "object":  # a structured output reaches the model as JSON, not as a language's repr
        wanted = [f'"answer": "{replacement}"', *wanted]
    lost = [w for w in wanted if w not in text.replace('":"', '": "')]
    assert not lost, f"the tool_result does not carry the hook's {shape} replacement {updated!r}: {text!r}"
    assert "original-output" not in text, (
        f"the original output was sent despite the hook's replacement: {text!r}"
    )
