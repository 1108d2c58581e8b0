"""Whether a rule that loads can ever match anything (PERM-12): a witness call, judged by the real matcher.

A rule can parse and still match nothing: ``Bash(ls &&)`` (no single command bash runs is spelled
so), ``WebSearch(cats)`` (that tool has no content to match), ``TodoWrite(x)``, a path pattern in a
form the path matcher never produces. Rather than list such forms, :func:`rule_witness` builds, from
the rule itself, the call it should match (the command its pattern spells with each ``*`` filled in,
a path its glob names, a URL on its host, a tool of its name), and asks the same matcher the engine
uses. If no witness matches, the rule is dead and :func:`dead_rule_reason` says why.

What the loader does with a dead rule is fail closed (``_settings``): a dead deny or ask rule
refuses its settings file, since its author believes it denies or asks; a dead allow rule only
earns a notice (it allows nothing). A name that is no Claude Code tool but close to one
(``WebFecth``) is dead; any other unknown name may be a tool the embedding program adds, so it
earns a notice and is kept.
"""

from __future__ import annotations

import os
import re
import shutil
import string
import subprocess
from collections.abc import Iterator
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, cast

from reference_impl.permissions._bash_reader import SYNTAX_ERROR, split_command
from reference_impl.permissions._paths import PathPatternError, glob_class_at, parse_path_pattern
from reference_impl.permissions._rule_syntax import PATH_RULE_TOOLS, TOOL_TARGETS, PermissionRule
from reference_impl.permissions._rules import allow_match, describe_call, first_match
from reference_impl.tools import MCP_PREFIX, PermissionTarget, Tool, build_tool

__all__ = ["dead_rule_reason", "rule_witness", "unknown_tool_note"]

# A made-up project the witness paths live in (nothing is read from it).
_PROJECT = Path("/witness-project")
_FILLS = ("", "x", "x y")


def _never_called(tool_input: Any, context: Any) -> Any:  # pragma: no cover - never run
    raise AssertionError("a witness tool is only matched, never called")


@cache
def _witness_tool(name: str, kind: str | None) -> Tool:
    schema = {"type": "object"}
    if kind is None:
        return build_tool(name, "", _never_called, input_json_schema=schema)
    target_kind = cast(Any, kind)
    return build_tool(
        name,
        "",
        _never_called,
        input_json_schema=schema,
        permission_target=lambda i: PermissionTarget(target_kind, str(i["v"])),
    )


@lru_cache(maxsize=4096)
def _bash_would_run(line: str) -> bool:
    """Whether bash reads ``line`` without a syntax error: bash's own parser (``bash -n``) judges.

    The bash reader follows a grammar that accepts lines bash refuses (``} git status``, ``fi ls``:
    a reserved word where a command starts); a witness bash would refuse matches nothing bash runs.
    Without bash on the machine, the reader judges.
    """
    if SYNTAX_ERROR in split_command(line).problems:
        return False
    bash = shutil.which("bash")
    if bash is None:
        return True
    try:
        checked = subprocess.run(
            [bash, "--norc", "--noprofile", "-n", "-c", line],
            capture_output=True,
            timeout=10,
            check=False,
            env={"PATH": os.defpath},
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return True  # bash could not be asked (a NUL in the line, a timeout): the reader judged
    return checked.returncode == 0


def _fill_stars(pattern: str, fill: str) -> str:
    r"""A shell pattern with each unescaped ``*`` replaced by ``fill`` and ``\*`` by a star."""
    return re.sub(r"\\\*|\*", lambda m: "*" if m.group() == "\\*" else fill, pattern)


# Blanks a line written without quotes can't pass in its words: a run, a tab, one ending the words.
_QUOTED_BLANKS = re.compile(r"[ \t]{2}|\t|[ \t]$")


def _shell_witnesses(content: str, quoted: bool = True) -> Iterator[str]:
    """Lines the shell rule ``content`` may match; with ``quoted``, also its words quoted as one (:func:`_quoted_witness`)."""
    if content.endswith(":*") and not content.endswith("\\:*"):
        prefix = content[:-2]
        yield prefix
        yield prefix + " x"
        if quoted:
            yield from _quoted_witness(prefix)
        return
    for fill in _FILLS:
        yield _fill_stars(content, fill)
        if quoted:
            yield from _quoted_witness(_fill_stars(content, fill))


def _written_as_words(rule: PermissionRule) -> bool:
    """Whether the rule's own text, between its parentheses, is words bash reads (quotes closed).

    Only then were blanks in its values quoted (``Bash(rm '  ')``); ``Bash(git status  ')`` is a
    stray quote, not a value with blanks, and no line bash runs is what it says.
    """
    inner = rule.text.partition("(")[2][:-1] if rule.text.endswith(")") else ""
    return _bash_would_run(inner)


def _quoted_witness(words: str) -> Iterator[str]:
    r"""For words holding blanks only quoting passes (``rm '; '`` read as ``rm ; ``): a line passing them.

    A deny rule's words are spelled as their values joined by spaces; a blank that was quoted in
    them (``Bash(rm '  ')``) is lost when the text is read again as a line. The words after the
    program, quoted as one word, give the line whose words read back as the rule's text.
    """
    head, blank, rest = words.partition(" ")
    if blank and _QUOTED_BLANKS.search(rest) and "\t" not in head:
        yield head + " '" + rest.replace("'", "'\"'\"'") + "'"


# The characters a class's witness is chosen from, plain ones first: any but "/" (no class matches it
# in a path segment); "." last, since a segment of only "." names no file.
_CLASS_CANDIDATES = (
    "".join(
        c for c in string.ascii_letters + string.digits + "_-" + string.punctuation + " " if c not in "./"
    )
    + ".\u00e9\u4e00"
)


def _class_char(regex: str) -> str:
    """A character the path matcher's class (its ``regex``, as the matcher compiles it) takes."""
    pattern = re.compile(regex)
    return next((c for c in _CLASS_CANDIDATES if pattern.fullmatch(c)), "a")


def _glob_instance(glob: str) -> str:
    """A relative path the gitignore ``glob`` names (each wildcard filled with a plain name)."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob[i] in "*?":
            # A run of stars, whatever it spans, and "?" each take one plain name character.
            out.append("a")
            i += len(glob[i:]) - len(glob[i:].lstrip("*")) if glob[i] == "*" else 1
        elif glob[i] == "[":
            regex, i = glob_class_at(glob, i)
            out.append(_class_char(regex))
        elif glob[i] == "\\" and i + 1 < len(glob):
            out.append(glob[i + 1])
            i += 2
        else:
            out.append(glob[i])
            i += 1
    return "".join(out) or "a"


def _path_witnesses(content: str) -> Iterator[str]:
    try:
        pattern = parse_path_pattern(content, cwd=_PROJECT, project_root=_PROJECT)
    except (PathPatternError, OSError, ValueError):
        return
    yield f"{pattern.root.rstrip('/')}/{_glob_instance(pattern.glob)}"


def _host_witnesses(content: str) -> Iterator[str]:
    host = content.removeprefix("domain:")
    yield f"https://{'a.' + host[2:] if host.startswith('*.') else host}/"


def _mcp_witness(name: str) -> str:
    rest = name[len(MCP_PREFIX) :]
    if rest == "*":
        return f"{MCP_PREFIX}server__tool"
    server, _, tool = rest.partition("__")
    return f"{MCP_PREFIX}{server}__{'tool' if tool in ('', '*') else tool}"


def _kind_of(rule: PermissionRule) -> str | None:
    if rule.tool_name in PATH_RULE_TOOLS:
        return "read" if rule.tool_name == "Read" else "edit"
    return TOOL_TARGETS.get(rule.tool_name, "other")


def rule_witness(rule: PermissionRule) -> tuple[Tool, dict[str, Any]] | None:
    """A call ``rule`` matches (a tool and its input), judged by the engine's matcher; None if none is found."""
    if rule.tool_name.startswith(MCP_PREFIX):
        tool = _witness_tool(_mcp_witness(rule.tool_name), None)
        candidates: tuple[dict[str, Any], ...] = ({},)
    else:
        kind = _kind_of(rule)
        tool = _witness_tool(rule.tool_name, kind)
        content = rule.content
        if content is None:
            candidates = ({"v": ""},)
        elif kind is None:
            return None
        elif kind == "shell":
            # Only a line bash would run: a deny rule matching the text of a syntax error denies nothing.
            quoted = _written_as_words(rule)
            candidates = tuple({"v": c} for c in _shell_witnesses(content, quoted) if _bash_would_run(c))
        elif kind in ("read", "edit"):
            candidates = tuple({"v": c} for c in _path_witnesses(content))
        elif kind == "web_fetch":
            candidates = tuple({"v": c} for c in _host_witnesses(content))
        else:
            candidates = ({"v": content},)
    for tool_input in candidates:
        call = describe_call(tool, tool_input)
        if rule.behavior == "allow":
            if allow_match((rule,), call, cwd=_PROJECT, project_root=_PROJECT) is not None:
                return tool, tool_input
        else:
            # Certain: a deny rule "matching" a command nobody can read is the engine failing closed,
            # not the rule matching anything.
            found = first_match((rule,), call, cwd=_PROJECT, project_root=_PROJECT)
            if found is not None and found.certain:
                return tool, tool_input
    return None


def _one_slip(a: str, b: str) -> bool:
    """Whether ``a`` is ``b`` with one typing slip: a letter dropped, added, changed, or two swapped."""
    if a == b:
        return True
    if min(len(a), len(b)) < 3 or abs(len(a) - len(b)) > 1:
        return False
    start = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    if len(a) == len(b):
        swapped = a[start + 1 : start + 2] + a[start : start + 1] + a[start + 2 :] == b[start:]
        return swapped or a[start + 1 :] == b[start + 1 :]
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[start + 1 :] == shorter[start:]


def unknown_tool_note(rule: PermissionRule) -> str | None:
    """For a rule naming no Claude Code tool: a sentence saying so (None for a known tool or MCP rule)."""
    if rule.tool_name.startswith(MCP_PREFIX) or rule.tool_name in TOOL_TARGETS:
        return None
    return f"no built-in tool is named {rule.tool_name!r}; the rule applies only to a tool of that name added to the harness"


@lru_cache(maxsize=4096)
def dead_rule_reason(rule: PermissionRule) -> str | None:
    """Why ``rule`` can never match any call, or None when some call matches it."""
    name = rule.tool_name
    if not name.startswith(MCP_PREFIX) and name not in TOOL_TARGETS:
        close = next((known for known in TOOL_TARGETS if _one_slip(name.lower(), known.lower())), None)
        if close is not None:
            return f"no tool is named {name!r} (did you mean {close!r}?)"
    if rule_witness(rule) is not None:
        return None
    if rule.content is not None and TOOL_TARGETS.get(name, "other") is None and name not in PATH_RULE_TOOLS:
        return f"{name} has no content a rule could match; write {name!r} alone for the whole tool"
    if name.startswith(MCP_PREFIX):
        return (
            f"no MCP tool has this name: write mcp__server, mcp__server__* or mcp__server__tool, not {name!r}"
        )
    kind = _kind_of(rule)
    if kind == "shell" and rule.content is not None:
        tried = list(_shell_witnesses(rule.content, _written_as_words(rule)))
        if not any(_bash_would_run(c) for c in tried):
            return f"{tried[0]!r} is not a command bash would run (syntax error)"
        if rule.behavior == "allow":
            return (
                "an allow rule is matched against each simple command bash runs, and "
                f"{tried[0]!r} is not one (a list, pipeline, group or redirection): write a rule per command"
            )
    what = {"shell": "command", "read": "path", "edit": "path", "web_fetch": "URL"}.get(kind or "", "call")
    return f"no {what} matches it: the matcher never produces a match for this form"
