r"""Where bash ends a command: a newline, continued lines, blank and comment lines (PERM-16, PERM-17).

``echo a``, then a newline, then a line holding only ``\``, then ``\rm -rf x``: bash removes the
backslash and its newline, and runs ``rm``; a reader that takes the continued line for more words
of ``echo`` lets it through an allow rule for ``echo``, and past a deny rule for ``rm``. The joints
are composed by :func:`pytest_toolharness.strategies.line_joints` (an end: a newline, or ``;``,
``&&``, ``||``, ``|`` before one, or the line continued; then 0-3 continued, empty or comment
lines), the second command's name in every spelling bash runs as ``rm``. The sandboxed bash says
whether ``rm`` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import (
    allow_rule_for,
    bash_runs,
    host_answering,
    run_calls,
    shell_tool,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

_FIRST = ("echo a", "npm test", "git status", "ls -la")


@st.composite
def _joined(draw: st.DrawFn) -> tuple[str, str]:
    """(the first command, the line: it, a joint, then ``rm -rf x`` with its name in any spelling)."""
    first = draw(st.sampled_from(_FIRST))
    name = draw(ths.command_name_spellings("rm"))
    return first, f"{first}{draw(ths.line_joints())}{name} -rf x"


def _known_before_it_runs(line: str) -> bool:
    """Whether no name on the line is made by a glob or a brace (those may be asked about: PERM-16)."""
    return not any(c in line for c in "?[{*")


@pytest.mark.toolharness_heavy
@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=100, deadline=None)
@given(joined=_joined(), mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]))
def test_a_deny_holds_across_every_joint_bash_reads(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, joined: tuple[str, str], mode: str
) -> None:
    """PERM-17: where bash runs ``rm`` after a joint, ``Bash(rm:*)`` beside ``Bash`` allowed denies outright.

    The host answers "allow" to every question: a reader that loses the command and only asks runs it.
    (A name made by a glob or a brace is only known when bash expands it, so may be asked about.)
    """
    _first, line = joined
    if not bash_runs(bash_oracle, line, "rm") or not _known_before_it_runs(line):
        return
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": line})],
        rules=[RuleSpec("Bash(rm:*)", "deny"), RuleSpec("Bash", "allow")],
        mode=mode,
        host=host_answering("allow"),
    )
    assert run.ran() == 0, f"Bash(rm:*) deny let {line!r} run ({mode}), and bash runs rm: {run.describe()}"


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=100, deadline=None)
@given(joined=_joined(), form=st.sampled_from(["colon", "space"]))
def test_an_allow_rule_for_the_first_command_covers_nothing_after_a_joint(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, joined: tuple[str, str], form: str
) -> None:
    """PERM-16: where bash runs ``rm`` after a joint, the allow rule for the first command does not allow the line."""
    first, line = joined
    if not bash_runs(bash_oracle, line, "rm"):
        return
    rule = allow_rule_for(first, form)
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=[RuleSpec(rule, "allow")]
    )
    assert run.ran() == 0, f"{rule} allowed {line!r}, and bash runs rm: {run.describe()}"
