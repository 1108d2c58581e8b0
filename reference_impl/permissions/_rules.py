"""Matching permission rules against one tool call (PERM-4, PERM-11).

``Read(...)`` and ``Edit(...)`` rules apply to every tool whose
:class:`~reference_impl.tools._tool.PermissionTarget` kind is ``read`` / ``edit``; ``WebFetch(domain:x)``
matches a URL's host; MCP rules name a server's tools however the server's name splits; shell calls
are matched by :mod:`~reference_impl.permissions._shell_rules`.

Matching is asymmetric on purpose (fail closed): allow rules must cover *every* command bash would
run and the exact resolved file; a deny or ask rule matches when *any* spelling of any command, or
any normalised form of the path or host, matches, and also when the call could not be understood.

The boundary with the engine: the engine describes a call once (:func:`describe_call`) and asks
:func:`first_match` (deny, ask) and :func:`allow_match`; :func:`rule_keys` / :func:`call_keys` let
it index rules by name. This module calls the matchers below it (``_shell_rules``, ``_url_hosts``,
``_paths``) and nothing calls back.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
import shlex
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_impl.permissions._bash_reader import ShellCommand, split_command
from reference_impl.permissions._code_targets import CodeTargets, code_language, code_targets, file_language
from reference_impl.permissions._decisions import PermissionBehavior
from reference_impl.permissions._interpreter_options import path_searched_script
from reference_impl.permissions._paths import (
    PathPatternError,
    chdir_directory,
    opaque_state,
    parse_path_pattern,
    path_forms,
    reaches_beneath,
)
from reference_impl.permissions._program_model import running_form, unread_program
from reference_impl.permissions._project_files import (
    NOT_READ,
    PYTHON_CODE,
    SHELL_TEXT,
    line_directories,
    project_commands,
    reads_project_files,
    runs_make,
    script_commands,
)
from reference_impl.permissions._repository_config import (
    configuration_rewritten,
    configured_commands,
    git_directories,
)
from reference_impl.permissions._rule_matches import AllowMatch, RuleMatch
from reference_impl.permissions._rule_syntax import PATH_RULE_TOOLS, PermissionRule
from reference_impl.permissions._shell_forms import deny_forms, script_operand
from reference_impl.permissions._shell_rules import (
    ShellRuleIndex,
    command_head,
    match_shell_pattern,
    shell_allow_match,
    shell_deny_match,
    shell_rule_index,
)
from reference_impl.permissions._url_hosts import host_matches
from reference_impl.permissions._wrapped_commands import is_wrapper, unwrap
from reference_impl.tools import MCP_PREFIX, PermissionTarget, Tool, normalize_name_for_mcp, parse_mcp_name

__all__ = [
    "Call",
    "allow_match",
    "call_keys",
    "describe_call",
    "first_match",
    "mcp_server_of",
    "project_code",
    "project_texts",
    "rule_applies_to_tool",
    "rule_keys",
    "rule_matches",
    "safe_target",
    "shell_vouched",
    "vouched",
]


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


def _path_matches(
    rule: PermissionRule,
    path: str,
    behavior: PermissionBehavior,
    cwd: Path,
    project_root: Path | None,
    *,
    reads_tree: bool = False,
) -> bool | None:
    """Whether a path rule covers ``path``; None when a deny or ask can't tell.

    It can't tell for a hard link it can't compare, or a read of a directory some of whose files it covers.
    """
    assert rule.content is not None
    try:
        pattern = parse_path_pattern(rule.content, cwd=cwd, project_root=project_root)
        forms = path_forms(path, cwd) if path.strip() else ()
    except (PathPatternError, OSError, ValueError):
        return behavior != "allow"
    if not forms or opaque_state(path, cwd):
        # No path, or one through a descriptor (``/dev/fd/3/x``) or another process's directory.
        return behavior != "allow"
    if behavior == "allow":
        return pattern.matches(forms[-1])  # the resolved file, the one really touched
    found = any(pattern.matches(form) for form in forms) or pattern.same_file(forms[-1])
    if found is not False or not reads_tree or not os.path.isdir(forms[-1]):
        return found
    # A read of a directory (Grep, Glob, a listing) reads everything beneath it.
    return reaches_beneath(pattern, forms[-1])


def _content_matches(
    rule: PermissionRule, call: Call, *, cwd: Path, project_root: Path | None
) -> bool | None:
    """Whether a content rule matches a non-shell call (paths, hosts, exact values); None: it may."""
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
            return shell_allow_match((rule,), _tool_names(tool), target.value) is not None
        found = shell_deny_match((rule,), _tool_names(tool), target.value)
        return found is not None
    if target.kind in ("read", "edit"):
        return _path_matches(
            rule, target.value, rule.behavior, cwd, project_root, reads_tree=target.kind == "read"
        )
    if target.kind == "web_fetch":
        if not rule.content.startswith("domain:"):
            return lenient
        return host_matches(rule.content, target.value, rule.behavior)
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
        names = _tool_names(call.tool)
        index = shell_rule_index(rules, names)
        found = shell_deny_match(rules, names, call.target.value)
        if found is None or not found.certain:
            found = (
                _by_file(index, call.target.value, cwd)
                or _by_repository(index, call.target.value, cwd)
                or _by_project_files(index, call.target.value, cwd)
                or found
            )
        whole = next((r for r in index.whole if rule_applies_to_tool(r, call.tool)), None)
        if whole is not None and (
            found is None or not found.certain or index.position[id(whole)] < index.position[id(found.rule)]
        ):
            return RuleMatch(whole, True, f"{call.tool.name} is covered by rule {whole.text}")
        return found
    uncertain: RuleMatch | None = None
    for rule in rules:
        if rule.content is None:
            if rule_applies_to_tool(rule, call.tool):
                return RuleMatch(rule, True, f"{call.tool.name} is covered by rule {rule.text}")
            continue
        matched = _content_matches(rule, call, cwd=cwd, project_root=project_root)
        if matched:
            return RuleMatch(rule, True, f"matched rule {rule.text}")
        if matched is None and uncertain is None:
            uncertain = RuleMatch(
                rule,
                False,
                f"rule {rule.text} may cover what the call reads (a file with other names, "
                "or files beneath the directory it reads)",
            )
            continue
        if uncertain is None and call.target is None and rule_applies_to_tool(rule, call.tool):
            # ``Deploy(prod)`` on a tool with no permission content: the rule can't be matched
            # against the call, and its author believes it is about some of them (deny is broad).
            uncertain = RuleMatch(
                rule, False, f"rule {rule.text} names content, but {call.tool.name} has none to compare"
            )
    return uncertain


def _by_file(index: ShellRuleIndex, command: str, cwd: Path) -> RuleMatch | None:
    """A deny or ask rule met by the program a command's name is a link to (``./tool`` -> ``/usr/bin/rm``).

    The name as written is judged above; a symbolic link (made before the line) or a name found on
    ``PATH`` (``xzcat`` -> ``xz``) is also the program it resolves to.
    """
    for argv in deny_forms(command).commands:
        name = argv[0]
        if name is None:
            continue
        real = _resolved(name, str(cwd)) if "/" in name else _resolved_on_path(name)
        if real is None or posixpath.basename(real) == posixpath.basename(name):
            continue
        words = (posixpath.basename(real), *argv[1:])
        plain = " ".join("?" if w is None else w for w in words)
        rule = index.first((plain, shlex.join(w or "?" for w in words)))
        read = index.by_grammar((words,)) if rule is None else None
        rule = rule or (read[0] if read is not None and read[1] else None)
        if rule is not None:
            return RuleMatch(rule, True, f"matched rule {rule.text} ({name} is {real})")
    return None


def _by_repository(index: ShellRuleIndex, command: str, cwd: Path) -> RuleMatch | None:
    """A deny or ask rule met by a command git's configuration or hooks name where the line runs git.

    It *may* apply (git runs a key or hook only for some subcommands): the engine asks.
    """
    if not index.content or "git" not in command:
        return None
    directories = git_directories(command, deny_forms(command).commands, cwd)
    first = min(index.content, key=lambda rule: index.order[id(rule)])
    if directories is None:
        return RuleMatch(
            first,
            False,
            f"git runs in a directory only known at run time, whose configuration may run what rule {first.text} covers",
        )
    for directory in directories:
        configured = configured_commands(directory)
        if configured is None:
            return RuleMatch(
                first,
                False,
                f"git's configuration in {directory} could not be read: it may run what rule {first.text} covers",
            )
        rewritten = configuration_rewritten(command, directory, [str(cwd), *directories])
        if rewritten is not None:
            return RuleMatch(
                first, False, f"{rewritten}: it may run what rule {first.text} covers, unread by the engine"
            )
        for named in configured:
            forms = deny_forms(named.text)
            rule = _named_rule(index, named.text)
            if rule is None and (forms.opaque is not None or (named.workspace and forms.unread)):
                # The workspace's own configuration naming a program the engine does not read is
                # like that program on the line; the user's own configuration is trusted as read.
                rule = first
            if rule is not None:
                shown = named.text if len(named.text) <= 80 else named.text[:77] + "..."
                return RuleMatch(
                    rule, False, f"git may run {shown!r} ({named.where}), which rule {rule.text} covers"
                )
    return None


def _by_project_files(index: ShellRuleIndex, command: str, cwd: Path) -> RuleMatch | None:
    """A deny or ask rule met by what a project tool's files name (``package.json``'s script, a recipe).

    The project's code is trusted as read; a command it names that a rule meets *may* run: asked.
    """
    if not index.content:
        return None
    # What a project file runs may read project files in turn (a script that runs another, a
    # script's ``npm run``): each text's own readers are read too, to a bounded depth.
    pending: list[tuple[str, int, list[str]]] = [(command, 0, [str(cwd)])]
    seen: set[tuple[str, str, str]] = set()
    while pending:
        line, depth, starts = pending.pop(0)
        readers = _project_readers(line)
        if not readers:
            continue
        # A variable set for the project tool alone that it reads files or code from (``MAKEFILES=x
        # make``, ``NODE_OPTIONS=... npm test``): what the tool reads is then not what the engine reads.
        steered = next(
            (p for p in split_command(line).parts if not p.plain_assignments and reads_project_files(p.argv)),
            None,
        )
        if steered is not None:
            first = index.content[0]
            return RuleMatch(
                first,
                False,
                f"{steered.argv[0]} is given {', '.join(steered.assignments)}, which may change the files it "
                f"reads and runs (rule {first.text})",
            )
        # Where the line's project tools run: its cwd, and where its cd/pushd lead (PERM-17).
        directories: list[str] = []
        for start in starts:
            found_here = line_directories(deny_forms(line).commands, start)
            if found_here is None:
                first = index.content[0]
                return RuleMatch(
                    first,
                    False,
                    f"{readers[0][0][0]} may run where the line moved to, which is only known when it runs "
                    f"(rule {first.text})",
                )
            directories += [d for d in found_here if d not in directories]
        for argv, script, environment in readers:
            # A program the engine does not read may hand any word of a file it is given to a shell
            # (sqlite3's ``.shell``, gdb's ``shell``): a word bash makes when it runs may be any name.
            unread_reader = script is not None and bool(_unread_files((*argv, "x")))
            found = [
                (here, *item)
                for here in directories
                for item in project_commands(argv, here, environment)
                + (_script_texts(argv, script, here) if script else [])
            ]
            for here, where, text in found:
                # Keyed by the directory too: ``package.json script 'test'`` of sub/ is another script
                # than the project's own (``cd sub && npm test``, ``npm --prefix sub test``); and by
                # the text, as make's recipes read with and without the line's environment differ.
                if (here, where, text) in seen:
                    continue
                seen.add((here, where, text))
                # Project code whose program is only known when it runs (``${t}ch``) may be any program.
                unknown = (
                    text == NOT_READ
                    or (where.startswith(SHELL_TEXT) and _runs_what_only_bash_knows(text))
                    or (unread_reader and _built_at_run_time(text))
                )
                rule = index.content[0] if unknown else _named_rule(index, text)
                code = None if unknown or rule is not None else project_code(where, text)
                if code is not None:
                    # Project code is read as code (PERM-17): a program it names only when it runs
                    # may be any; one it names literally is a command line of its own.
                    rule, text = _by_code(index, code, text)
                    pending.extend((run, depth + 1, directories) for run in code.runs)
                if rule is None and depth >= _PROJECT_DEPTH:
                    rule, text = index.content[0], f"{where}, nested deeper than {_PROJECT_DEPTH} files"
                if rule is not None:
                    shown = text if len(text) <= 80 else text[:77] + "..."
                    what = "code the engine does not read" if text == NOT_READ else repr(shown)
                    return RuleMatch(
                        rule, False, f"{argv[0]} may run {what} ({where}), which rule {rule.text} covers"
                    )
                # What a project file runs, runs where the tool runs it: also the directory the tool
                # was sent to (``npm --prefix sub test``'s script runs in sub/).
                pending.append((text, depth + 1, [*directories, *_sent_to(argv, here)]))
    return None


def project_texts(line: str, directories: Sequence[str]) -> list[tuple[str, str, str]]:
    """What the line's project tools run from project files: (directory, where, text), one layer deep.

    The files the rule check reads (PERM-17: a recipe, a package script, a script and the modules it
    loads, a hook), for the write check to read too (PERM-15); a text of code the engine does not
    read is ``NOT_READ``.
    """
    found: list[tuple[str, str, str]] = []
    for argv, script, environment in _project_readers(line):
        for start in directories:
            places = line_directories(deny_forms(line).commands, start) or [start]
            for here in places:
                texts = project_commands(argv, here, environment)
                texts += _script_texts(argv, script, here) if script else []
                found += [(here, where, text) for where, text in texts]
    return list(dict.fromkeys(found))


_CODE_FILE = re.compile(r"the (?:script |project's (?:module )?)(\S+)")


def project_code(where: str, text: str) -> CodeTargets | None:
    """What a project file of an interpreter's language runs, when ``where`` names one the engine reads."""
    if where.startswith(PYTHON_CODE):
        return code_targets("python", text)  # a doctest's examples, a .pth file's import lines
    named = _CODE_FILE.match(where)
    language = file_language(named.group(1), text) if named else None
    # The modules a project file loads are read too, where its program finds them (_module_search).
    return code_targets(language, text, loads_followed=True) if language is not None else None


def _by_code(index: ShellRuleIndex, code: CodeTargets, text: str) -> tuple[PermissionRule | None, str]:
    """The rule a project file's code meets: any, when it runs what it names only at run time."""
    if code.built is not None:
        return index.content[0], code.built
    for run in code.runs:
        forms = deny_forms(run)
        rule = index.content[0] if forms.opaque is not None else _named_rule(index, run)
        if rule is not None:
            return rule, run
    return None, text


def _sent_to(argv: Sequence[str | None], here: str) -> list[str]:
    """The directories a project tool's options send it to (npm ``--prefix``/``-C``, make ``-C``), from ``here``."""
    found: list[str] = []
    words = [w for w in argv[1:] if w is not None]
    for index, word in enumerate(words):
        value = None
        if word in ("--prefix", "-C", "--directory") and index + 1 < len(words):
            value = words[index + 1]
        elif word.startswith(("--prefix=", "--directory=")):
            value = word.partition("=")[2]
        elif word.startswith("-C") and len(word) > 2:
            value = word[2:]
        if value:
            found.append(chdir_directory(here, value))
    return found


def _runs_what_only_bash_knows(text: str) -> bool:
    """Whether shell text runs a program (or script, or ``eval`` string) only known when bash runs it."""
    opaque = deny_forms(text).opaque
    return opaque is not None and opaque.endswith("only known when bash runs it")


_PROJECT_DEPTH = 6
"""How many project files deep a line's project tools are followed (a script running a script...)."""


@functools.lru_cache(maxsize=4096)
def _program_base(argv: Sequence[str | None]) -> str | None:
    return posixpath.basename(argv[0]) if argv and argv[0] is not None else None


_Reader = tuple[tuple[str | None, ...], str | None, tuple[str, ...]]
"""A command that reads project files, the script file it is given (if any), the environment the line gives it."""


def _project_readers(command: str) -> tuple[_Reader, ...]:
    """The commands of a line that read project files, each with the script file it is given (if any).

    make takes the variables set for it (``RM=nuke make clean``, ``nice env RM=nuke make``) from its
    environment, where they stand in for make's own and undefined ones: it is read once more with
    them (:func:`_make_environment`), beside its reading without them (a wrapper may clear them).
    """
    found: list[_Reader] = []
    for part in split_command(command).parts:
        reached = _make_environment(part.argv, part.assignments)
        if reached is not None:
            found.append((reached[0], None, reached[1]))
        if _unread_files((*part.argv, "x")):
            # Its input redirected from a file (``sqlite3 db < s.sql``) is code it may run too (the
            # part's text leaves its redirections out: any of the line's is taken for its own).
            found += [(part.argv, name, ()) for name in _INPUT_FILE.findall(command)]
    for argv in deny_forms(command).commands:
        script = script_operand(argv)
        if script is not None or reads_project_files(argv):
            found.append((tuple(argv), script[0] if script else None, ()))
        else:
            # A program the engine does not read may take any file it is given for code or
            # configuration (``sqlite3 -init i.sql``, ``gdb -x g``, ``ssh -F cfg``, ``gcc @opts``,
            # ``-specs=s``): each file its words name is read for the commands it names.
            found += [(tuple(argv), name, ()) for name in _unread_files(argv)]
    return tuple(found)


# ``< file`` (not ``<<``, ``<<<``, ``<(``, ``<&``): a command's input read from a file.
_INPUT_FILE = re.compile(r"(?<![<>&0-9])[0-9]?<(?![<(&])\s*([^\s<>|&;()]+)")
# A word's pieces that may name a file: between quotes, blanks and the separators of option syntax.
_FILE_PIECES = re.compile(r"[^\s'\"`:,;=()\[\]{}<>|&@]+")


def _unread_files(argv: Sequence[str | None]) -> list[str]:
    """The names of files among the words of a command the engine does not read (its own language's aside)."""
    if not argv or argv[0] is None:
        return []
    name = posixpath.basename(argv[0])
    args = list(argv[1:])
    if code_language(name) is not None or unread_program(name, args) is None:
        return []
    pieces = (p for w in args if w is not None for p in _FILE_PIECES.findall(w))
    return list(dict.fromkeys(p for p in pieces if not p.startswith("-") and p not in (".", "..")))


def _make_environment(
    argv: Sequence[str | None], assignments: Sequence[str]
) -> tuple[tuple[str | None, ...], tuple[str, ...]] | None:
    """The words of make and the ``NAME=value`` words in its environment, when a command runs make with some.

    Set for the command (``RM=nuke make``) and by each ``env`` or ``sudo`` on the way to make,
    through any wrapper (``nice env RM=nuke timeout 5 make``); ``env -u NAME`` takes one away.
    """
    environment = list(assignments)
    for _ in range(16):  # wrappers nested deeper than that are not followed (the plain reading stays)
        if not argv or argv[0] is None:
            return None
        name = posixpath.basename(argv[0])
        if runs_make(argv[0]):
            return (tuple(argv), tuple(environment)) if environment else None
        inner = unwrap(name, tuple(argv[1:])) if is_wrapper(name) else None
        if not inner:
            return None
        if name in ("env", "sudo"):
            environment = _env_words(environment, name, argv[1 : len(argv) - len(inner)])
        argv = inner
    return None


def _env_words(environment: list[str], wrapper: str, given: Sequence[str | None]) -> list[str]:
    """``environment`` after ``wrapper``'s (env's, sudo's) options and ``NAME=value`` words ``given``."""
    kept, index = list(environment), 0
    while index < len(given):
        word, index = given[index], index + 1
        unset: str | None = None
        if word is None:
            continue
        if wrapper == "env" and word in ("-u", "--unset"):
            unset, index = (given[index] if index < len(given) else None), index + 1
        elif wrapper == "env" and word.startswith("--unset="):
            unset = word.partition("=")[2]
        elif wrapper == "env" and re.fullmatch(r"-[i0v]*u.+", word):
            unset = word.partition("u")[2]
        elif re.match(r"[A-Za-z_]\w*=", word):
            kept.append(word)
        if unset is not None:
            kept = [w for w in kept if w.partition("=")[0] != unset]
    return kept


def _named_rule(index: ShellRuleIndex, text: str) -> PermissionRule | None:
    """The rule that a command text meets in any spelling, or whose words it names."""
    rule = index.first(deny_forms(text).forms)
    if rule is None:
        words = _line_words(text)
        rule = next((r for r in index.content if _guarded_words_named(r, words)), None)
    return rule


def _script_texts(argv: Sequence[str | None], script: str, here: str) -> list[tuple[str, str]]:
    """The texts of the files a shell or interpreter may run as ``script``.

    ``./script``, and when it may look the name up in PATH (``source name``, ``perl -S name``), every
    PATH directory's file of that name too.
    """
    runner = _program_base(argv)
    files = [script]
    if runner is not None and path_searched_script(str(argv[0]), argv[1:]) == script:
        # The PATH the engine sees is the one the line's commands inherit (one the line changes is
        # judged as a changed PATH: _line_writes).
        for directory in os.environ.get("PATH", "").split(os.pathsep):
            candidate = posixpath.join(directory or ".", script)
            if posixpath.isfile(posixpath.join(here, candidate)) and candidate not in files:
                files.append(candidate)
    return [item for file in files for item in script_commands(file, here, runner)]


def _resolved(name: str, cwd: str) -> str | None:
    path = posixpath.join(cwd, name)
    try:
        return os.path.realpath(path) if os.path.islink(path) else None
    except OSError:
        return None


@functools.lru_cache(maxsize=4096)
def _resolved_on_path(name: str) -> str | None:
    found = shutil.which(name)
    return _resolved(found, "/") if found is not None else None


def vouched(
    allow_rules: Sequence[PermissionRule],
    call: Call,
    found: RuleMatch,
    guards: Sequence[PermissionRule] = (),
) -> bool:
    """Whether an uncertain deny/ask match made only by unread commands is vouched for by allow rules naming them.

    Never when the line itself names what one of the deny/ask rules ``guards`` (``found.rule``
    among them) is about: ``tmux new -d nuke``, ``python3 -c 'os.system("nuke")'`` beside
    ``Bash(nuke:*)``. An unread program may run any word it is given, and the allow rule trusts the
    program, not a way around the deny rule written on the same line (deny is broad).
    """
    if found.certain or found.unread is None or call.shell is None or call.target is None:
        return False
    if _built_at_run_time(call.target.value):
        # ``sqlite3 db '.shell $(printf nu)ke'``: a word bash makes when it runs may be the name a deny
        # rule is about, and no reading of the line can rule that out.
        return False
    words = _line_words(call.target.value)
    named = _by_named_head(shell_rule_index(guards, _tool_names(call.tool))) if guards else {}
    candidates = (found.rule, *(rule for word in words & named.keys() for rule in named[word]))
    if any(_guarded_words_named(rule, words) for rule in candidates):
        return False
    return shell_vouched(allow_rules, _tool_names(call.tool), found.unread)


_NAME_WORD = re.compile(r"[\w.+-]+")


@functools.lru_cache(maxsize=64)
def _by_named_head(index: ShellRuleIndex) -> dict[str, tuple[PermissionRule, ...]]:
    """An index's content rules by the program name their pattern starts with (a path's last part)."""
    found: dict[str, list[PermissionRule]] = {}
    for head, rules in index.by_head.items():
        found.setdefault(posixpath.basename(head), []).extend(rules)
    return {name: tuple(rules) for name, rules in found.items()}


@functools.lru_cache(maxsize=4096)
def _built_at_run_time(command: str) -> bool:
    """Whether the line, or text it hands a program the engine does not read (two levels deep), has a word bash makes by expanding.

    Only such a program may hand its words to a shell unread; the code of a language the engine
    reads (``perl -e '... $_ ...'``) is read as that language, not as shell.
    """
    texts = [command]
    for _ in range(3):
        found: list[str] = []
        for text in texts:
            expands = _EXPANDS.search(text) is not None
            for part in split_command(text).parts:
                if expands and None in part.argv:
                    return True
                if not _unread_files((*part.argv, "x")):
                    continue
                handed = [*part.argv, part.stdin]  # its input too (``sqlite3 db <<< '.shell ...'``)
                found += [v for v in handed if v is not None and v != text and _SHELL_TEXT.search(v)]
        texts = [t for t in found if len(t) < 4096]
    return False


_SHELL_TEXT = re.compile(r"[ \t'\"\\;|&$`]")
# Where bash makes a word when it runs: a parameter, a substitution (a glob in SQL is not one).
_EXPANDS = re.compile(r"[$`]")


@functools.lru_cache(maxsize=4096)
def _line_words(command: str) -> frozenset[str]:
    """Every name-like word of a command line, quoted or not, inside code too (``os.system("nuke")``).

    Each word is also read as the shell command an unread program may hand to a shell (``tmux new
    'r""m x'`` names ``rm``), two levels deep.
    """
    words: set[str] = set()
    texts = [command]
    for _ in range(3):
        found: list[str] = []
        for text in texts:
            words.update(_NAME_WORD.findall(text))
            for part in split_command(text).parts:
                for value in part.argv:
                    if value is None:
                        continue
                    words.update(_NAME_WORD.findall(value))
                    words.add(posixpath.basename(value))
                    if value != text and len(value) < 4096 and any(c in value for c in " \t'\"\\;|&$`"):
                        found.append(value)
        texts = found
    return frozenset(words)


def _guarded_words_named(rule: PermissionRule, words: frozenset[str]) -> bool:
    """Whether ``words`` hold every name-like word a shell rule's pattern names (its program at least)."""
    if rule.content is None:
        return False
    named = _literal_words(rule.content)
    head = posixpath.basename(named[0]) if named else ""
    if not _NAME_WORD.fullmatch(head):
        return False
    return head in words and all(w in words for w in named[1:] if _NAME_WORD.fullmatch(w))


def shell_vouched(
    allow_rules: Sequence[PermissionRule], names: tuple[str, ...], unread: Sequence[Sequence[str]]
) -> bool:
    """Whether ``allow_rules`` vouch for every unread command (each given as its forms, as written first).

    A rule vouches when it matches the command *and* names the words that make it unread: the
    user's explicit trust of that form (``Bash(python3 -c:*)`` for ``python3 -c '...'``); a rule
    that may match anything (``Bash(*)``, the whole tool) vouches for nothing.
    """
    index = shell_rule_index(allow_rules, names)
    return all(
        _vouched_for([r for form in forms for r in index.by_head.get(command_head(form), ())], forms)
        for forms in unread
    )


def _vouched_for(allow_rules: Sequence[PermissionRule], forms: Sequence[str]) -> bool:
    """Whether an allow rule matches an unread command *and* names the words that make it unread.

    Vouching never outranks a deny that may apply on a broad allow: ``Bash(python3 -c:*)`` vouches for
    ``python3 -c CODE`` (it names the code-running form); ``Bash(git:*)`` does not vouch for
    ``git psuh`` (an alias or an autocorrected typo of a denied subcommand), nor ``Bash(zip:*)`` for
    ``zip -TT CMD``. ``forms[0]`` is the command as written (see ``_shell_forms._Reading``).
    """
    words = _words(forms[0])
    size = _running_size(words)
    # The same command in each spelling (quoted, plain, as written: ``./gradlew`` for ``gradlew``);
    # a wrapper's form (``timeout 5 python3 -c ...``) must still name the inner words themselves.
    keys = {tuple(w[:size]) for w in map(_words, forms) if len(w) == len(words)} if size else set()
    for rule in allow_rules:
        assert rule.content is not None
        named = _literal_words(rule.content)
        if any(tuple(named[i : i + size]) in keys for i in range(len(named) - size + 1)) and any(
            match_shell_pattern(rule.content, form) for form in forms
        ):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _running_size(words: tuple[str, ...]) -> int:
    return len(running_form(words))


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError:  # an unbalanced quote: no words, so nothing vouches (fail closed)
        return ()


@functools.lru_cache(maxsize=4096)
def _literal_words(pattern: str) -> tuple[str, ...]:
    """The whole words a shell rule's pattern names literally before its first wildcard."""
    if pattern.endswith(":*") and not pattern.endswith("\\:*"):
        return _words(pattern[:-2])
    star = re.search(r"(?<!\\)\*", pattern)
    if star is None:
        return _words(pattern)
    head = pattern[: star.start()]
    words = _words(head)
    # A word cut by the wildcard (``git ps*``) is not named whole.
    return words if head[-1:].isspace() or not head else words[:-1]


def allow_match(
    rules: Sequence[PermissionRule],
    call: Call,
    *,
    cwd: Path,
    project_root: Path | None = None,
    additional_dirs: Sequence[Path] = (),
) -> AllowMatch | None:
    """The allow rules that allow ``call``, or None.

    A whole-tool rule; for a shell call, rules covering every command bash would run (each may be
    covered by a different rule; a ``cd`` that stays in ``cwd`` or ``additional_dirs`` needs
    none); otherwise the first matching content rule.
    """
    if not rules:
        return None
    if call.shell is not None and call.target is not None and call.error is None:
        names = _tool_names(call.tool)
        index = shell_rule_index(rules, names)
        whole = next((r for r in index.whole if rule_applies_to_tool(r, call.tool)), None)
        if whole is not None:
            return AllowMatch((whole,), f"{call.tool.name} is allowed by rule {whole.text}")
        return shell_allow_match(rules, names, call.target.value, (cwd, *additional_dirs))
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
    ``additional_dirs`` are the other working directories (a ``cd`` into them needs no rule).
    """
    call = describe_call(tool, tool_input)
    if rule.behavior == "allow":
        found = allow_match(
            (rule,), call, cwd=cwd, project_root=project_root, additional_dirs=tuple(additional_dirs)
        )
        return found is not None
    return first_match((rule,), call, cwd=cwd, project_root=project_root) is not None
