"""A rule that loads means what it says (PERM-12): one that could never match is refused, or holds.

A rule that could never match as written is refused by name, or read as what its author meant; it
never loads and guards nothing.

The rules are composed, not listed: a simple command with a stray piece of shell syntax on either
side (:func:`~pytest_toolharness.strategies.dead_shell_rules`), which bash itself shows is no line it
runs, in every rule form, as a deny or ask rule beside an allow rule for the whole tool.
"""

from __future__ import annotations

import json
import re
import string
import subprocess
from collections.abc import Callable
from dataclasses import replace
from fnmatch import fnmatchcase
from typing import Any, NamedTuple

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._controls import require_control
from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    edit_tool,
    fetch_tool,
    host_answering,
    mcp_tool_spec,
    plain_tool,
    read_tool,
    run_calls,
    shell_tool,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import CLAUDE_CODE_TOOLS, RuleSpec, ToolSpec
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
@example(
    rule=DeadShellRule("Bash(git status  ')", "git status  '", "git status"), behavior="deny", mode="default"
)
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


# --------------------------------------------------------------------------------------------
# Live path rules of every glob form: each loads and denies the real file it names.

_NAME_CHARS = string.ascii_letters + string.digits + "._-"
_SPECIAL = "*?["  # characters a file name may hold that a glob must escape or class


def _segment_names() -> st.SearchStrategy[str]:
    """A file or directory name: plain characters, now and then one a glob must escape."""
    return st.text(st.sampled_from(_NAME_CHARS + _SPECIAL), min_size=1, max_size=4).filter(
        lambda name: name not in (".", "..")
    )


@st.composite
def _char_glob(draw: st.DrawFn, char: str) -> tuple[str, str]:
    """(glob piece, fnmatch piece) naming ``char``: itself, escaped, ``?``, a class, a range, a negated class."""
    plain = char not in _SPECIAL
    forms = ["escaped", "any one", "negated class"] + (["literal"] if plain else [])
    if char != "[":  # "[[" in a class is a nested set to some readers
        forms.append("class")
    if char in string.ascii_letters + string.digits:
        forms.append("range")
    form = draw(st.sampled_from(forms))
    others = st.lists(st.sampled_from(string.ascii_letters + string.digits), max_size=3)
    if form == "literal":
        return char, char
    if form == "escaped":
        return "\\" + char, f"[{char}]"
    if form == "any one":
        return "?", "?"
    if form == "class":
        members = [*draw(others), char]
        members = draw(st.permutations(members)) if char != "-" else members
        body = "".join(dict.fromkeys(members))
        return f"[{body}]", f"[{body}]"
    if form == "negated class":
        body = "".join(dict.fromkeys(c for c in draw(others) if c != char)) or ("b" if char != "b" else "c")
        return f"[!{body}]", f"[!{body}]"
    span = next(s for s in (string.ascii_lowercase, string.ascii_uppercase, string.digits) if char in s)
    low = draw(st.sampled_from(span[: span.index(char) + 1]))
    high = draw(st.sampled_from(span[span.index(char) :]))
    return f"[{low}-{high}]", f"[{low}-{high}]"


@st.composite
def _segment_glob(draw: st.DrawFn, name: str) -> tuple[str, str]:
    """(glob, fnmatch pattern) for one segment ``name``: a star for the whole or a tail, else char by char."""
    star = draw(st.sampled_from(["none", "whole", "tail"]))
    if star == "whole" and not name.startswith("."):
        return "*", "*"
    keep = draw(st.integers(1, len(name))) if star == "tail" else len(name)
    pieces = [draw(_char_glob(c)) for c in name[:keep]]
    tail = ("*", "*") if keep < len(name) or star == "tail" else ("", "")
    return "".join(p[0] for p in pieces) + tail[0], "".join(p[1] for p in pieces) + tail[1]


class LivePathRule(NamedTuple):
    """A path rule's content, the file (relative to the working directory) it names, and how it was made."""

    content: str
    relative: str
    oracle: tuple[str, ...]  # fnmatch patterns, one per segment; "**" for any number of segments


@st.composite
def live_path_rules(draw: st.DrawFn) -> LivePathRule:
    r"""A path rule's content in a drawn glob form that names a drawn file below the working directory.

    The file's path has 1-3 segments; each segment is a star, or its characters each drawn as
    themselves, escaped (``\*``), ``?``, a class, a range or a negated class, with now and then a
    star for its tail; leading segments may become ``**/``, the last ones ``/**``; and the whole is
    anchored floating, ``./``, ``/`` (the project root) or ``//`` (an absolute path).
    """
    segments = draw(st.lists(_segment_names(), min_size=1, max_size=3))
    globs = [draw(_segment_glob(s)) for s in segments]
    lead = draw(st.integers(0, len(segments) - 1)) if draw(st.booleans()) else 0
    trail = (
        draw(st.integers(1, len(segments) - lead - 1))
        if len(segments) - lead > 1 and draw(st.booleans())
        else 0
    )
    kept = globs[lead : len(globs) - trail]
    glob = "/".join(g for g, _ in kept)
    oracle = tuple(o for _, o in kept)
    if lead:
        glob, oracle = f"**/{glob}", ("**", *oracle)
    if trail:
        glob, oracle = f"{glob}/**", (*oracle, "**")
    anchor = draw(st.sampled_from(["floating", "./", "/", "//"]))
    if anchor == "floating" and "/" not in glob.removeprefix("**/"):
        oracle = ("**", *oracle) if oracle[0] != "**" else oracle
    elif anchor != "floating" and anchor != "//":
        glob = anchor + glob
    if anchor == "//":
        glob = "{work}/" + glob  # the absolute working directory, known only when the test runs
    return LivePathRule(glob, "/".join(segments), oracle)


def _oracle_names(oracle: tuple[str, ...], segments: list[str]) -> bool:
    """Whether the file matches by gitignore's rules, segment by segment with :func:`fnmatch.fnmatchcase`: ``**`` is any number of segments."""
    if not oracle:
        return not segments
    if oracle[0] == "**":
        return any(_oracle_names(oracle[1:], segments[k:]) for k in range(len(segments) + 1))
    return bool(segments) and fnmatchcase(segments[0], oracle[0]) and _oracle_names(oracle[1:], segments[1:])


# The rule's tool, and the tool a call is made with.
_PATH_TOOLS: dict[str, Callable[[], ToolSpec]] = {
    "Read": read_tool,
    "Edit": edit_tool,
    "Write": lambda: edit_tool("Write"),
}


def _glob_escaped(path: str) -> str:
    return re.sub(r"([*?\[\\])", r"\\\1", path)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=60, deadline=None)
@given(drawn=live_path_rules(), name=st.sampled_from(sorted(_PATH_TOOLS)))
@example(drawn=LivePathRule("[\\d]", "d", ("**", "[\\d]")), name="Read")
@example(drawn=LivePathRule("./src/\\a/*.py", "src/a/x.py", ("src", "a", "*.py")), name="Edit")
@example(drawn=LivePathRule("[!a-zA-Z0-9._-]", "@", ("**", "[!a-zA-Z0-9._-]")), name="Edit")
@example(drawn=LivePathRule("a[.-]", "a-", ("**", "a[.-]")), name="Read")
@example(drawn=LivePathRule("src/[!a]?/**", "src/bc/x", ("src", "[!a]?", "**")), name="Write")
@example(drawn=LivePathRule("**/\\*[ab]", "k/*b", ("**", "[*][ab]")), name="Read")
def test_a_live_path_rule_of_any_glob_form_loads_and_denies_the_file_it_names(
    new_harness: Callable[[], Any], drawn: LivePathRule, name: str
) -> None:
    """PERM-12: a path deny rule whose glob names a real file loads (it is no dead rule) and denies that file.

    The glob is drawn in every form gitignore gives (classes, negated classes, ranges, escapes,
    ``?``, ``*``, ``**/``, ``/**``, floating, ``./``, ``/``, ``//``) to name a file the test makes
    below the working directory; Python's ``fnmatch``, segment by segment, is the control that it
    does. Beside the tool allowed, the rule must load and the call on that file must not run:
    refusing it as a rule that can never match refuses what its author wrote and means.
    """
    work = fresh_dir() / "work"
    work.mkdir()
    content = drawn.content.replace("{work}", "/" + _glob_escaped(str(work)))
    require_control(
        _oracle_names(drawn.oracle, drawn.relative.split("/")),
        f"fnmatch: {drawn.content!r} does not name {drawn.relative!r}",
    )
    target = work / drawn.relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("secret\n")
    rule = f"{name}({content})"
    rules = [RuleSpec(rule, "deny"), RuleSpec(name, "allow")]
    call = (name, {"file_path": str(target)})
    run = run_calls(new_harness(), [_PATH_TOOLS[name]()], [call], rules=rules, cwd=work)
    assert run.ran() == 0, f"deny rule {rule!r} loaded but let {name} {target} run: {run.describe()}"


# --------------------------------------------------------------------------------------------
# Tool names a typing slip away from a built-in: dead as written; further away: a program's own tool.


def _slips(a: str, b: str) -> int:
    """Typing slips between ``a`` and ``b`` ignoring case (letters dropped, added, changed, or two swapped)."""
    a, b = a.lower(), b.lower()
    row = [[i + j if not i * j else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            row[i][j] = min(row[i - 1][j] + 1, row[i][j - 1] + 1, row[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[i][j] = min(row[i][j], row[i - 2][j - 2] + 1)
    return row[len(a)][len(b)]


@st.composite
def _slipped(draw: st.DrawFn, name: str) -> str:
    """``name`` with one typing slip drawn: a letter dropped, added or changed, or two neighbours swapped."""
    kind = draw(st.sampled_from(["drop", "add", "change", "swap"]))
    letter = draw(st.sampled_from(string.ascii_letters))
    at = draw(st.integers(0, len(name) - (0 if kind == "add" else 1)))
    if kind == "drop" and len(name) > 1:
        return name[:at] + name[at + 1 :]
    if kind == "swap" and at + 1 < len(name):
        return name[:at] + name[at + 1] + name[at] + name[at + 2 :]
    if kind == "change" and at < len(name):
        return name[:at] + letter + name[at + 1 :]
    return name[:at] + letter + name[at:]


def _valid_name(name: str) -> bool:
    return re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name) is not None


@st.composite
def near_miss_names(draw: st.DrawFn) -> tuple[str, str]:
    """(built-in, a name one slip from it and no built-in itself), now and then in another case."""
    builtin = draw(st.sampled_from([n for n in CLAUDE_CODE_TOOLS if len(n) > 3]))
    name = draw(_slipped(builtin).filter(lambda n: _valid_name(n) and n.lower() not in _LOWER_BUILTINS))
    cases: list[Callable[[str], str]] = [str, str.lower, str.upper, str.swapcase]
    case = draw(st.sampled_from(cases))
    return builtin, case(name)


_LOWER_BUILTINS = frozenset(n.lower() for n in CLAUDE_CODE_TOOLS)


def _far_from_every_builtin(name: str) -> bool:
    return _valid_name(name) and min(_slips(name, known) for known in CLAUDE_CODE_TOOLS) >= 2


_WORDS = ("Deploy", "Notify", "Ticket", "Query", "Page", "Build", "Release", "Backup", "Invoice")


def own_tool_names() -> st.SearchStrategy[str]:
    """A program's own tool name two or more slips from every built-in: a built-in slipped twice, or words."""
    twice = st.sampled_from(CLAUDE_CODE_TOOLS).flatmap(_slipped).flatmap(_slipped)
    words = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=2).map("".join)
    return st.one_of(twice, words).filter(_far_from_every_builtin)


def _builtin_tool(name: str) -> tuple[ToolSpec, dict[str, Any]]:
    """The built-in ``name`` as the suite's tool of its kind, and an input it is called with."""
    if name == "Bash":
        return shell_tool(), {"command": "echo hi"}
    if name in ("Read", "Glob", "Grep", "LS", "NotebookRead"):
        return read_tool(name), {"file_path": "/tmp/x"}
    if name in ("Edit", "Write", "MultiEdit", "NotebookEdit"):
        return edit_tool(name), {"file_path": "/tmp/x"}
    if name == "WebFetch":
        return fetch_tool(), {"url": "https://example.com/"}
    return plain_tool(name), {"x": "y"}


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=60, deadline=None)
@given(drawn=near_miss_names(), behavior=st.sampled_from(["deny", "ask"]))
@example(drawn=("WebFetch", "WebFecth"), behavior="deny")
@example(drawn=("Bash", "Bahs"), behavior="deny")
@example(drawn=("Write", "Writ"), behavior="ask")
@example(drawn=("Edit", "Edits"), behavior="deny")
@example(drawn=("Grep", "Grap"), behavior="deny")
def test_a_deny_rule_naming_a_builtin_with_a_typing_slip_is_refused_or_guards_it(
    new_harness: Callable[[], Any], drawn: tuple[str, str], behavior: str
) -> None:
    """PERM-12: ``WebFecth``, ``Bahs``, ``Writ`` as a deny or ask rule names no tool as written: refused by name, or it guards the built-in meant.

    The name is a built-in of Claude Code's (``CLAUDE_CODE_TOOLS``) with one typing slip drawn (a
    letter dropped, added or changed, two neighbours swapped), in any case. Beside the built-in
    allowed, the call to it must not run unasked, unless the harness refused the rule naming it.
    """
    builtin, name = drawn
    tool, tool_input = _builtin_tool(builtin)
    rules = [RuleSpec(name, behavior), RuleSpec(builtin, "allow")]  # type: ignore[arg-type]
    try:
        run = run_calls(
            new_harness(), [tool], [(builtin, tool_input)], rules=rules, host=host_answering("deny")
        )
    except Exception as error:
        message = str(error)
        assert name in message, f"refused {name!r} without naming it: {message}"
        return
    assert run.ran() == 0, f"{behavior} rule {name!r} loaded and let {builtin} run unasked: {run.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=40, deadline=None)
@given(name=own_tool_names())
@example(name="WebFxcth")
@example(name="Bxsj")
@example(name="DeployRelease")
def test_a_deny_rule_naming_a_programs_own_tool_loads_and_denies_it(
    new_harness: Callable[[], Any], name: str
) -> None:
    """PERM-12 (the other side): a rule naming a tool two slips or more from every built-in may name the program's own tool: it loads and denies it.

    Such a name (a built-in slipped twice, ``WebFxcth``; words, ``DeployRelease``) is no typing
    slip of a built-in a harness could read it as; the program may add a tool of that name. Given
    that tool allowed and the rule as a deny rule, the rule must load (it is not malformed) and the
    call must not run (PERM-1: a deny rule wins).
    """
    rules = [RuleSpec(name, "deny"), RuleSpec(name, "allow")]
    run = run_calls(new_harness(), [plain_tool(name)], [(name, {"x": "y"})], rules=rules)
    assert run.ran() == 0, f"deny rule {name!r} loaded but let the program's {name} run: {run.describe()}"


# --------------------------------------------------------------------------------------------
# Live shell rules of every form: each loads and guards the command it names.


class LiveShellRule(NamedTuple):
    """A ``Bash(...)`` rule's content and a command it names (bash runs it; the rule matches it)."""

    content: str
    command: str


_LIST_OPERATORS = ("&&", "||", ";", "|")


@st.composite
def live_shell_rules(draw: st.DrawFn, *, lists: bool) -> LiveShellRule:
    r"""A shell rule in a drawn form and a command it names, made from the same simple command.

    The command is drawn from :func:`~pytest_toolharness.strategies.shell_commands`; the rule is
    the command itself, a prefix of its words with ``:*``, a prefix with `` *``, the command with a
    ``*`` for one word or for a word's tail, or with one word holding a literal star written ``\*``
    (the command then holds ``*`` there); with ``lists``, also two commands joined by ``&&``,
    ``||``, ``;`` or ``|`` (a deny or ask rule may name a whole line).
    """
    words = draw(ths.shell_commands()).split()
    forms = ["exact", "prefix", "star tail", "star word", "star in a word", "escaped star"]
    form = draw(st.sampled_from([*forms, *(["list"] if lists else [])]))
    if form == "exact":
        return LiveShellRule(" ".join(words), " ".join(words))
    if form == "list":
        other = draw(ths.shell_commands())
        line = f"{' '.join(words)} {draw(st.sampled_from(_LIST_OPERATORS))} {other}"
        return LiveShellRule(line, line)
    extra = draw(st.sampled_from(["x", "-v", "src/", "HEAD"]))
    if form in ("prefix", "star tail"):
        kept = draw(st.integers(1, len(words)))
        marker = ":*" if form == "prefix" else " *"
        return LiveShellRule(" ".join(words[:kept]) + marker, " ".join([*words, extra]))
    at = draw(st.integers(0, len(words) - 1))
    rule_words, command_words = list(words), list(words)
    if form == "star word":
        rule_words[at] = "*"
    elif form == "star in a word":
        rule_words[at] = rule_words[at][: draw(st.integers(0, len(words[at]) - 1))] + "*"
    else:
        rule_words[at] += "\\*"
        command_words[at] += "*"
    return LiveShellRule(" ".join(rule_words), " ".join(command_words))


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    drawn=live_shell_rules(lists=True),
    behavior=st.sampled_from(["deny", "ask"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
@example(drawn=LiveShellRule("git push:*", "git push origin main"), behavior="deny", mode="default")
@example(drawn=LiveShellRule("echo \\*", "echo *"), behavior="deny", mode="default")
@example(drawn=LiveShellRule("make *", "make x"), behavior="ask", mode="bypassPermissions")
@example(drawn=LiveShellRule("git status; make", "git status; make"), behavior="deny", mode="acceptEdits")
def test_a_live_shell_rule_of_any_form_loads_and_guards_the_command_it_names(
    new_harness: Callable[[], Any], drawn: LiveShellRule, behavior: str, mode: str
) -> None:
    r"""PERM-12: a shell deny or ask rule that names a command bash runs loads (it is no dead rule) and guards it.

    The rule is drawn in every form Claude Code gives a ``Bash`` rule (exact, ``:*`` prefix, `` *``,
    a ``*`` for a word or a word's tail, an escaped ``\*``, a whole list of commands) from the same
    command the call runs; bash's own parser is the control that the command is one it runs.
    Beside ``Bash`` allowed, in any mode, the rule must load and the command must not run unasked:
    refusing it as a rule that can never match refuses what its author wrote and means.
    """
    require_control(not _bash_refuses(drawn.command), f"bash refuses {drawn.command!r}")
    rule = f"Bash({drawn.content})"
    rules = [RuleSpec(rule, behavior), RuleSpec("Bash", "allow")]  # type: ignore[arg-type]
    call = ("Bash", {"command": drawn.command})
    run = run_calls(
        new_harness(), [shell_tool()], [call], rules=rules, mode=mode, host=host_answering("deny")
    )
    assert run.ran() == 0, (
        f"{behavior} rule {rule!r} loaded but let {drawn.command!r} run ({mode}): {run.describe()}"
    )


_HOSTS = ("example.com", "api.github.com", "docs.python.org", "localhost", "127.0.0.1")
_SERVERS = ("github", "my-server", "db")
_MCP_TOOLS = ("get_issue", "run", "query")


@st.composite
def live_family_rules(draw: st.DrawFn) -> tuple[str, ToolSpec, dict[str, Any]]:
    """(rule, tool, input): a live rule of a family other than shell and path, and a call it names.

    A domain (``domain:HOST``) or a subdomain wildcard (``domain:*.HOST``) with a URL on it; an MCP
    server, all its tools (``__*``) or one tool of it; a subagent type; a program's own tool's content.
    """
    family = draw(
        st.sampled_from(["domain", "subdomain", "server", "server star", "mcp tool", "subagent", "own"])
    )
    if family in ("domain", "subdomain"):
        host = draw(st.sampled_from(_HOSTS))
        path = draw(st.sampled_from(["", "x", "a/b?q=1"]))
        if family == "subdomain":
            sub = draw(st.sampled_from(["www", "a.b", "x-1"]))
            return f"WebFetch(domain:*.{host})", fetch_tool(), {"url": f"https://{sub}.{host}/{path}"}
        return f"WebFetch(domain:{host})", fetch_tool(), {"url": f"https://{host}/{path}"}
    if family in ("server", "server star", "mcp tool"):
        server, name = draw(st.sampled_from(_SERVERS)), draw(st.sampled_from(_MCP_TOOLS))
        rule = {
            "server": f"mcp__{server}",
            "server star": f"mcp__{server}__*",
            "mcp tool": f"mcp__{server}__{name}",
        }
        tool = mcp_tool_spec(server, name)
        return rule[family], tool, {"x": "1"}
    value = draw(st.sampled_from(["Explore", "general-purpose", "prod", "v1.2"]))
    name = "Task" if family == "subagent" else draw(st.sampled_from(["Deploy", "Release"]))
    return f"{name}({value})", _content_tool(name), {"x": value}


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=30, deadline=None)
@given(drawn=live_family_rules(), behavior=st.sampled_from(["deny", "ask"]))
@example(
    drawn=("WebFetch(domain:example.com)", fetch_tool(), {"url": "https://example.com/"}), behavior="deny"
)
@example(
    drawn=("WebFetch(domain:*.example.com)", fetch_tool(), {"url": "https://www.example.com/"}),
    behavior="deny",
)
@example(drawn=("mcp__github", mcp_tool_spec("github", "run"), {"x": "1"}), behavior="deny")
@example(drawn=("mcp__db__query", mcp_tool_spec("db", "query"), {"x": "1"}), behavior="ask")
def test_a_live_rule_of_every_other_family_loads_and_guards_the_call_it_names(
    new_harness: Callable[[], Any], drawn: tuple[str, ToolSpec, dict[str, Any]], behavior: str
) -> None:
    """PERM-12: a live domain, MCP, subagent or program-tool deny or ask rule loads and guards the call it names.

    ``WebFetch(domain:*.example.com)`` and a URL on a subdomain, ``mcp__github`` and one of the
    server's tools, ``Task(Explore)`` and that subagent: beside the tool allowed, the rule must load
    and the call must not run unasked; refusing it as a rule that can never match refuses what its
    author wrote and means.
    """
    rule, tool, tool_input = drawn
    rules = [RuleSpec(rule, behavior), RuleSpec(tool.name, "allow")]  # type: ignore[arg-type]
    run = run_calls(
        new_harness(), [tool], [(tool.name, tool_input)], rules=rules, host=host_answering("deny")
    )
    assert run.ran() == 0, (
        f"{behavior} rule {rule!r} loaded but let {tool.name} {tool_input} run: {run.describe()}"
    )
