"""Rules in numbers: a verdict does not depend on how many other rules there are (PERM-1, PERM-4).

A harness may index its rules (by tool name, by the Read / Edit path families, by MCP server) once
there are many; the index must find every rule a scan would. The draws put the rules that apply
to the call among up to 30 rules for other tools, other paths and other servers, at any place,
in rule lists of every length around a small list's size (8), a fresh list per run (more lists than
a harness would cache), and the same tool called several times in one turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import (
    edit_tool,
    host_answering,
    mcp_tool_spec,
    plain_tool,
    read_tool,
    run_calls,
    shell_tool,
    sources,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec, ToolSpec
from pytest_toolharness.strategies import cached_strategy

# Each case: the tools, the call (name, input), the rule texts that apply to it, and whether the call
# runs unasked when no rule applies (a read-only read inside the working directory does).
CASES: dict[str, tuple[list[ToolSpec], tuple[str, dict[str, Any]], tuple[str, ...], bool]] = {
    "shell": (
        [shell_tool()],
        ("Bash", {"command": "git push origin main"}),
        ("Bash(git push:*)", "Bash", "Bash(git *)"),
        False,
    ),
    "plain": ([plain_tool("Deploy")], ("Deploy", {"x": "prod"}), ("Deploy", "Deploy(*)"), False),
    # Called by its alias: the rules name the tool.
    "alias": ([plain_tool("Deploy", aliases=("Ship",))], ("Ship", {"x": "prod"}), ("Deploy",), False),
    # A file tool of the Edit family whose own name no rule uses: Edit(...) rules apply to it.
    "edit_family": (
        [edit_tool("Write")],
        ("Write", {"file_path": "notes/a.txt"}),
        ("Edit(./notes/**)", "Edit(./notes/a.txt)"),
        False,
    ),
    "read_family": (
        [read_tool("Grep")],
        ("Grep", {"file_path": "src/a.py"}),
        ("Read(./src/**)", "Read(./src/a.py)"),
        True,
    ),
    "mcp": (
        [mcp_tool_spec("srv", "deploy")],
        ("mcp__srv__deploy", {"x": "1"}),
        ("mcp__srv", "mcp__srv__*", "mcp__srv__deploy"),
        False,
    ),
}

# Rules for other tools, other paths, other servers and other commands: none applies to any case.
DECOYS = (
    "Other",
    "Other(*)",
    "Bash(npm test:*)",
    "Bash(git pull:*)",
    "Edit(./elsewhere/**)",
    "Read(./elsewhere/**)",
    "mcp__other",
    "mcp__srv__other",
    "WebFetch(domain:example.com)",
)


_BEHAVIORS = st.sampled_from(["allow", "ask", "deny"])
_DECOY_RULES = st.builds(RuleSpec, text=st.sampled_from(DECOYS), behavior=_BEHAVIORS, source=sources())
# Around an index bucket's size (8) most often, and anywhere up to 30.
_DECOY_COUNTS = st.one_of(st.sampled_from([7, 8, 9, 10]), st.integers(0, 30))


@cached_strategy
def _applying_rules(applying: tuple[str, ...]) -> st.SearchStrategy[list[RuleSpec]]:
    return st.lists(
        st.builds(RuleSpec, text=st.sampled_from(applying), behavior=_BEHAVIORS, source=sources()),
        max_size=3,
    )


@st.composite
def rule_lists(draw: st.DrawFn, applying: tuple[str, ...]) -> tuple[list[RuleSpec], set[str]]:
    """Applying rules of drawn behaviors among decoys, shuffled; and the behaviors that apply."""
    relevant = draw(_applying_rules(applying))
    count = draw(_DECOY_COUNTS, label="decoys")
    decoys = [draw(_DECOY_RULES) for _ in range(count)]
    rules = draw(st.permutations([*relevant, *decoys]))
    return rules, {r.behavior for r in relevant}


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-4", "MUST")
@settings(max_examples=80, deadline=None)
@example(case="edit_family", data=None)  # an Edit-family deny as the ninth rule
@given(case=st.sampled_from(sorted(CASES)), data=st.data())
def test_verdict_among_many_rules_is_the_verdict_of_the_rules_that_apply(
    new_harness: Callable[[], Any], case: str, data: st.DataObject | None
) -> None:
    """PERM-4 (with PERM-1): among any number of rules, deny > ask > allow of the rules that apply decides.

    Whatever rules for other tools, paths and servers surround them, and however many: a deny
    denies (not run, not asked), else an ask asks, else an allow runs unasked; with none the call
    is decided as with no rules at all. Each call is made twice in the turn, with the same verdict.
    """
    tools, call, applying, unasked_without_rules = CASES[case]
    if data is None:  # the pinned example: the applying deny is the ninth rule
        deny = RuleSpec(applying[0], "deny", "projectSettings")
        rules, behaviors = [*(RuleSpec(d, "allow") for d in DECOYS[:8]), deny], {"deny"}
    else:
        rules, behaviors = data.draw(rule_lists(applying), label="rules")
    host = host_answering("allow")
    run = run_calls(new_harness(), tools, [call, call], rules=rules, host=host)
    why = f"{case} call {call} with rules {[(r.text, r.behavior) for r in rules]}: {run.describe()}"
    asked = len(run.asked)
    if "deny" in behaviors:
        assert (run.ran("toolu_1"), run.ran("toolu_2"), asked) == (0, 0, 0), f"must be denied: {why}"
    elif "ask" in behaviors:
        assert (run.ran("toolu_1"), run.ran("toolu_2"), asked) == (1, 1, 2), f"must be asked: {why}"
    elif "allow" in behaviors or unasked_without_rules:
        assert (run.ran("toolu_1"), run.ran("toolu_2"), asked) == (1, 1, 0), f"must run unasked: {why}"
    else:
        assert (run.ran("toolu_1"), run.ran("toolu_2"), asked) == (1, 1, 2), f"must be asked: {why}"
