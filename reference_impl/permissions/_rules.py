"""Permission rules in Claude Code's syntax, and matching a rule against one tool call (PERM-4, PERM-11).

A rule is ``Tool`` (the whole tool) or ``Tool(content)``. ``Bash(npm test:*)`` (legacy prefix),
``Bash(npm test *)`` (wildcard) and ``Bash(npm test)`` (exact) match shell commands part by part;
``Read(...)`` and ``Edit(...)`` hold gitignore-style path patterns and apply to every tool whose
:class:`~reference_impl.tools._tool.PermissionTarget` kind is ``read`` / ``edit``; ``WebFetch(domain:x)``
matches a URL's host; MCP rules are ``mcp__server`` / ``mcp__server__*`` (every tool of a server)
and ``mcp__server__tool``. ``Tool(*)`` means the whole tool, as in Claude Code 2.1.20+.

Matching is asymmetric on purpose (fail closed): an allow rule must match *every* part of a
compound command and the exact resolved file; a deny or ask rule matches when *any* part, or any
normalised form of the path, matches, and also when the call could not be understood.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from reference_impl.permissions._decisions import SETTING_SOURCES, PermissionBehavior, SettingSource
from reference_impl.permissions._paths import PathPatternError, parse_path_pattern, path_forms
from reference_impl.permissions._shell import (
    ShellCommand,
    allow_candidates,
    deny_candidates,
    match_shell_pattern,
    split_command,
)
from reference_impl.tools import MCP_PREFIX, PermissionTarget, Tool, normalize_name_for_mcp, parse_mcp_name

__all__ = [
    "PATH_RULE_TOOLS",
    "PermissionRule",
    "RuleSyntaxError",
    "format_rule",
    "mcp_server_of",
    "parse_rule",
    "rule_applies_to_tool",
    "rule_matches",
    "rule_matches_shell_part",
    "safe_target",
]

PATH_RULE_TOOLS = frozenset({"Read", "Edit"})
"""Rule families that apply by target kind rather than by tool name."""

_TOOL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_MCP_RULE_NAME = re.compile(r"mcp__(?:\*|[A-Za-z0-9_-]+(?:__(?:\*|[A-Za-z0-9_-]+))?)")
_HOST = re.compile(r"(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")
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


def _check_content(tool_name: str, content: str, text: str) -> None:
    if tool_name == "Bash":
        if content.endswith(":*") and not content[:-2].strip():
            raise RuleSyntaxError(text, "a ':*' prefix rule needs a prefix")
        if ":*" in content[:-2]:
            raise RuleSyntaxError(text, "':*' may only appear at the end of a Bash rule")
    elif tool_name == "WebFetch":
        if not content.startswith("domain:"):
            raise RuleSyntaxError(text, "WebFetch rules have the form WebFetch(domain:example.com)")
        host = content[len("domain:") :]
        if not _HOST.fullmatch(host):
            raise RuleSyntaxError(text, f"{host!r} is not a host name")
    elif tool_name in PATH_RULE_TOOLS:
        try:
            parse_path_pattern(content, cwd=Path("/"))
        except PathPatternError as error:
            raise RuleSyntaxError(text, str(error)) from error
    elif tool_name.startswith(MCP_PREFIX):
        name = parse_mcp_name(tool_name)
        if name is None or name.tool in (None, "*"):
            raise RuleSyntaxError(text, "a server-level MCP rule can't have content")


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
    content: str | None = None
    if raw_content is not None:
        content = _unescape(raw_content)
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


def _tool_names(tool: Tool) -> tuple[str, ...]:
    return (tool.name, *tool.aliases)


def mcp_server_of(tool: Tool) -> str | None:
    """The normalised MCP server of ``tool`` (from its MCP info or its name); None for other tools."""
    if tool.mcp is not None:
        return normalize_name_for_mcp(tool.mcp.server)
    parsed = parse_mcp_name(tool.name)
    return parsed.server if parsed and parsed.tool else None


def rule_applies_to_tool(rule: PermissionRule, tool: Tool) -> bool:
    """Whether a whole-tool rule names ``tool`` (by name, alias, MCP server, or ``mcp__*``)."""
    if rule.tool_name in _tool_names(tool):
        return True
    if not rule.tool_name.startswith(MCP_PREFIX):
        return False
    server = mcp_server_of(tool)
    if server is None:
        return False
    if rule.tool_name == "mcp__*":
        return True  # every MCP tool: the evident meaning, refusing would silently drop a deny
    parsed = parse_mcp_name(rule.tool_name)
    return parsed is not None and parsed.server == server and parsed.tool in (None, "*")


def safe_target(tool: Tool, tool_input: Mapping[str, Any]) -> PermissionTarget | Exception | None:
    """The tool's permission target, or the exception its ``permission_target`` raised."""
    try:
        return tool.permission_target(tool_input)
    except Exception as error:  # a broken tool must not make matching silently fail open
        return error


def rule_matches_shell_part(rule: PermissionRule, command: ShellCommand, index: int) -> bool:
    """Whether an allow rule's content matches part ``index`` of ``command`` (allow semantics)."""
    assert rule.content is not None
    part = command.parts[index]
    return any(match_shell_pattern(rule.content, form) for form in allow_candidates(part))


def _shell_matches(rule: PermissionRule, command_text: str) -> bool:
    assert rule.content is not None
    command = split_command(command_text)
    if rule.behavior == "allow":
        if not command.confident or not command.parts:
            return False
        return all(rule_matches_shell_part(rule, command, i) for i in range(len(command.parts)))
    wholes = {command_text.strip(), command.canonical}
    wholes.add(" ".join(" ".join(p.words) if p.words else p.text for p in command.parts))
    if any(match_shell_pattern(rule.content, whole) for whole in wholes if whole):
        return True
    return any(
        match_shell_pattern(rule.content, form) for part in command.parts for form in deny_candidates(part)
    )


def _host_matches(pattern: str, url: str, behavior: PermissionBehavior) -> bool:
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").rstrip(".").lower()
        understood = (
            parts.scheme.lower() in ("http", "https")
            and bool(host)
            and not re.search(r"[\\\s\x00-\x1f]", parts.netloc)
        )
    except ValueError:
        host, understood = "", False
    if not understood:
        return behavior != "allow"  # an unreadable URL is never allowed by a domain rule
    want = pattern[len("domain:") :].lower().rstrip(".")
    if want.startswith("*."):
        return host.endswith(want[1:])
    return host == want


def _path_matches(
    rule: PermissionRule, path: str, behavior: PermissionBehavior, cwd: Path, project_root: Path | None
) -> bool:
    assert rule.content is not None
    try:
        pattern = parse_path_pattern(rule.content, cwd=cwd, project_root=project_root)
        forms = path_forms(path, cwd) if path.strip() else ()
    except (PathPatternError, OSError, ValueError):
        return behavior != "allow"
    if not forms:
        return behavior != "allow"
    if behavior == "allow":
        return pattern.matches(forms[-1])  # the resolved file, the one really touched
    return any(pattern.matches(form) for form in forms)


def rule_matches(
    rule: PermissionRule,
    tool: Tool,
    tool_input: Mapping[str, Any],
    *,
    cwd: Path,
    additional_dirs: Iterable[Path] = (),
    project_root: Path | None = None,
) -> bool:
    """Whether ``rule`` applies to this call of ``tool``, with the rule's behavior deciding strictness.

    ``additional_dirs`` is accepted for symmetry with the engine; path rules are anchored by
    their own syntax, not by the working directories.
    """
    del additional_dirs
    if rule.content is None:
        return rule_applies_to_tool(rule, tool)
    target = safe_target(tool, tool_input)
    lenient = rule.behavior != "allow"
    if isinstance(target, Exception):
        # The call can't be described: deny/ask rules for this tool match, allow rules never do.
        return lenient and (rule.tool_name in _tool_names(tool) or rule.tool_name in PATH_RULE_TOOLS)
    if target is None:
        return False
    family = rule.tool_name
    if family == "Read":
        applies = target.kind == "read"
    elif family == "Edit":
        # An allowed edit location is also readable (Claude Code); an Edit deny leaves reads alone.
        applies = target.kind == "edit" or (target.kind == "read" and rule.behavior == "allow")
    else:
        applies = family in _tool_names(tool)
    if not applies:
        return False
    if target.kind == "shell":
        return _shell_matches(rule, target.value)
    if target.kind in ("read", "edit"):
        return _path_matches(rule, target.value, rule.behavior, cwd, project_root)
    if target.kind == "web_fetch":
        if not rule.content.startswith("domain:"):
            return lenient
        return _host_matches(rule.content, target.value, rule.behavior)
    return target.value == rule.content
