"""A rule that loads means what it says (PERM-12): one that could never match is refused, or holds.

A rule that could never match as written is refused by name, or read as what its author meant; it
never loads and guards nothing.

The rules are composed, not listed: a simple command with a stray piece of shell syntax on either
side (:func:`~pytest_toolharness.strategies.dead_shell_rules`), which bash itself shows is no line it
runs, in every rule form, as a deny or ask rule beside an allow rule for the whole tool.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._controls import require_control
from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    edit_tool,
    fetch_tool,
    host_answering,
    plain_tool,
    read_tool,
    run_calls,
    shell_tool,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec, ToolSpec
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


# Each family's rule content, and the call (tool, input) it names; ``{work}`` is the working directory.
_FAMILIES: dict[str, tuple[str, Callable[[], ToolSpec], str, str]] = {
    "shell prefix": ("Bash", shell_tool, "git push:*", '{"command": "git push origin main"}'),
    "shell exact": ("Bash", shell_tool, "npm publish", '{"command": "npm publish"}'),
    "path": ("Read", read_tool, ".env", '{"file_path": "{work}/.env"}'),
    "edit path": ("Edit", edit_tool, "src/**", '{"file_path": "{work}/src/app.py"}'),
    "domain": ("WebFetch", fetch_tool, "domain:example.com", '{"url": "https://example.com/x"}'),
    "subagent": ("Task", lambda: _content_tool("Task"), "Explore", '{"x": "Explore"}'),
    "program's own": ("Deploy", lambda: _content_tool("Deploy"), "prod", '{"x": "prod"}'),
}
_BLANKS = (" ", "  ", "\t", "\n", " \t")


def _content_tool(name: str) -> ToolSpec:
    return replace(plain_tool(name), permission_kind="other", permission_field="x")


@st.composite
def _blank_rules(draw: st.DrawFn) -> tuple[str, str]:
    """(family, rule text): the family's rule with blanks drawn into 1-3 of the places around its content."""
    family = draw(st.sampled_from(sorted(_FAMILIES)))
    name, _, content, _ = _FAMILIES[family]
    places = ["before the content", "after the content", "around the rule", "after the name"]
    if content.endswith(":*"):
        places.append("before :*")
    chosen = draw(st.lists(st.sampled_from(places), min_size=1, max_size=3, unique=True))

    def blank(place: str) -> str:
        return draw(st.sampled_from(_BLANKS)) if place in chosen else ""

    if content.endswith(":*"):
        content = f"{content[:-2]}{blank('before :*')}:*"
    rule = (
        f"{name}{blank('after the name')}({blank('before the content')}{content}{blank('after the content')})"
    )
    around = blank("around the rule")
    return family, f"{around}{rule}{around}"


def _assert_refused_or_denies(new_harness: Callable[[], Any], drawn: tuple[str, str], mode: str) -> None:
    """The drawn deny rule, beside its tool allowed, is refused naming it, or the call it names does not run."""
    family, text = drawn
    name, make_tool, _, call_input = _FAMILIES[family]
    work = fresh_dir() / "work"
    work.mkdir()
    tool_input = json.loads(call_input.replace("{work}", str(work)))
    rules = [RuleSpec(text, "deny"), RuleSpec(name, "allow")]
    try:
        run = run_calls(new_harness(), [make_tool()], [(name, tool_input)], rules=rules, mode=mode, cwd=work)
    except Exception as error:
        message = str(error)
        assert text in message or repr(text) in message or text.strip() in message, (
            f"refused {text!r} without naming it: {message}"
        )
        return
    assert run.ran() == 0, (
        f"deny rule {text!r} loaded but let {name} {tool_input} run ({mode}): {run.describe()}"
    )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=50, deadline=None)
@given(drawn=_blank_rules(), mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]))
@example(drawn=("subagent", "Task( Explore)"), mode="default")
@example(drawn=("program's own", "Deploy(prod )"), mode="bypassPermissions")
def test_a_deny_rule_with_stray_blanks_is_refused_or_denies_what_it_names(
    new_harness: Callable[[], Any], drawn: tuple[str, str], mode: str
) -> None:
    """PERM-12: blanks around a deny rule's content never narrow it: it is refused by name, or denies what it names.

    Every rule family (a shell prefix or exact command, a read or edit path, a domain, a subagent
    type, a program's own tool's content) with spaces, tabs or newlines drawn before or after its
    content, before ``:*``, between the tool name and ``(``, around the whole rule: beside the tool
    allowed, in any mode, the call the rule names must not run, unless the harness refused the rule
    naming it. ``Task( Explore)`` that loads and then lets ``Explore`` run is a deny silently narrowed.
    """
    _assert_refused_or_denies(new_harness, drawn, mode)


@st.composite
def _invisible_rules(draw: st.DrawFn) -> tuple[str, str]:
    """(family, rule text): the family's rule with one invisible or odd blank character in its content.

    The character is drawn from Unicode's format, separator and control categories (a zero-width
    space, a no-break space, a line separator, a byte-order mark, a carriage return, ...; not the
    visible tab and newline), put in place of a space or anywhere in the content, as a rule pasted
    from a web page or a chat carries it.
    """
    family = draw(st.sampled_from(sorted(_FAMILIES)))
    name, _, content, _ = _FAMILIES[family]
    odd = draw(st.characters(categories=["Cf", "Zs", "Zl", "Zp", "Cc"], exclude_characters=" \t\n"))
    spaces = [i for i, c in enumerate(content) if c == " "]
    in_place_of_a_space: bool = draw(st.booleans())
    if spaces and in_place_of_a_space:
        at = draw(st.sampled_from(spaces))
        content = content[:at] + odd + content[at + 1 :]
    else:
        at = draw(st.integers(0, len(content)))
        content = content[:at] + odd + content[at:]
    return family, f"{name}({content})"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=50, deadline=None)
@given(drawn=_invisible_rules(), mode=st.sampled_from(["default", "bypassPermissions"]))
@example(drawn=("shell prefix", "Bash(git\u00a0push:*)"), mode="default")
@example(drawn=("path", "Read(\u200b.env)"), mode="default")
def test_a_deny_rule_with_an_invisible_character_is_refused_or_denies_what_it_names(
    new_harness: Callable[[], Any], drawn: tuple[str, str], mode: str
) -> None:
    """PERM-12: an invisible or odd blank character in a deny rule never narrows it: refused by name, or it holds.

    ``Bash(git<no-break space>push:*)`` or ``Read(<zero-width space>.env)`` as pasted reads like the
    rule its author meant, yet names a command or file nobody has. Beside the tool allowed, in any
    mode, the call the visible rule names must not run, unless the harness refused the rule naming it.
    """
    _assert_refused_or_denies(new_harness, drawn, mode)
