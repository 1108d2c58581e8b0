"""Code bash evaluates, or data it runs as a script, though no parser sees a command in it: PERM-16, PERM-17.

Bash evaluates an array subscript wherever it evaluates a variable name or arithmetic, so a
quoted string becomes a command: ``printf -v 'a[$(rm x)]' y``, ``read``, ``test -v``, ``let``,
``declare -n``, ``$((x))`` or ``${b[x]}`` or ``(( x ))`` on a variable holding ``a[$(rm x)]``;
it expands ``${!x}`` and ``${x@P}`` a second time; it runs ``BASH_ENV``, ``PS4`` and exported
functions; it runs what ``source <(...)`` or ``. /dev/stdin <<<`` read, a ``mapfile -C``
callback, and a file the same line writes. A sandboxed real bash says what each line executes (the tests skip, naming what is
missing, without bash or bubblewrap).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec


def _runs(executed: list[tuple[str, ...]], program: str) -> list[tuple[str, ...]]:
    return [record for record in executed if record[0].rsplit("/", 1)[-1] == program]


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    attempt=ths.evaluated_code_attempts(),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
@example(attempt=ths.EvaluatedAttempt("true", "rm", "c=rm; $c -rf x"), mode="bypassPermissions")
@example(attempt=ths.EvaluatedAttempt("echo", "rm", "$(echo rm) -rf x"), mode="default")
@example(attempt=ths.EvaluatedAttempt("true", "rm", "f() { rm -rf x; }; true; f"), mode="acceptEdits")
@example(
    attempt=ths.EvaluatedAttempt("printf", "rm", "printf -v 'a[$(rm -rf x)]' y"), mode="bypassPermissions"
)
@example(attempt=ths.EvaluatedAttempt("echo", "rm", "x='a[$(rm -rf x)]'; echo $(( x ))"), mode="default")
@example(attempt=ths.EvaluatedAttempt("bash", "rm", "BASH_ENV=<(echo 'rm x') bash -c true"), mode="default")
@example(attempt=ths.EvaluatedAttempt("source", "rm", "source <(echo 'rm -rf x')"), mode="bypassPermissions")
@example(
    attempt=ths.EvaluatedAttempt("bash", "curl", "echo 'curl x' > s.sh; bash s.sh"), mode="bypassPermissions"
)
@example(attempt=ths.EvaluatedAttempt("mapfile", "rm", "mapfile -C 'rm x' -c 1 <<< y"), mode="default")
# Found by the derandomised profile: a here-document body that starts with a backslash, which the
# grammar reads as a word (the body it reports is empty).
@example(attempt=ths.EvaluatedAttempt("source", "rm", "source /dev/stdin <<EOF\n\\rm\nEOF"), mode="default")
# Bash's command hash table, assigned whole: ``ls`` then runs /bin/rm.
@example(
    attempt=ths.EvaluatedAttempt("ls", "rm", "BASH_CMDS=([ls]=/bin/rm); ls -rf x"), mode="bypassPermissions"
)
# Found by a red team (session 30): a positional or special parameter's substring offset, a declaration
# behind a wrapper (the grammar reads it as a plain command), history expansion turned on by the line.
@example(
    attempt=ths.EvaluatedAttempt("echo", "rm", "for x in 'a[$(rm x)]'; do echo ${0:x}; done"),
    mode="default",
)
@example(
    attempt=ths.EvaluatedAttempt("declare", "rm", "builtin declare 'a[$(rm x)]=1'"), mode="bypassPermissions"
)
@example(
    attempt=ths.EvaluatedAttempt("echo", "rm", "set -o history -H\necho '$(rm x)'\necho \"!!\""),
    mode="bypassPermissions",
)
# A builtin's name option inside a cluster (session 30's red team): the composed draws reached it only
# while Hypothesis mixed the source's own literals into them (m_perm_17_name_option_clusters_unread).
@example(
    attempt=ths.EvaluatedAttempt("wait", "rm", "sleep 0 & wait -np 'a[$(rm x)]'"), mode="bypassPermissions"
)
# Bash's own integer variables, positional parameters in arithmetic, an expansion that assigns (session 29).
@example(
    attempt=ths.EvaluatedAttempt("echo", "rm", "for OPTIND in 'a[$(rm -rf x)]'; do :; done; echo"),
    mode="bypassPermissions",
)
@example(
    attempt=ths.EvaluatedAttempt("true", "rm", "set -- x 'a[$(rm x)]'; shift; (( $1 )); true"),
    mode="bypassPermissions",
)
@example(
    attempt=ths.EvaluatedAttempt(
        "tar",
        "rm",
        "set -a; : \"${TAR_OPTIONS:=--checkpoint=1 --checkpoint-action='exec=rm x'}\"; "
        "tar -cf /dev/null /etc/hostname",
    ),
    mode="bypassPermissions",
)
# Arithmetic inside another expansion's word, which the grammar shows as text (session 32's red team).
@example(
    attempt=ths.EvaluatedAttempt("echo", "rm", "for y in 'a[$(rm x)]'; do echo ${z:-$[y]}; done"),
    mode="default",
)
# Session 37's red team: a declaration's quoted (...) value read again as an array's elements, and an
# expansion brace expansion makes of a $ the parser keeps literal.
@example(attempt=ths.EvaluatedAttempt("declare", "rm", "declare -a x='(`rm x`)'"), mode="bypassPermissions")
@example(attempt=ths.EvaluatedAttempt("echo", "rm", "x='`rm x`';: {$,}{x@P}"), mode="default")
def test_deny_rule_catches_code_bash_evaluates(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, attempt: ths.EvaluatedAttempt, mode: str
) -> None:
    """PERM-17: ``Bash(payload:*)`` denies (or asks about) a line whose payload hides where bash evaluates text as code; beside ``Bash`` allowed, in any mode.

    A call that runs without anyone asked goes to a sandboxed bash: the denied program must not be
    among what it executes.
    """
    rules = [RuleSpec(f"Bash({attempt.payload}:*)", "deny"), RuleSpec("Bash", "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": attempt.command})], rules=rules, mode=mode
    )
    if run.ran() == 0:
        return
    hits = _runs(bash_oracle.executed(attempt.command), attempt.payload)
    assert not hits, (
        f"Bash({attempt.payload}:*) deny ({mode}) let {attempt.command!r} run, and bash would run {hits!r}"
    )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=60, deadline=None)
@given(attempt=ths.evaluated_code_attempts())
@example(attempt=ths.EvaluatedAttempt("read", "curl", "read 'a[$(curl x)]' <<< y"))
@example(attempt=ths.EvaluatedAttempt("let", "rm", "let 'a[$(rm x)]=1'"))
def test_allow_rule_for_the_visible_program_never_runs_hidden_code(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, attempt: ths.EvaluatedAttempt
) -> None:
    """PERM-16: allow rules for every program a line shows (``Bash(printf:*)``, ...) never let bash run the program hidden where it evaluates text as code."""
    shown = [attempt.visible] if attempt.prefix is None else [attempt.visible, attempt.prefix]
    rules = [RuleSpec(f"Bash({program}:*)", "allow") for program in shown]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": attempt.command})], rules=rules)
    if run.ran() == 0:
        return
    hits = _runs(bash_oracle.executed(attempt.command), attempt.payload)
    assert not hits, (
        f"allow rules for {attempt.visible!r} allowed {attempt.command!r}, and bash would run {hits!r}"
    )
