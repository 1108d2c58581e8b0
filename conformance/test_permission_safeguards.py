"""Permission safeguards through ``execute``: PERM-12..15.

A malformed rule is refused by name or never widens (PERM-12), every decision records its reason
(PERM-13), deciding never raises (PERM-14), and protected paths are never auto-allowed (PERM-15);
observed from outside the harness, as in ``test_permissions.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    BASH_CALL,
    COMMAND,
    assert_protected_write_asks,
    assert_runs_unasked,
    edit_tool,
    fetch_tool,
    host_answering,
    mcp_tool_spec,
    plain_tool,
    pre_hook,
    read_tool,
    run_calls,
    shell_tool,
    sources,
    tools,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import CONTENTLESS_TOOLS, RuleSpec, ToolSpec

MALFORMED_EXAMPLES = ("Bash(npm test", "(foo)", "Bash(:*)", "Bash)npm test(", "Ba sh(ls)", "Bash(ls) now", "")
# Hosts no URL parser reads with certainty: an undecodable escape, a bracketed non-address, an empty
# IDNA label, an IPv4 part out of range, IDNA 2003 and 2008 disagreeing.
# Each known form once, whatever the generator draws: bad content of each rule family.
KNOWN_MALFORMED = (
    *MALFORMED_EXAMPLES[:-1],
    *("Bash(git:*:*)", "Bash(git :* push)", "Read(!secret/**)", "Edit(src/**/../x)", "Read([ab)"),
    *("WebFetch(example.com)", "mcp__srv__run(x)"),
)
MALFORMED_HOSTS = ("%ff.example", "[zzz]", "bücher..example", "1.2.3.256", "zß.example")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    text=st.one_of(st.sampled_from(MALFORMED_EXAMPLES), ths.malformed_rules()),
    behavior=st.sampled_from(["allow", "ask", "deny"]),
    source=sources(),
    mode=st.sampled_from(["default", "acceptEdits", "dontAsk"]),
)
def test_malformed_rule_is_refused_by_name_or_never_widens(
    new_harness: Callable[[], Any], text: str, behavior: str, source: str, mode: str
) -> None:
    """PERM-12: a malformed rule is refused with an error naming it, or it never lets a call run unasked.

    A malformed deny or ask rule sits beside a valid allow rule: silently dropping it would let
    the call run without asking, so a harness must either refuse the rule set or not run the call.
    """
    rule = RuleSpec(text, behavior, source)  # type: ignore[arg-type]
    assert_refused_by_name_or_never_widens(new_harness, tools(), BASH_CALL, rule, mode=mode)


def assert_refused_by_name_or_never_widens(
    new_harness: Callable[[], Any],
    tool_specs: list[ToolSpec],
    call: tuple[str, dict[str, Any]],
    rule: RuleSpec,
    *,
    mode: str = "default",
) -> None:
    """A malformed ``rule`` is refused with an error naming it, or ``call`` does not run unasked.

    A deny or ask rule sits beside an allow of the call's tool; the host would say no.
    """
    rules = [rule] if rule.behavior == "allow" else [rule, RuleSpec(call[0], "allow", rule.source)]
    try:
        run = run_calls(
            new_harness(), tool_specs, [call], rules=rules, mode=mode, host=host_answering("deny")
        )
    except Exception as error:
        message = str(error)
        assert rule.text in message or repr(rule.text) in message, (
            f"the malformed rule {rule.text!r} was refused, but the error does not name it: {message!r}"
        )
        return
    assert run.ran() == 0 or run.asked, (
        f"malformed {rule.behavior} rule {rule.text!r} was accepted and the call ran unasked: {run.describe()}"
    )


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-12", "MUST")
@pytest.mark.parametrize("text", KNOWN_MALFORMED)
@settings(max_examples=6, deadline=None)
@given(behavior=st.sampled_from(["allow", "ask", "deny"]))
def test_each_known_malformed_rule_is_refused_by_name_or_never_widens(
    new_harness: Callable[[], Any], text: str, behavior: str
) -> None:
    """PERM-12: each known malformed form of each rule family is refused with an error naming it, or never lets the call it speaks of run unasked."""
    tool = {"R": read_tool(), "E": edit_tool(), "W": fetch_tool(), "m": mcp_tool_spec("srv", "run")}.get(
        text[0], shell_tool()
    )
    argument = {"R": "secret/x", "E": "src/a/../x", "W": "https://example.com/"}.get(text[0], "git x push")
    field = {"R": "file_path", "E": "file_path", "W": "url"}.get(text[0], "command")
    rule = RuleSpec(text, behavior)  # type: ignore[arg-type]
    assert_refused_by_name_or_never_widens(new_harness, [tool], (tool.name, {field: argument}), rule)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-12", "MUST")
@pytest.mark.parametrize("host", MALFORMED_HOSTS)
@settings(max_examples=6, deadline=None)
@given(behavior=st.sampled_from(["allow", "ask", "deny"]))
def test_domain_rule_with_an_unreadable_host_is_refused_by_name_or_never_widens(
    new_harness: Callable[[], Any], host: str, behavior: str
) -> None:
    """PERM-12: ``WebFetch(domain:h)`` with a host no URL parser reads with certainty is refused with an error naming it, or never lets a fetch run unasked."""
    rule = RuleSpec(f"WebFetch(domain:{host})", behavior)  # type: ignore[arg-type]
    assert_refused_by_name_or_never_widens(
        new_harness, [fetch_tool()], ("WebFetch", {"url": f"https://{host}/"}), rule
    )


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("PERM-13", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(
    cause=st.sampled_from(["deny_rule", "allow_rule", "ask_rule", "hook_deny", "hook_allow", "plan", "host"]),
    source=sources(),
)
def test_each_decision_records_its_reason_and_source(
    new_harness: Callable[[], Any], cause: str, source: str
) -> None:
    """PERM-13: the recorded decision names its behavior and what made it: the rule text and settings source, the hook, the mode, or the host."""
    rule_text = "Bash(git push:*)"
    rules = {
        "deny_rule": [RuleSpec(rule_text, "deny", source)],
        "allow_rule": [RuleSpec(rule_text, "allow", source)],
        "ask_rule": [RuleSpec(rule_text, "ask", source)],
    }.get(cause, [])
    hooks = {"hook_deny": [pre_hook("deny")], "hook_allow": [pre_hook("allow")]}.get(cause, [])
    mode = "plan" if cause == "plan" else "default"
    run = run_calls(
        new_harness(), tools(), [BASH_CALL], rules=rules, mode=mode, hooks=hooks, host=host_answering("allow")
    )
    decision = run.decision()
    assert decision, f"no decision recorded for toolu_1 ({cause}): {run.describe()}"
    expected_behavior = "deny" if cause in ("deny_rule", "hook_deny", "plan") else "allow"
    assert decision.get("behavior") == expected_behavior, (
        f"{cause}: expected {expected_behavior}, got {decision}"
    )
    stage = str(decision.get("stage") or "")
    if cause in ("deny_rule", "allow_rule"):
        assert (decision.get("rule"), decision.get("source")) == (rule_text, source), (
            f"{cause}: the decision must name rule {rule_text!r} from {source}, got {decision}"
        )
    elif cause in ("hook_deny", "hook_allow"):
        assert decision.get("hook") or "hook" in stage, (
            f"{cause}: the decision must name the hook: {decision}"
        )
        assert decision.get("rule") is None, f"{cause}: no rule made this decision: {decision}"
    elif cause == "plan":
        assert decision.get("mode") == "plan", f"plan: the decision must name the mode: {decision}"
    else:
        assert "host" in stage or "user" in stage, f"{cause}: the decision must name the host: {decision}"
        assert decision.get("rule") in (None, rule_text), f"{cause}: unexpected rule in {decision}"


# --------------------------------------------------------------------------------------------
# PERM-12 as amended: a rule that loads means what it says.


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    text=st.sampled_from(
        [
            "Bash(git push :* )",
            "Bash( git push:*)",
            "Bash(git push :*)",
            "Bash(git  push:*)",
            "Bash( git push * )",
        ]
    ),
    mode=st.sampled_from(["default", "bypassPermissions"]),
)
def test_deny_rule_with_stray_blanks_is_refused_or_denies(
    new_harness: Callable[[], Any], text: str, mode: str
) -> None:
    """PERM-12: ``Bash(git push :* )`` (as in real settings files) is refused by name, or denies ``git push``; it never loads and denies nothing."""
    rules = [RuleSpec(text, "deny"), RuleSpec("Bash", "allow")]
    try:
        run = run_calls(new_harness(), tools(), [BASH_CALL], rules=rules, mode=mode)
    except Exception as error:
        message = str(error)
        assert text in message or repr(text) in message, f"refused {text!r} without naming it: {message}"
        return
    assert run.ran() == 0, (
        f"deny rule {text!r} loaded but did not deny {COMMAND!r} ({mode}): {run.describe()}"
    )


# Prefixes a deny rule names with its command: one word, two, a wrapper bash runs the rest of.
_DENIED_PREFIXES = (
    ("git push", "git push origin main"),
    ("sudo", "sudo rm -rf build"),
    ("npm run", "npm run deploy"),
    ("curl", "curl -s https://example.com"),
    ("env", "env X=1 make"),
)


@st.composite
def _stray_blanks(draw: st.DrawFn, prefix: str) -> str:
    """``prefix`` as a rule's content with blanks where settings files carry them: composed."""
    blank = st.sampled_from((" ", "  ", "\t", " \t"))
    words = prefix.split(" ")
    inner = draw(blank).join(words) if len(words) > 1 and draw(st.booleans()) else prefix
    before = draw(blank) if draw(st.booleans()) else ""
    star = draw(st.sampled_from((":*", "*", " *")))
    gap = draw(blank) if star == ":*" and draw(st.booleans()) else ""
    after = draw(blank) if draw(st.booleans()) else ""
    return f"Bash({before}{inner}{gap}{star}{after})"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    denied=st.sampled_from(_DENIED_PREFIXES),
    mode=st.sampled_from(["default", "bypassPermissions"]),
    behavior=st.sampled_from(["deny", "allow"]),
)
@example(data=None, denied=("git push", "git push origin main"), mode="default", behavior="deny")
@example(data=None, denied=("sudo", "sudo rm -rf build"), mode="bypassPermissions", behavior="deny")
def test_rule_of_any_prefix_with_stray_blanks_is_refused_or_means_what_it_names(
    new_harness: Callable[[], Any],
    data: st.DataObject | None,
    denied: tuple[str, str],
    mode: str,
    behavior: str,
) -> None:
    """PERM-12: ``Bash(git push :* )``, ``Bash( sudo  :*)`` (as in real settings files) are refused by name, or mean what they name: a deny denies its command, an allow allows it.

    Composed: the prefix (one word, two, a wrapper) x blanks and tabs before it, between its words,
    before ``:*`` and after it; the ``:*``, ``*`` and `` *`` forms; a deny (in default and
    bypassPermissions) or an allow (default, a host that refuses whatever it is asked).
    """
    prefix, command = denied
    if behavior == "allow" and prefix in ("sudo", "env"):
        behavior = "deny"  # an allow rule on a wrapper alone does not cover what it runs (PERM-16)
    text = f"Bash({prefix} :* )" if data is None else data.draw(_stray_blanks(prefix), label="rule")
    if behavior == "allow":
        rules, mode, host = [RuleSpec(text, "allow")], "default", host_answering("deny")
    else:
        rules, host = [RuleSpec(text, "deny"), RuleSpec("Bash", "allow")], None
    try:
        run = run_calls(
            new_harness(), tools(), [("Bash", {"command": command})], rules=rules, mode=mode, host=host
        )
    except Exception as error:
        message = str(error)
        assert text in message or repr(text) in message, f"refused {text!r} without naming it: {message}"
        return
    if behavior == "allow":
        assert run.ran() == 1, f"allow rule {text!r} loaded but did not allow {command!r}: {run.describe()}"
    else:
        assert run.ran() == 0, (
            f"deny rule {text!r} loaded but did not deny {command!r} ({mode}): {run.describe()}"
        )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=15, deadline=None)
@given(text=st.sampled_from(["bash(git push:*)", "BASH", "bash", "mcp__github__create_issue(x)"]))
def test_rule_that_could_never_match_is_refused(new_harness: Callable[[], Any], text: str) -> None:
    """PERM-12: a deny rule that could never match as written (a lower-case tool name, content on an MCP tool) is refused by name or still denies."""
    tool = mcp_tool_spec("github", "create_issue")
    rules = [RuleSpec(text, "deny"), RuleSpec("Bash", "allow"), RuleSpec(tool.name, "allow")]
    call = BASH_CALL if "mcp" not in text else (tool.name, {})
    try:
        run = run_calls(new_harness(), [*tools(), tool], [call], rules=rules)
    except Exception as error:
        message = str(error)
        assert text in message or repr(text) in message, f"refused {text!r} without naming it: {message}"
        return
    assert run.ran() == 0, f"deny rule {text!r} loaded but denies nothing: {run.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(["Deploy", "Notify", *CONTENTLESS_TOOLS]),
    content=st.sampled_from(["prod", "x", "*", "cats", "git push:*", "domain:example.com", "./file"]),
    behavior=st.sampled_from(["deny", "ask"]),
    mode=st.sampled_from(["default", "bypassPermissions", "acceptEdits"]),
)
def test_content_rule_on_a_tool_with_no_content_is_refused_or_holds(
    new_harness: Callable[[], Any], name: str, content: str, behavior: str, mode: str
) -> None:
    """PERM-12: a content rule on a tool with no content to compare is refused by name, or holds.

    A deny or ask rule such as ``Deploy(prod)`` on a tool with no permission target (one the program
    adds, or a built-in name such as ``TodoWrite`` or ``WebSearch``) is refused by name, or the call
    does not run unasked. It never loads and lets the call through as if it were not written.
    """
    tool = plain_tool(name)
    text = f"{name}({content})"
    rules = [RuleSpec(text, behavior), RuleSpec(name, "allow")]  # type: ignore[arg-type]
    try:
        run = run_calls(new_harness(), [tool], [(name, {"x": content})], rules=rules, mode=mode)
    except Exception as error:
        message = str(error)
        assert text in message or repr(text) in message, f"refused {text!r} without naming it: {message}"
        return
    assert run.ran() == 0, f"{behavior} rule {text!r} loaded and let {name} run ({mode}): {run.describe()}"


# --------------------------------------------------------------------------------------------
# PERM-14: deciding never raises.

NASTY_COMMANDS = (
    "echo " + "$(" * 3000 + "rm" + ")" * 3000,
    "echo " + "`" * 999,
    "echo " + "${x:-" * 2000 + "}" * 2000,
    "x" * 200_000,
    "cat <<" + "E" * 5000,
    "echo \udcff \x00 \u202e",
    "(" * 4000 + "rm" + ")" * 4000,
    "bash -c " + "'bash -c " * 30 + "rm" + "'" * 30,
)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-14", "MUST")
@settings(max_examples=len(NASTY_COMMANDS) * 2, deadline=None)
@given(command=st.sampled_from(NASTY_COMMANDS), mode=st.sampled_from(["default", "bypassPermissions"]))
def test_deciding_never_raises(new_harness: Callable[[], Any], command: str, mode: str) -> None:
    """PERM-14: deeply nested, huge or garbled commands get a recorded decision with its reason, never an exception.

    Beside ``Bash(echo:*)`` allow and ``Bash(rm:*)`` deny: in default mode none runs unasked; in
    bypassPermissions none that may run ``rm`` does.
    """
    rules = [RuleSpec("Bash(echo:*)", "allow"), RuleSpec("Bash(rm:*)", "deny")]
    host = host_answering("deny")
    try:
        run = run_calls(
            new_harness(), tools(), [("Bash", {"command": command})], rules=rules, mode=mode, host=host
        )
    except Exception as error:
        pytest.fail(f"deciding on {command[:60]!r}... raised {type(error).__name__}: {error}")
    assert run.tool_result()  # the call was answered
    decision = run.decision()
    missing = f"no decision with a reason was recorded for {command[:60]!r}...: {run.describe()[:500]}"
    assert decision.get("behavior") in ("allow", "ask", "deny"), missing
    assert decision.get("detail"), missing
    if mode == "default" or "rm" in command:
        assert run.ran() == 0, f"{command[:60]!r}... ran unasked ({mode}): {run.describe()[:500]}"


# --------------------------------------------------------------------------------------------
# PERM-15: protected paths.

PROTECTED = (
    ".git/hooks/pre-commit",
    ".git/config",
    ".claude/settings.json",
    ".vscode/tasks.json",
    ".idea/workspace.xml",
    ".husky/pre-push",
    ".mcp.json",
    ".gitmodules",
    "src/../.git/hooks/post-checkout",
    "~/.bashrc",
    "~/.zshrc",
    "~/.gitconfig",
)


STARTUP_FILES = (
    "~/.zshenv",
    "~/.zprofile",
    "~/.zlogin",
    "~/.profile",
    "~/.bash_logout",
    "~/.tcshrc",
    "~/.cshrc",
    "~/.kshrc",
    "~/.config/fish/config.fish",
    ".config/fish/config.fish",
    "sub/dir/.config/fish/config.fish",
)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=80, deadline=None)
@given(
    path=st.sampled_from(PROTECTED + STARTUP_FILES),
    mode=st.sampled_from(["acceptEdits", "bypassPermissions"]),
    via=st.sampled_from(["edit", "redirection"]),
)
def test_protected_paths_are_never_auto_allowed(
    new_harness: Callable[[], Any], path: str, mode: str, via: str
) -> None:
    """PERM-15: a write to a protected path or a shell start-up file (zsh, sh, bash, csh, ksh, fish), through a file tool or a shell redirection, asks in acceptEdits and bypassPermissions."""
    if via == "redirection" and mode == "acceptEdits":
        return  # acceptEdits never auto-allows shell commands anyway
    tool, call = (
        (edit_tool(), ("Edit", {"file_path": path}))
        if via == "edit"
        else (shell_tool(), ("Bash", {"command": f"echo pwned >> {path}"}))
    )
    run = run_calls(new_harness(), [tool], [call], mode=mode, host=host_answering("deny"))
    assert run.ran() == 0, f"{via} of protected {path!r} ran unasked in {mode}: {run.describe()}"
    assert len(run.asked) == 1, f"{via} of protected {path!r} in {mode} must ask: {run.describe()}"


# Files that make code run later beyond the user's own: the system-wide copy of each protected user
# file (git-config(1), bash(1), ssh_config(5), npm's $PREFIX/etc/npmrc...), what makes every program
# or a scheduler run code (ld.so(8), crontab(5), systemd units), and program start-up files
# (gdb(1), fish's conf.d, vim's plugins, pre-commit's hook list).
SYSTEM_STARTUP_FILES = (
    "/etc/gitconfig",
    "/usr/local/etc/gitconfig",
    "/etc/bash.bashrc",
    "/etc/profile",
    "/etc/profile.d/zz.sh",
    "/etc/zsh/zshenv",
    "/etc/ssh/ssh_config",
    "/etc/ssh/ssh_config.d/zz.conf",
    "/etc/npmrc",
    "/etc/ld.so.preload",
    "/etc/cron.d/zz",
    "/etc/systemd/system/zz.service",
    "/etc/environment",
    "~/.gdbinit",
    "~/.config/fish/conf.d/zz.fish",
    "~/.vim/plugin/zz.vim",
    "~/.config/nvim/init.lua",
    "~/.config/systemd/user/zz.service",
    ".pre-commit-config.yaml",
    # The harness's own configuration (mcpServers, managed settings) and programs' start-up code:
    # mvn(1) sources ~/.mavenrc; IPython runs every profile's startup/*.py.
    "~/.claude.json",
    "/etc/claude-code/managed-settings.json",
    "/etc/claude-code/managed-settings.d/zz.json",
    "~/.mavenrc",
    "~/.ipython/profile_default/startup/00-zz.py",
    "~/.ipython/profile_zz/ipython_config.py",
)


def _spellings(path: str) -> list[str]:
    """Other spellings of ``path``: a doubled or ``.`` segment, ``$HOME`` for ``~``."""
    head, _, tail = path.rpartition("/")
    found = [path, f"{head}//{tail}" if head else f".//{tail}", f"{head}/./{tail}" if head else f"./{tail}"]
    if path.startswith("~/"):
        found.append("$HOME/" + path[2:])
    return found


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    path=st.sampled_from(SYSTEM_STARTUP_FILES),
    spelling=st.integers(0, 3),
    via=st.sampled_from(["edit", "redirection", "tee", "cp", "cd"]),
)
@example(path="/etc/gitconfig", spelling=0, via="edit")
@example(path="/etc/profile.d/zz.sh", spelling=0, via="redirection")
@example(path="~/.gdbinit", spelling=0, via="redirection")
@example(path="~/.claude.json", spelling=0, via="edit")
@example(path="~/.ipython/profile_default/startup/00-zz.py", spelling=3, via="cd")
def test_system_and_program_start_up_files_are_never_auto_allowed(
    new_harness: Callable[[], Any], path: str, spelling: int, via: str
) -> None:
    """PERM-15: a write to a file that makes code run later, system-wide (/etc/gitconfig, /etc/profile.d/*, /etc/ld.so.preload, /etc/npmrc...), a program's (~/.gdbinit, fish conf.d, vim plugins, systemd user units, .pre-commit-config.yaml, ~/.mavenrc, IPython's startup/) or the harness's own (~/.claude.json, managed settings), asks in bypassPermissions.

    Composed: the file x its spelling (``//``, ``/./``, ``$HOME``) x how it is written (a file
    tool, ``>>``, ``tee -a``, ``cp``, ``cd`` to its directory first). Judged on the verdict: the
    files are outside any temporary directory, so nothing is run.
    """
    spelled = _spellings(path)[spelling % len(_spellings(path))]
    head, _, tail = spelled.rpartition("/")
    command = {
        "redirection": f"echo pwned >> {spelled}",
        "tee": f"echo pwned | tee -a {spelled}",
        "cp": f"cp /dev/null {spelled}",
        "cd": f"cd {head or '.'} && echo pwned >> {tail}",
    }.get(via)
    tool, call = (
        (edit_tool(), ("Edit", {"file_path": path}))
        if command is None
        else (shell_tool(), ("Bash", {"command": command}))
    )
    run = run_calls(new_harness(), [tool], [call], mode="bypassPermissions", host=host_answering("deny"))
    assert run.ran() == 0, f"{via} of {spelled!r} ran unasked in bypassPermissions: {run.describe()}"
    assert len(run.asked) == 1, f"{via} of {spelled!r} must ask: {run.describe()}"


def _assert_shell_command_asks(
    harness: Any, command: str, mode: str, rules: list[RuleSpec] | None = None, what: str = ""
) -> None:
    """``command`` through the Bash tool in ``mode`` (under ``rules``) asks once, and runs nothing."""
    run = run_calls(
        harness,
        [shell_tool()],
        [("Bash", {"command": command})],
        rules=rules or [],
        mode=mode,
        host=host_answering("deny"),
    )
    assert run.ran() == 0, f"{command!r} {what}ran unasked in {mode}: {run.describe()}"
    assert len(run.asked) == 1, f"{command!r} {what}in {mode} must ask: {run.describe()}"


@st.composite
def _program_allowed_write(draw: st.DrawFn) -> tuple[str, str]:
    """A command writing a protected file by redirection, and an allow rule naming only its program.

    Every operator that opens the file for writing (``2>`` truncates it too), the redirection before,
    among or after the words, and a rule by prefix, wildcard or the exact words without the redirection.
    """
    path = draw(st.sampled_from(PROTECTED + STARTUP_FILES))
    program, words = draw(st.sampled_from([("echo", "pwned"), ("printf", "x"), ("true", ""), ("ls", "-a")]))
    operator = draw(st.sampled_from([">", ">>", ">|", "1>", "2>", "&>", "&>>", "1>>"]))
    redirection = f"{operator} {path}" if draw(st.booleans()) else f"{operator}{path}"
    parts = [program, *words.split()]
    parts.insert(draw(st.integers(0, len(parts))), redirection)
    rule = draw(
        st.sampled_from(
            [f"Bash({program}:*)", f"Bash({program} *)", f"Bash({' '.join([program, *words.split()])})"]
        )
    )
    return " ".join(parts), rule


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(write=_program_allowed_write(), mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]))
@example(write=("echo pwned >> ~/.bashrc", "Bash(echo:*)"), mode="default")
@example(write=("ls 2> .git/config", "Bash(ls)"), mode="default")
def test_an_allow_rule_naming_a_program_never_lets_it_write_a_protected_file(
    new_harness: Callable[[], Any], write: tuple[str, str], mode: str
) -> None:
    """PERM-15: an allow rule naming a program grants running it, never writing a protected file.

    ``Bash(echo:*)``, ``Bash(echo *)`` or the exact words: the program's redirection to a protected
    file asks in every mode (a protected path needs a grant of its own, never a blanket one).
    """
    command, rule = write
    _assert_shell_command_asks(new_harness(), command, mode, [RuleSpec(rule, "allow")], f"under {rule} ")


# Protected files a program may be told to write (relative to the working directory, which is HOME
# to the judge too), and the directories the working directory holds before each line.
_WRITER_TARGETS = (
    ".git/hooks/pre-commit",
    ".git/config",
    ".claude/settings.json",
    ".vscode/tasks.json",
    ".husky/pre-push",
    ".mcp.json",
    ".gitmodules",
    ".bashrc",
    ".zshrc",
    ".gitconfig",
    ".profile",
    ".config/fish/config.fish",
)
_WRITER_DIRECTORIES = (".git/hooks", ".claude", ".vscode", ".husky", ".config/fish", "sub")


def _structural_spellings(target: str) -> list[str]:
    """``target`` as written, ``./``, ``~/``, ``sub/..``, ``..`` out and back, through a link to its directory or to it."""
    through_link = f"into/{target.partition('/')[2]}" if "/" in target else "alias"
    return [target, f"./{target}", f"~/{target}", f"sub/../{target}", f"../{{work}}/{target}", through_link]


@st.composite
def program_writes_to_a_protected_file(draw: st.DrawFn) -> tuple[str, str, str]:
    """(a line, an allow rule naming only its program, the protected file it names): composed.

    The writer and the form in which it writes a file it names come from the catalogue mined from the
    installed manual pages (``ths.file_writers``); the option spelled every way getopt reads it
    (``-o F``, ``-oF``, ``--out F``, ``--out=F``), an operand after ``--`` or not; the protected file
    through a spelling (relative, ``./``, ``~``, ``..`` out and back, a link to it or its directory)
    then quoted, escaped or expanded by bash (``ths.expanded_spellings``); the rule by prefix
    (``Bash(tee:*)``), wildcard (``Bash(tee *)``) or the line's words before the file (``Bash(tee -a:*)``).
    The line's ``{work}`` is the working directory's name.
    """
    entry = draw(ths.file_writers(), label="writer")
    target = draw(st.sampled_from(_WRITER_TARGETS), label="target")
    spelled = draw(st.sampled_from(_structural_spellings(target)))
    if draw(st.booleans()) and "{work}" not in spelled and not spelled.startswith("~"):
        spelled = draw(ths.expanded_spellings(spelled))
    option, joiner = draw(st.sampled_from(entry.spellings()))
    if entry.kind == "operand" and draw(st.booleans()):
        spelled = f"-- {spelled}"
    line = entry.command_line(spelled, option=option, joiner=joiner)
    before = line[: line.index(spelled)].strip()
    rules = [f"Bash({entry.program}:*)", f"Bash({entry.program} *)"]
    if before != entry.program and not before.endswith("="):
        rules.append(f"Bash({before}:*)")
    return line, draw(st.sampled_from(rules), label="rule"), target


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=80, deadline=None)
@given(
    write=program_writes_to_a_protected_file(),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
@example(write=("tee -a ~/.bashrc", "Bash(tee:*)", ".bashrc"), mode="default")
@example(write=("cp in.txt .git/hooks/pre-commit", "Bash(cp:*)", ".git/hooks/pre-commit"), mode="default")
@example(write=("sort -o.gitconfig in.txt", "Bash(sort *)", ".gitconfig"), mode="bypassPermissions")
def test_an_allow_rule_naming_a_program_never_lets_it_write_a_protected_file_it_names(
    new_harness: Callable[[], Any], write: tuple[str, str, str], mode: str
) -> None:
    """PERM-15: an allow rule naming a program never lets it write a protected file named by its own operands or options.

    ``Bash(tee:*)`` and ``tee -a ~/.bashrc``, ``Bash(cp *)`` and ``cp in.txt .git/hooks/pre-commit``,
    ``Bash(sort -o:*)`` and ``sort -o .gitconfig``: composed (:func:`program_writes_to_a_protected_file`)
    and judged by the filesystem: each line runs for real in a sandbox whose working directory (also
    ``HOME``) holds ``.git/hooks``, ``.claude``, ``.vscode`` and the links ``into`` (to the target's
    top directory) and ``alias`` (to the target); a line that does not change the protected file is
    no attempt (discarded). One that does asks (or is denied) in default, acceptEdits and
    bypassPermissions alike: it never runs unasked (a protected path needs a grant of its own).
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    line, rule, target = write
    work = fresh_dir()
    for directory in _WRITER_DIRECTORIES:
        (work / directory).mkdir(parents=True, exist_ok=True)
    (work / "into").symlink_to(target.split("/")[0])
    (work / "alias").symlink_to(target)
    for name, text in (("in.txt", "b\na\n"), ("in.diff", "")):
        (work / name).write_text(text, encoding="utf-8")
    line = line.replace("{work}", work.name)
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": line})],
        rules=[RuleSpec(rule, "allow")],
        mode=mode,
        host=host_answering("deny"),
        cwd=work,
    )
    assume(target in ths.written_paths(line, work))
    assert run.ran() == 0, (
        f"{line!r} writes {target} (the filesystem says so), yet ran unasked under {rule} in {mode}: "
        f"{run.describe()}"
    )


# Files ``git config -f`` may be told to write, protected wherever ``-C`` moves git (home or ``.git``).
_GIT_CONFIG_FILES = tuple(p for p in PROTECTED + STARTUP_FILES if p.startswith(("~/", ".git/")))


@st.composite
def git_config_writes(draw: st.DrawFn) -> str:
    """A ``git config`` line that writes a configuration file: composed.

    Where git runs (``-C DIR``) x which file (the repository's, ``--local``, ``--global``, or a
    protected file by ``-f F``, ``--file F``, ``--file=F``) x what it does (set, ``--add``,
    ``--replace-all`` a key; ``--unset``, ``--unset-all`` one; ``--remove-section``,
    ``--rename-section`` its section; ``--edit``) x how it says so (those options, or git 2.46's
    subcommands ``set --append``, ``unset --all``, ``remove-section``, ``edit``...), the options in
    any order: a write with fewer than two operands, or a file option anywhere among the options, is a
    write all the same.
    """
    key = draw(
        st.sampled_from(["core.hooksPath", "core.fsmonitor", "core.pager", "alias.x", "core.sshCommand"])
    )
    section = key.partition(".")[0]
    # (the option, git 2.46's subcommand and its option, the operands)
    legacy, subcommand, operands = draw(
        st.sampled_from(
            [
                ("", "set", f"{key} 'touch pwned'"),
                ("--add", "set --append", f"{key} 'touch pwned'"),
                ("--replace-all", "set --all", f"{key} 'touch pwned'"),
                ("--unset", "unset", key),
                ("--unset-all", "unset --all", key),
                ("--remove-section", "remove-section", section),
                ("--rename-section", "rename-section", f"{section} x"),
                ("--edit", "edit", ""),
            ]
        )
    )
    name, _, flag = subcommand.partition(" ")
    new = draw(st.booleans())
    action = flag if new else legacy
    named = draw(st.sampled_from(_GIT_CONFIG_FILES))
    file = draw(
        st.sampled_from(["", "--local", "--global", f"-f {named}", f"--file {named}", f"--file={named}"])
    )
    options = draw(st.permutations([o for o in (action, file) if o]))
    where = draw(st.sampled_from(["", "-C . ", "-C sub "]))
    # A subcommand comes first; options after it, in any order.
    return " ".join(w for w in (f"git {where}config", name if new else "", *options, operands) if w)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(command=git_config_writes())
@example(command="git config --unset core.hooksPath")
@example(command="git config edit")
@example(command="git config -f .git/hooks/pre-commit alias.x 'touch pwned'")
@example(command="git config --add --file .git/hooks/pre-commit alias.x 'touch pwned'")
def test_git_writing_its_own_configuration_is_never_auto_allowed(
    new_harness: Callable[[], Any], command: str
) -> None:
    """PERM-15: ``git config`` writing git's configuration (or a protected file it names) asks in bypassPermissions.

    It writes a hook path, a pager or an alias that later runs code, without naming the file; or
    removes one; or writes the file ``-f`` names (:func:`git_config_writes`).
    """
    _assert_shell_command_asks(new_harness(), command, "bypassPermissions")


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    move=st.sampled_from(["cd", "pushd", "builtin cd", "command cd"]),
    target=st.sampled_from([(".git", "config"), (".git/hooks", "pre-commit"), (".claude", "settings.json")]),
    joiner=st.sampled_from([" && ", "; ", "\n"]),
)
def test_protected_path_reached_after_a_change_of_directory_is_never_auto_allowed(
    new_harness: Callable[[], Any], move: str, target: tuple[str, str], joiner: str
) -> None:
    """PERM-15: ``cd .git && echo x > config`` writes a protected file by a relative name after the line changed directory: it asks in bypassPermissions."""
    directory, name = target
    command = f"{move} {directory}{joiner}echo pwned > {name}"
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        mode="bypassPermissions",
        host=host_answering("deny"),
    )
    assert (run.ran(), len(run.asked)) == (0, 1), (
        f"{command!r} must ask in bypassPermissions: {run.describe()}"
    )


# How a line names the program that changes bash's directory: spelled, wrapped, or computed (a value the
# line sets first, a substitution, a function, eval, a glob). (what the line runs first, the program's word.)
_DIRECTORY_CHANGERS: tuple[tuple[str, str], ...] = (
    *(("", word) for word in ("cd", "'cd'", "\\cd", "c''d", '"c"d', "$'cd'", "builtin cd", "command cd")),
    *(
        ("", word)
        for word in ("pushd", "builtin pushd", "command pushd", "eval cd", "${u:-cd}", "$(echo cd)")
    ),
    ("", "`printf cd`"),
    ("c=cd; ", "$c"),
    ("c=cd; ", "${c}"),
    ("c=(cd); ", "${c[0]}"),
    ("set -- cd; ", '"$1"'),
    ('go() { cd "$@"; }; ', "go"),
    ("p=$(printf cd); ", "$p"),
    # A glob that names cd once the line made a file called cd for it to match.
    ("touch cd; ", "c?"),
    ("touch cd; ", "[c]d"),
    ("> cd; ", "c*"),
)


@st.composite
def protected_writes_after_a_move(draw: st.DrawFn) -> tuple[str, str, str]:
    """(the line, the protected directory, the file): the line moves into the directory, then writes by a relative name.

    Composed: the program that moves (:data:`_DIRECTORY_CHANGERS`), its options, the directory spelled
    (relative, ``./``, a trailing ``/``, quoted, through ``$PWD``, ``~+`` or ``$(pwd)``, a glob), the
    joiner, the redirection that writes, and the whole in a subshell or a group.
    """
    directory, name = draw(
        st.sampled_from([(".git", "config"), (".git/hooks", "pre-commit"), (".claude", "settings.json")])
    )
    before, program = draw(st.sampled_from(_DIRECTORY_CHANGERS))
    option = draw(st.sampled_from(["", "-P ", "-L ", "-- "]))
    spelled = draw(
        st.sampled_from(
            [directory, f"./{directory}", f"{directory}/", f"'{directory}'", f'"$PWD/{directory}"',
             f"~+/{directory}", f'"$(pwd)/{directory}"', f"{directory[:-1]}?"]
        )
    )  # fmt: skip
    joiner = draw(st.sampled_from([" && ", "; ", "\n", " &&\n"]))
    write = draw(st.sampled_from([">", ">>", ">|", "1>", "&>"]))
    body = f"{program} {option}{spelled}{joiner}echo pwned {write} {name}"
    line = draw(st.sampled_from(["{}", "( {} )", "{{ {}; }}"])).format(body)
    return before + line, directory, name


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(case=protected_writes_after_a_move(), mode=st.sampled_from(["bypassPermissions", "acceptEdits"]))
# The glob corner in every run: the program's name as a pattern, read as a name, is "c?", not cd.
@example(case=("touch cd; c? .git && echo pwned > config", ".git", "config"), mode="bypassPermissions")
# Found by a random draw: the group makes the grammar read ``[c]d`` as a syntax error, and the
# write inside it was lost with it (so was a direct one after any such word).
@example(case=("touch cd; { [c]d .git && echo pwned > config; }", ".git", "config"), mode="bypassPermissions")
@example(case=("{ [x]y; echo pwned > .git/config; }", ".git", "config"), mode="bypassPermissions")
# The changer the first list of spellings missed: most drawn moves are also opaque to the engine for
# another reason (a computed name, eval, ``builtin``'s unread words), so a draw that only this one
# catches is rare.
@example(case=("builtin pushd .git && echo pwned > config", ".git", "config"), mode="bypassPermissions")
@example(case=("command pushd .git && echo pwned > config", ".git", "config"), mode="bypassPermissions")
def test_protected_path_written_after_any_change_of_directory_is_never_auto_allowed(
    new_harness: Callable[[], Any], case: tuple[str, str, str], mode: str
) -> None:
    """PERM-15: a line that moves into a protected directory and writes there by a relative name is never auto-allowed.

    The move is composed (the program spelled, wrapped, or computed at run time; its options; the
    directory's spelling; the joiner, the redirection, a subshell or a group). A real bash is the
    judge: each line runs in a directory holding ``.git/hooks`` and ``.claude``, and one that does not
    write the protected file is not an attempt (discarded). The harness must not run one that does
    unasked, in bypassPermissions or acceptEdits.
    """
    line, directory, name = case
    work = fresh_dir()
    for protected in (".git/hooks", ".claude"):
        (work / protected).mkdir(parents=True)
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": line})],
        mode=mode,
        host=host_answering("deny"),
        cwd=work,
    )
    subprocess.run(
        ["bash", "-c", line],
        cwd=work,
        env={**os.environ, "HOME": str(work)},
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    written = work / directory / name
    assume(written.is_file() and "pwned" in written.read_text(errors="replace"))
    assert run.ran() == 0, (
        f"{line!r} writes {directory}/{name} (bash did), yet ran unasked in {mode}: {run.describe()}"
    )


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=10, deadline=None)
@given(path=st.sampled_from(["src/app.py", "notes.txt", "git/hooks.md", "my.vscode.txt"]))
def test_ordinary_paths_are_still_auto_allowed(new_harness: Callable[[], Any], path: str) -> None:
    """PERM-15 (control): acceptEdits still allows an ordinary edit inside the working directory."""
    assert_runs_unasked(
        new_harness,
        edit_tool(),
        ("Edit", {"file_path": path}),
        "acceptEdits",
        f"acceptEdits must allow editing {path!r}",
    )


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=12, deadline=None)
@given(
    # Contents that open with a character sorting before ``*`` (quotes, ``$``, ``#``, ``&``, ``(``).
    rule=st.sampled_from(
        ['Bash("npm" test)', "Bash('make' lint)", "Bash($HOME/bin/lint)", "Bash(#comment)", "Bash(&& ls)"]
    ),
)
def test_allow_rule_with_content_allows_no_other_command(new_harness: Callable[[], Any], rule: str) -> None:
    """PERM-12: a content allow rule that loads means what it says: ``Bash("npm" test)`` never allows ``git push`` (it is no whole-tool ``Bash(*)``)."""
    run = run_calls(
        new_harness(), tools(), [BASH_CALL], rules=[RuleSpec(rule, "allow")], host=host_answering("deny")
    )
    assert run.ran() == 0, f"allow rule {rule!r} let {COMMAND!r} run: {run.describe()}"


# Shell code a line runs without showing it as its own command: ``{code}`` holds no single quote.
_CODE_CARRIERS = (
    "sh -c '{code}'",
    'bash -c "{code}"',
    "eval '{code}'",
    "bash <<< '{code}'",
    "sh -s <<'EOF'\n{code}\nEOF",
    "echo '{code}' | bash",
    ". /dev/stdin <<< '{code}'",
    "source <(echo '{code}')",
    "find . -maxdepth 0 -exec sh -c '{code}' \\;",
    # find's own start holds no protected file: only the code it runs writes one.
    "find /dev/null -exec sh -c '{code}' \\;",
    "xargs -0 sh -c '{code}' < /dev/null",
    "env sh -c '{code}'",
    "timeout 9 bash -c '{code}'",
    "bash -c \"eval '{code}'\"",
    "f() {{ {code}; }}; f",
    "( {code} )",
    "{{ {code}; }}",
    # Code held in a builtin's or a program's option: a mapfile callback, a command git runs from -c.
    "mapfile -C '{code}; :' -c 1 <<< z",
    "readarray -tC '{code}; :' -c 1 <<< z",
    "compgen -C '{code}; :' -W z z > /dev/null",
    "git -c diff.external='sh -c \"{code}\" --' diff --no-index /etc/hostname /etc/passwd",
)
# How the code writes the protected file ``{p}`` (in directory ``{d}``, name ``{n}``).
_PROTECTED_WRITES = (
    "echo pwned >> {p}",
    "echo pwned > {p}",
    "tee -a {p} <<< pwned",
    "cp /dev/null {p}",
    "cd {d} && echo pwned > {n}",
    "command -p cd {d} && echo pwned > {n}",
    "builtin -- cd {d}; echo pwned > {n}",
    "pushd {d} > /dev/null && echo pwned > {n}",
    "printf x | dd of={p} status=none",
    # sed's w command, its script in a long option however abbreviated (sed's own getopt_long).
    "sed -n --expression=w\\ {p} /etc/hostname",
    "sed -n --expr=w\\ {p} /etc/hostname",
    # The shell's own state, which the kernel reads in the shell, not in the engine: its directory
    # after the move (``/proc/self/cwd``), a descriptor the line opened on the directory (``/dev/fd/N``).
    "cd {d} && echo pwned > /proc/self/cwd/{n}",
    "cd {d}; cp /dev/null /proc/thread-self/cwd/{n}",
    # /proc/thread-self is two levels (``<pid>/task/<tid>``): climbing out of it twice is the process.
    "cd {d} && echo pwned > /proc/thread-self/../../cwd/{n}",
    # /proc's own links lead into the process too: /proc/net is ``self/net``.
    "cd {d}; cp /dev/null /proc/net/../cwd/{n}",
    "exec 3<{d}; echo pwned > /dev/fd/3/{n}",
    "exec 4<{d} && tee /proc/self/fd/4/{n} <<< pwned",
    "exec 3<{d}; cd /dev/fd/3 && echo pwned > {n}",
    "ln -s /proc/self/fd f && exec 3<{d} && echo pwned > f/3/{n}",
    # A program's own change of directory: git(1) -C moves first, then opens --file where it is.
    "git -C {d} config --file {n} core.x pwned",
    "git -C {d} config -f /proc/self/cwd/{n} core.x pwned",
)
_PROTECTED_TARGETS = (
    ".git/hooks/pre-commit",
    ".claude/settings.json",
    ".vscode/tasks.json",
    ".husky/pre-commit",
)


def _spelled_directory(target: str, broken: tuple[int, str]) -> str:
    r"""``target``'s protected directory as the code spells it, broken by ``broken`` = (``at``, quote).

    As is (``at`` below 2), or its name broken before its ``at``-th character by quotes or a backslash
    the inner shell removes (``.gi""t``, ``.hu\sky``), so no reading of the bare name sees it.
    """
    at, quote = broken
    head, slash, rest = target.partition("/")
    at = min(at, len(head) - 1)
    return target if at <= 1 else head[:at] + quote + head[at:] + slash + rest


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=50, deadline=None)
@given(
    carrier=st.sampled_from(_CODE_CARRIERS),
    write=st.sampled_from(_PROTECTED_WRITES),
    target=st.sampled_from(_PROTECTED_TARGETS),
    broken=st.tuples(st.integers(0, 4), st.sampled_from(['""', "\\"])),
)
@example(carrier="sh -c '{code}'", write="echo pwned >> {p}", target=".git/hooks/pre-commit", broken=(0, ""))
@example(
    carrier="( {code} )",
    write="command -p cd {d} && echo pwned > {n}",
    target=".claude/settings.json",
    broken=(0, ""),
)
@example(
    carrier="( {code} )",
    write="cd {d} && echo pwned > /proc/self/cwd/{n}",
    target=".git/hooks/pre-commit",
    broken=(0, ""),
)
@example(
    carrier="{{ {code}; }}",
    write="exec 3<{d}; echo pwned > /dev/fd/3/{n}",
    target=".claude/settings.json",
    broken=(0, ""),
)
@example(
    carrier="( {code} )",
    write="cd {d} && echo pwned > /proc/thread-self/../../cwd/{n}",
    target=".git/hooks/pre-commit",
    broken=(0, ""),
)
@example(
    carrier="find . -maxdepth 0 -exec sh -c '{code}' \\;",
    write="echo pwned > {p}",
    target=".claude/settings.json",
    broken=(0, ""),
)
# The red team of session 38: code in a mapfile callback and in git's -c diff.external, sed's
# script in --expression: each allowed in bypassPermissions before.
@example(
    carrier="mapfile -C '{code}; :' -c 1 <<< z",
    write="echo pwned >> {p}",
    target=".claude/settings.json",
    broken=(0, ""),
)
@example(
    carrier="git -c diff.external='sh -c \"{code}\" --' diff --no-index /etc/hostname /etc/passwd",
    write="cp /dev/null {p}",
    target=".git/hooks/pre-commit",
    broken=(0, ""),
)
@example(
    carrier="( {code} )",
    write="sed -n --expr=w\\ {p} /etc/hostname",
    target=".vscode/tasks.json",
    broken=(0, ""),
)
# A mutation sample of session 39: find -exec's code went unread for writes when the name is broken.
@example(
    carrier="find /dev/null -exec sh -c '{code}' \\;",
    write="echo pwned > {p}",
    target=".git/hooks/pre-commit",
    broken=(3, '""'),
)
def test_a_protected_file_written_by_code_the_line_runs_asks(
    new_harness: Callable[[], Any], carrier: str, write: str, target: str, broken: tuple[int, str]
) -> None:
    """PERM-15: a protected file written by shell code the line runs (``sh -c``, ``eval``, a here-string, ``find -exec sh -c``, a function, a group) asks in bypassPermissions.

    Composed: the carrier x how the code writes (named, after a move, through the shell's own
    ``/proc/self/cwd`` or a descriptor ``/dev/fd/N`` it opened on the directory) x the protected
    file x how the code spells the protected directory (as is, or broken by quotes the inner shell
    removes); bash in a sandbox judges (a line that writes no protected file is discarded).
    """
    spelled = _spelled_directory(target, broken)
    directory, _, name = spelled.rpartition("/")
    line = carrier.format(code=write.format(p=spelled, d=directory, n=name))
    assert_protected_write_asks(new_harness(), line, target, "")
