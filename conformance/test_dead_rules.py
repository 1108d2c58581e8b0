"""A rule that loads means what it says (PERM-12): one that could never match is refused, or holds.

A rule that could never match as written is refused by name, or read as what its author meant; it
never loads and guards nothing.

The rules are composed, not listed: a simple command with a stray piece of shell syntax on either
side (:func:`~pytest_toolharness.strategies.dead_shell_rules`), which bash itself shows is no line it
runs, in every rule form, as a deny or ask rule beside an allow rule for the whole tool.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._controls import require_control
from conformance._strategies_permissions import host_answering, run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec
from pytest_toolharness.strategies import DeadShellRule


def _bash_refuses(line: str) -> bool:
    """Whether bash reads ``line`` as a syntax error (``bash -n`` parses without running)."""
    done = subprocess.run(["bash", "-n", "-c", line], capture_output=True, timeout=30, check=False)
    return done.returncode != 0


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    rule=ths.dead_shell_rules(),
    behavior=st.sampled_from(["deny", "ask"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
@example(rule=DeadShellRule("Bash(git push &&)", "git push &&", "git push"), behavior="deny", mode="default")
@example(rule=DeadShellRule("Bash(; rm -rf:*)", "; rm -rf", "rm -rf build"), behavior="ask", mode="default")
def test_a_shell_rule_no_line_matches_is_refused_or_guards_what_it_meant(
    new_harness: Callable[[], Any], rule: DeadShellRule, behavior: str, mode: str
) -> None:
    """PERM-12: a deny or ask rule whose command bash can't run is refused by name, or guards the command meant.

    ``Bash(git push &&)``, ``Bash(; rm -rf:*)``, ``Bash(curl example.com >)``: no line bash runs
    is spelled so (bash's own parser is the judge), so as written the rule matches nothing. Beside
    ``Bash`` allowed, in any mode, the harness refuses the rule naming it, or the command its author
    meant does not run unasked; it never loads and lets that command through.
    """
    star = rule.text.endswith("*)")
    for line in (rule.content, *([f"{rule.content} x", f"{rule.content} 'x'"] if star else [])):
        require_control(_bash_refuses(line), f"bash runs {line!r}: {rule.text} is not a dead rule")
    rules = [RuleSpec(rule.text, behavior), RuleSpec("Bash", "allow")]  # type: ignore[arg-type]
    call = ("Bash", {"command": rule.meant})
    try:
        run = run_calls(
            new_harness(), [shell_tool()], [call], rules=rules, mode=mode, host=host_answering("deny")
        )
    except Exception as error:
        message = str(error)
        assert rule.text in message or repr(rule.text) in message, (
            f"refused {rule.text!r} without naming it: {message}"
        )
        return
    assert run.ran() == 0, (
        f"{behavior} rule {rule.text!r} loaded, matched nothing and let {rule.meant!r} run ({mode}): "
        f"{run.describe()}"
    )
