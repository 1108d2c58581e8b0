"""Decisions at the engine's edges: PERM-14, PERM-6, PERM-15, PERM-5, HOOK-3.

Broken tool checks (PERM-14), read-only targets that are not paths (PERM-6), shell start-up files
and ordinary redirections (PERM-15, PERM-5), and a hook's ask beside an allow rule (HOOK-3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import (
    assert_runs_unasked,
    edit_tool,
    fetch_tool,
    host_answering,
    plain_tool,
    read_tool,
    run_calls,
    shell_tool,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HookSpec, RuleSpec, ToolSpec


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-14", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    broken=st.sampled_from(["raises", "invalid"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions", "dontAsk"]),
    allow_rule=st.booleans(),
    headless=st.booleans(),
)
def test_a_broken_tool_check_never_allows(
    new_harness: Callable[[], Any], broken: str, mode: str, allow_rule: bool, headless: bool
) -> None:
    """PERM-14: a tool whose own permission check raises or answers garbage is decided deny or ask.

    Never allowed unasked, in any mode (bypassPermissions included) and with an allow rule for the
    tool: the call runs only if the host was asked and allowed it.
    """
    tool = plain_tool("Deploy", content_check=broken)
    rules = [RuleSpec("Deploy", "allow")] if allow_rule else []
    host = None if headless else host_answering("allow")
    run = run_calls(new_harness(), [tool], [("Deploy", {"x": "prod"})], rules=rules, mode=mode, host=host)
    why = f"{broken} check in {mode}, allow rule {allow_rule}, headless {headless}: {run.describe()}"
    assert run.tool_result()  # answered
    if run.ran():
        assert run.asked, f"ran without asking: {why}"
    if headless or mode == "dontAsk":
        assert run.ran() == 0, f"nobody may allow it: {why}"


READ_ONLY_TARGETS = {
    # A read-only tool whose target is a URL or something else than a path: never "a read inside
    # the working directory", so with no rule it is asked (PERM-6).
    "web_fetch": (fetch_tool(), {"url": "https://example.com/notes.txt"}),
    "other": (
        replace(read_tool("Lookup"), permission_kind="other"),
        {"file_path": "notes.txt"},
    ),
    # Its read-only predicate raises: treated as not read-only (CONC-3), so not allowed as a read.
    "predicate_raises": (read_tool(classification_raises=True), {"file_path": "notes.txt"}),
}


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-6", "MUST")
@settings(max_examples=12, deadline=None)
@given(case=st.sampled_from(sorted(READ_ONLY_TARGETS)))
def test_only_a_read_only_path_read_inside_runs_unasked(new_harness: Callable[[], Any], case: str) -> None:
    """PERM-6: with no rule, a read-only call that is not a path read inside the working directory asks.

    A URL, another kind of target, or a read-only predicate that fails.
    """
    tool, tool_input = READ_ONLY_TARGETS[case]
    run = run_calls(new_harness(), [tool], [(tool.name, tool_input)], host=host_answering("allow"))
    assert (run.ran(), len(run.asked)) == (1, 1), f"{case}: must be asked: {run.describe()}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-5", "MUST")
@settings(max_examples=8, deadline=None)
@given(
    command=st.sampled_from(
        ["echo hi > out.txt", "echo hi >> logs/run.log", "printf x > ./a.txt", "echo a 2> err.txt"]
    )
)
def test_bypass_runs_a_redirection_to_an_ordinary_file(new_harness: Callable[[], Any], command: str) -> None:
    """PERM-5 (control for PERM-15): bypassPermissions runs a command that writes an ordinary file unasked."""
    assert_runs_unasked(
        new_harness,
        shell_tool(),
        ("Bash", {"command": command}),
        "bypassPermissions",
        f"{command!r} must run unasked",
    )


@requires("execution", "permissions", "hooks", "command_hooks", "host_callback")
@pytest.mark.requirement("HOOK-3", "MUST")
@settings(max_examples=6, deadline=None)
@given(tool_kind=st.sampled_from(["plain", "shell"]), host_allows=st.booleans())
def test_a_command_hooks_ask_asks_beside_an_allow_rule(
    new_harness: Callable[[], Any], tool_kind: str, host_allows: bool
) -> None:
    """HOOK-3: a command hook's JSON ``permissionDecision: "ask"`` asks even beside an allow rule.

    The host is asked though an allow rule covers the call, and its answer decides.
    """
    tool: ToolSpec
    if tool_kind == "plain":
        tool, call, rule = plain_tool("Deploy"), ("Deploy", {"x": "prod"}), "Deploy"
    else:
        tool, call, rule = shell_tool(), ("Bash", {"command": "git status"}), "Bash(git status)"
    hook = HookSpec(event="PreToolUse", outcome="ask", as_command=True)
    host = host_answering("allow" if host_allows else "deny")
    run = run_calls(new_harness(), [tool], [call], rules=[RuleSpec(rule, "allow")], hooks=[hook], host=host)
    assert len(run.asked) == 1, f"the hook's ask must reach the host: {run.describe()}"
    assert run.ran() == int(host_allows), f"the host's answer decides: {run.describe()}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-5", "MUST")
@settings(max_examples=4, deadline=None)
@given(content_check=st.sampled_from(["ask", "passthrough"]))
def test_bypass_runs_what_only_the_tool_itself_asks_about(
    new_harness: Callable[[], Any], content_check: str
) -> None:
    """PERM-5 (control): bypassPermissions runs a call whose tool asks (or has no opinion) without a safety check.

    Only deny rules, content-level ask rules, safety checks and interactive tools hold it back.
    """
    tool = plain_tool("Deploy", content_check=content_check)
    run = run_calls(
        new_harness(),
        [tool],
        [("Deploy", {"x": "prod"})],
        mode="bypassPermissions",
        host=host_answering("deny"),
    )
    assert (run.ran(), run.asked) == (1, []), f"{content_check} check in bypass: {run.describe()}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-9", "SHOULD")
@settings(max_examples=4, deadline=None)
@given(path=st.sampled_from(["", "   ", "\t"]))
def test_accept_edits_asks_about_an_edit_that_names_no_file(
    new_harness: Callable[[], Any], path: str
) -> None:
    """PERM-9: an edit whose path is empty or blank names no file inside the working directory: acceptEdits asks."""
    run = run_calls(
        new_harness(),
        [edit_tool()],
        [("Edit", {"file_path": path})],
        mode="acceptEdits",
        host=host_answering("deny"),
    )
    assert (run.ran(), len(run.asked)) == (0, 1), f"acceptEdits edit of {path!r} must ask: {run.describe()}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-14", "MUST")
@settings(max_examples=4, deadline=None)
@given(path=st.sampled_from(["notes\x00.txt", "src/\x00", "\x00"]))
def test_a_read_of_a_path_that_cannot_be_resolved_asks(new_harness: Callable[[], Any], path: str) -> None:
    """PERM-14: a read whose path can't be resolved (a NUL byte) is never taken as a read inside the working directory.

    Decided deny or ask: it runs only when the host was asked.
    """
    run = run_calls(
        new_harness(), [read_tool()], [("Read", {"file_path": path})], host=host_answering("allow")
    )
    assert run.tool_result()  # answered
    if run.ran():
        assert run.asked, f"a read of {path!r} ran unasked: {run.describe()}"


# A near miss for a pattern of many wildcards: its pieces repeated, the last one never there. A
# backtracking matcher (``a.*a.*a.*b``) tries every way of placing the pieces before it gives up:
# time polynomial in the text, of degree the number of wildcards (hours here); a linear one answers
# at once. The rule is a deny rule, which every harness must try against the whole command.
_PIECES = ("a", "ab", "-x", "a b", "/", "x=", "--")


@st.composite
def _near_misses(draw: st.DrawFn) -> tuple[str, str]:
    """(a ``Bash(...)`` deny pattern with 5-9 wildcards, a command of ~3,000-6,000 characters it nearly matches)."""
    pieces = draw(st.lists(st.sampled_from(_PIECES), min_size=5, max_size=9))
    repeats = draw(st.integers(min_value=600 // len(pieces), max_value=1_200 // len(pieces)))
    pattern = "echo *" + "*".join(pieces) + "*zq"
    body = " ".join(pieces) * repeats
    return pattern, f"echo {body}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-14", "MUST")
@settings(max_examples=6, deadline=None)
@given(rule_and_command=_near_misses(), mode=st.sampled_from(["default", "bypassPermissions"]))
def test_a_near_miss_of_a_wildcard_rule_is_decided(
    new_harness: Callable[[], Any], rule_and_command: tuple[str, str], mode: str
) -> None:
    """PERM-14: a command that nearly matches a deny rule of many wildcards is decided, and runs (the rule does not match).

    A matcher that backtracks never answers (the test's budget reports it hung): a model's command
    could hold the harness there.
    """
    pattern, command = rule_and_command
    rules = [RuleSpec(f"Bash({pattern})", "deny"), RuleSpec("Bash", "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": command})], rules=rules, mode=mode)
    assert run.tool_result(), run.describe()
    assert run.ran() == 1, (
        f"Bash({pattern}) does not match {command[:80]!r}..., yet it did not run: {run.describe()}"
    )


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-14", "MUST")
@settings(max_examples=6, deadline=None)
@given(
    segment=st.sampled_from(["a", "ab", "a.b", "x-y"]),
    stars=st.integers(min_value=4, max_value=7),
    depth=st.integers(min_value=400, max_value=900),
)
def test_a_near_miss_of_a_path_glob_is_decided(
    new_harness: Callable[[], Any], segment: str, stars: int, depth: int
) -> None:
    """PERM-14: a path many segments deep that nearly matches a ``**`` deny glob is decided.

    ``Read(**/a/**/a/**/a/**/zq)`` against ``a/a/a/.../c``: a backtracking glob match never answers.
    """
    glob = "/".join(["**", *([segment, "**"] * stars)]) + "/zq"
    path = "/".join([segment] * depth + ["c"])
    run = run_calls(
        new_harness(),
        [read_tool()],
        [("Read", {"file_path": path})],
        rules=[RuleSpec(f"Read({glob})", "deny")],
        host=host_answering("allow"),
    )
    assert run.tool_result(), run.describe()
