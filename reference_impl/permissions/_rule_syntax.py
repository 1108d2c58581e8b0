"""Permission rules in Claude Code's syntax: parsing and formatting one rule (PERM-12).

A rule is ``Tool`` (the whole tool) or ``Tool(content)``. ``Bash(npm test:*)`` (legacy prefix),
``Bash(npm test *)`` (wildcard) and ``Bash(npm test)`` (exact) hold shell patterns; ``Read(...)``
and ``Edit(...)`` hold gitignore-style path patterns; ``WebFetch(domain:x)`` a host; MCP rules are
``mcp__server`` / ``mcp__server__*`` (every tool of a server) and ``mcp__server__tool``.
``Tool(*)`` means the whole tool, as in Claude Code 2.1.20+.

A rule that loads means what it says: :func:`parse_rule` normalises stray blanks and refuses a
rule that could never match as written.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from reference_impl.permissions._decisions import SETTING_SOURCES, PermissionBehavior, SettingSource
from reference_impl.permissions._paths import PathPatternError, parse_path_pattern
from reference_impl.permissions._url_hosts import normalise_host
from reference_impl.tools import MCP_PREFIX

__all__ = [
    "PATH_RULE_TOOLS",
    "TOOL_TARGETS",
    "PermissionRule",
    "RuleSyntaxError",
    "format_rule",
    "parse_rule",
]

PATH_RULE_TOOLS = frozenset({"Read", "Edit"})
"""Rule families that apply by target kind rather than by tool name."""

_TOOL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_MCP_RULE_NAME = re.compile(r"mcp__(?:\*|[A-Za-z0-9_-]+(?:__(?:\*|[A-Za-z0-9_-]+))?)")
_HOST = re.compile(r"(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")
TOOL_TARGETS: dict[str, str | None] = {
    "Bash": "shell",
    "Read": "read",
    "Glob": "read",
    "Grep": "read",
    "NotebookRead": "read",
    "Edit": "edit",
    "Write": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "WebFetch": "web_fetch",
    "WebSearch": None,
    "Task": "other",
    "Agent": "other",
    "Skill": "other",
    "SlashCommand": "other",
    "TodoWrite": None,
    "ToolSearch": None,
    "BashOutput": None,
    "KillShell": None,
    "LS": "read",
    "ExitPlanMode": None,
    "AskUserQuestion": None,
}
"""Claude Code's built-in tool names, each with the kind of target its content rules are matched
against (:class:`~reference_impl.tools.PermissionTarget` ``kind``; None: a tool no content rule can
match). A rule naming one in another case could never match."""
_KNOWN_TOOLS = frozenset(TOOL_TARGETS)
_BEHAVIORS: tuple[PermissionBehavior, ...] = ("allow", "deny", "ask")


class RuleSyntaxError(ValueError):
    """A rule string that can't be parsed; the message names the rule and what is wrong."""

    def __init__(self, rule: str, problem: str) -> None:
        super().__init__(f"invalid permission rule {rule!r}: {problem}")
        self.rule = rule
        self.problem = problem


@dataclass(frozen=True, slots=True)
class PermissionRule:
    """One parsed rule: ``tool_name`` and optional ``content``, its behavior and settings source.

    ``content`` is None for a whole-tool rule (``Bash``, ``Bash(*)``, ``mcp__server``); ``text``
    is the rule exactly as written, for error messages and decision reasons (PERM-13).
    """

    tool_name: str
    content: str | None
    behavior: PermissionBehavior
    source: SettingSource
    text: str

    @property
    def is_whole_tool(self) -> bool:
        """Whether the rule covers every use of its tool(s)."""
        return self.content is None


def _unescape(content: str) -> str:
    return re.sub(r"\\([()\\])", r"\1", content)


def _escape(content: str) -> str:
    return content.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _split_rule(text: str) -> tuple[str, str | None]:
    open_at = text.find("(")
    if open_at < 0:
        if ")" in text:
            raise RuleSyntaxError(text, "')' without '('")
        return text, None
    if not text.endswith(")") or (text.endswith("\\)") and not text.endswith("\\\\)")):
        raise RuleSyntaxError(text, "missing closing ')' at the end of the rule")
    return text[:open_at], text[open_at + 1 : -1]


def _rstrip_blanks(text: str) -> str:
    r"""``text`` without the blanks ending it, but an escaped one (``rm a\ ``): that is the last word's."""
    stripped = text.rstrip()
    backslashes = len(stripped) - len(stripped.rstrip("\\"))
    return text[: len(stripped) + 1] if backslashes % 2 and len(stripped) < len(text) else stripped


def _normalise_shell_content(content: str) -> str:
    """``Bash( git  push :* )`` means ``Bash(git push:*)``: blanks around the content and before ``:*``."""
    content = _rstrip_blanks(content.lstrip())
    if content.endswith(":*") and not content.endswith("\\:*"):
        content = _rstrip_blanks(content[:-2]) + ":*"
    if not re.search(r"[\"'\\]", content):
        content = re.sub(r"[ \t]+", " ", content)
    return content


def _check_content(tool_name: str, content: str, text: str) -> None:
    if tool_name == "Bash":
        if content.endswith(":*") and not content[:-2].strip():
            raise RuleSyntaxError(text, "a ':*' prefix rule needs a prefix")
        if any(m.end() != len(content) for m in re.finditer(r"(?<!\\):\*", content)):
            raise RuleSyntaxError(text, "':*' may only appear at the end of a Bash rule")
    elif tool_name == "WebFetch":
        if not content.startswith("domain:"):
            raise RuleSyntaxError(text, "WebFetch rules have the form WebFetch(domain:example.com)")
        host = content[len("domain:") :]
        wildcard = "*." if host.startswith("*.") else ""
        normal = normalise_host(host.removeprefix("*.")) if host else None
        if normal is None or not _HOST.fullmatch(wildcard + normal):
            raise RuleSyntaxError(text, f"{host!r} is not a host name")
    elif tool_name in PATH_RULE_TOOLS:
        try:
            parse_path_pattern(content, cwd=Path("/"))
        except PathPatternError as error:
            raise RuleSyntaxError(text, str(error)) from error
    elif tool_name.startswith(MCP_PREFIX):
        raise RuleSyntaxError(text, "MCP rules have no content: write mcp__server or mcp__server__tool alone")


# Blanks a rule may hold: around its content they are trimmed, inside a command bash reads them as blanks.
_RULE_BLANKS = frozenset(" \t\n")


def _invisible_character(text: str) -> str | None:
    """Why ``text`` can't be read as written: a character that is invisible or not a blank to bash.

    A rule pasted from a web page or a chat may carry a no-break or zero-width space, a byte-order
    mark or a control character: it reads like the rule meant (``Bash(git push:*)``) yet names a
    command or file nobody has, so a deny would guard nothing (PERM-12). Refused, never trimmed.
    """
    for index, char in enumerate(text):
        if char in _RULE_BLANKS:
            continue
        category = unicodedata.category(char)
        if category[0] in "CZ" and not (category == "Zs" and char == " "):
            name = unicodedata.name(char, "a control character")
            return f"an invisible or odd blank character U+{ord(char):04X} ({name}) at position {index}"
    return None


def parse_rule(text: str, behavior: PermissionBehavior, source: SettingSource) -> PermissionRule:
    """Parse a rule string as written in settings (``Bash(npm test:*)``, ``Read(//etc/**)``, ...).

    Raises :class:`RuleSyntaxError` naming the rule for anything it can't read with certainty:
    an empty rule, a bad tool name, an unclosed ``(``, empty content ``Tool()``, a WebFetch rule
    without ``domain:``, a negated or malformed path pattern.
    """
    if not isinstance(text, str):
        raise RuleSyntaxError(repr(text), "a rule must be a string")
    if behavior not in _BEHAVIORS:
        raise ValueError(f"unknown rule behavior {behavior!r} (expected allow, deny or ask)")
    if source not in SETTING_SOURCES:
        raise ValueError(f"unknown settings source {source!r}")
    invisible = _invisible_character(text)
    if invisible is not None:
        raise RuleSyntaxError(text, invisible)
    stripped = text.strip()
    if not stripped:
        raise RuleSyntaxError(text, "empty rule")
    tool_name, raw_content = _split_rule(stripped)
    tool_name = tool_name.strip()
    if tool_name.startswith(MCP_PREFIX):
        if not _MCP_RULE_NAME.fullmatch(tool_name):
            raise RuleSyntaxError(text, f"{tool_name!r} is not an MCP rule name (mcp__server[__tool])")
    elif not _TOOL_NAME.fullmatch(tool_name):
        raise RuleSyntaxError(text, f"{tool_name!r} is not a tool name")
    else:
        known = next((k for k in _KNOWN_TOOLS if k.lower() == tool_name.lower()), None)
        if known is not None and known != tool_name:
            raise RuleSyntaxError(
                text, f"tool names are case-sensitive: {tool_name!r} never matches; did you mean {known!r}?"
            )
    content: str | None = None
    if raw_content is not None:
        content = _unescape(raw_content)
        # Blanks around content are never part of what it names (PERM-12): ``Task( Explore)`` kept
        # as " Explore" would deny no subagent, a deny silently narrowed.
        content = _normalise_shell_content(content) if tool_name == "Bash" else content.strip()
        if not content.strip():
            raise RuleSyntaxError(text, "empty content '()'; write the tool name alone for the whole tool")
        if content.strip() == "*":
            content = None  # Tool(*) is the whole tool
        else:
            _check_content(tool_name, content, text)
    return PermissionRule(tool_name=tool_name, content=content, behavior=behavior, source=source, text=text)


def format_rule(rule: PermissionRule) -> str:
    """The canonical rule string (``Tool`` or ``Tool(content)`` with parentheses escaped)."""
    if rule.content is None:
        return rule.tool_name
    return f"{rule.tool_name}({_escape(rule.content)})"
