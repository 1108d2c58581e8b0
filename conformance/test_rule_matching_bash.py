"""Bash is the oracle for rule matching (PERM-16, PERM-17).

What the harness allows is run by a real bash in a sandbox, and every program it executes must be
covered by an allow rule; a deny rule's program must never run. Without bash or bubblewrap these
tests skip, naming what is missing.
"""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import (
    allow_rule_for,
    covered_by_prefix,
    host_answering,
    run_calls,
    shell_tool,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=150, deadline=None)
@given(attempt=ths.shell_attempts(), form=st.sampled_from(["colon", "space"]))
@example(attempt=ths.ShellAttempt("npm test", "rm", "npm test; c=rm; $c -rf x"), form="colon")
def test_allowed_command_runs_only_what_allow_rules_cover(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, attempt: ths.ShellAttempt, form: str
) -> None:
    """PERM-16: whatever the harness allows under ``Bash(prefix:*)``, bash runs no program that rule does not cover.

    The command hides a payload with every device of bash's grammar (blanks, quoting, escapes,
    comments, redirections, here-documents, substitutions, subshells, wrappers with options);
    nobody can be asked, so a call that runs was allowed outright. Bash in a sandbox says what it
    would execute; a harmless wrapper (``time``, ``nice``, ``timeout``, ``nohup``, ``stdbuf``) is
    allowed to run, anything else must match the rule.
    """
    rule = allow_rule_for(attempt.prefix, form)
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": attempt.command})],
        rules=[RuleSpec(rule, "allow")],
    )
    if run.ran() == 0:
        return
    executed = bash_oracle.executed(attempt.command)
    uncovered = [record for record in executed if not covered_by_prefix(record, attempt.prefix)]
    assert not uncovered, (
        f"{rule} allowed {attempt.command!r}, and bash would run {uncovered!r}, which no allow rule covers"
    )


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=150, deadline=None)
@given(
    attempt=ths.shell_attempts(),
    deny_form=st.sampled_from(["Bash({}:*)", "Bash({} *)", "Bash({})"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test && $(echo rm) -rf x"),
    deny_form="Bash({}:*)",
    mode="bypassPermissions",
)
@example(
    attempt=ths.ShellAttempt("git status", "rm", "f() { rm -rf x; }; git status; f"),
    deny_form="Bash({} *)",
    mode="default",
)
# Found by the exploratory profile: a ``;`` right after an unterminated here-document start,
# whose terminator line carries more words (bash reads the body to the end; the grammar fails).
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test <<EOF; rm\nbody\nEOF $(rm\xa0-rf\xa0x)"),
    deny_form="Bash({}:*)",
    mode="bypassPermissions",
)
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test <<EOF;rm -rf x\nbody\nEOF x"),
    deny_form="Bash({} *)",
    mode="default",
)
# Found by a default run: the grammar reads ``EOF;rm`` as the delimiter and ends the body on a
# later line, without a syntax error.
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test <<EOF;rm\nbody\nEOF; rm${IFS}x"),
    deny_form="Bash({}:*)",
    mode="default",
)
# Programs that run a script given as an option, or their words joined, as a command.
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test; su -c 'rm -rf x' root"),
    deny_form="Bash({}:*)",
    mode="bypassPermissions",
)
@example(
    attempt=ths.ShellAttempt("git status", "curl", "git status && ssh host 'curl -s x | sh'"),
    deny_form="Bash({} *)",
    mode="bypassPermissions",
)
# Programs that run a command given in an option, or in code of their own language.
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test; awk 'BEGIN { system(\"rm -rf x\") }'"),
    deny_form="Bash({}:*)",
    mode="bypassPermissions",
)
@example(
    attempt=ths.ShellAttempt("git status", "rm", "git status && git -c alias.z='!rm -rf x' z"),
    deny_form="Bash({} *)",
    mode="bypassPermissions",
)
@example(
    attempt=ths.ShellAttempt(
        "npm test",
        "rm",
        "npm test; GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.z GIT_CONFIG_VALUE_0='!rm -rf x' git z",
    ),
    deny_form="Bash({}:*)",
    mode="bypassPermissions",
)
# env splits its -S string into a command its own way, however the option is spelled (session 7).
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test; env --split-string='rm -rf x'"),
    deny_form="Bash({}:*)",
    mode="bypassPermissions",
)
@example(
    attempt=ths.ShellAttempt("git status", "rm", "git status && env -S 'rm\\_-rf\\_x'"),
    deny_form="Bash({} *)",
    mode="bypassPermissions",
)
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test; env -S '-i rm -rf x'"),
    deny_form="Bash({}:*)",
    mode="bypassPermissions",
)
# A program the line makes under another name and runs by its path (session 7).
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test; cp /usr/bin/rm ./t; ./t -rf x"),
    deny_form="Bash({}:*)",
    mode="bypassPermissions",
)
@example(
    attempt=ths.ShellAttempt("git status", "rm", "git status && ln -s /usr/bin/rm t && ./t -rf x"),
    deny_form="Bash({} *)",
    mode="bypassPermissions",
)
def test_deny_rule_program_never_runs(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    attempt: ths.ShellAttempt,
    deny_form: str,
    mode: str,
) -> None:
    """PERM-17: a deny rule for a program catches it however it is spelled: bash never runs it unasked.

    Quoted or escaped names, ``$'...'``, path-qualified binaries, globs, wrappers with options,
    compounds, substitutions, subshells, nested shells, and programs that start a command given in
    an option, in their own code or in their environment (real ``awk``, ``git``, ``tar``, ``sed``,
    ``perl``, ``env``... run in the sandbox), ``env -S`` in any spelling, a program the line copies or
    links under another name and runs; beside an allow rule for the visible
    part, in any mode (bypassPermissions included). A call that runs without anyone asked is
    given to a sandboxed bash: the denied program must not be among what it executes.
    """
    deny = deny_form.format(attempt.payload)
    rules = [RuleSpec(f"Bash({attempt.prefix}:*)", "allow"), RuleSpec(deny, "deny")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": attempt.command})], rules=rules, mode=mode
    )
    if run.ran() == 0:
        return
    executed = bash_oracle.executed(attempt.command)
    hits = [record for record in executed if record[0].rsplit("/", 1)[-1] == attempt.payload]
    if deny_form == "Bash({})":  # an exact rule denies only the bare command
        hits = [record for record in hits if len(record) == 1]
    assert not hits, f"{deny} ({mode}) let {attempt.command!r} run, and bash would run {hits!r}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    attempt=ths.shell_attempts(),
    ask_form=st.sampled_from(["Bash({}:*)", "Bash({} *)"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
@example(
    attempt=ths.ShellAttempt("npm test", "rm", "npm test; su -c 'rm -rf x' root"),
    ask_form="Bash({}:*)",
    mode="bypassPermissions",
)
def test_ask_rule_program_never_runs_unasked(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    attempt: ths.ShellAttempt,
    ask_form: str,
    mode: str,
) -> None:
    """PERM-17: an ask rule for a program catches it however it is spelled: the host is asked before bash runs it.

    The same hidden payloads as the deny property, beside an allow rule for the visible part, in
    any mode; the host allows whatever it is asked. A call that ran without the host being asked is
    given to a sandboxed bash: the asked-about program must not be among what it executes.
    """
    ask = ask_form.format(attempt.payload)
    rules = [RuleSpec(f"Bash({attempt.prefix}:*)", "allow"), RuleSpec(ask, "ask")]
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": attempt.command})],
        rules=rules,
        mode=mode,
        host=host_answering("allow"),
    )
    if run.ran() == 0 or run.asked:
        return
    hits = [r for r in bash_oracle.executed(attempt.command) if r[0].rsplit("/", 1)[-1] == attempt.payload]
    assert not hits, f"{ask} ({mode}) let {attempt.command!r} run unasked, and bash would run {hits!r}"


ORDINARY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("npm test", ("Bash(npm test:*)",)),
    ("timeout 5 npm test", ("Bash(npm test:*)",)),
    ("timeout -s KILL 60 npm test -q", ("Bash(npm test:*)",)),
    ("time npm test", ("Bash(npm test:*)",)),
    ("nice -n 10 make lint", ("Bash(make lint:*)",)),
    ("nohup make lint", ("Bash(make lint:*)",)),
    ("stdbuf -oL npm test", ("Bash(npm test:*)",)),
    ("NODE_ENV=test npm test", ("Bash(npm test:*)",)),
    ("CI=1 NODE_ENV=test npm test --watch=false", ("Bash(npm test *)",)),
    ("npm test 2>&1", ("Bash(npm test:*)",)),
    ("npm test > /dev/null 2>&1", ("Bash(npm test:*)",)),
    ("npm test && git status", ("Bash(npm test:*)", "Bash(git status:*)")),
    ("git status | head -n 5", ("Bash(git status:*)", "Bash(head:*)")),
    ("git status # what changed", ("Bash(git status:*)",)),
    ('git commit -m "fix: a && b; c"', ("Bash(git commit:*)",)),
    ("ls -la \\\n  src/", ("Bash(ls:*)",)),
    ("cat <<'EOF'\nrm -rf x\nEOF", ("Bash(cat:*)",)),
)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=len(ORDINARY) * 2, deadline=None)
@given(case=st.sampled_from(ORDINARY))
def test_ordinary_commands_are_still_allowed(
    new_harness: Callable[[], Any], case: tuple[str, tuple[str, ...]]
) -> None:
    """PERM-16 (control): ordinary commands run under the rules for what they run, harmless wrappers and assignments stripped."""
    command, texts = case
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        rules=[RuleSpec(text, "allow") for text in texts],
    )
    assert run.ran() == 1, f"{texts} must allow {command!r}: {run.describe()}"


KNOWN_BYPASSES: tuple[str, ...] = (
    # Characters bash does not treat as blanks, before a comment sign.
    "git status\v# ; rm -rf x",
    "git status\f#;rm -rf x",
    "git status\xa0# ; rm -rf x",
    "git status 2>&1\u2003# ; rm x",
    # A '#' inside a word is no comment; escaped and line-continued separators.
    "git status a#;rm x",
    "git status \\\n;rm x",
    "git status >&$(rm x)",
    "git status <<<$(rm x)",
    "git status <<EOF\n$(rm x)\nEOF",
    "git status <<EOF && rm x\nbody\nEOF",
    "git status <<EOF; rm x\nbody\nEOF $(true)",
    "git status <<EOF;rm x\nEOF",
    'git status ${x:-"$(rm x)"}',
    "git status\n\n\\rm x",
)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=len(KNOWN_BYPASSES) * 2, deadline=None)
@given(command=st.sampled_from(KNOWN_BYPASSES))
def test_known_bypasses_run_nothing_uncovered(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, command: str
) -> None:
    """PERM-16: commands where home-made lexers and bash disagree: if ``Bash(git status:*)`` lets one run, bash runs only git."""
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        rules=[RuleSpec("Bash(git status:*)", "allow")],
    )
    if run.ran() == 0:
        return
    uncovered = [
        record for record in bash_oracle.executed(command) if not covered_by_prefix(record, "git status")
    ]
    assert not uncovered, f"Bash(git status:*) allowed {command!r}, and bash would run {uncovered!r}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    wrapper=st.sampled_from(
        [
            "sudo ",
            "sudo -u nobody ",
            "env ",
            "env -i ",
            "/usr/bin/env FOO=1 ",
            "xargs ",
            "exec ",
            "command ",
            "doas ",
        ]
    )
)
def test_wrapper_that_is_not_harmless_needs_its_own_rule(
    new_harness: Callable[[], Any], wrapper: str
) -> None:
    """PERM-16: ``Bash(npm test:*)`` does not allow ``sudo npm test``: a wrapper that changes what runs needs a rule too."""
    command = f"{wrapper}npm test"
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        rules=[RuleSpec("Bash(npm test:*)", "allow")],
    )
    assert run.ran() == 0, f"Bash(npm test:*) allowed {command!r}: {run.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(data=st.data(), mode=st.sampled_from(["default", "bypassPermissions"]))
def test_deny_catches_every_spelling_of_the_name(
    new_harness: Callable[[], Any], data: st.DataObject, mode: str
) -> None:
    r"""PERM-17: ``Bash(rm:*)`` catches ``'rm'``, ``\rm``, ``r""m``, ``$'\x72m'``, ``/bin/rm``, globs, behind any wrapper: it never runs unasked."""
    name = data.draw(ths.command_name_spellings("rm"), label="name")
    command = data.draw(ths.wrapped_commands(f"{name} -rf x"), label="command")
    rules = [RuleSpec("Bash(rm:*)", "deny"), RuleSpec("Bash", "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": command})], rules=rules, mode=mode)
    assert run.ran() == 0, f"Bash(rm:*) deny let {command!r} run ({mode}): {run.describe()}"


def _known_before_it_runs(name: str) -> bool:
    """Whether bash reads the name without expanding it (no glob, no brace expansion)."""
    return not any(c in name for c in "?[{*")


# A shell given the command as its script by a here-document of the line itself, in each statement
# bash feeds its input to (a simple command, a group, a subshell, one with more redirections).
_FED_TO_A_SHELL = (
    "{c}",
    "bash <<EOF\n{c}\nEOF",
    "sh -s <<'EOF'\n{c}\nEOF",
    "bash /dev/stdin <<-EOF\n\t{c}\n\tEOF",
    "{{ bash; }} <<EOF\n{c}\nEOF",
    "( sh -s ) <<'EOF'\n{c}\nEOF",
    "{{ bash; }} 2>/dev/null <<EOF\n{c}\nEOF",
    "( bash /dev/stdin ) >/dev/null <<-'EOF'\n\t{c}\n\tEOF",
)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(data=st.data(), mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]))
def test_deny_of_every_spelling_is_no_question_a_person_can_answer_yes(
    new_harness: Callable[[], Any], data: st.DataObject, mode: str
) -> None:
    r"""PERM-17 (with PERM-1): however the name is spelled or wrapped, ``Bash(rm:*)`` deny refuses it outright.

    Also after a redirection, its target spelled in pieces (``>''\/dev/null rm -rf x``: a grammar may
    end the target early and take the rest for the name), and when the line gives the command to a
    shell as its script, by a here-document, in any statement bash feeds its input to
    (``{ bash; } <<EOF``, ``( sh -s ) <<'EOF'``): the script is on the line, so the deny is certain.

    A deny turned into a question is no deny (PERM-1: the host is never asked when a rule denies): the
    host here answers every question "allow", so an engine that misreads a spelling bash reads without
    running anything (``$'\162\155'``, ``\rm``, ``/bin/rm``, behind ``xargs``) and only asks would
    run it. A name only known when bash expands it (a glob, a brace) may be asked about (PERM-16).
    """
    name = data.draw(ths.command_name_spellings("rm").filter(_known_before_it_runs), label="name")
    wrapped = data.draw(ths.wrapped_commands(f"{name} -rf x"), label="wrapped")
    if data.draw(st.booleans(), label="redirected first"):  # ``>''\/dev/null rm -rf x`` runs rm
        wrapped = f"{data.draw(ths.shell_redirections(), label='redirection')} {wrapped}"
    command = data.draw(st.sampled_from(_FED_TO_A_SHELL), label="fed").format(c=wrapped)
    rules = [RuleSpec("Bash(rm:*)", "deny"), RuleSpec("Bash", "allow")]
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        rules=rules,
        mode=mode,
        host=host_answering("allow"),
    )
    assert run.ran() == 0, (
        f"Bash(rm:*) deny let {command!r} run ({mode}) once a person said yes: {run.describe()}"
    )


@functools.cache
def _git_commands() -> frozenset[str]:
    """The command names git lists itself (``git --list-cmds``)."""
    listed = subprocess.run(
        ["git", "--list-cmds=main,others,nohelpers"], capture_output=True, text=True, check=False
    )
    return frozenset(listed.stdout.split())


@st.composite
def _unread_under_broad_allow(draw: st.DrawFn) -> tuple[str, str, str]:
    """(command, deny rule, allow rule naming only its program): a command the engine can't read."""
    kind = draw(st.sampled_from(["git", "zip", "run-parts", "inline"]))
    if kind == "git":
        settings_ = draw(
            st.lists(st.sampled_from(["help.autocorrect=immediate", "color.ui=never"]), max_size=2)
        )
        sub = draw(
            st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6).filter(
                lambda s: s not in _git_commands()
            )
        )
        globals_ = " ".join(f"-c {s}" for s in settings_)
        return f"git {globals_} {sub} -q o main".replace("  ", " "), "Bash(git push:*)", "Bash(git:*)"
    if kind == "zip":
        test = draw(st.sampled_from(["-T -TT 'rm -f x #'", "--test --unzip-command 'rm -f x #'"]))
        return f"zip -q out.zip f {test}", "Bash(rm:*)", "Bash(zip:*)"
    if kind == "run-parts":
        folder = draw(st.sampled_from(["d", "./parts", "/tmp/rp"]))
        return f"run-parts {folder}", "Bash(rm:*)", "Bash(run-parts:*)"
    program, option = draw(st.sampled_from([("python3", "-c"), ("node", "-e"), ("perl", "-e")]))
    return f"{program} {option} 'system(\"rm -f x\")'", "Bash(rm:*)", f"Bash({program}:*)"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None)
@given(case=_unread_under_broad_allow(), mode=st.sampled_from(["default", "dontAsk", "bypassPermissions"]))
def test_broad_allow_never_vouches_for_unread_part(
    new_harness: Callable[[], Any], case: tuple[str, str, str], mode: str
) -> None:
    """PERM-17: a broad allow rule never vouches for an unread command past a deny that may apply.

    An allow rule naming only the outer program (``Bash(git:*)``, ``Bash(zip:*)``) never lets a command
    the engine can't read (an unknown git subcommand, ``zip -TT``, ``run-parts``, inline code) run
    unasked: vouching needs the rule to name the unread form itself.
    """
    command, deny, allow = case
    rules = [RuleSpec(deny, "deny"), RuleSpec(allow, "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": command})], rules=rules, mode=mode)
    assert run.ran() == 0, f"{allow} vouched for {command!r} past {deny} ({mode}): {run.describe()}"


# Programs the engine does not model that hand one word to a shell (tmux's and screen's command, entr -s,
# dtach's sh -c): an allow rule naming the program trusts what it is given.
_SHELL_STRING_CARRIERS = ("tmux new -d {}", "tmux new-window {}", "byobu new -d {}", "screen -dm sh -c {}",
                          "entr -s {}", "dtach -n s sh -c {}")  # fmt: skip


def _double_quoted(text: str) -> str:
    return '"' + re.sub(r'([\\"$`])', r"\\\1", text) + '"'


@st.composite
def _quoted_inside_a_shell_string(draw: st.DrawFn) -> tuple[str, str, str]:
    """(line, the same line running ``echo`` instead, its program): ``rm`` spelled with quotes inside a shell string an unread program runs.

    ``tmux new -d 'r""m -rf x'``: the shell tmux starts removes the quotes and runs ``rm``; the name is
    a word only once that string is read as shell text (once more through an inner ``sh -c``).
    """
    name, quote = "rm", draw(st.sampled_from(["'", '"']), label="quote in the name")
    cut = draw(st.integers(0, len(name)), label="cut at")
    head, tail = name[:cut], name[cut:]
    spelled = draw(
        st.sampled_from(
            [f"{head}{quote}{quote}{tail}", f"{quote}{head}{quote}{tail}", f"{head}{quote}{tail}{quote}"]
        ),
        label="spelled",
    )
    before = draw(st.sampled_from(["", "true; ", "cd /tmp && ", "echo a | "]), label="before")
    operands = draw(st.sampled_from(["-rf x", "-f x", "x"]), label="operands")
    inner = draw(st.sampled_from([None, shlex.quote, _double_quoted]), label="through sh -c, quoted")
    outer = draw(st.sampled_from([shlex.quote, _double_quoted]), label="outer quoting")
    carrier = draw(st.sampled_from(_SHELL_STRING_CARRIERS), label="carrier")

    def line(program: str) -> str:
        text = f"{before}{program} {operands}"
        return carrier.format(outer(text if inner is None else "sh -c " + inner(text)))

    return line(spelled), line("echo"), carrier.split()[0]


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    case=_quoted_inside_a_shell_string(),
    form=st.sampled_from(["Bash({}:*)", "Bash({} *)"]),
    mode=st.sampled_from(["default", "dontAsk", "bypassPermissions"]),
)
def test_allow_on_unread_program_never_vouches_for_a_quoted_denied_name(
    new_harness: Callable[[], Any], case: tuple[str, str, str], form: str, mode: str
) -> None:
    """PERM-17: a deny rule holds when the line names its program with quotes inside a string an unread program runs.

    An allow rule naming a program the harness does not read (``Bash(tmux:*)``) trusts what that
    program is given, not a way around ``Bash(rm:*)`` written on the same line: ``tmux new -d
    'r""m -rf x'`` runs ``rm`` (the shell tmux starts removes the quotes). Drawn: the carrier, the
    quoting splitting the name (an empty pair, a quoted part) and where, the text around it, an inner
    ``sh -c``, the allow rule's form and the mode. The call must not run. Control (PERM-16): the same
    line running ``echo`` instead runs, the allow rule vouching for the program it names.
    """
    line, control, program = case
    rules = [RuleSpec("Bash(rm:*)", "deny"), RuleSpec(form.format(program), "allow")]
    ordinary = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": control})], rules=rules, mode=mode
    )
    assert ordinary.ran() == 1, (
        f"{form.format(program)} must allow {control!r} ({mode}): {ordinary.describe()}"
    )
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode)
    assert run.ran() == 0, (
        f"{form.format(program)} vouched for {line!r} past Bash(rm:*) ({mode}): {run.describe()}"
    )


@st.composite
def _helper_starting_commands(draw: st.DrawFn) -> tuple[str, str]:
    """(command, helper): a command that starts ``helper`` with no option naming a program."""
    kind = draw(
        st.sampled_from(["tar", "other-name", "git-ssh", "git-sign", "remote-copy", "tar-default", "default"])
    )
    if kind == "remote-copy":
        # scp's and sftp's -S, rsync's -e name the program that reaches the host: without it, ssh.
        program = draw(st.sampled_from(["scp", "scp -r", "scp -q -P 22", "rsync -a", "rsync -az --delete"]))
        host = draw(st.sampled_from(["h", "user@h", "[::1]", "h.example.invalid"]))
        local = draw(st.sampled_from(["f", "./d/", "/tmp/x"]))
        if draw(st.booleans()):
            return f"{program} {local} {host}:x", "ssh"
        return f"{program} {host}:x {local}", "ssh"
    if kind == "tar-default":
        # tar's -I names the compressor: without it -a picks one by the suffix; --lzip, -Z... name one.
        helper, suffix = draw(
            st.sampled_from(
                [("gzip", ".tgz"), ("bzip2", ".tar.bz2"), ("xz", ".txz"), ("zstd", ".tar.zst"),
                 ("lzip", ".tar.lz"), ("lzop", ".tar.lzo"), ("compress", ".tar.Z"), ("lzma", ".tlz")]
            )
        )  # fmt: skip
        spelled = draw(st.sampled_from(["old", "short", "long"]))
        if spelled == "old":
            return f"tar c{draw(st.sampled_from(['a', 'va', 'av']))}f out{suffix} f", helper
        if spelled == "short":
            return f"tar -c{draw(st.sampled_from(['a', 'va']))}f out{suffix} f", helper
        named = {"lzip": "--lzip", "lzop": "--lzop", "compress": draw(st.sampled_from(["-Z", "--compress"]))}
        option = named.get(helper, draw(st.sampled_from(["-a", "--auto-compress", "--auto-c"])))
        return f"tar -c {option} -f out{suffix} f", helper
    if kind == "default":
        # An option naming a program is absent, and its default runs (install's --strip-program, git
        # maintenance's --scheduler, the help viewer), or a subcommand starts one (npm version: git).
        return draw(
            st.sampled_from(
                [
                    (
                        f"install {draw(st.sampled_from(['-s', '--strip', '-sm 755', '-m 755 -s']))} f f2",
                        "strip",
                    ),
                    ("sftp h", "ssh"),
                    ("sftp -b /dev/null user@h", "ssh"),
                    (f"git maintenance {draw(st.sampled_from(['start', 'stop']))}", "crontab"),
                    ("git maintenance start --scheduler=systemd-timer", "systemctl"),
                    (f"npm version {draw(st.sampled_from(['patch', 'minor', '1.2.3']))}", "git"),
                    (f"git {draw(st.sampled_from(['log', 'commit', 'status']))} --help", "man"),
                    (f"git help {draw(st.sampled_from(['log', 'config']))}", "man"),
                    (f"npm help {draw(st.sampled_from(['install', 'scripts']))}", "man"),
                    ("man ls", "less"),
                ]
            )
        )
    if kind == "tar":
        letter, helper, long = draw(
            st.sampled_from([("z", "gzip", "gzip"), ("j", "bzip2", "bzip2"), ("J", "xz", "xz")])
        )
        style = draw(st.sampled_from(["old", "short", "long"]))
        bundle = "".join(draw(st.permutations(["c", letter, "v"]))) + "f"
        if style == "old":
            return f"tar {bundle} out.t f", helper
        if style == "short":
            return f"tar -{bundle} out.t f", helper
        cut = draw(st.integers(min_value=min(3, len(long)), max_value=len(long)))
        return f"tar -cf out.t --{long[:cut]} f", helper
    if kind == "other-name":
        name, helper = draw(
            st.sampled_from(
                [("zcat", "gzip"), ("gunzip", "gzip"), ("xzcat", "xz"), ("unxz", "xz"), ("bzcat", "bzip2")]
            )
        )
        return f"{name} x.z", helper
    if kind == "git-ssh":
        scheme = draw(st.sampled_from(["ssh", "git+ssh", "ssh+git"]))
        sub = draw(st.sampled_from(["ls-remote", "fetch", "clone"]))
        return f"git {sub} {scheme}://localhost/x", "ssh"
    key = draw(st.sampled_from(["commit.gpgsign=true", "commit.gpgSign=yes"]))
    return f"git -c {key} commit -q --allow-empty -m x", "gpg"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None)
@given(case=_helper_starting_commands(), mode=st.sampled_from(["default", "bypassPermissions"]))
def test_deny_on_helper_catches_program_starting_it(
    new_harness: Callable[[], Any], case: tuple[str, str], mode: str
) -> None:
    """PERM-17: a deny rule on a helper program holds when another program starts it by default.

    ``tar czf`` (any bundle order, dashless or not, ``--gzip`` abbreviated) starts gzip, ``zcat`` is
    ``gzip -cd``, ``git ls-remote ssh://...`` starts ssh, ``commit.gpgsign`` starts gpg: "no option
    names a program" is not "starts no program". The option that would name a program has a default
    that runs when it is absent: scp/sftp/rsync to another host start ssh (``-S``/``-e``), tar ``-a``
    the compressor of the archive's suffix (``-I``), ``install -s`` strip (``--strip-program``), git
    maintenance crontab (``--scheduler``), ``git X --help``/``git help``/``npm help`` man, which
    starts a pager; ``npm version`` runs git.
    """
    command, helper = case
    program = command.split()[0]
    rules = [RuleSpec(f"Bash({helper}:*)", "deny"), RuleSpec(f"Bash({program}:*)", "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": command})], rules=rules, mode=mode)
    assert run.ran() == 0, f"Bash({helper}:*) deny let {command!r} start {helper} ({mode}): {run.describe()}"
