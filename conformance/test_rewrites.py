"""EXEC-2 composed: every source of a rewritten input x every check the rewrite must go through.

A rewrite comes from a PreToolUse hook's ``updatedInput``, a PermissionRequest hook's approval with
``updatedInput`` (a callback or a command hook), or the host's answer to an ask. Whatever its source,
the rewrite is checked like the model's own input: the schema, the tool's own validation, and the
permission rules (a deny rule matching any part of a compound command). Rewrites also come in
chains: several PreToolUse hooks rewriting, then a PermissionRequest hook's or the host's; whichever
is final, it is the one judged and the one run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import execute, is_error, scenario_root, tool_use
from conformance._strategies_permissions import shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HookOutcomeKind, HookSpec, HostAnswer, HostSpec, RuleSpec

WORDS = st.from_regex(r"[a-z]{1,8}", fullmatch=True, alphabet=ths.utf8_characters())
# Joins of two commands in one line: each part is judged on its own.
JOINS = st.sampled_from([" && ", "; ", " || ", " | ", "\n"])
ECHO = WORDS.map(lambda w: f"echo {w}")
RM = WORDS.map(lambda w: f"rm -rf {w}")
# The same deny, spelled as the rules allow it.
RM_DENY_RULES = st.sampled_from(["Bash(rm:*)", "Bash(rm *)", "Bash(rm -rf:*)"])


def _run_shell_call(
    harness: Any, original: str, hooks: list[HookSpec], rules: list[RuleSpec], host: HostSpec
) -> tuple[Any, list[dict[str, Any]]]:
    """One Bash call of ``original`` (a tool that rejects ``forbidden``): the run, and the inputs it ran with."""
    with scenario_root() as root:
        run = execute(
            harness,
            root,
            [shell_tool(rejects_when="forbidden")],
            [tool_use("toolu_sh", "Bash", {"command": original})],
            hooks=hooks,
            rules=rules,
            host=host,
        )
    return run, [dict(i) for i in run.recorder.inputs("toolu_sh")]


def _joined(parts: list[str], join: str) -> str:
    return join.join(parts)


# (the rewritten input, what must come of it: "runs" / "denied" / "invalid").
REWRITES = st.one_of(
    ECHO.map(lambda c: ({"command": c}, "runs")),
    st.builds(lambda a, b, j: ({"command": _joined([a, b], j)}, "runs"), ECHO, ECHO, JOINS),
    RM.map(lambda c: ({"command": c}, "denied")),
    # The denied part behind an allowed one, or before it: the same program as the original first.
    st.builds(
        lambda a, b, j, first: ({"command": _joined([a, b] if first else [b, a], j)}, "denied"),
        ECHO,
        RM,
        JOINS,
        st.booleans(),
    ),
    st.sampled_from([{"command": 5}, {"command": ["echo"]}, {}]).map(lambda bad: (bad, "invalid")),
    ECHO.map(lambda c: ({"command": c, "forbidden": True}, "invalid")),
)
SOURCES = ("PreToolUse", "PermissionRequest", "host")


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("EXEC-2", "MUST")
@pytest.mark.parametrize("source", SOURCES)
@settings(max_examples=20, deadline=None)
@given(original=ECHO, rewrite=REWRITES, deny_rule=RM_DENY_RULES, as_command=st.booleans())
@example(
    original="echo a", rewrite=({"command": "rm -rf b"}, "denied"), deny_rule="Bash(rm:*)", as_command=False
)
@example(
    original="echo a",
    rewrite=({"command": "echo a && rm -rf b"}, "denied"),
    deny_rule="Bash(rm:*)",
    as_command=True,
)
def test_every_rewrite_goes_through_every_check(
    new_harness: Callable[[], Any],
    source: str,
    original: str,
    rewrite: tuple[dict[str, Any], str],
    deny_rule: str,
    as_command: bool,
) -> None:
    """EXEC-2: a rewritten input from any source (PreToolUse hook, PermissionRequest hook, host) is schema-checked, validated by the tool and judged by the rules again.

    Property: a rewrite that breaks the schema or the tool's validation, or that a deny rule matches
    (alone or as one part of a compound command, in any rule spelling), never runs and gets an error
    result; any other rewrite runs exactly once with exactly the rewritten input.
    """
    updated, expected = rewrite
    # The original is allowed outright for a PreToolUse rewrite, and asked about otherwise (so that a
    # PermissionRequest hook or the host answers).
    rules = [
        RuleSpec(deny_rule, "deny"),
        RuleSpec(
            "Bash(echo:*)" if source == "PreToolUse" else "Bash", "allow" if source == "PreToolUse" else "ask"
        ),
    ]
    hooks: list[HookSpec] = []
    host = HostSpec()
    if source == "host":
        host = HostSpec(lambda _name, _input: HostAnswer("allow", updated_input=updated))
    else:
        hook = HookSpec(
            "PreToolUse", "update_input", matcher="Bash", updated_input=updated, as_command=as_command
        )
        if source == "PermissionRequest":
            hook = dataclasses.replace(hook, event="PermissionRequest", outcome="allow")
        hooks = [dataclasses.replace(hook, timeout=10.0)]
    run, inputs = _run_shell_call(new_harness(), original, hooks, rules, host)
    why = f"{source} rewrote {original!r} to {updated!r} (deny rule {deny_rule})"
    if expected == "runs":
        assert inputs == [updated], f"{why}: must run once with exactly the rewrite, ran with {inputs}"
        return
    assert inputs == [], f"{why}: the rewrite is {expected}, yet the call ran with {inputs}"
    assert is_error(run.results_by_id()["toolu_sh"]), f"{why}: no error result"


# A PreToolUse hook that rewrites nothing beside the rewriting ones: it allows, says nothing, or adds
# a context (none of them restricts the call, so the rewrites decide what runs).
QUIET: tuple[HookOutcomeKind, ...] = ("allow", "none", "context")
LATER = ("nothing", "PermissionRequest", "host")


@st.composite
def rewrite_chains(
    draw: st.DrawFn,
) -> tuple[list[HookSpec], list[tuple[dict[str, Any], str]], str, list[tuple[dict[str, Any], str]]]:
    """PreToolUse hooks, some rewriting, then maybe a PermissionRequest hook's or the host's rewrite.

    The PreToolUse stack is 1-4 hooks, each a rewrite drawn from :data:`REWRITES` (3 in 4) or a quiet answer,
    as a callback or a command; the later stage is nothing, 1-2 PermissionRequest hooks approving
    (each with a drawn rewrite or none), or the host approving with a drawn rewrite or none. Returns
    the hooks, the PreToolUse rewrites in declaration order, the later stage, and its rewrites.
    """
    hooks: list[HookSpec] = []
    pre_rewrites: list[tuple[dict[str, Any], str]] = []
    for i in range(draw(st.integers(1, 4))):
        as_command = draw(st.integers(0, 3)) == 0
        if draw(st.integers(0, 3)) > 0:
            rewrite = draw(REWRITES)
            pre_rewrites.append(rewrite)
            hooks.append(
                HookSpec(
                    "PreToolUse", "update_input", matcher="Bash", updated_input=rewrite[0],
                    reason=f"rewrite {i}", as_command=as_command, timeout=10.0,
                )
            )  # fmt: skip
        else:
            quiet = draw(st.sampled_from(QUIET))
            hooks.append(HookSpec("PreToolUse", quiet, matcher="Bash", as_command=as_command, timeout=10.0))
    later = draw(st.sampled_from(LATER))
    later_rewrites: list[tuple[dict[str, Any], str]] = []
    if later == "PermissionRequest":
        for _ in range(draw(st.integers(1, 2))):
            rewrite = draw(st.none() | REWRITES)
            if rewrite is not None:
                later_rewrites.append(rewrite)
            hooks.append(
                HookSpec(
                    "PermissionRequest", "allow", matcher="Bash", as_command=draw(st.integers(0, 3)) == 0,
                    updated_input=None if rewrite is None else rewrite[0], timeout=10.0,
                )
            )  # fmt: skip
    elif later == "host":
        rewrite = draw(st.none() | REWRITES)
        later_rewrites = [] if rewrite is None else [rewrite]
    return hooks, pre_rewrites, later, later_rewrites


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("EXEC-2", "MUST")
@settings(max_examples=30, deadline=None)
@given(original=ECHO, chain=rewrite_chains(), deny_rule=RM_DENY_RULES, asks=st.booleans())
@example(
    original="echo a",
    chain=(
        [
            HookSpec("PreToolUse", "update_input", matcher="Bash", updated_input={"command": "echo b"}),
            HookSpec("PreToolUse", "update_input", matcher="Bash", updated_input={"command": "rm -rf c"}),
        ],
        [({"command": "echo b"}, "runs"), ({"command": "rm -rf c"}, "denied")],
        "nothing",
        [],
    ),
    deny_rule="Bash(rm:*)",
    asks=False,
)
@example(
    original="echo a",
    chain=(
        [
            HookSpec("PreToolUse", "update_input", matcher="Bash", updated_input={"command": "echo b"}),
            HookSpec(
                "PermissionRequest", "allow", matcher="Bash", updated_input={"command": "echo c && rm -rf d"}
            ),
        ],
        [({"command": "echo b"}, "runs")],
        "PermissionRequest",
        [({"command": "echo c && rm -rf d"}, "denied")],
    ),
    deny_rule="Bash(rm *)",
    asks=True,
)
@example(
    original="echo a",
    chain=(
        [HookSpec("PreToolUse", "update_input", matcher="Bash", updated_input={"command": "echo b"})],
        [({"command": "echo b"}, "runs")],
        "host",
        [({"command": "echo c"}, "runs")],
    ),
    deny_rule="Bash(rm:*)",
    asks=True,
)
def test_the_final_rewrite_is_the_one_judged_and_run(
    new_harness: Callable[[], Any],
    original: str,
    chain: tuple[list[HookSpec], list[tuple[dict[str, Any], str]], str, list[tuple[dict[str, Any], str]]],
    deny_rule: str,
    asks: bool,
) -> None:
    """EXEC-2 across a chain of rewrites: several PreToolUse hooks, then a PermissionRequest hook's or the host's.

    Property: whichever rewrite a harness takes as final (hooks run concurrently, so which of several
    PreToolUse rewrites wins is the harness's to choose), the permission decision and the call see
    that same input, validated again. The call runs at most once, and only with a rewrite of the
    last stage that rewrote (the PreToolUse hooks', or, when the call was asked about, the
    PermissionRequest hooks' or the host's) that no deny rule matches and that is valid; when every
    candidate on the way is such a rewrite it does run, when every final candidate is denied or
    invalid it never does. The host is asked (when asked at all) about a valid, allowed PreToolUse
    input, and an approval without a rewrite runs exactly the input the host was asked about. A
    PermissionRequest hook's or host's rewrite of a call nobody had to be asked about changes nothing.
    """
    hooks, pre_rewrites, later, later_rewrites = chain
    rules = [
        RuleSpec(deny_rule, "deny"),
        RuleSpec("Bash" if asks else "Bash(echo:*)", "ask" if asks else "allow"),
    ]
    host = HostSpec()
    if later == "host" and later_rewrites:
        host = HostSpec(lambda _name, _input: HostAnswer("allow", updated_input=later_rewrites[0][0]))
    run, inputs = _run_shell_call(new_harness(), original, hooks, rules, host)
    pre = pre_rewrites or [({"command": original}, "runs")]
    later_applies = asks and bool(later_rewrites)
    final = later_rewrites if later_applies else pre
    why = (
        f"original {original!r}; PreToolUse rewrites {[r for r, _ in pre_rewrites]}; then {later} "
        f"rewrites {[r for r, _ in later_rewrites]} ({'asked' if asks else 'allowed'} by rule; deny {deny_rule})"
    )
    assert len(inputs) <= 1, f"{why}: the call ran {len(inputs)} times: {inputs}"
    allowed_final = [r for r, kind in final if kind == "runs"]
    if inputs:
        assert inputs[0] in allowed_final, (
            f"{why}: ran with {inputs[0]}, which is not a valid, allowed rewrite of the last stage "
            f"(those are {allowed_final})"
        )
    else:
        assert is_error(run.results_by_id()["toolu_sh"]), f"{why}: the call did not run, yet no error result"
    must_run = all(kind == "runs" for _, kind in pre) and (
        not later_applies or all(kind == "runs" for _, kind in later_rewrites)
    )
    assert inputs or not must_run, f"{why}: every rewrite on the way is valid and allowed, yet nothing ran"
    assert not (inputs and not allowed_final), f"{why}: no final candidate may run, yet it ran with {inputs}"
    asked = [dict(i) for _, i in host.asked]
    if not asks or later == "PermissionRequest":
        return
    assert len(asked) <= 1, f"{why}: the host was asked {len(asked)} times: {asked}"
    allowed_pre = [r for r, kind in pre if kind == "runs"]
    if asked:
        assert asked[0] in allowed_pre, (
            f"{why}: the host was asked about {asked[0]}, not a valid, allowed PreToolUse input {allowed_pre}"
        )
        if inputs and not later_rewrites:
            assert inputs == asked, f"{why}: the host approved {asked[0]}, but the call ran with {inputs[0]}"
    elif inputs:
        raise AssertionError(
            f"{why}: the call is asked about by rule, yet it ran ({inputs}) without the host"
        )
