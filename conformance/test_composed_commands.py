"""Deny rules against command lines composed from bash's grammar, with bash as the judge (PERM-17).

``ths.composed_commands()`` carries ``rm -rf x`` through one or two productions that make bash, or
a program bash starts, run it: substitutions, shell strings in every quoting form, shells reading
from here-strings and descriptors, scripts the line writes and runs, functions, code-carrying
variables, wrappers and options mined from the machine's manual pages, interpreters' own
encodings. A line the harness runs under a deny rule is given to the bash oracle, which runs the
catalogued programs for real: the denied program must not be among what ran. Without bash or
bubblewrap these tests skip, naming what is missing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import example, given, settings, target
from hypothesis import strategies as st

from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

_CONFORMANCE = Path(__file__).resolve().parent


@functools.cache
def _judge(oracle: ths.BashSandbox) -> ths.BashSandbox:
    return oracle.running_for_real(ths.composed_real_programs())


# The minimal lines tests/mutants/hunt_mechanisms.py found in the engine of commit 531c59b, one per
# mechanism (docs/fuzzing-findings.md): (line, its carrier, the deny rule's form).
_FINDINGS = (
    ("rm >/dev/null -rf x", "", "Bash({} -rf:*)"),
    ("echo 'rm -rf x' > f; env -S 'bash f'", "written-script", "Bash({}:*)"),
    (
        "printf -v PROMPT_COMMAND %s 'rm -rf x'; export PROMPT_COMMAND; bash -i <<< ''",
        "code-variable",
        "Bash({}:*)",
    ),
    ("debconf rm -rf x", "wrapper", "Bash({}:*)"),
    # git-clone's ``-c`` is its ``--config`` (session 31's red team): set in the new repository first.
    ("git clone -q -c core.sshCommand='rm -rf x' ssh://h/x r", "config-command", "Bash({}:*)"),
    ("git clone -q --config=core.sshCommand='rm -rf x' ssh://h/x r", "config-command", "Bash({}:*)"),
    # git's ext:: transport runs its URL's command once -c protocol.ext.allow lets it (session 32).
    ("git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% -rf% x'", "config-command", "Bash({}:*)"),
    ("debugfs -R '!rm -rf x'", "option-command", "Bash({} *)"),
    ("echo '.shell rm -rf x' > o; sqlite3 -init o", "option-script", "Bash({}:*)"),
    (
        "git init -q r && cd r && git config core.sshCommand 'rm -rf x' && git ls-remote ssh://h/x",
        "config-command",
        "Bash({}:*)",
    ),
    # A red team's finds (session 30): a builtin's option in a cluster, a builtin running its
    # operands, an expanded wordlist, a variable a program takes its grep from.
    ("mapfile -tC 'rm -rf x' -c 1 </etc/hostname", "option-command", "Bash({}:*)"),
    ("jobs -x rm -rf x", "wrapper", "Bash({}:*)"),
    ("compgen -W '$(rm -rf x)' w", "option-command", "Bash({}:*)"),
    ("GREP=rm zgrep x /etc/hostname", "environment-command", "Bash({}:*)"),
    (
        "printf '#!/bin/sh\\n%s\\n' 'rm -rf x' > c; chmod +x c; GREP=./c zgrep /etc/hostname",
        "environment-command",
        "Bash({}:*)",
    ),
    ("awk 'BEGIN{system(\"\\162\\155\\040\\055\\162\\146\\040\\170\")}'", "interpreter-inline", "Bash({}:*)"),
    ("echo 'import os;os.system('\\''rm -rf x'\\'')' > f; python3 f", "interpreter-script", "Bash({}:*)"),
    # mawk(1)'s ``-W exec file`` reads the program from the file (session 32's red team).
    ("echo 'BEGIN{system(\"rm -rf x\")}' > f; awk -W exec f", "interpreter-script", "Bash({}:*)"),
    (
        "tclsh <<< 'exec sh -c \"\\x72\\x6d\\x20\\x2d\\x72\\x66\\x20\\x78\"'",
        "interpreter-stdin",
        "Bash({}:*)",
    ),
)

# Substitutions in words where tree-sitter's grammar shows none, which a red team confirmed bash runs
# (session 25): backquotes in ``${}``, ``$(...)`` in an operator's pattern, ``<(...)`` in ``${}``,
# single quotes a double-quoted ``${}`` keeps, a here-document's body, escapes inside backquotes.
_UNSEEN_SUBSTITUTIONS = tuple(
    (line, "substitution", "Bash({}:*)")
    for line in (
        ": ${x:-${y:-`rm -rf x`}}",
        "x=1; : ${x#$(rm -rf x)}",
        ": ${x:-<(rm -rf x)}",
        "x=1; : \"${x:+'$(rm -rf x)'}\"",
        ': "${x-\'"`rm -rf x`"\'}"',
        "cat <<-EOF >/dev/null\n`rm -rf x`\n\tEOF\n",
        "echo `echo \\`rm -rf x\\``",
        'echo `echo "\\$(rm -rf x)"`',
    )
)


def _pinned(test: Callable[..., None]) -> Callable[..., None]:
    for line, carrier, deny_form in (*_FINDINGS, *_UNSEEN_SUBSTITUTIONS):
        composed = ths.ComposedCommand("rm", ("-rf", "x"), line, (carrier,) if carrier else ())
        test = example(composed=composed, deny_form=deny_form, mode="bypassPermissions", behavior="deny")(
            test
        )
    return test


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=100, deadline=None)
@given(
    composed=ths.composed_commands(max_depth=2),
    deny_form=st.sampled_from(["Bash({}:*)", "Bash({} *)", "Bash({} -rf:*)"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
    behavior=st.sampled_from(["deny", "ask"]),
)
@_pinned
def test_deny_rule_holds_through_composed_carriers(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    composed: ths.ComposedCommand,
    deny_form: str,
    mode: str,
    behavior: Literal["deny", "ask"],
) -> None:
    """PERM-17: a deny (or ask) rule's program never runs unasked, however many productions carry it.

    The line is composed, not listed (``ths.composed_commands``); programs and options come from the
    catalogue mined from the machine's manual pages. A call the harness runs without anyone asked
    (no host is there to ask) is run by the bash oracle (with the catalogued programs and
    interpreters run for real): no record may be the denied command (for ``Bash(rm -rf:*)``, an
    ``rm`` whose first word is ``-rf``). Hypothesis is steered (``target``) toward deeper lines the harness lets through,
    and toward lines that reach more of the harness's own code (``ths.code_reach``).
    """
    deny = deny_form.format(composed.target)
    rules = [RuleSpec(deny, behavior)]
    if composed.allowed:
        rules.append(RuleSpec(f"Bash({composed.allowed}:*)", "allow"))
    with ths.code_reach(exclude=(_CONFORMANCE,)) as reach:
        run = run_calls(
            new_harness(), [shell_tool()], [("Bash", {"command": composed.command})], rules=rules, mode=mode
        )
    ran = run.ran() > 0
    target(float(len(composed.carriers)) if ran else 0.0, label="carriers of a line the harness ran")
    # The harness's branches a line reaches (issue 33): lines nobody steers toward stay unexplored;
    # benchmarks/_fuzz_steering_bench.py measures what this adds per 100 examples.
    target(float(reach.count), label="harness lines the call reached")
    if not ran:
        return
    words = [composed.target, "-rf"] if deny_form == "Bash({} -rf:*)" else [composed.target]
    executed = _judge(bash_oracle).executed(composed.command)
    hits = [record for record in executed if [record[0].rsplit("/", 1)[-1], *record[1 : len(words)]] == words]
    assert not hits, (
        f"{deny} {behavior} ({mode}) let {composed.command!r} run (carriers {composed.carriers}), and bash ran {hits!r}"
    )


def _names_literally(line: str, program: str) -> bool:
    """Whether ``program`` is written in ``line`` as a word, once quotes and backslashes are taken out."""
    plain = re.sub(r"[\"'\\]", "", line)
    return re.search(rf"(?<![\w.+-]){re.escape(program)}(?![\w.+-])", plain) is not None


def _own_program_rule(data: st.DataObject, command: str) -> str | None:
    """``Bash(<the line's first word(s)>:*)``: the allow rule a user writes for what the line starts."""
    words = command.split()
    if not words or not re.fullmatch(r"[\w./+-]+", words[0]) or "=" in words[0]:
        return None
    size = data.draw(st.integers(1, 2)) if len(words) > 1 and re.fullmatch(r"-{1,2}[\w-]+", words[1]) else 1
    return f"Bash({' '.join(words[:size])}:*)"


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    composed=ths.composed_commands(max_depth=2),
    data=st.data(),
    mode=st.sampled_from(["default", "bypassPermissions"]),
    behavior=st.sampled_from(["deny", "ask"]),
)
def test_allow_rule_on_the_lines_own_program_never_outranks_a_deny_it_names(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    composed: ths.ComposedCommand,
    data: st.DataObject,
    mode: str,
    behavior: Literal["deny", "ask"],
) -> None:
    """PERM-17: an allow rule on a line's own program never outranks a deny rule whose program the line names.

    An allow rule on the program a line starts (``Bash(tmux:*)``, ``Bash(python3 -c:*)``) never lets it
    run a program a deny (or ask) rule guards when the line names that program as a word.

    The allow rule is the user's trust of the program with what the harness can't read; deny is
    broad, so a line written to run ``rm`` through it (``tmux new -d 'rm -rf x'``, ``expect -c 'spawn
    rm ...'``, ``python3 -c 'os.system("rm -rf x")'``) is asked about. Judged by the bash oracle: a call
    run unasked whose line names the denied program must not run it. (A line that computes the name,
    ``chr(114)+chr(109)``, is outside this property: the allow rule trusts it.)
    """
    allow = _own_program_rule(data, composed.command)
    if allow is None or not _names_literally(composed.command, composed.target):
        return
    rules = [RuleSpec(f"Bash({composed.target}:*)", behavior), RuleSpec(allow, "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": composed.command})], rules=rules, mode=mode
    )
    if run.ran() == 0:
        return
    executed = _judge(bash_oracle).executed(composed.command)
    hits = [record for record in executed if record[0].rsplit("/", 1)[-1] == composed.target]
    assert not hits, (
        f"{allow} vouched for {composed.command!r} past Bash({composed.target}:*) {behavior} ({mode}): bash ran {hits!r}"
    )
