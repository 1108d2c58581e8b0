r"""Bash's words as bash reads them: quote removal, ANSI-C strings, globs, here-document delimiters.

The syntax tree gives a word as written; these give its value after bash's quote removal
(``'rm'``, ``\rm``, ``r""m`` and ``$'\x72m'`` are all ``rm``), say whether an unquoted part of it
is a pattern bash expands, read the delimiter after ``<<``, and join line continuations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "ansi_c_value",
    "canonical_list",
    "continuation_joins",
    "heredoc_delimiter",
    "is_globby",
    "is_harmless_variable",
    "unquote_double",
    "unquote_word",
    "variable_changes_programs",
]

_GLOB_CHARACTERS = re.compile(r"[*?\[{]")

_UNSAFE_VARIABLES = re.compile(
    r"^(PATH|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|CDPATH|GLOBIGNORE|HOME|SHELL|"
    r"LD_\w*|DYLD_\w*|PYTHON\w*|NODE_OPTIONS|NODE_PATH|PERL\w*|RUBY\w*|GIT_\w*|JAVA_TOOL_OPTIONS|"
    r"BASH_FUNC_\w*|EDITOR|VISUAL|PAGER|GEM_\w*|npm_config_\w*|NPM_CONFIG_\w*)$"
)
# A value that starts an option (``-T``, ``--eval``) or holds shell syntax or a word after a blank.
_OPTION_OR_COMMAND_VALUE = re.compile(r"^\s*[-+]|\s-|[;|`$<>]|&&")
# Name parts that say a variable holds a command, a program, a path searched for one, options a
# program parses or files it reads (``MANPAGER``, ``LESSOPEN``, ``SSH_ASKPASS``, ``MAKEFILES``).
_COMMAND_NAME_PARTS = re.compile(
    r"PAGER|EDITOR|VISUAL|COMMAND|CMD|OPEN|PROG|HOOK|ASKPASS|SHELL|BROWSER|HELPER|OPTION|OPTS|FLAGS|"
    r"PATH|PRELOAD|EXEC|RUNNER|WRAPPER|LOADER|RC|PROFILE|STARTUP|INIT|CONFIG|HOME|DIR|PLUGIN|LIB|"
    r"MODULE|PREFIX|TOOL|INTERP|LAUNCH|SCRIPT|FILTER|DRIVER|PROXY|HANDLER|EVAL|ARGS|FILES?",
    re.IGNORECASE,
)
_COMMAND_NAME_ENDS = re.compile(rf"(?:{_COMMAND_NAME_PARTS.pattern})(?=_|$)", re.IGNORECASE)


# Variables programs only read as data (locale, time zone, terminal and colours, a build's target,
# a test run's switches): Claude Code's list of safe prefix variables, and ``CI``. Any other variable
# set for a command may be one the program reads a command, a program or code from: zgrep runs
# ``$GREP``, man ``$MANPAGER``, less ``$LESSOPEN``, git ``$GIT_SSH``; man pages' ENVIRONMENT sections
# name more than any list holds.
_HARMLESS_VARIABLES = re.compile(
    r"^(LANG|LANGUAGE|LC_[A-Z]+|CHARSET|TZ|TERM|COLORTERM|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|"
    r"COLUMNS|LINES|LS_COLORS|LSCOLORS|GREP_COLOR|GREP_COLORS|GCC_COLORS|TIME_STYLE|BLOCK_SIZE|BLOCKSIZE|"
    r"CI|NODE_ENV|RUST_BACKTRACE|RUST_LOG|GOOS|GOARCH|CGO_ENABLED|GO111MODULE|GOEXPERIMENT|"
    r"PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|PYTEST_DISABLE_PLUGIN_AUTOLOAD|PYTEST_DEBUG|ANTHROPIC_API_KEY)$"
)


def is_harmless_variable(name: str) -> bool:
    """Whether programs only read ``name`` as data (set for one command, it changes nothing that runs)."""
    return _HARMLESS_VARIABLES.match(name) is not None


def variable_changes_programs(name: str, *, rest_of_line: bool = False, value: str | None = None) -> bool:
    """Whether setting ``name`` may change which program runs or what it loads (then it is never stripped).

    For a variable set for the rest of the line (``export``), also any name with a part that says
    it holds a command, a program or a program's options (``MANPAGER``, ``LESSOPEN``). For one set
    for a single command, such a name, or a ``value`` that reads as options or a command line
    (``ZIPOPT='-T -TT cmd' zip``, ``MAKEFLAGS='--eval=...' make``): programs read their own
    variables, which no list holds, and take options and commands from them.
    """
    if _UNSAFE_VARIABLES.match(name):
        return True
    if rest_of_line and _COMMAND_NAME_PARTS.search(name) is not None:
        return True
    # For one command, a part that ends a word of the name (``MAKEFLAGS``, ``GIT_SSH_COMMAND``, not the
    # ``RC`` inside ``FORCE_COLOR``).
    if value is not None and _COMMAND_NAME_ENDS.search(name) is not None:
        return True
    return value is not None and _OPTION_OR_COMMAND_VALUE.search(value) is not None


def is_globby(raw: str) -> bool:
    """Whether an unquoted part of ``raw`` is a glob, a brace expansion or a tilde."""
    if raw.startswith("~"):
        return True
    if _GLOB_CHARACTERS.search(raw) is None:
        return False  # no pattern character at all, quoted or not
    quote = ""
    i = 0
    while i < len(raw):
        c = raw[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c == "\\":
            i += 2
            continue
        elif c in "'\"":
            quote = c
        elif c in "*?[{":
            return True
        i += 1
    return False


_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r"}
_ANSI_SIMPLE |= {"t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_c_value(body: str) -> str:
    """The value of ``$'body'`` (bash's ANSI-C quoting)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[e])
        elif e in "01234567":
            digits = re.match(r"[0-7]{0,2}", body[i:])
            assert digits is not None
            out.append(chr(int(e + digits.group(), 8) & 0xFF))
            i += len(digits.group())
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = re.match(rf"[0-9A-Fa-f]{{1,{width}}}", body[i:])
            if digits is None:
                out.append("\\" + e)
            else:
                out.append(chr(min(int(digits.group(), 16), 0x10FFFF)))
                i += len(digits.group())
        elif e == "c" and i < len(body):
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)


def unquote_word(raw: str) -> str:
    """An unquoted word's value: a backslash quotes the next character, a backslash-newline disappears."""
    if "\\" not in raw:
        return raw
    return re.sub(r"\\(.)", lambda m: "" if m.group(1) == "\n" else m.group(1), raw, flags=re.DOTALL)


def unquote_double(body: str) -> str:
    """A double-quoted string's value (no expansions in it): a backslash quotes only $ ` " and itself."""
    if "\\" not in body:
        return body
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), body)


_DELIMITER_ENDS = frozenset(" \t\n;&|<>()")
"""Unquoted, these end the word after ``<<``: bash's delimiter never contains them."""


def heredoc_delimiter(written: str) -> str | None:
    """The delimiter bash reads from the word after ``<<`` (quotes removed), or None if it is not one word."""
    delimiter: list[str] = []
    index = 0
    while index < len(written):
        char = written[index]
        if char == "\\":
            if index + 1 == len(written):
                return None
            delimiter.append(written[index + 1])
            index += 2
            continue
        if char in "'\"":
            close = written.find(char, index + 1)
            if close < 0 or (char == '"' and "\\" in written[index + 1 : close]):
                return None  # unbalanced, or escapes inside double quotes: not modelled
            delimiter.append(written[index + 1 : close])
            index = close + 1
            continue
        if char in _DELIMITER_ENDS:
            return None
        delimiter.append(char)
        index += 1
    return "".join(delimiter) or None


def continuation_joins(command: str) -> str | None:
    """``command`` with its backslash-newlines removed, when one joins two non-blank characters."""
    if not re.search(r"[^\s\\]\\\n[^\s]", command):
        return None
    return re.sub(r"(?<!\\)((?:\\\\)*)\\\n", r"\1", command)


def canonical_list(node: Any, text: Callable[[Any], str], max_depth: int, depth: int = 0) -> str:
    """A list or pipeline re-joined with single-spaced operators (``text`` gives a node's source)."""
    pieces: list[str] = []
    previous_named = False
    for child in node.children:
        if child.type == "comment":
            continue
        if child.is_named:
            if previous_named:
                pieces.append(";")
            recurse = child.type in ("list", "pipeline") and depth < max_depth
            pieces.append(
                canonical_list(child, text, max_depth, depth + 1)
                if recurse
                else " ".join(text(child).split())
            )
            previous_named = True
        elif child.type in ("&&", "||", "|", "|&", "&", ";", ";;", "\n"):
            pieces.append(";" if child.type == "\n" else child.type)
            previous_named = False
    while pieces and pieces[-1] in (";", "&"):
        pieces.pop()
    return " ".join(pieces)
