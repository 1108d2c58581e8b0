r"""A token bash ends elsewhere than a parser: the command after bash's end is never allowed unasked (PERM-16, PERM-17).

``echo $'\\'; rm -rf x #'``: bash's string is one backslash, and ``rm`` runs; a scanner that takes
``\'`` for an escaped quote reads on to the last quote and sees one ``echo``. The lines are
composed by :func:`pytest_toolharness.strategies.token_ends` (ANSI-C strings, parameter patterns and
defaults, here-document ends, pattern words; a red team's forms, session 36) around ``rm -rf x``
with its name in every spelling bash runs as ``rm``. The sandboxed bash says whether ``rm`` runs;
where it does, neither the allow rule for the visible program nor ``Bash`` beside ``Bash(rm:*)``
denied may let the call run without a person asked (none is: no host answers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import allow_rule_for, bash_runs, run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

_PAYLOADS = ths.command_name_spellings("rm").map(lambda name: f"{name} -rf x")


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    program=st.sampled_from(["echo", "ls", "cat"]),
    data=st.data(),
    form=st.sampled_from(["colon", "space"]),
)
def test_an_allow_rule_covers_nothing_past_bashs_end_of_a_token(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, program: str, data: st.DataObject, form: str
) -> None:
    """PERM-16: where bash runs ``rm`` after a token it ends early, the visible program's allow rule does not allow the line."""
    line = data.draw(ths.token_ends(_PAYLOADS, program), label="line")
    if not bash_runs(bash_oracle, line, "rm"):
        return
    rule = allow_rule_for(program, form)
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=[RuleSpec(rule, "allow")]
    )
    assert run.ran() == 0, f"{rule} allowed {line!r}, and bash runs rm: {run.describe()}"


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(data=st.data(), mode=st.sampled_from(["default", "bypassPermissions"]))
def test_a_deny_holds_past_bashs_end_of_a_token(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, data: st.DataObject, mode: str
) -> None:
    """PERM-17: where bash runs ``rm`` after a token it ends early, ``Bash(rm:*)`` beside ``Bash`` allowed never lets it run unasked."""
    line = data.draw(ths.token_ends(_PAYLOADS), label="line")
    if not bash_runs(bash_oracle, line, "rm"):
        return
    rules = [RuleSpec("Bash(rm:*)", "deny"), RuleSpec("Bash", "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode)
    assert run.ran() == 0, f"Bash(rm:*) deny let {line!r} run ({mode}), and bash runs rm: {run.describe()}"
