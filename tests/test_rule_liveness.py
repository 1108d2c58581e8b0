"""Rules that load but can match nothing (PERM-12): reported at load, and a dead deny or ask rule fails closed.

The property draws rule spellings composed from Claude Code's tool catalogue (in every case, near
misses, MCP names) and content pieces (shell words, separators, prefix markers, operators, quotes,
path anchors and globs, host forms), and checks that every rule the loader accepts either matches
a call (a witness, confirmed by the public matcher) or is reported by name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.permissions import (
    SettingsError,
    load_settings,
    parse_rule,
    rule_matches,
    rule_witness,
)
from reference_impl.permissions._rule_liveness import _bash_would_run, dead_rule_reason
from reference_impl.permissions._rule_syntax import TOOL_TARGETS


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    """Each test judges its rules afresh: a verdict cached by an earlier test would hide which test
    runs which line (the mutation runner picks a mutant's tests by that)."""
    dead_rule_reason.cache_clear()
    _bash_would_run.cache_clear()


def _load(behavior: str, *rules: str) -> Any:
    return load_settings(
        json.dumps({"permissions": {behavior: list(rules)}}), "userSettings", name="mine.json"
    )


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        ("Bash(ls &&)", "syntax error"),
        ("Bash(git push |)", "syntax error"),
        ("Bash(rm ')", "syntax error"),
        # A stray quote after a run of blanks is not a value with blanks whose quotes were lost.
        ("Bash(git status  ')", "syntax error"),
        ('Bash(rm -f  ")', "syntax error"),
        # A reserved word where a command starts: the bash reader's grammar takes it, bash refuses it.
        ("Bash(} git status)", "syntax error"),
        ("Bash(fi rm -rf:*)", "syntax error"),
        ("Bash(ls ;;)", "syntax error"),
        ("WebSearch(cats)", "no content"),
        ("TodoWrite(anything)", "no content"),
        ("KillShell(1)", "no content"),
        ("WebFecth", "did you mean 'WebFetch'"),
        ("Bahs(rm:*)", "did you mean 'Bash'"),
        ("mcp__github__", "no MCP tool has this name"),
    ],
)
@pytest.mark.parametrize("behavior", ["deny", "ask"])
def test_a_dead_deny_or_ask_rule_refuses_its_file(rule: str, why: str, behavior: str) -> None:
    """It loaded before and guarded nothing; now the file is refused, naming the rule, the file and why."""
    with pytest.raises(SettingsError) as caught:
        _load(behavior, "Bash(npm test:*)", rule)
    message = str(caught.value)
    assert caught.value.rule == rule
    for part in ("mine.json", rule, why, "never match", f"permissions.{behavior}[1]"):
        assert part in message, message


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        ("Bash(ls && pwd)", "a rule per command"),
        ("Bash(npm test 2>&1)", "a rule per command"),
        ("WebSearch(cats)", "no content"),
    ],
)
def test_a_dead_allow_rule_loads_with_a_notice(rule: str, why: str) -> None:
    loaded = _load("allow", rule)
    assert [r.text for r in loaded.permissions.allow] == [rule]
    notice = str(loaded.notices[0])
    for part in ("mine.json", "userSettings", rule, why):
        assert part in notice, notice


def test_a_rule_for_a_tool_the_harness_may_add_loads_with_a_notice() -> None:
    loaded = _load("deny", "DeployToProduction")
    assert [r.text for r in loaded.permissions.deny] == ["DeployToProduction"]
    assert "no built-in tool is named 'DeployToProduction'" in str(loaded.notices[0])


@pytest.mark.parametrize(
    "rule",
    [
        "Bash(rm -rf:*)",
        "Bash(git push --force*)",
        "Bash(curl * | bash)",
        "Bash(ls; rm x)",
        "Bash(echo \\*)",
        "Bash(echo a\\*b:*)",
        "Bash(echo \\:*)",
        # Values with blanks in their quotes: the rule's text is words bash reads.
        "Bash(rm '  ')",
        "Bash(rm ''';'''';'';;'''';-;;' ''';' ''' ')",
        "Read(./.env)",
        "Read(~/.ssh/**)",
        "Read(//etc/**)",
        # A glob longer than 256 characters (past CPython's cached small ints).
        "Read(//*/" + "deep/" * 60 + "x\\[1].txt)",
        "Read(a\\\\\\\\)",  # a floating glob that ends in an escaped backslash
        "Read(ab\\\\\\\\)",  # ... at an odd index too
        "Read(" + "a" * 300 + "\\\\\\\\)",  # ... past 256 characters
        "Write(src/*.py)",
        "Edit(src/[ab]*.py)",
        "WebFetch(domain:*.example.com)",
        "mcp__github",
        "mcp__github__*",
        "mcp__github__get_issue",
        "mcp__*",
        "WebFetch(domain:example.com)",
        "Agent(Explore)",
        "Skill(review)",
    ],
)
def test_live_deny_rules_still_load(rule: str) -> None:
    loaded = _load("deny", rule)
    assert loaded.notices == ()
    assert rule_witness(loaded.permissions.deny[0]) is not None


def test_without_bash_the_reader_judges_a_witness(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With no bash on PATH, a line the bash reader reads is one bash would run (the reader's grammar
    is all there is to judge by); a line it reads as a syntax error is not."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert _bash_would_run.__wrapped__("git push origin main") is True
    assert _bash_would_run.__wrapped__("} git status") is True  # bash refuses it; the reader does not
    assert _bash_would_run.__wrapped__("ls &&") is False


# ---------------------------------------------------------------------------------------------
# The property.

MCP_NAMES = ("mcp__github", "mcp__github__*", "mcp__my-server__get_issue", "mcp__*", "mcp__a__b__c")


def _near_misses(name: str) -> list[str]:
    return [name.lower(), name.upper(), name.swapcase(), name[:-1], name + name[-1], name[1:]]


TOOL_NAMES = st.one_of(
    st.sampled_from(sorted(TOOL_TARGETS)),
    st.sampled_from(sorted(TOOL_TARGETS)).flatmap(lambda n: st.sampled_from(_near_misses(n))),
    st.sampled_from(MCP_NAMES),
    st.from_regex(r"[A-Z][a-z]{1,8}", fullmatch=True),
)
SHELL_WORDS = [
    "git",
    "npm",
    "ls",
    "rm",
    "-rf",
    "push",
    "test",
    "run",
    "echo",
    "sudo",
    "timeout",
    "python3",
    "-c",
]
SHELL_MARKS = [
    "*",
    ":*",
    " *",
    "&&",
    "|",
    ";",
    "(",
    ")",
    "'",
    '"',
    ">",
    "2>&1",
    "$(x)",
    "`d`",
    "\\*",
    "\\",
    "=",
]
SHELL_PIECES = st.sampled_from([*SHELL_WORDS, *SHELL_MARKS])
PATH_PIECES = st.sampled_from(
    ["//", "~/", "./", "/", "**", "*", "?", ".env", "src", "[ab]", "[!a]", "..", "!", "/", "\\", ".", "~"]
)
HOST_PIECES = st.sampled_from(
    ["domain:", "*.", "example.com", "EXAMPLE.com.", "a_b", ":443", "http://", "*", "."]
)
SEPARATORS = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def contents(draw: st.DrawFn) -> str:
    pieces = draw(st.sampled_from([SHELL_PIECES, PATH_PIECES, HOST_PIECES]))
    words = draw(st.lists(st.tuples(pieces, SEPARATORS), min_size=1, max_size=5))
    return "".join(word + sep for word, sep in words)


@st.composite
def rule_spellings(draw: st.DrawFn) -> str:
    name = draw(TOOL_NAMES)
    shape = draw(st.sampled_from(["bare", "content", "empty", "unclosed", "extra close"]))
    content = draw(contents())
    return {
        "bare": name,
        "content": f"{name}({content})",
        "empty": f"{name}()",
        "unclosed": f"{name}({content}",
        "extra close": f"{name}({content}))",
    }[shape]


@settings(max_examples=400, deadline=None)
@given(text=rule_spellings(), behavior=st.sampled_from(["allow", "deny", "ask"]))
def test_every_accepted_rule_matches_something_or_is_reported(text: str, behavior: str) -> None:
    """PERM-12: a rule that loads either matches some call, confirmed by the public matcher, or is
    reported at load naming the rule (a dead deny/ask rule refuses the file; a dead allow rule, or a
    rule for a tool that is not built in, earns a notice)."""
    refusal: SettingsError | None
    try:
        loaded = _load(behavior, text)
    except SettingsError as error:
        refusal = error
    else:
        refusal = None
    if refusal is not None:
        assert "mine.json" in str(refusal)
        assert refusal.rule is not None or refusal.key is not None, str(refusal)
        return
    (rule,) = loaded.rules
    reported = [n for n in loaded.notices if n.key == f"permissions.{behavior}[0]"]
    witness = rule_witness(rule)
    if witness is None:
        assert reported, f"{behavior} rule {text!r} matches nothing and was not reported"
        assert behavior == "allow" or rule.tool_name not in TOOL_TARGETS, text
        return
    tool, tool_input = witness
    assert rule_matches(rule, tool, tool_input, cwd=Path("/witness-project")), (text, tool_input)
    # The same spelling parsed alone means the same rule.
    assert parse_rule(text, rule.behavior, "userSettings") == rule
