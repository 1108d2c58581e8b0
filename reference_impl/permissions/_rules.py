"""Permission rules in Claude Code's syntax, and matching a rule against one tool call (PERM-4, PERM-11).

A rule is ``Tool`` (the whole tool) or ``Tool(content)``. ``Bash(npm test:*)`` (legacy prefix),
``Bash(npm test *)`` (wildcard) and ``Bash(npm test)`` (exact) match shell commands part by part;
``Read(...)`` and ``Edit(...)`` hold gitignore-style path patterns and apply to every tool whose
:class:`~reference_impl.tools._tool.PermissionTarget` kind is ``read`` / ``edit``; ``WebFetch(domain:x)``
matches a URL's host; MCP rules are ``mcp__server`` / ``mcp__server__*`` (every tool of a server)
and ``mcp__server__tool``. ``Tool(*)`` means the whole tool, as in Claude Code 2.1.20+.

Matching is asymmetric on purpose (fail closed): allow rules must cover *every* command bash would
run (:func:`~reference_impl.permissions._bash_reader.allow_units`) and the exact resolved file; a deny or
ask rule matches when *any* spelling of any command, or any normalised form of the path or host,
matches, and also when the call could not be understood.

The boundary with the engine: the engine describes a call once (:func:`describe_call`) and asks
:func:`first_match` (deny, ask) and :func:`allow_match`; :func:`rule_keys` / :func:`call_keys` let
it index rules by name. This module calls the analysers (``_shell``, ``_paths``) and nothing back.
A rule that loads means what it says (PERM-12): :func:`parse_rule` normalises stray blanks and
refuses a rule that could never match as written.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from reference_impl.permissions._bash_reader import (
    ShellCommand,
    allow_candidates,
    allow_units,
    command_head,
    deny_forms,
    match_shell_pattern,
    pattern_head,
    split_command,
)
from reference_impl.permissions._decisions import SETTING_SOURCES, PermissionBehavior, SettingSource
from reference_impl.permissions._paths import PathPatternError, parse_path_pattern, path_forms
from reference_impl.tools import MCP_PREFIX, PermissionTarget, Tool, normalize_name_for_mcp, parse_mcp_name

__all__ = [
    "PATH_RULE_TOOLS",
    "AllowMatch",
    "Call",
    "PermissionRule",
    "RuleMatch",
    "RuleSyntaxError",
    "allow_match",
    "call_keys",
    "describe_call",
    "first_match",
    "format_rule",
    "mcp_server_of",
    "normalise_host",
    "parse_rule",
    "rule_applies_to_tool",
    "rule_keys",
    "rule_matches",
    "rule_matches_shell_part",
    "safe_target",
]

PATH_RULE_TOOLS = frozenset({"Read", "Edit"})
"""Rule families that apply by target kind rather than by tool name."""

_TOOL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_MCP_RULE_NAME = re.compile(r"mcp__(?:\*|[A-Za-z0-9_-]+(?:__(?:\*|[A-Za-z0-9_-]+))?)")
_HOST = re.compile(r"(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")
_KNOWN_TOOLS = frozenset(
    {"Bash", "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "WebFetch", "WebSearch", "Glob", "Grep"}
    | {"Task", "Agent", "TodoWrite", "ToolSearch", "BashOutput", "KillShell", "Skill", "SlashCommand"}
)
"""Claude Code's built-in tool names: a rule naming one in another case could never match."""
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


def _normalise_shell_content(content: str) -> str:
    """``Bash( git  push :* )`` means ``Bash(git push:*)``: blanks around the content and before ``:*``."""
    content = content.strip()
    if content.endswith(":*") and not content.endswith("\\:*"):
        content = content[:-2].rstrip() + ":*"
    if not re.search(r"[\"'\\]", content):
        content = re.sub(r"[ \t]+", " ", content)
    return content


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
    else:
        known = next((k for k in _KNOWN_TOOLS if k.lower() == tool_name.lower()), None)
        if known is not None and known != tool_name:
            raise RuleSyntaxError(
                text, f"tool names are case-sensitive: {tool_name!r} never matches; did you mean {known!r}?"
            )
    content: str | None = None
    if raw_content is not None:
        content = _unescape(raw_content)
        if tool_name == "Bash":
            content = _normalise_shell_content(content)
        elif tool_name in PATH_RULE_TOOLS or tool_name == "WebFetch":
            content = content.strip()
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


def _mcp_names(tool: Tool) -> tuple[str, ...]:
    """The whole-tool rule names that cover an MCP ``tool``: ``mcp__*``, its server's and its own.

    Built from the tool's own server and tool names rather than by splitting the rule, so a
    server whose name contains ``__`` is still matched by ``mcp__my__server`` (PERM-11, PERM-12).
    """
    if tool.mcp is not None:
        server = normalize_name_for_mcp(tool.mcp.server)
        return ("mcp__*", f"{MCP_PREFIX}{server}", f"{MCP_PREFIX}{server}__*", tool.name)
    parsed = parse_mcp_name(tool.name)
    if parsed is None or not parsed.tool:
        return ()
    # Only the name is known: every way to split it into server and tool.
    rest = tool.name[len(MCP_PREFIX) :]
    names = ["mcp__*", tool.name]
    for match in re.finditer("__", rest):
        server = rest[: match.start()]
        if server:
            names += [f"{MCP_PREFIX}{server}", f"{MCP_PREFIX}{server}__*"]
    return tuple(dict.fromkeys(names))


def rule_applies_to_tool(rule: PermissionRule, tool: Tool) -> bool:
    """Whether a whole-tool rule names ``tool`` (by name, alias, MCP server, or ``mcp__*``)."""
    return rule.tool_name in call_keys(tool, paths=False)


def rule_keys(rule: PermissionRule) -> tuple[str, ...]:
    """The names through which ``rule`` can apply (its tool name; the engine indexes rules by it)."""
    return (rule.tool_name,)


def call_keys(tool: Tool, *, paths: bool) -> tuple[str, ...]:
    """The rule names that can apply to a call of ``tool`` (with the path families for path targets)."""
    keys = [*_tool_names(tool), *_mcp_names(tool)]
    if paths:
        keys += sorted(PATH_RULE_TOOLS)
    return tuple(dict.fromkeys(keys))


def safe_target(tool: Tool, tool_input: Mapping[str, Any]) -> PermissionTarget | Exception | None:
    """The tool's permission target, or the exception its ``permission_target`` raised.

    A target whose value is not a string is returned as a :class:`TypeError` (PERM-14).
    """
    try:
        target = tool.permission_target(tool_input)
    except Exception as error:  # a broken tool must not make matching silently fail open
        return error
    if target is not None and not isinstance(target, PermissionTarget):
        return TypeError(
            f"{tool.name}'s permission target is {type(target).__name__}, not a PermissionTarget"
        )
    if target is not None and not isinstance(target.value, str):
        return TypeError(f"{tool.name}'s {target.kind} target is {type(target.value).__name__}, not a string")
    return target


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call as the rules see it, described once per decision (:func:`describe_call`).

    ``target`` is the tool's permission target (None when it has none); ``error`` says why it could
    not be described (then deny and ask rules for the tool match and allow rules never do).
    """

    tool: Tool
    target: PermissionTarget | None
    error: str | None = None

    @property
    def shell(self) -> ShellCommand | None:
        """The parsed shell command, for a shell target."""
        if self.target is None or self.target.kind != "shell":
            return None
        return split_command(self.target.value)


def describe_call(tool: Tool, tool_input: Mapping[str, Any]) -> Call:
    """Describe one call for matching: its target, computed once (never raises)."""
    target = safe_target(tool, tool_input)
    if isinstance(target, Exception):
        return Call(tool=tool, target=None, error=f"{tool.name}'s permission target failed: {target!r}")
    return Call(tool=tool, target=target)


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """A deny or ask rule that matched; ``certain`` is False when it only *may* apply (opaque command)."""

    rule: PermissionRule
    certain: bool
    detail: str


@dataclass(frozen=True, slots=True)
class AllowMatch:
    """The allow rules that together allow a call, and how."""

    rules: tuple[PermissionRule, ...]
    detail: str


def rule_matches_shell_part(rule: PermissionRule, command: ShellCommand, index: int) -> bool:
    """Whether an allow rule's content matches part ``index`` of ``command`` itself (wrapped commands aside)."""
    assert rule.content is not None
    return any(match_shell_pattern(rule.content, form) for form in allow_candidates(command.parts[index]))


_Units = tuple[tuple[str, ...], ...]


class _ShellRules:
    """The content rules of one rule list for one shell tool, indexed by their pattern's first word.

    A rule whose pattern starts with a fixed word is only tried on forms starting with that word;
    the others (``Bash(* --force)``) are tried on every form. Results per command are memoised.
    """

    def __init__(self, rules: Sequence[PermissionRule], names: tuple[str, ...]) -> None:
        self.rules = rules
        self.content = [r for r in rules if r.content is not None and r.tool_name in names]
        self.whole = [r for r in rules if r.content is None]
        self.position = {id(rule): position for position, rule in enumerate(rules)}
        self.by_head: dict[str, list[PermissionRule]] = {}
        self.anywhere: list[PermissionRule] = []
        for rule in self.content:
            assert rule.content is not None
            head = pattern_head(rule.content)
            if head is None:
                self.anywhere.append(rule)
            else:
                self.by_head.setdefault(head, []).append(rule)
        self.order = {id(rule): position for position, rule in enumerate(self.content)}
        self.memo: dict[tuple[str, str], RuleMatch | AllowMatch | None] = {}

    def first(self, forms: Iterable[str]) -> PermissionRule | None:
        """The earliest rule matching any of ``forms``."""
        best: PermissionRule | None = None
        for form in forms:
            for rules in (self.by_head.get(command_head(form), ()), self.anywhere):
                for rule in rules:
                    assert rule.content is not None
                    if best is not None and self.order[id(rule)] >= self.order[id(best)]:
                        continue
                    if match_shell_pattern(rule.content, form):
                        best = rule
        return best

    def lookup(self, key: tuple[str, str]) -> tuple[bool, RuleMatch | AllowMatch | None]:
        if key in self.memo:
            return True, self.memo[key]
        return False, None

    def remember(self, key: tuple[str, str], value: RuleMatch | AllowMatch | None) -> None:
        if len(self.memo) >= 4096:
            self.memo.clear()
        self.memo[key] = value


_SHELL_INDEXES: dict[tuple[int, tuple[str, ...]], _ShellRules] = {}
_SHORT_SHELL_INDEXES: dict[tuple[tuple[PermissionRule, ...], tuple[str, ...]], _ShellRules] = {}


def _shell_rules(rules: Sequence[PermissionRule], tool: Tool) -> _ShellRules:
    names = _tool_names(tool)
    if len(rules) <= 8:
        # Short lists are often made per call: keyed by value (equal rules match alike), so a
        # list rebuilt for every call still finds its index and its memo of commands.
        short = (tuple(rules), names)
        found = _SHORT_SHELL_INDEXES.get(short)
        if found is None:
            if len(_SHORT_SHELL_INDEXES) >= 256:
                del _SHORT_SHELL_INDEXES[next(iter(_SHORT_SHELL_INDEXES))]
            found = _SHORT_SHELL_INDEXES[short] = _ShellRules(short[0], names)
        return found
    # Keyed by identity (the engine hands the same candidate list for the same tool); the entry
    # holds the list, so the id can't be reused while cached.
    key = (id(rules), names)
    index = _SHELL_INDEXES.get(key)
    if index is None or index.rules is not rules:
        if len(_SHELL_INDEXES) >= 64:
            del _SHELL_INDEXES[next(iter(_SHELL_INDEXES))]
        index = _SHELL_INDEXES[key] = _ShellRules(rules, names)
    return index


def _shell_first(rules: Sequence[PermissionRule], tool: Tool, command: str) -> RuleMatch | None:
    """The first deny/ask shell rule matching any spelling of ``command`` (memoised per rule list)."""
    index = _shell_rules(rules, tool)
    known, cached = index.lookup(("deny", command))
    if known:
        return cached if isinstance(cached, RuleMatch) else None
    found: RuleMatch | None = None
    if index.content:
        forms = deny_forms(command)
        rule = index.first(sorted(forms.forms))
        if rule is not None:
            found = RuleMatch(rule, True, f"matched rule {rule.text}")
        elif forms.opaque is not None:
            first = index.content[0]
            found = RuleMatch(first, False, f"{forms.opaque}: it could run what rule {first.text} covers")
    index.remember(("deny", command), found)
    return found


def _cover(index: _ShellRules, units: _Units | None) -> AllowMatch | None:
    """The allow rules covering each unit (every command bash would run), or None."""
    if units is None:
        return None
    used: list[PermissionRule] = []
    for forms in units:
        rule = index.first(forms)
        if rule is None:
            return None
        used.append(rule)
    texts = ", ".join(dict.fromkeys(r.text for r in used))
    return AllowMatch(tuple(dict.fromkeys(used)), f"every command it runs is allowed ({texts})")


def _shell_allow(rules: Sequence[PermissionRule], tool: Tool, command: str) -> AllowMatch | None:
    """The allow rules that cover every command bash would run for ``command`` (memoised)."""
    index = _shell_rules(rules, tool)
    known, cached = index.lookup(("allow", command))
    if known:
        return cached if isinstance(cached, AllowMatch) else None
    found = _cover(index, allow_units(split_command(command))) if index.content else None
    index.remember(("allow", command), found)
    return found


_IPV4_PART = re.compile(r"^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$")


def normalise_host(host: str) -> str | None:
    """A URL host as a domain rule compares it; None when it can't be read with certainty.

    Percent-decoded, lower-cased, IDNA-encoded (``bücher.de`` is ``xn--bcher-kva.de``; Unicode
    full stops such as ``。`` and full-width letters and digits mapped as IDNA maps them), without
    a trailing dot, an IPv4 address in any of its numeric forms (``2130706433``, ``0x7f.1``,
    ``0177.0.0.1``) as its dotted quad, and an IPv4-mapped IPv6 address (``[::ffff:127.0.0.1]``,
    which reaches the IPv4 host) as that IPv4 address.
    """
    try:
        host = unquote(host, errors="strict").strip().lower()
    except UnicodeDecodeError:
        return None
    if not host or re.search(r"[\x00-\x20%/\\@?#]", host):
        return None
    if host.startswith("[") and host.endswith("]"):
        try:
            address = ipaddress.ip_address(host[1:-1])
        except ValueError:
            return None
        mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        return str(mapped if mapped is not None else address)
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii").lower()
        except UnicodeError:
            return None
    host = host.rstrip(".")
    labels = host.split(".")
    if host and all(_IPV4_PART.match(label) for label in labels) and len(labels) <= 4:
        try:
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            return None
    return host or None


def _host_matches(pattern: str, url: str, behavior: PermissionBehavior) -> bool:
    try:
        parts = urlsplit(url.strip())
        netloc_host = parts.netloc.rpartition("@")[2]
        if netloc_host.startswith("["):
            raw_host = netloc_host[: netloc_host.find("]") + 1]
        else:
            raw_host = netloc_host.rsplit(":", 1)[0] if netloc_host.count(":") == 1 else netloc_host
        host = normalise_host(raw_host)
        understood = (
            parts.scheme.lower() in ("http", "https")
            and host is not None
            and not re.search(r"[\\\s\x00-\x1f]", parts.netloc)
        )
    except ValueError:
        host, understood = None, False
    if not understood or host is None:
        return behavior != "allow"  # an unreadable URL is never allowed by a domain rule
    raw_want = pattern[len("domain:") :]
    wildcard = raw_want.startswith("*.")
    want = normalise_host(raw_want[2:] if wildcard else raw_want)
    if want is None:
        return behavior != "allow"
    if wildcard:
        return host.endswith("." + want)
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
    return any(pattern.matches(form) for form in forms) or pattern.same_file(forms[-1])


def _content_matches(rule: PermissionRule, call: Call, *, cwd: Path, project_root: Path | None) -> bool:
    """Whether a content rule matches a non-shell call (paths, hosts, exact values)."""
    assert rule.content is not None
    tool, target = call.tool, call.target
    lenient = rule.behavior != "allow"
    if call.error is not None:
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
        if rule.behavior == "allow":
            return _shell_allow((rule,), tool, target.value) is not None
        found = _shell_first((rule,), tool, target.value)
        return found is not None
    if target.kind in ("read", "edit"):
        return _path_matches(rule, target.value, rule.behavior, cwd, project_root)
    if target.kind == "web_fetch":
        if not rule.content.startswith("domain:"):
            return lenient
        return _host_matches(rule.content, target.value, rule.behavior)
    return target.value == rule.content


def first_match(
    rules: Sequence[PermissionRule], call: Call, *, cwd: Path, project_root: Path | None = None
) -> RuleMatch | None:
    """The first deny (or ask) rule of ``rules`` that matches ``call``, in rule order.

    A whole-tool rule naming the tool matches; a shell call is matched through every spelling of
    every command (:func:`deny_forms`), and when some command can't be named (an expansion as
    command name) the first shell rule *may* apply: an uncertain match, which the engine asks about.
    """
    if not rules:
        return None
    shell = call.shell
    if shell is not None and call.target is not None:
        # Only whole-tool rules and this tool's shell rules can apply to a shell call.
        index = _shell_rules(rules, call.tool)
        found = _shell_first(rules, call.tool, call.target.value)
        whole = next((r for r in index.whole if rule_applies_to_tool(r, call.tool)), None)
        if whole is not None and (
            found is None or not found.certain or index.position[id(whole)] < index.position[id(found.rule)]
        ):
            return RuleMatch(whole, True, f"{call.tool.name} is covered by rule {whole.text}")
        return found
    for rule in rules:
        if rule.content is None:
            if rule_applies_to_tool(rule, call.tool):
                return RuleMatch(rule, True, f"{call.tool.name} is covered by rule {rule.text}")
            continue
        if _content_matches(rule, call, cwd=cwd, project_root=project_root):
            return RuleMatch(rule, True, f"matched rule {rule.text}")
    return None


def allow_match(
    rules: Sequence[PermissionRule], call: Call, *, cwd: Path, project_root: Path | None = None
) -> AllowMatch | None:
    """The allow rules that allow ``call``, or None.

    A whole-tool rule; for a shell call, rules covering every command bash would run (each may be
    covered by a different rule); otherwise the first matching content rule.
    """
    if not rules:
        return None
    if call.shell is not None and call.target is not None and call.error is None:
        index = _shell_rules(rules, call.tool)
        whole = next((r for r in index.whole if rule_applies_to_tool(r, call.tool)), None)
        if whole is not None:
            return AllowMatch((whole,), f"{call.tool.name} is allowed by rule {whole.text}")
        return _shell_allow(rules, call.tool, call.target.value)
    for rule in rules:
        if rule.content is None and rule_applies_to_tool(rule, call.tool):
            return AllowMatch((rule,), f"{call.tool.name} is allowed by rule {rule.text}")
    if call.error is not None:
        return None
    for rule in rules:
        if rule.content is not None and _content_matches(rule, call, cwd=cwd, project_root=project_root):
            return AllowMatch((rule,), f"allowed by rule {rule.text}")
    return None


def rule_matches(
    rule: PermissionRule,
    tool: Tool,
    tool_input: Mapping[str, Any],
    *,
    cwd: Path,
    additional_dirs: Iterable[Path] = (),
    project_root: Path | None = None,
) -> bool:
    """Whether ``rule`` alone applies to this call of ``tool`` (its behavior deciding strictness).

    For an allow rule and a compound shell command, the rule must cover every command; a deny or
    ask rule matches an opaque command (one whose name is only known at run time).
    ``additional_dirs`` is accepted for symmetry with the engine.
    """
    del additional_dirs
    call = describe_call(tool, tool_input)
    if rule.behavior == "allow":
        return allow_match((rule,), call, cwd=cwd, project_root=project_root) is not None
    return first_match((rule,), call, cwd=cwd, project_root=project_root) is not None
