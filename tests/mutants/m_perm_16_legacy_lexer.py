"""Mutant: the permission engine as it was before issue 13: a home-made lexer instead of bash's grammar.

The lexer (kept below as it was) splits at ``&&``, ``;``, ``|``... and strips a few wrappers; it
disagrees with bash on blanks (``str.split`` / ``isspace``), comments, escaped redirections,
``>&word``, ``$'...'`` and ``${...}`` with nested quotes, and its deny side misses wrappers with
options, so PERM-16's and PERM-17's bash oracle catch it.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-16"
DESCRIPTION = "shell commands are split by a home-made lexer, not bash's grammar (the engine before issue 13)"

# ----- the lexer as it was (reference_impl/permissions/_shell.py before issue 13; now _bash_reader.py and beside it) -----

SHELL_KEYWORDS = frozenset(
    {
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "select",
        "function",
        "coproc",
        "{",
        "}",
        "[[",
        "]]",
        "!",
        "time",
    }
)
"""Reserved words: a part starting with one is a control structure the matcher does not model."""


@dataclass(frozen=True, slots=True)
class ShellPart:
    """One simple command of a shell command line.

    ``text`` is the part as written (trimmed); ``words`` its words after quote removal (empty when
    they could not be determined); ``doubts`` why allow rules must not trust this part.
    """

    text: str
    words: tuple[str, ...]
    doubts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ShellCommand:
    """A command line split into parts, with the scanner's confidence.

    ``canonical`` is the top-level list re-joined with single-spaced operators, so that a deny
    rule written with an operator (``Bash(curl * | bash)``) matches however the model spaced it.
    """

    source: str
    parts: tuple[ShellPart, ...]
    problems: tuple[str, ...]
    canonical: str

    @property
    def confident(self) -> bool:
        """Whether the split can be trusted for allow rules: no problem and no doubtful part."""
        return not self.problems and all(not part.doubts for part in self.parts)

    @property
    def is_compound(self) -> bool:
        """Whether the command has more than one part."""
        return len(self.parts) > 1


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.parts: list[str] = []
        self.problems: list[str] = []
        self.top: list[str] = []  # canonical pieces of the top-level list

    def problem(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)

    def flush(self, current: list[str], *, top: bool, operator: str | None = None) -> None:
        part = "".join(current).strip()
        current.clear()
        if part:
            self.parts.append(part)
            if top:
                self.top.append(part)
        if top and operator is not None:
            self.top.append(operator)

    def scan_list(self, i: int, closer: str | None) -> int:
        """Scan a command list from ``i`` until ``closer`` (or the end); return the index after it."""
        text = self.text
        n = len(text)
        top = closer is None
        current: list[str] = []
        while i < n:
            c = text[i]
            nxt = text[i + 1] if i + 1 < n else ""
            if closer == ")" and c == ")":
                self.flush(current, top=top)
                return i + 1
            if closer == "`" and c == "`":
                self.flush(current, top=top)
                return i + 1
            if c == "\\":
                if nxt == "\n":
                    i += 2  # line continuation
                    continue
                current.append(text[i : i + 2])
                i += 2
            elif c == "'":
                end = text.find("'", i + 1)
                if end < 0:
                    self.problem("unbalanced single quote")
                    current.append(text[i:])
                    i = n
                    continue
                current.append(text[i : end + 1])
                i = end + 1
            elif c == "$" and nxt == "'":
                i = self.scan_ansi_c(i, current)
            elif c == '"':
                i = self.scan_double(i, current)
            elif c == "`":
                start = i
                i = self.scan_list(i + 1, "`")
                if text[i - 1 : i] != "`" or i - 1 == start:
                    self.problem("unbalanced backtick")
                current.append(text[start:i])
            elif c == "$" and nxt == "(":
                if text.startswith("$((", i):
                    self.problem("arithmetic expansion $((...)) is not analysed")
                start = i
                i = self.scan_substitution(i + 2)
                current.append(text[start:i])
            elif c in "<>" and nxt == "(":
                start = i
                i = self.scan_substitution(i + 2)
                current.append(text[start:i])
            elif c == "$" and nxt == "{":
                i = self.scan_braced(i, current)
            elif c == "#" and (not current or current[-1][-1:].isspace()):
                end = text.find("\n", i)
                i = n if end < 0 else end  # a comment runs to the end of the line
            elif c == "(":
                if "".join(current).strip():
                    self.problem("'(' after words (function definition or array) is not analysed")
                self.flush(current, top=top, operator="(")
                i = self.scan_substitution(i + 1)
                if top:
                    self.top.append(")")
            elif c == ")":
                self.problem("unbalanced ')'")
                self.flush(current, top=top, operator=")")
                i += 1
            elif c == ";":
                if nxt in (";", "&"):
                    self.problem("case-statement terminator is not analysed")
                self.flush(current, top=top, operator=";")
                i += 1
            elif c == "&":
                if nxt == "&":
                    self.flush(current, top=top, operator="&&")
                    i += 2
                elif nxt == ">" or (current and current[-1][-1:] in ("<", ">")):
                    current.append("&")  # &> redirection, or an fd duplication such as 2>&1
                    i += 1
                else:
                    self.flush(current, top=top, operator="&")
                    i += 1
            elif c == "|":
                if nxt == "|":
                    self.flush(current, top=top, operator="||")
                    i += 2
                elif nxt == "&":
                    self.flush(current, top=top, operator="|&")
                    i += 2
                elif current and current[-1][-1:] == ">":
                    current.append("|")  # >| is a clobbering redirection, not a pipe
                    i += 1
                else:
                    self.flush(current, top=top, operator="|")
                    i += 1
            elif c == "\n":
                self.flush(current, top=top, operator=";")
                i += 1
            elif c == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
                self.problem("here-documents are not analysed")
                current.append("<<")
                i += 2
            else:
                current.append(c)
                i += 1
        if closer is not None:
            self.problem(f"unclosed {'$(' if closer == ')' else '`'}")
        self.flush(current, top=top)
        return n

    def scan_substitution(self, i: int) -> int:
        # The inside of $( ), <( ), >( ) and ( ) is a command list of its own: its parts count.
        return self.scan_list(i, ")")

    def scan_double(self, i: int, current: list[str]) -> int:
        text = self.text
        n = len(text)
        start = i
        i += 1
        while i < n:
            c = text[i]
            if c == "\\":
                i += 2
            elif c == '"':
                current.append(text[start : i + 1])
                return i + 1
            elif c == "`":
                i = self.scan_list(i + 1, "`")
            elif c == "$" and text.startswith("$(", i):
                if text.startswith("$((", i):
                    self.problem("arithmetic expansion $((...)) is not analysed")
                i = self.scan_substitution(i + 2)
            else:
                i += 1
        self.problem("unbalanced double quote")
        current.append(text[start:])
        return n

    def scan_ansi_c(self, i: int, current: list[str]) -> int:
        text = self.text
        j = i + 2
        while j < len(text):
            if text[j] == "\\":
                j += 2
            elif text[j] == "'":
                current.append(text[i : j + 1])
                return j + 1
            else:
                j += 1
        self.problem("unbalanced $'...' quote")
        current.append(text[i:])
        return len(text)

    def scan_braced(self, i: int, current: list[str]) -> int:
        # ${...}: operators inside are text, but substitutions inside still run.
        text = self.text
        start = i
        i += 2
        depth = 1
        while i < len(text):
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c == "'":
                end = text.find("'", i + 1)
                i = len(text) if end < 0 else end + 1
                continue
            if c == '"':
                i = self.scan_double(i, [])
                continue
            if c == "`":
                i = self.scan_list(i + 1, "`")
                continue
            if text.startswith("$(", i):
                i = self.scan_substitution(i + 2)
                continue
            if text.startswith("${", i):
                depth += 1
                i += 2
                continue
            if c == "}":
                depth -= 1
                i += 1
                if depth == 0:
                    current.append(text[start:i])
                    return i
                continue
            i += 1
        self.problem("unbalanced '${'")
        current.append(text[start:])
        return len(text)


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_SAFE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def _words(part: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(part, comments=False, posix=True))
    except ValueError:
        return ()


def _redirect_targets(part: str) -> list[str]:
    """The targets of unquoted output redirections (``>f``, ``2>>f``, ``&>f``, ``>|f``) in a part."""
    targets: list[str] = []
    i, n = 0, len(part)
    quote = ""
    while i < n:
        c = part[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = ""
            i += 1
            continue
        if c == "\\":
            i += 2
            continue
        if c in "'\"":
            quote = c
            i += 1
            continue
        if c == ">" and part[i + 1 : i + 2] != "(":
            j = i + 1
            while j < n and part[j] in ">|":
                j += 1
            while j < n and part[j] in " \t":
                j += 1
            k = j
            while k < n and not part[k].isspace() and part[k] not in ";|&<>()":
                k += 1
            target = "&" if part[j : j + 1] == "&" else part[j:k].strip("'\"")
            targets.append(target)
            i = max(k, i + 1)
            continue
        i += 1
    return targets


def _doubts(part: str, words: tuple[str, ...]) -> tuple[str, ...]:
    doubts: list[str] = []
    if not words:
        doubts.append("words could not be determined")
        return tuple(doubts)
    first = words[0]
    if first in SHELL_KEYWORDS:
        doubts.append(f"starts with the shell keyword {first!r}")
    raw_first = part.lstrip().split(None, 1)[0] if part.strip() else ""
    if raw_first.startswith(("$", "`", '"$', '"`')) or "$(" in raw_first or "`" in raw_first:
        doubts.append("the command name is an expansion")
    for target in _redirect_targets(part):
        if not target.startswith("&") and target not in _SAFE_TARGETS:
            doubts.append(f"output redirection to {target or '?'!r}")
    return tuple(doubts)


def split_command(command: str) -> ShellCommand:
    """Split ``command`` into its simple commands, including those inside substitutions."""
    scanner = _Scanner(command)
    scanner.scan_list(0, None)
    parts = tuple(ShellPart(text=p, words=(w := _words(p)), doubts=_doubts(p, w)) for p in scanner.parts)
    # Drop a trailing ";" (from a final newline) so canonical forms compare equal.
    top = scanner.top
    while top and top[-1] in (";", "&"):
        top = top[:-1]
    if not parts and command.strip():
        scanner.problem("no command found")
    return ShellCommand(
        source=command,
        parts=parts,
        problems=tuple(scanner.problems),
        canonical=" ".join(top),
    )


_WRAPPERS_NO_ARGS = frozenset({"nohup", "command", "builtin", "exec", "time", "env", "sudo", "doas", "xargs"})
_LEADING_KEYWORDS = frozenset({"{", "(", "!", "if", "then", "else", "elif", "while", "until", "do", "time"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
_DURATION = re.compile(r"^[0-9]+(\.[0-9]+)?[smhd]?$")


def _strip_wrappers(words: tuple[str, ...], *, assignments: bool) -> tuple[str, ...]:
    """Drop wrappers that only run their argument (and, for deny, leading variable assignments)."""
    changed = True
    while words and changed:
        changed = False
        first = words[0]
        if (assignments and first in _LEADING_KEYWORDS and len(words) > 1) or (
            assignments and _ASSIGNMENT.match(first)
        ):
            words, changed = words[1:], True
        elif first in ("timeout", "gtimeout") and len(words) > 2 and _DURATION.match(words[1]):
            words, changed = words[2:], True
        elif first == "nice" and len(words) > 3 and words[1] == "-n":
            words, changed = words[3:], True
        elif (first == "nice" and len(words) > 1 and not words[1].startswith("-")) or (
            first == "nohup" and len(words) > 1
        ):
            words, changed = words[1:], True
        elif assignments and first in _WRAPPERS_NO_ARGS and len(words) > 1:
            rest = words[1:]
            while assignments and rest and (rest[0].startswith("-") or _ASSIGNMENT.match(rest[0])):
                rest = rest[1:]
            words, changed = rest, True
    return words


def allow_candidates(part: ShellPart) -> tuple[str, ...]:
    """The forms of a part an allow rule may match: as written, and without safe wrappers.

    Only ``timeout N``, ``nice`` and ``nohup`` are stripped (they run their argument unchanged);
    variable assignments are not, since ``PATH=. npm test`` runs something else.
    """
    forms = [part.text]
    stripped = _strip_wrappers(part.words, assignments=False)
    if stripped != part.words and stripped:
        forms.append(shlex.join(stripped))
    return tuple(forms)


def deny_candidates(part: ShellPart, *, _depth: int = 0) -> tuple[str, ...]:
    """Every form of a part a deny or ask rule is tried against (broad on purpose: fail closed).

    The part as written; its words after quote removal (``'rm' -rf x`` is ``rm -rf x``); the same
    without leading keywords, assignments and wrappers (``FOO=1 nohup rm -rf x``, ``xargs rm``,
    ``{ rm -rf x``); with a path-qualified command name reduced to its basename (``/bin/rm``); and
    the parts of a command string run by ``sh -c`` / ``bash -c`` / ``eval``.
    """
    forms = [part.text]
    if part.words:
        forms.append(" ".join(part.words))
        stripped = _strip_wrappers(part.words, assignments=True)
        if stripped:
            forms.append(" ".join(stripped))
            if "/" in stripped[0]:
                stripped = (posixpath.basename(stripped[0]), *stripped[1:])
                forms.append(" ".join(stripped))
            for nested in _nested_scripts(stripped) if _depth < 4 else ():
                for inner in split_command(nested).parts:
                    forms.extend(deny_candidates(inner, _depth=_depth + 1))
    return tuple(dict.fromkeys(forms))


def _nested_scripts(words: tuple[str, ...]) -> list[str]:
    """Command strings a part hands to another shell: ``bash -c 'x'``, ``eval x``."""
    if not words:
        return []
    if words[0] == "eval" and len(words) > 1:
        return [" ".join(words[1:])]
    if posixpath.basename(words[0]) in _SHELLS:
        for index, word in enumerate(words[1:-1], start=1):
            if word.startswith("-") and "c" in word[1:] and not word.startswith("--"):
                return [words[index + 1]]
    return []


def _legacy_allow_units(command: Any, depth: int = 0) -> tuple[tuple[str, ...], ...] | None:
    del depth
    legacy = split_command(command.source)
    if not legacy.confident or not legacy.parts:
        return None
    return tuple(allow_candidates(part) for part in legacy.parts)


def _legacy_deny_forms(command: str) -> Any:
    from reference_impl.permissions._shell_forms import DenyForms

    legacy = split_command(command)
    forms = {command.strip(), legacy.canonical}
    forms.add(" ".join(" ".join(p.words) if p.words else p.text for p in legacy.parts))
    for part in legacy.parts:
        forms.update(deny_candidates(part))
    return DenyForms(forms=frozenset(f for f in forms if f), opaque=None)


adapter = make_factory(
    Patch("reference_impl.permissions._shell_rules", "allow_units", lambda _original: _legacy_allow_units),
    Patch("reference_impl.permissions._shell_rules", "deny_forms", lambda _original: _legacy_deny_forms),
)
