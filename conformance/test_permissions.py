"""Permission decisions through ``execute``: PERM-1..9.

Every property is observed from outside the harness: whether the tool's call started (the
scenario's CallRecorder), whether the host was asked (HostSpec.asked), the tool_result, and the
recorded decisions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import (
    BASH_CALL,
    COMMAND,
    MODES,
    Run,
    edit_tool,
    host_answering,
    plain_tool,
    pre_hook,
    read_tool,
    run_calls,
    shell_tool,
    sources,
    tools,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HookSpec, HostSpec, RuleSpec, ToolSpec
from pytest_toolharness.strategies import cached_strategy

# One shell call and one plain call, and rule texts whose verdict on each call is certain.
DEPLOY_CALL = ("Deploy", {"x": "prod"})
MATCHING: dict[str, tuple[str, ...]] = {
    "Bash": (
        "Bash",
        "Bash(*)",
        "Bash(git push:*)",
        "Bash(git push *)",
        "Bash(git *)",
        f"Bash({COMMAND})",
    ),
    "Deploy": ("Deploy", "Deploy(*)"),
}
NOT_MATCHING: dict[str, tuple[str, ...]] = {
    "Bash": ("Bash(npm test:*)", "Bash(git pull:*)", "Bash(git push origin dev)", "Deploy", "Read(./x)"),
    "Deploy": ("Bash", "Bash(git push:*)", "Other", "Read(./x)"),
}
CALLS = {"Bash": BASH_CALL, "Deploy": DEPLOY_CALL}
HOOK_DECISIONS = ("allow", "ask", "deny", "none")


@cached_strategy
def rule_specs(texts: tuple[str, ...], behaviors: tuple[str, ...]) -> st.SearchStrategy[RuleSpec]:
    return st.builds(
        RuleSpec, text=st.sampled_from(texts), behavior=st.sampled_from(behaviors), source=sources()
    )


@cached_strategy
def any_rules(target: str) -> st.SearchStrategy[list[RuleSpec]]:
    return st.lists(rule_specs(MATCHING[target] + NOT_MATCHING[target], ("allow", "ask", "deny")), max_size=5)


def hosts() -> st.SearchStrategy[HostSpec | None]:
    return st.sampled_from([host_answering("allow"), host_answering("deny"), None]).map(
        lambda h: host_answering(h.answer("", {}).behavior) if h is not None else None
    )


def assert_not_run_not_asked(run: Run, why: str) -> None:
    assert run.ran() == 0, f"{why}: the tool ran anyway; {run.describe()}"
    assert run.asked == [], f"{why}: the host was asked although the call is denied; {run.describe()}"
    assert run.is_error(), f"{why}: the tool_result is not an error; {run.describe()}"


def assert_asked_then_host_decides(run: Run, why: str, host: HostSpec | None) -> None:
    if host is None:
        assert run.ran() == 0, f"{why}: headless, nobody could approve, yet the tool ran; {run.describe()}"
        return
    assert len(run.asked) == 1, f"{why}: expected the host to be asked once, it was asked {run.asked}"
    host_allows = host.answer("", {}).behavior == "allow"
    expected = 1 if host_allows else 0
    assert run.ran() == expected, (
        f"{why}: the host answered {'allow' if host_allows else 'deny'}, expected {expected} run(s); "
        f"{run.describe()}"
    )


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PERM-1", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    target=st.sampled_from(["Bash", "Deploy"]),
    data=st.data(),
    mode=st.sampled_from(MODES),
    hook=st.sampled_from((*HOOK_DECISIONS, None)),
    request_hook=st.booleans(),
    host=hosts(),
)
def test_deny_rule_beats_everything(
    new_harness: Callable[[], Any],
    target: str,
    data: st.DataObject,
    mode: str,
    hook: str | None,
    request_hook: bool,
    host: HostSpec | None,
) -> None:
    """PERM-1: a matching deny rule (any source) denies whatever the allow rules, hooks, mode and host say; the host is never asked."""
    deny = data.draw(rule_specs(MATCHING[target], ("deny",)), label="deny")
    others = data.draw(any_rules(target), label="others")
    rules = data.draw(st.permutations([deny, *others]), label="rules")
    hooks = [pre_hook(hook)] if hook else []
    if request_hook:
        hooks.append(HookSpec(event="PermissionRequest", outcome="allow"))
    run = run_calls(new_harness(), tools(), [CALLS[target]], rules=rules, mode=mode, hooks=hooks, host=host)
    assert_not_run_not_asked(run, f"deny rule {deny.text!r} ({deny.source}) in mode {mode}, hook {hook}")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-1", "MUST")
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=6, deadline=None)
@given(
    deny=rule_specs(("Bash(git push:*)", "Bash(git push *)", "Bash(git *)", f"Bash({COMMAND})"), ("deny",)),
    allow=rule_specs(MATCHING["Bash"], ("allow",)),
)
def test_content_deny_rule_beats_allow_rule_in_every_mode(
    new_harness: Callable[[], Any], mode: str, deny: RuleSpec, allow: RuleSpec
) -> None:
    """PERM-1: in every permission mode, a matching content-level deny rule beats a matching allow rule; the host is never asked.

    Content-level denies keep the tool in the pool (only whole-tool denies remove it), so this is
    the permission engine's own deny, checked mode by mode.
    """
    run = run_calls(
        new_harness(), tools(), [BASH_CALL], rules=[allow, deny], mode=mode, host=host_answering("allow")
    )
    assert_not_run_not_asked(
        run,
        f"deny rule {deny.text!r} ({deny.source}) beside allow {allow.text!r} ({allow.source}) in mode {mode}",
    )


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PERM-2", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    target=st.sampled_from(["Bash", "Deploy"]),
    data=st.data(),
    behavior=st.sampled_from(["deny", "ask"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
    host_allows=st.booleans(),
)
def test_hook_allow_bypasses_no_deny_or_ask_rule(
    new_harness: Callable[[], Any],
    target: str,
    data: st.DataObject,
    behavior: str,
    mode: str,
    host_allows: bool,
) -> None:
    """PERM-2: a PreToolUse hook's allow does not bypass a matching deny rule (denied, host not asked) nor a matching ask rule (the host is still asked)."""
    rule = data.draw(rule_specs(MATCHING[target], (behavior,)), label="rule")
    allows = data.draw(st.lists(rule_specs(MATCHING[target], ("allow",)), max_size=2), label="allows")
    host = host_answering("allow" if host_allows else "deny")
    run = run_calls(
        new_harness(),
        tools(),
        [CALLS[target]],
        rules=[rule, *allows],
        mode=mode,
        hooks=[pre_hook("allow")],
        host=host,
    )
    why = f"hook allow with {behavior} rule {rule.text!r} in mode {mode}"
    if behavior == "deny":
        assert_not_run_not_asked(run, why)
    else:
        assert_asked_then_host_decides(run, why, host)


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PERM-3", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    target=st.sampled_from(["Bash", "Deploy"]),
    data=st.data(),
    mode=st.sampled_from(MODES),
    host=hosts(),
    extra_hooks=st.lists(st.sampled_from(["allow", "ask", "none"]), max_size=2),
)
def test_hook_deny_denies_whatever_rules_and_mode(
    new_harness: Callable[[], Any],
    target: str,
    data: st.DataObject,
    mode: str,
    host: HostSpec | None,
    extra_hooks: list[str],
) -> None:
    """PERM-3: a PreToolUse hook's deny denies whatever the allow rules and the mode say; the host is not asked."""
    allows = data.draw(st.lists(rule_specs(MATCHING[target], ("allow",)), max_size=3), label="allows")
    hooks = data.draw(st.permutations([pre_hook("deny"), *(pre_hook(o) for o in extra_hooks)]), label="hooks")
    hooks.append(HookSpec(event="PermissionRequest", outcome="allow"))
    run = run_calls(new_harness(), tools(), [CALLS[target]], rules=allows, mode=mode, hooks=hooks, host=host)
    assert_not_run_not_asked(run, f"hook deny with allow rules {[r.text for r in allows]} in mode {mode}")


@requires("execution", "permissions", "hooks", "command_hooks")
@pytest.mark.requirement("PERM-3", "MUST")
@settings(max_examples=3, deadline=None)
@given(mode=st.sampled_from(["bypassPermissions", "default", "acceptEdits"]), source=sources())
def test_exit2_block_denies_whatever_rules_and_mode(
    new_harness: Callable[[], Any], mode: str, source: str
) -> None:
    """PERM-3: a command hook's exit-2 block denies even a call that an allow rule and the mode allow."""
    hook = HookSpec(event="PreToolUse", outcome="exit2", as_command=True, reason="blocked by policy 42")
    rules = [RuleSpec("Bash", "allow", source)]
    host = host_answering("allow")
    run = run_calls(new_harness(), tools(), [BASH_CALL], rules=rules, mode=mode, hooks=[hook], host=host)
    assert_not_run_not_asked(run, f"exit-2 PreToolUse hook with allow rule Bash in mode {mode}")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-4", "MUST")
@settings(max_examples=30, deadline=None)
@given(target=st.sampled_from(["Bash", "Deploy"]), data=st.data(), host_allows=st.booleans())
def test_rules_resolve_deny_over_ask_over_allow_across_sources(
    new_harness: Callable[[], Any], target: str, data: st.DataObject, host_allows: bool
) -> None:
    """PERM-4: among rules from any mix of settings sources, a matching deny wins over ask, ask over allow; no source re-allows a deny."""
    rules = data.draw(any_rules(target), label="rules")
    host = host_answering("allow" if host_allows else "deny")
    run = run_calls(new_harness(), tools(), [CALLS[target]], rules=rules, host=host)
    matching = [r for r in rules if r.text in MATCHING[target]]
    verdicts = {r.behavior for r in matching}
    why = f"matching rules {[(r.text, r.behavior, r.source) for r in matching]}"
    if "deny" in verdicts:
        assert_not_run_not_asked(run, why)
    elif "ask" in verdicts or not verdicts:
        assert_asked_then_host_decides(run, why + " (expected an ask)", host)
    else:
        assert run.asked == [], f"{why}: an allow rule matched, yet the host was asked {run.asked}"
        assert run.ran() == 1, f"{why}: an allow rule matched, yet the tool did not run; {run.describe()}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-4", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    target=st.sampled_from(["Bash", "Deploy"]),
    data=st.data(),
    pair=st.sampled_from([("deny", "ask"), ("deny", "allow"), ("ask", "allow")]),
    stricter_first=st.booleans(),
    same_text=st.booleans(),
    host_allows=st.booleans(),
)
def test_stricter_rule_wins_whatever_the_sources(
    new_harness: Callable[[], Any],
    target: str,
    data: st.DataObject,
    pair: tuple[Literal["allow", "ask", "deny"], Literal["allow", "ask", "deny"]],
    stricter_first: bool,
    same_text: bool,
    host_allows: bool,
) -> None:
    """PERM-4: two matching rules from two different settings sources: the stricter behavior wins (deny > ask > allow), whichever source ranks higher.

    Half the time both rules have the very same text, so a harness that merges the sources' rules
    by text (keeping one behaviour per text) loses one of them.
    """
    source_a = data.draw(sources(), label="stricter source")
    source_b = data.draw(sources().filter(lambda s: s != source_a), label="laxer source")
    stricter = RuleSpec(data.draw(st.sampled_from(MATCHING[target]), label="stricter"), pair[0], source_a)
    laxer_text = stricter.text if same_text else data.draw(st.sampled_from(MATCHING[target]), label="laxer")
    laxer = RuleSpec(laxer_text, pair[1], source_b)
    rules = [stricter, laxer] if stricter_first else [laxer, stricter]
    host = host_answering("allow" if host_allows else "deny")
    run = run_calls(new_harness(), tools(), [CALLS[target]], rules=rules, host=host)
    why = f"{pair[0]} rule {stricter.text!r} ({source_a}) vs {pair[1]} rule {laxer.text!r} ({source_b})"
    if pair[0] == "deny":
        assert_not_run_not_asked(run, why)
    else:
        assert_asked_then_host_decides(run, why + " (expected an ask)", host)


SAFETY_CAUSES = ("deny_rule", "content_ask_rule", "whole_ask_rule", "safety_check", "interactive")


def bypass_case(cause: str) -> tuple[list[ToolSpec], tuple[str, dict[str, Any]], list[RuleSpec]]:
    if cause == "deny_rule":
        return tools(), BASH_CALL, [RuleSpec("Bash(git push:*)", "deny")]
    if cause == "content_ask_rule":
        return tools(), BASH_CALL, [RuleSpec("Bash(git push:*)", "ask")]
    if cause == "whole_ask_rule":
        return tools(), DEPLOY_CALL, [RuleSpec("Deploy", "ask")]
    if cause == "safety_check":
        return [plain_tool("Deploy", safety_check_when="x")], DEPLOY_CALL, []
    return [plain_tool("Deploy", requires_user_interaction=True)], DEPLOY_CALL, []


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-5", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    cause=st.sampled_from(SAFETY_CAUSES),
    source=sources(),
    host=hosts(),
    allow_too=st.booleans(),
)
def test_bypass_still_honours_denies_asks_safety_and_interaction(
    new_harness: Callable[[], Any], cause: str, source: str, host: HostSpec | None, allow_too: bool
) -> None:
    """PERM-5: in bypassPermissions a deny rule still denies; an ask rule, a safety check and a tool that requires user interaction still ask the host (headless: not run)."""
    tool_specs, call, rules = bypass_case(cause)
    rules = [RuleSpec(r.text, r.behavior, source) for r in rules]
    if allow_too:
        rules.append(RuleSpec(call[0], "allow", source))
    run = run_calls(new_harness(), tool_specs, [call], rules=rules, mode="bypassPermissions", host=host)
    why = f"bypassPermissions with {cause} ({[r.text for r in rules]})"
    if cause == "deny_rule":
        assert_not_run_not_asked(run, why)
    else:
        assert_asked_then_host_decides(run, why, host)


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PERM-6", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    read_only=st.booleans(),
    content_check=st.sampled_from(["passthrough", "ask"]),
    hook=st.sampled_from([None, "none", "context"]),
    others=st.lists(rule_specs(NOT_MATCHING["Deploy"], ("allow", "ask", "deny")), max_size=3),
    host=hosts(),
)
def test_undecided_becomes_ask(
    new_harness: Callable[[], Any],
    read_only: bool,
    content_check: str,
    hook: str | None,
    others: list[RuleSpec],
    host: HostSpec | None,
) -> None:
    """PERM-6: when no rule, hook or mode decides a call (the tool's check passes through or asks), the host is asked; it never runs unasked."""
    tool = plain_tool("Deploy", read_only=read_only, content_check=content_check)
    hooks = [pre_hook(hook)] if hook else []
    run = run_calls(new_harness(), [tool, shell_tool()], [DEPLOY_CALL], rules=others, hooks=hooks, host=host)
    assert_asked_then_host_decides(
        run, f"undecided call (read_only={read_only}, check={content_check}, hook={hook})", host
    )


# PreToolUse answers that leave a deferred call to the host: none of them denies.
BESIDE_DEFER = ("allow", "update_input", "legacy_approve", "defer", "ask", "none", "context")


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PERM-6", "MUST")
@pytest.mark.requirement("HOOK-2", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    target=st.sampled_from(["Bash", "Deploy"]),
    data=st.data(),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions", "dontAsk"]),
    beside=st.lists(st.sampled_from(BESIDE_DEFER), max_size=3),
    host_allows=st.booleans(),
)
def test_deferred_call_goes_to_the_host_whatever_allow_rules_and_mode(
    new_harness: Callable[[], Any],
    target: str,
    data: st.DataObject,
    mode: str,
    beside: list[str],
    host_allows: bool,
) -> None:
    """PERM-6, HOOK-2: a PreToolUse ``permissionDecision: "defer"`` is not an allow nor a silence: the host decides.

    Drawn among other hooks (allows, rewrites, legacy approves, asks, silent ones, in any order, as
    callbacks or commands), with allow rules that match the call from any source and in any mode: the
    call is put to the host, asked once, whose answer decides; no allow rule, hook allow or
    bypassPermissions runs it unasked. In dontAsk, where nothing may be asked, it is denied.
    """
    allows = data.draw(st.lists(rule_specs(MATCHING[target], ("allow",)), max_size=3), label="allows")
    stack = data.draw(st.permutations(["defer", *beside]), label="stack")
    # A rewrite the allow rules still match: the shell line as it is, another value for Deploy.
    rewrites = {"Bash": {"command": COMMAND}, "Deploy": {"x": "from-a-hook"}}
    hooks = [
        HookSpec(
            event="PreToolUse",
            outcome=outcome,  # type: ignore[arg-type]
            reason=f"hook {i} says {outcome}",
            updated_input=rewrites[target] if outcome == "update_input" else None,
            as_command=data.draw(st.booleans(), label=f"hook {i} as a command"),
            timeout=10.0,
        )
        for i, outcome in enumerate(stack)
    ]
    host = host_answering("allow" if host_allows else "deny")
    run = run_calls(new_harness(), tools(), [CALLS[target]], rules=allows, mode=mode, hooks=hooks, host=host)
    why = f"PreToolUse hooks {stack} with allow rules {[r.text for r in allows]} in mode {mode}"
    if mode == "dontAsk":
        assert_not_run_not_asked(run, f"{why}: a deferred call in dontAsk")
    else:
        assert_asked_then_host_decides(run, f"{why}: a deferred call", host)


DONT_ASK_CAUSES = ("nothing", "ask_rule", "hook_ask", "safety_check", "interactive", "tool_ask", "allowed")


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PERM-7", "MUST")
@settings(max_examples=20, deadline=None)
@given(cause=st.sampled_from(DONT_ASK_CAUSES), source=sources())
def test_dont_ask_turns_ask_into_deny(new_harness: Callable[[], Any], cause: str, source: str) -> None:
    """PERM-7: in dontAsk mode every call that would ask is denied without asking the host; a call an allow rule allows still runs."""
    tool = plain_tool(
        "Deploy",
        safety_check_when="x" if cause == "safety_check" else None,
        requires_user_interaction=cause == "interactive",
        content_check="ask" if cause == "tool_ask" else "passthrough",
    )
    rules = [RuleSpec("Deploy", "ask", source)] if cause == "ask_rule" else []
    if cause == "allowed":
        rules = [RuleSpec("Deploy", "allow", source)]
    hooks = [pre_hook("ask")] if cause == "hook_ask" else []
    host = host_answering("allow")
    run = run_calls(new_harness(), [tool], [DEPLOY_CALL], rules=rules, mode="dontAsk", hooks=hooks, host=host)
    if cause == "allowed":
        assert (run.ran(), run.asked) == (1, []), f"dontAsk with an allow rule must run: {run.describe()}"
    else:
        assert_not_run_not_asked(run, f"dontAsk with a call that would ask ({cause})")


@requires("execution", "permissions", "hooks")
@pytest.mark.requirement("PERM-8", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    cause=st.sampled_from(["nothing", "ask_rule", "hook_ask"]),
    request=st.sampled_from([None, "allow", "deny", "none", "allow_other_tool"]),
    matcher=st.sampled_from([None, "", "*", "Deploy", "Dep.*"]),
    mode=st.sampled_from(["default", "acceptEdits"]),
)
@example(cause="nothing", request="allow", matcher=None, mode="acceptEdits")
def test_headless_ask_is_decided_by_permission_request_hook_or_denied(
    new_harness: Callable[[], Any], cause: str, request: str | None, matcher: str | None, mode: str
) -> None:
    """PERM-8: with nobody to ask, a PermissionRequest hook's allow runs the call; otherwise (deny, no decision, no hook, hook for another tool) it is denied.

    In default mode and in acceptEdits, which asks about anything but an edit just the same.
    """
    rules = [RuleSpec("Deploy", "ask")] if cause == "ask_rule" else []
    hooks = [pre_hook("ask")] if cause == "hook_ask" else []
    if request == "allow_other_tool":
        hooks.append(HookSpec(event="PermissionRequest", outcome="allow", matcher="Bash"))
    elif request is not None:
        hooks.append(HookSpec(event="PermissionRequest", outcome=request, matcher=matcher))  # type: ignore[arg-type]
    tool_specs = [plain_tool("Deploy"), shell_tool()]
    run = run_calls(new_harness(), tool_specs, [DEPLOY_CALL], rules=rules, hooks=hooks, host=None, mode=mode)
    why = f"headless {cause} in {mode}, PermissionRequest hook {request} (matcher {matcher!r})"
    if request == "allow":
        assert run.ran() == 1, f"{why}: the hook allowed, yet the tool did not run; {run.describe()}"
        assert not run.is_error(), f"{why}: the allowed call's result is an error; {run.describe()}"
    else:
        assert run.ran() == 0, f"{why}: nobody allowed the call, yet it ran; {run.describe()}"
        assert run.is_error(), f"{why}: a denied call's result must be an error; {run.describe()}"


# What each PermissionRequest answer of a stack is: an allow (with or without updatedInput), a deny in
# JSON or by exit 2, or no decision (nothing, a non-blocking failure, output that is not JSON).
REQUEST_ANSWERS = ("allow", "allow_rewrite", "deny", "exit2", "none", "garbage", "exit1")
REQUEST_BLOCKS = frozenset({"deny", "exit2"})
REQUEST_ALLOWS = frozenset({"allow", "allow_rewrite"})


def request_hook(answer: str, i: int, matcher: str | None, as_command: bool) -> HookSpec:
    """The ``i``-th PermissionRequest hook of a stack, answering ``answer`` (one of :data:`REQUEST_ANSWERS`)."""
    return HookSpec(
        event="PermissionRequest",
        outcome="allow" if answer == "allow_rewrite" else answer,  # type: ignore[arg-type]
        matcher=matcher,
        reason=f"hook {i} refuses",
        updated_input={"x": f"from-hook-{i}"} if answer == "allow_rewrite" else None,
        as_command=as_command or answer in ("exit2", "exit1", "garbage"),
        timeout=10.0,
    )


@st.composite
def permission_request_stacks(draw: st.DrawFn) -> list[str]:
    """1-4 PermissionRequest answers in any order, each of :data:`REQUEST_ANSWERS`."""
    return draw(st.lists(st.sampled_from(REQUEST_ANSWERS), min_size=1, max_size=4))


@requires("execution", "permissions", "hooks", "command_hooks")
@pytest.mark.requirement("PERM-8", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    answers=permission_request_stacks(),
    data=st.data(),
    cause=st.sampled_from(["nothing", "ask_rule", "hook_ask"]),
    mode=st.sampled_from(["default", "acceptEdits"]),
)
@example(answers=["allow", "deny"], data=None, cause="nothing", mode="default")
@example(answers=["allow_rewrite", "exit2"], data=None, cause="ask_rule", mode="default")
@example(answers=["allow_rewrite", "none", "allow_rewrite"], data=None, cause="nothing", mode="default")
def test_headless_permission_request_stack_any_refusal_beats_every_allow(
    new_harness: Callable[[], Any], answers: list[str], data: Any, cause: str, mode: str
) -> None:
    """PERM-8: of several PermissionRequest hooks on a headless ask, any deny or exit 2 beats every allow, in any order.

    The call runs only when some hook allows and none refuses; hooks that say nothing or fail (exit 1,
    output that is not JSON) decide nothing, and with no allow at all nobody can approve: denied. An
    allow's ``updatedInput`` is the input that runs: the last one given among the allows (the
    reference's rule), the model's own input when no allow rewrites it.
    """
    matchers = (None, "", "*", "Deploy", "Dep.*")
    hooks = [
        request_hook(
            answer,
            i,
            data.draw(st.sampled_from(matchers)) if data is not None else None,
            data.draw(st.booleans()) if data is not None else False,
        )
        for i, answer in enumerate(answers)
    ]
    rules = [RuleSpec("Deploy", "ask")] if cause == "ask_rule" else []
    before = [pre_hook("ask")] if cause == "hook_ask" else []
    run = run_calls(
        new_harness(), [plain_tool("Deploy")], [DEPLOY_CALL], rules=rules, hooks=[*before, *hooks], mode=mode
    )
    why = f"headless {cause} in {mode}, PermissionRequest hooks {answers}"
    if REQUEST_BLOCKS & set(answers):
        assert run.ran() == 0, f"{why}: a hook refused, yet the call ran; {run.describe()}"
        assert run.is_error(), f"{why}: the refused call's result must be an error; {run.describe()}"
    elif REQUEST_ALLOWS & set(answers):
        assert run.ran() == 1, f"{why}: a hook allowed and none refused, yet it did not run; {run.describe()}"
        assert not run.is_error(), f"{why}: the allowed call's result is an error; {run.describe()}"
        rewrites = [h.updated_input for h in hooks if h.updated_input is not None]
        expected = dict(rewrites[-1]) if rewrites else DEPLOY_CALL[1]
        ran_with = [dict(i) for i in run.recorder.inputs("toolu_1")]
        assert ran_with == [expected], f"{why}: it ran with {ran_with}, not {expected}; {run.describe()}"
    else:
        assert run.ran() == 0, f"{why}: no hook allowed and nobody can be asked, yet it ran; {run.describe()}"
        assert run.is_error(), f"{why}: a denied call's result must be an error; {run.describe()}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-9", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(kind=st.sampled_from(["shell", "plain", "edit", "read"]), source=sources())
def test_plan_mode_denies_tools_that_are_not_read_only(
    new_harness: Callable[[], Any], kind: str, source: str
) -> None:
    """PERM-9: plan mode denies a tool that is not read-only without asking; a read-only tool an allow rule allows still runs."""
    tool, call = {
        "shell": (shell_tool(), BASH_CALL),
        "plain": (plain_tool("Deploy"), DEPLOY_CALL),
        "edit": (edit_tool(), ("Edit", {"file_path": "notes.txt"})),
        "read": (read_tool(), ("Read", {"file_path": "notes.txt"})),
    }[kind]
    rules = [RuleSpec(tool.name, "allow", source)] if kind == "read" else []
    host = host_answering("allow")
    run = run_calls(new_harness(), [tool], [call], rules=rules, mode="plan", host=host)
    if kind == "read":
        assert run.ran() == 1, f"plan mode must not stop an allowed read-only tool: {run.describe()}"
    else:
        assert_not_run_not_asked(run, f"plan mode with the non-read-only {kind} tool {tool.name}")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-9", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(
    where=st.sampled_from(["inside", "nested", "outside_abs", "outside_rel", "shell", "plain"]),
    name=st.sampled_from(["notes.txt", "src/app.py", "a/b/c.md"]),
)
def test_accept_edits_allows_only_edits_inside_the_working_directory(
    new_harness: Callable[[], Any], where: str, name: str
) -> None:
    """PERM-9: acceptEdits runs file edits inside the working directory without asking; edits outside it and other tools are still asked about."""
    path = {
        "inside": name,
        "nested": f"./{name}",
        "outside_abs": f"/definitely-outside-{name.replace('/', '-')}",
        "outside_rel": f"../../outside/{name}",
        "shell": name,
        "plain": name,
    }[where]
    tool, call = {
        "shell": (shell_tool(), ("Bash", {"command": f"touch {path}"})),
        "plain": (plain_tool("Deploy"), DEPLOY_CALL),
    }.get(where, (edit_tool(), ("Edit", {"file_path": path})))
    host = host_answering("deny")
    run = run_calls(new_harness(), [tool], [call], mode="acceptEdits", host=host)
    if where in ("inside", "nested"):
        assert (run.ran(), run.asked) == (1, []), f"acceptEdits edit of {path}: {run.describe()}"
    else:
        assert_asked_then_host_decides(run, f"acceptEdits with {where} call {call}", host)
