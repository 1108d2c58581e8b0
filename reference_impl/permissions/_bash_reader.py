r"""What bash would run: shell commands parsed with a real bash grammar (PERM-11, PERM-16, PERM-17).

A command line is parsed by tree-sitter's bash grammar and the syntax tree is walked. The walk
models the constructs it understands (lists, pipelines, subshells, groups, simple commands, words
and their quoting, redirections, here-documents, command and process substitutions); it **fails
closed**: any other node type (``if``, ``for``, functions, ``[[ ]]``, arithmetic, a syntax error,
...) is a *problem*, and a command with a problem is never allowed by a rule (it is asked about).
Commands inside a construct the walker does not model are still collected, for deny rules.

Each simple command becomes a :class:`ShellPart`: its words after bash's quote removal
(``'rm'``, ``\rm``, ``r""m`` and ``$'\x72m'`` are all ``rm``), ``None`` for a word bash only
knows at run time (``$X``, ``$(...)``, a glob). A command name bash only knows at run time is a
*doubt*: allow rules never trust it, and deny rules treat it as possibly anything.

Two views are derived, one per side (they are computed once per command string and cached):

* :func:`allow_units`: the commands that must *each* be allowed. Harmless wrappers and plain
  environment assignments are stripped (``time``, ``nice``, ``timeout``, ``nohup``, ``stdbuf``,
  ``NODE_ENV=test``); any other wrapper (``sudo``, ``env``, ``xargs``, ``exec``, ``command``,
  ``find -exec``, ``bash -c``, ``eval``, ...) is a command of its own *and* its wrapped command
  must be allowed too. None when the command can't be allowed by rules at all.
* :func:`deny_forms`: every spelling a deny or ask rule is tried against: as written, after quote
  removal, with assignments and any wrapper (with its options) stripped, with a path-qualified
  name reduced to its basename, the scripts of ``bash -c`` / ``eval``; and whether some command
  is *opaque* (its name is an expansion), in which case every deny rule applies.

This module only analyses strings; it calls no other part of the harness.
"""

from __future__ import annotations

import posixpath
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

from reference_impl.permissions._evaluated import (
    MAY_HIDE_CODE,
    data_run_as_code,
    hidden_code,
    mark_evaluated_code,
    runs_written_file,
)
from reference_impl.permissions._programs import program_scripts

__all__ = [
    "HARMLESS_WRAPPERS",
    "SHELL_KEYWORDS",
    "DenyForms",
    "ShellCommand",
    "ShellPart",
    "allow_candidates",
    "allow_units",
    "deny_candidates",
    "deny_forms",
    "match_shell_pattern",
    "split_command",
]

SHELL_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac"}
    | {"select", "function", "coproc", "{", "}", "[[", "]]", "!", "time"}
)
"""Bash's reserved words."""

MAX_COMMAND_LENGTH = 100_000
"""Longer command lines are not analysed (asked about, and matched by every deny rule)."""

MAX_DEPTH = 48
"""Deeper nesting (substitutions in substitutions, ``bash -c`` in ``bash -c``) is not analysed."""

_SAFE_WRITE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
# Characters bash does not treat as blanks but other tokenisers (tree-sitter's included) might.
_ODD_BLANKS = re.compile("[\x00\x0b\x0c\r\x85\xa0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_UNSAFE_VARIABLES = re.compile(
    r"^(PATH|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|CDPATH|GLOBIGNORE|HOME|SHELL|"
    r"LD_\w*|DYLD_\w*|PYTHON\w*|NODE_OPTIONS|NODE_PATH|PERL\w*|RUBY\w*|GIT_\w*|JAVA_TOOL_OPTIONS|"
    r"BASH_FUNC_\w*|EDITOR|VISUAL|PAGER|GEM_\w*|npm_config_\w*|NPM_CONFIG_\w*)$"
)
"""Variables that change *which* program runs or what it loads: an assignment of one is never stripped."""


@dataclass(frozen=True, slots=True)
class ShellPart:
    """One simple command bash would run.

    ``text`` is the command as written; ``argv`` its words after quote removal, ``None`` for a
    word only known at run time; ``raw`` the same words as written; ``assignments`` the leading
    ``NAME=value`` words as written, with ``plain_assignments`` telling whether all of them assign
    a known value to a variable that does not change what runs; ``doubts`` why an allow rule must
    not trust this command.
    """

    text: str
    argv: tuple[str | None, ...]
    raw: tuple[str, ...]
    assignments: tuple[str, ...] = ()
    plain_assignments: bool = True
    doubts: tuple[str, ...] = ()
    stdin: str | None = None
    """The text of a here-document or here-string given as its input, when known."""

    @property
    def words(self) -> tuple[str, ...]:
        """The words, with a run-time word as written (``$X``)."""
        return tuple(raw if value is None else value for value, raw in zip(self.argv, self.raw, strict=True))

    @property
    def opaque(self) -> bool:
        """Whether the program this command runs is only known at run time."""
        return not self.argv or self.argv[0] is None or _is_globby(self.raw[0])


@dataclass(frozen=True, slots=True)
class ShellCommand:
    """A command line as bash would run it: its simple commands and what the walker made of it.

    ``problems`` are constructs the walker does not model, a syntax error, odd blanks, an output
    redirection to a file; ``writes`` the targets of output redirections (``None`` for one only
    known at run time); ``canonical`` the top-level list re-joined with single-spaced operators
    (so ``Bash(curl * | bash)`` matches however it was spaced).
    """

    source: str
    parts: tuple[ShellPart, ...]
    problems: tuple[str, ...]
    canonical: str
    writes: tuple[str | None, ...] = ()

    @property
    def confident(self) -> bool:
        """Whether allow rules may judge this command: no problem and no doubtful part."""
        return not self.problems and all(not part.doubts for part in self.parts)

    @property
    def is_compound(self) -> bool:
        """Whether the command has more than one part."""
        return len(self.parts) > 1


# --------------------------------------------------------------------------------------------
# Parsing


_LOCAL = threading.local()


def _parser() -> tree_sitter.Parser:
    parser: tree_sitter.Parser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return parser


_GLOB_CHARACTERS = re.compile(r"[*?\[{]")


def _is_globby(raw: str) -> bool:
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


def _ansi_c(body: str) -> str:
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


def _unquote_word(raw: str) -> str:
    """An unquoted word's value: a backslash quotes the next character, a backslash-newline disappears."""
    if "\\" not in raw:
        return raw
    return re.sub(r"\\(.)", lambda m: "" if m.group(1) == "\n" else m.group(1), raw, flags=re.DOTALL)


def _unquote_double(body: str) -> str:
    """A double-quoted string's value (no expansions in it): a backslash quotes only $ ` " and itself."""
    if "\\" not in body:
        return body
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), body)


_UNESCAPED_BLANK = re.compile(r"(?<!\\)(?:\\\\)*[ \t\n]")


_MODELLED_STATEMENTS = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "subshell",
        "compound_statement",
        "redirected_statement",
        "negated_command",
    }
)
_PASSIVE = frozenset({"comment", "heredoc_start", "heredoc_end", "heredoc_content", "file_descriptor"})


@dataclass
class _Walk:
    source: bytes
    parts: list[ShellPart] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    writes: list[str | None] = field(default_factory=list)
    stdin: str | None = None

    def problem(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)

    def text(self, node: tree_sitter.Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    # statements -----------------------------------------------------------------------------

    def statement(self, node: tree_sitter.Node, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.problem(f"nesting deeper than {MAX_DEPTH} levels is not analysed")
            self.opaque(node, "nesting too deep to analyse")
            return
        kind = node.type
        if node.is_missing or kind == "ERROR":
            self.syntax_error(node, depth)
        elif kind == "command":
            self.command(node, depth)
        elif kind == "redirected_statement":
            first = len(self.parts)
            self.stdin = None
            for child in node.named_children:
                if child.type == "file_redirect" or child.type == "herestring_redirect":
                    self.redirect(child, depth)
                elif child.type == "heredoc_redirect":
                    self.heredoc(child, depth)
                else:
                    self.statement(child, depth + 1)
            if self.stdin is not None and len(self.parts) > first:
                self.parts[first] = replace(self.parts[first], stdin=self.stdin)
        elif kind in _MODELLED_STATEMENTS:
            for child in node.named_children:
                if child.type == "file_redirect" or child.type == "herestring_redirect":
                    self.redirect(child, depth)
                elif child.type == "heredoc_redirect":
                    self.heredoc(child, depth)
                else:
                    self.statement(child, depth + 1)
        elif kind in ("variable_assignment", "variable_assignments"):
            self.problem("a shell variable is set for the rest of the command line")
            self.children(node, depth)
        elif kind == "command_substitution" or kind == "process_substitution":
            self.children(node, depth)
        elif kind in ("file_redirect", "herestring_redirect"):
            self.redirect(node, depth)
        elif kind == "heredoc_redirect":
            self.heredoc(node, depth)
        elif kind in _PASSIVE:
            return
        else:
            self.problem(f"the shell construct {kind!r} is not analysed")
            self.children(node, depth)

    def opaque(self, node: tree_sitter.Node, why: str) -> None:
        """A command bash may run that the walk can't name: allow never, every deny rule may apply."""
        self.parts.append(ShellPart(text=self.text(node).strip(), argv=(None,), raw=("?",), doubts=(why,)))

    def syntax_error(self, node: tree_sitter.Node, depth: int) -> None:
        self.problem("the command is not valid bash (syntax error)")
        self.opaque(node, "a syntax error: what bash runs of it is not known")
        self.children(node, depth)

    def children(self, node: tree_sitter.Node, depth: int) -> None:
        """Collect the commands anywhere below ``node`` (inside constructs that are not modelled)."""
        for child in node.named_children:
            if child.type in ("command", "command_substitution", "process_substitution") or (
                child.type in _MODELLED_STATEMENTS
            ):
                self.statement(child, depth + 1)
            elif child.type in ("file_redirect", "herestring_redirect"):
                self.redirect(child, depth + 1)
            elif child.type == "heredoc_redirect":
                self.heredoc(child, depth + 1)
            elif child.type == "ERROR" or child.is_missing:
                self.syntax_error(child, depth + 1)
            elif depth <= MAX_DEPTH:
                self.children(child, depth + 1)
            else:
                self.problem(f"nesting deeper than {MAX_DEPTH} levels is not analysed")
                self.opaque(child, "nesting too deep to analyse")

    def command(self, node: tree_sitter.Node, depth: int) -> None:
        argv: list[str | None] = []
        raw: list[str] = []
        assignments: list[str] = []
        plain = True
        doubts: list[str] = []
        self.stdin = None
        for child in node.named_children:
            kind = child.type
            if kind == "variable_assignment" and not argv:
                text = self.text(child)
                assignments.append(text)
                name = text.split("=", 1)[0].rstrip("+")
                values = child.children_by_field_name("value")
                value = self.word(values[0], depth) if values else ""
                if value is None or _UNSAFE_VARIABLES.match(name) or "[" in name:
                    plain = False
            elif kind in ("file_redirect", "herestring_redirect"):
                self.redirect(child, depth)
            elif kind == "heredoc_redirect":
                self.heredoc(child, depth)
            elif kind == "command_name":
                inner = child.named_children
                word = inner[0] if inner else child
                argv.append(self.word(word, depth))
                raw.append(self.text(word))
            elif kind == "comment":
                continue
            else:
                argv.append(self.word(child, depth))
                raw.append(self.text(child))
        if not argv or argv[0] is None or _is_globby(raw[0]):
            doubts.append(f"the command name {raw[0] if raw else '?'!r} is only known when bash runs it")
        elif argv[0] == "coproc":
            doubts.append("coproc is a reserved word the grammar reads as a command name")
        elif argv[0] in _RENAMING_BUILTINS:
            doubts.append(f"{argv[0]} changes what later command names run")
            argv[0] = None
        self.parts.append(
            ShellPart(
                text=self.text(node).strip(),
                argv=tuple(argv),
                raw=tuple(raw),
                assignments=tuple(assignments),
                plain_assignments=plain,
                doubts=tuple(doubts),
                stdin=self.stdin,
            )
        )
        self.stdin = None
        hidden = hidden_code(tuple(argv), tuple(raw), tuple(assignments))
        if hidden is not None:
            # The command itself stays (its deny rules still match it); beside it, code nobody can
            # name, so every deny rule may apply and no allow rule does.
            self.problem(hidden)
            self.opaque(node, hidden)

    # words ----------------------------------------------------------------------------------

    def word(self, node: tree_sitter.Node, depth: int) -> str | None:
        """The value bash gives ``node`` after quote removal, or None when only known at run time."""
        kind = node.type
        if kind == "word" or kind == "number":
            raw = self.text(node)
            if _UNESCAPED_BLANK.search(raw):
                # The grammar made one word of what bash splits (seen: newlines before ``\x``).
                self.problem("the grammar and bash disagree on where a word ends")
                self.opaque(node, "a word the grammar and bash split differently")
                return None
            return _unquote_word(raw)
        if kind == "raw_string":
            return self.text(node)[1:-1]
        if kind == "ansi_c_string":
            return _ansi_c(self.text(node)[2:-1])
        if kind == "string":
            if all(child.type == "string_content" for child in node.named_children):
                text = self.text(node)
                return _unquote_double(text[text.index('"') + 1 : -1])
            self.substitutions(node, depth)
            return None
        if kind == "translated_string":
            inner = node.named_children
            return self.word(inner[0], depth) if inner else ""
        if kind == "concatenation":
            values = [self.word(child, depth) for child in node.named_children]
            if any(value is None for value in values):
                return None
            text = self.text(node)
            pieces = "".join(self.text(child) for child in node.named_children)
            if pieces != text:  # a piece the grammar left unnamed (``$`` before a quote, ...)
                return None
            return "".join(value for value in values if value is not None)
        if kind in ("simple_expansion", "expansion"):
            self.substitutions(node, depth)
            return None
        if kind in ("command_substitution", "process_substitution"):
            self.statement(node, depth + 1)
            return None
        if kind == "arithmetic_expansion":
            self.problem(
                "arithmetic expansion is not analysed (it can run commands through array subscripts)"
            )
            self.substitutions(node, depth)
            return None
        if kind == "ERROR" or node.is_missing:
            self.problem("the command is not valid bash (syntax error)")
        else:
            self.problem(f"the shell word {kind!r} is not analysed")
        self.substitutions(node, depth)
        return None

    def substitutions(self, node: tree_sitter.Node, depth: int) -> None:
        """Walk the commands that bash runs while expanding ``node``."""
        if depth > MAX_DEPTH:
            self.problem(f"nesting deeper than {MAX_DEPTH} levels is not analysed")
            self.opaque(node, "nesting too deep to analyse")
            return
        for child in node.named_children:
            if child.type in ("command_substitution", "process_substitution"):
                self.statement(child, depth + 1)
            elif child.type == "subscript" or child.type == "arithmetic_expansion":
                self.problem("an array subscript or arithmetic is not analysed")
                self.substitutions(child, depth + 1)
            elif child.type == "ERROR":
                self.problem("the command is not valid bash (syntax error)")
                self.substitutions(child, depth + 1)
            else:
                self.substitutions(child, depth + 1)

    # redirections ---------------------------------------------------------------------------

    def redirect(self, node: tree_sitter.Node, depth: int) -> None:
        operator = next((c.type for c in node.children if not c.is_named), "")
        destinations = node.children_by_field_name("destination") or [
            c for c in node.named_children if c.type != "file_descriptor"
        ]
        for destination in destinations:
            value = self.word(destination, depth)
            if node.type == "herestring_redirect" and value is not None:
                self.stdin = value + "\n"
            if node.type != "file_redirect" or operator not in _OUTPUT_REDIRECTS:
                continue
            if operator == ">&" and value is not None and (value.isdigit() or value == "-"):
                continue  # a file-descriptor duplication, not a file
            written = self.text(destination)
            if value is not None and _is_globby(
                written.removeprefix("~/") if written.startswith("~/") else written
            ):
                value = None
            self.writes.append(value)
            if value not in _SAFE_WRITE_TARGETS:
                self.problem(
                    f"output redirection to {value if value is not None else self.text(destination)!r}"
                )

    def heredoc(self, node: tree_sitter.Node, depth: int) -> None:
        if any(child.type == "word" for child in node.named_children) or not _heredoc_delimited(self, node):
            # The grammar took the body for a word (seen: a body that starts with a backslash), or
            # its delimiter is not the word bash reads (seen: ``<<EOF;rm`` taken as one word, and a
            # later line taken as the end), so neither the body nor what follows is known: fail closed.
            self.problem("the grammar misreads this here-document")
            self.opaque(node, "a here-document the grammar misreads")
            self.stdin = None
            return
        for child in node.named_children:
            if child.type == "heredoc_body":
                self.substitutions(child, depth)
                if all(c.type == "heredoc_content" for c in child.named_children):
                    self.stdin = self.text(child)
            elif child.type in _PASSIVE:
                continue
            else:
                self.statement(child, depth + 1)


_DELIMITER_ENDS = frozenset(" \t\n;&|<>()")
"""Unquoted, these end the word after ``<<``: bash's delimiter never contains them."""


def _heredoc_delimiter(written: str) -> str | None:
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


def _heredoc_delimited(walk: _Walk, node: tree_sitter.Node) -> bool:
    """Whether the grammar's here-document starts with one word and, if it ends, ends on that word."""
    starts = [child for child in node.named_children if child.type == "heredoc_start"]
    ends = [child for child in node.named_children if child.type == "heredoc_end"]
    if len(starts) != 1 or len(ends) > 1:
        return False
    delimiter = _heredoc_delimiter(walk.text(starts[0]))
    if delimiter is None:
        return False
    return not ends or walk.text(ends[0]).lstrip("\t") == delimiter


_RENAMING_BUILTINS = frozenset({"alias", "hash", "enable"})
"""Builtins after which a command name may run another program: treated as opaque."""


def _canonical(walk: _Walk, node: tree_sitter.Node, depth: int = 0) -> str:
    pieces: list[str] = []
    previous_named = False
    for child in node.children:
        if child.type == "comment":
            continue
        if child.is_named:
            if previous_named:
                pieces.append(";")
            recurse = child.type in ("list", "pipeline") and depth < MAX_DEPTH
            pieces.append(
                _canonical(walk, child, depth + 1) if recurse else " ".join(walk.text(child).split())
            )
            previous_named = True
        elif child.type in ("&&", "||", "|", "|&", "&", ";", ";;", "\n"):
            pieces.append(";" if child.type == "\n" else child.type)
            previous_named = False
    while pieces and pieces[-1] in (";", "&"):
        pieces.pop()
    return " ".join(pieces)


def split_command(command: str) -> ShellCommand:
    """Parse ``command`` with bash's grammar and list every simple command bash would run."""
    if not isinstance(command, str):
        problem = f"the command is not a string but {type(command).__name__}"
        part = ShellPart(text=repr(command)[:80], argv=(None,), raw=("?",), doubts=(problem,))
        return ShellCommand(source=repr(command), parts=(part,), problems=(problem,), canonical="")
    return _split(command, True)


@lru_cache(maxsize=8192)
def _split(command: str, splice: bool) -> ShellCommand:
    if len(command) > MAX_COMMAND_LENGTH:
        problem = f"commands longer than {MAX_COMMAND_LENGTH} characters are not analysed"
        part = ShellPart(text=command[:80], argv=(None,), raw=("?",), doubts=(problem,))
        return ShellCommand(source=command, parts=(part,), problems=(problem,), canonical="")
    source = command.encode("utf-8", "surrogateescape")
    walk = _Walk(source)
    if _ODD_BLANKS.search(command):
        walk.problem("a character bash does not treat as a blank (\\r, \\v, \\f, NUL, a Unicode space)")
    root = _parser().parse(source).root_node
    if root.has_error:
        walk.problem("the command is not valid bash (syntax error)")
    walk.statement(root, 0)
    if MAY_HIDE_CODE.search(command):
        mark_evaluated_code(walk, root)
    if root.has_error and not any(part.argv == (None,) for part in walk.parts):
        # The grammar failed somewhere the walk never reached as an ERROR (a ``;`` after an
        # unterminated here-document, seen): bash's reading is unknown, so fail closed.
        walk.opaque(root, "a syntax error: what bash runs of it is not known")
    if splice:
        # Where the grammar and bash read the text differently, keep bash's reading too (for
        # deny rules; allow rules never trust such a command): bash joins ``a\<newline>b`` into
        # one word, and an odd blank (``\f``, NBSP) is part of a word, never a separator.
        joined = _continuation_joins(command)
        odd = _ODD_BLANKS.sub("_", command) if _ODD_BLANKS.search(command) else None
        both = _continuation_joins(odd) if odd is not None else None
        readings = (
            (joined, "a line continuation inside a word"),
            (odd, "an odd blank"),
            (both, "an odd blank and a line continuation"),
        )
        for variant, why in readings:
            if variant is None or variant == command:
                continue
            walk.problem(why)
            for part in _split(variant, False).parts:
                walk.parts.append(replace(part, doubts=(*part.doubts, why)))
    if not walk.parts and not walk.problems and any(c.type != "comment" for c in root.named_children):
        walk.problem("no command found")
    return ShellCommand(
        source=command,
        parts=tuple(walk.parts),
        problems=tuple(walk.problems),
        canonical=_canonical(walk, root),
        writes=tuple(walk.writes),
    )


def _continuation_joins(command: str) -> str | None:
    """``command`` with its backslash-newlines removed, when one joins two non-blank characters."""
    if not re.search(r"[^\s\\]\\\n[^\s]", command):
        return None
    return re.sub(r"(?<!\\)((?:\\\\)*)\\\n", r"\1", command)


# --------------------------------------------------------------------------------------------
# Wrappers


@dataclass(frozen=True, slots=True)
class _Wrapper:
    harmless: bool
    flags: str = ""  # short options without an argument
    with_argument: str = ""  # short options taking one
    long_with_argument: frozenset[str] = frozenset()
    long_flags: frozenset[str] = frozenset()
    positionals: int = 0  # words before the command (timeout's duration)
    assignments: bool = False  # NAME=value words before the command (env, sudo)
    numeric_option: bool = False  # ``nice -5``
    default: tuple[str, ...] = ()  # the command run when none is given (xargs: echo)
    script_option: str = ""  # short options whose argument is a shell script (``su -c``, ``flock -c``)
    script_words: bool = False  # the command's words are joined into a script (``watch``, ``ssh``)


HARMLESS_WRAPPERS = frozenset({"time", "nice", "timeout", "nohup", "stdbuf"})
"""Wrappers that only change how their command runs (Claude Code strips them before matching)."""

_WRAPPERS: dict[str, _Wrapper] = {
    "time": _Wrapper(
        True, flags="apqv", with_argument="fo", long_with_argument=frozenset({"format", "output"})
    ),
    "nice": _Wrapper(
        True, with_argument="n", long_with_argument=frozenset({"adjustment"}), numeric_option=True
    ),
    "timeout": _Wrapper(
        True,
        flags="v",
        with_argument="sk",
        long_with_argument=frozenset({"signal", "kill-after"}),
        long_flags=frozenset({"preserve-status", "foreground", "verbose"}),
        positionals=1,
    ),
    "nohup": _Wrapper(True),
    "stdbuf": _Wrapper(True, with_argument="ioe", long_with_argument=frozenset({"input", "output", "error"})),
    "env": _Wrapper(
        False,
        flags="i0v",
        with_argument="uCS",
        long_with_argument=frozenset({"unset", "chdir", "split-string"}),
        long_flags=frozenset({"ignore-environment", "null", "debug"}),
        assignments=True,
    ),
    "sudo": _Wrapper(
        False,
        flags="AbEeHiKklnPSsVv",
        with_argument="ugpCDhrtUTR",
        long_with_argument=frozenset(
            {"user", "group", "prompt", "close-from", "chdir", "role", "type", "other-user", "host", "chroot"}
        ),
        long_flags=frozenset({"preserve-env", "login", "non-interactive", "shell", "background", "set-home"}),
        assignments=True,
    ),
    "doas": _Wrapper(False, flags="nSs", with_argument="uC"),
    "xargs": _Wrapper(
        False,
        flags="0prtxo",
        with_argument="adEILnPs",
        long_with_argument=frozenset(
            {"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars"}
        ),
        long_flags=frozenset({"null", "no-run-if-empty", "verbose", "interactive", "exit", "open-tty"}),
        default=("echo",),
    ),
    "exec": _Wrapper(False, flags="cl", with_argument="a"),
    "command": _Wrapper(False, flags="p"),
    "builtin": _Wrapper(False),
    "setsid": _Wrapper(False, flags="cfw", long_flags=frozenset({"ctty", "fork", "wait"})),
    "ionice": _Wrapper(False, flags="t", with_argument="cnp"),
    "chroot": _Wrapper(False, long_with_argument=frozenset({"userspec", "groups"}), positionals=1),
    "unbuffer": _Wrapper(False),
    "caffeinate": _Wrapper(False, flags="dimsu", with_argument="tw"),
    # Programs whose documented job is to run their arguments as a command (or a script).
    "flock": _Wrapper(False, flags="sexunoF", with_argument="wEc", positionals=1, script_option="c"),
    "taskset": _Wrapper(False, flags="acp", positionals=1),
    "chrt": _Wrapper(False, flags="abdfiormpvRe", with_argument="TPD", positionals=1),
    "unshare": _Wrapper(False, flags="imnpuUCTrfc", with_argument="S G"),
    "nsenter": _Wrapper(False, flags="aimnpuUCTFZ", with_argument="tSGrwe"),
    "su": _Wrapper(False, flags="lmpPfw", with_argument="cgGs", positionals=1, script_option="c"),
    "runuser": _Wrapper(False, flags="lmpPfw", with_argument="cgGsu", script_option="c"),
    "sg": _Wrapper(False, positionals=1, with_argument="c", script_option="c"),
    "script": _Wrapper(False, flags="aefqtkw", with_argument="cEIOTBm", script_option="c"),
    "watch": _Wrapper(False, flags="bcdeghprtwx", with_argument="nq", script_words=True),
    "strace": _Wrapper(False, flags="cCdDfFhiqrtTvVwxXyYzZk", with_argument="abeEIoOpPsSuU"),
    "ltrace": _Wrapper(False, flags="bcCfhiLrStTV", with_argument="aAeFlnopsuwDx"),
    "pkexec": _Wrapper(False, long_with_argument=frozenset({"user"}), long_flags=frozenset({"keep-cwd"})),
    "firejail": _Wrapper(False),
    "systemd-run": _Wrapper(False, flags="GPqrSt", with_argument="MpEuH"),
    "valgrind": _Wrapper(False, flags="qv"),
    "parallel": _Wrapper(False, flags="0kqtuv", with_argument="jnNSdI"),
    "busybox": _Wrapper(False),  # ``busybox rm x`` runs the ``rm`` applet
    "toybox": _Wrapper(False),
    # A reserved word the grammar reads as a command name: ``coproc [NAME] command``.
    "coproc": _Wrapper(False),
    "ssh": _Wrapper(
        False,
        flags="46AaCfGgKkMNnqsTtVvXxYy",
        with_argument="BbcDEeFIiJLlmOopQRSWw",
        positionals=1,
        script_words=True,
    ),
}
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})

_Argv = tuple[str | None, ...]


# env's long options as GNU getopt reads them (an unambiguous prefix names one): whether each takes
# an argument (True), an optional one given with ``=`` ("optional") or none (False).
_ENV_LONG_OPTIONS: dict[str, bool | str] = {
    "ignore-environment": False,
    "null": False,
    "unset": True,
    "chdir": True,
    "split-string": True,
    "block-signal": "optional",
    "default-signal": "optional",
    "ignore-signal": "optional",
    "list-signal-handling": False,
    "debug": False,
    "help": False,
    "version": False,
}


def _env_split_strings(args: _Argv) -> list[tuple[str | None, int]]:
    """Each string ``env`` splits into words (``-S``), however spelled, and the index of the word after it.

    ``-S 'rm x'``, ``-S'rm x'``, ``-vS'rm x'``, ``-iS 'rm x'``, ``--split-string='rm x'``,
    ``--split-string 'rm x'`` and its abbreviations (``--split=``, ``--s=``) all split ``rm x``.
    None for a string only known at run time.
    """
    found: list[tuple[str | None, int]] = []
    i = 0
    while i < len(args):
        word = args[i]
        following = args[i + 1] if i + 1 < len(args) else ""
        if word is None:
            found.append((None, i + 1))  # an option only known at run time may be -S
            break
        if word == "--" or not word.startswith("-"):
            break  # options end at the first assignment or command word
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            exact = [o for o in _ENV_LONG_OPTIONS if o == name]
            matches = exact or [o for o in _ENV_LONG_OPTIONS if name and o.startswith(name)]
            if len(matches) != 1:
                break  # unknown or ambiguous: env refuses to run anything
            takes = _ENV_LONG_OPTIONS[matches[0]]
            step = 2 if takes is True and not eq else 1
            if matches[0] == "split-string":
                found.append((value if eq else following, i + step))
            i += step
            continue
        step = 1
        for j in range(1, len(word)):
            if word[j] in "uCS":
                attached = j + 1 < len(word)
                step = 1 if attached else 2
                if word[j] == "S":
                    found.append((word[j + 1 :] if attached else following, i + step))
                break
        i += step
    return found


_ENV_ESCAPES = {
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "#": "#",
    "$": "$",
}


def env_split(text: str) -> tuple[str, ...] | None:
    r"""The words ``env -S`` makes of ``text`` (GNU coreutils' rules), or None when only known at run time.

    Blanks and ``\_`` outside quotes separate words; single quotes keep everything but ``\\`` and
    ``\'``; double quotes and bare text take the escapes ``\f \n \r \t \v \\ \" \' \# \$``
    (``\_`` is a space inside double quotes); ``\c`` ends the string; ``#`` starting a word starts
    a comment. ``${NAME}`` is the environment's, known only at run time (None), as is any other
    escape (env refuses the string).
    """
    words: list[str] = []
    word: list[str] | None = None
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if quote == "'":
            if char == "'":
                quote = ""
            elif char == "\\" and text[i + 1 : i + 2] in ("\\", "'"):
                i += 1
                word = word or []
                word.append(text[i])
            else:
                word = word or []
                word.append(char)
            i += 1
            continue
        if char == "$" and text[i + 1 : i + 2] == "{":
            return None
        if char == "\\":
            code = text[i + 1 : i + 2]
            if code == "c":
                break
            if code == "_":
                if quote:
                    word = word or []
                    word.append(" ")
                elif word is not None:
                    words.append("".join(word))
                    word = None
            elif code in _ENV_ESCAPES:
                word = word or []
                word.append(_ENV_ESCAPES[code])
            else:
                return None
            i += 2
            continue
        if quote == '"':
            if char == '"':
                quote = ""
            else:
                word = word or []
                word.append(char)
        elif char in " \t\n\v\f\r":
            if word is not None:
                words.append("".join(word))
                word = None
        elif char == "#" and word is None:
            break
        elif char in "'\"":
            quote = char
            word = word or []
        else:
            word = word or []
            word.append(char)
        i += 1
    if quote:
        return None  # env refuses an unterminated quote: nothing runs, but say so rather than guess
    if word is not None:
        words.append("".join(word))
    return tuple(words)


def _unwrap(name: str, args: _Argv) -> _Argv | None:
    """The command a wrapper runs, parsing its options exactly; None when unsure (or none is run)."""
    spec = _WRAPPERS[name]
    i = 0
    positionals = spec.positionals
    while i < len(args):
        word = args[i]
        if word is None:
            return None
        if word == "--":
            i += 1
            break
        if (spec.assignments and _ASSIGNMENT.match(word)) or (
            spec.numeric_option and re.fullmatch(r"--?[0-9]+", word)
        ):
            i += 1
        elif word.startswith("--") and len(word) > 2:
            option, eq, _ = word[2:].partition("=")
            if option in spec.long_with_argument:
                i += 1 if eq else 2
            elif option in spec.long_flags:
                i += 1
            else:
                return None
        elif word.startswith("-") and len(word) > 1:
            j = 1
            step = 1
            while j < len(word):
                letter = word[j]
                if letter in spec.with_argument:
                    step = 1 if j + 1 < len(word) else 2
                    break
                if letter not in spec.flags:
                    return None
                j += 1
            if name == "command" and ("v" in word or "V" in word):
                return None
            i += step
        elif positionals:
            positionals -= 1
            i += 1
        else:
            break
    rest = args[i:]
    if positionals:
        return None
    if not rest:
        return spec.default or None
    return rest


def _wrapper_scripts(spec: _Wrapper, args: _Argv, command: _Argv | None) -> Iterator[str | None]:
    """The shell scripts a wrapper runs: its ``-c SCRIPT`` option, or its command's words joined.

    None for a script only known at run time.
    """
    if spec.script_option:
        for i, word in enumerate(args):
            if word is None or word == "--":
                break
            if word.startswith("-") and not word.startswith("--") and len(word) > 1:
                letters = word[1:]
                hit = next((k for k, c in enumerate(letters) if c in spec.script_option), None)
                if hit is None:
                    continue
                if hit + 1 < len(letters):
                    yield letters[hit + 1 :]
                else:
                    yield args[i + 1] if i + 1 < len(args) else ""
            elif word.startswith("--command="):
                yield word.partition("=")[2]
    if spec.script_words and command is not None:
        yield None if any(w is None for w in command) else " ".join(w for w in command if w is not None)


def _suffixes(args: _Argv) -> Iterator[_Argv]:
    """Every way ``args`` could hold a wrapped command: each suffix that starts with a plain word."""
    for i, word in enumerate(args):
        if word is None:
            yield args[i:]
            return
        if not word.startswith("-") and not _ASSIGNMENT.match(word):
            yield args[i:]


def _shell_script(args: _Argv) -> str | None:
    """The script of ``sh -c SCRIPT`` (options before it allowed); None when it is not that form."""
    command_string = False
    i = 0
    while i < len(args):
        word = args[i]
        if word is None:
            return None
        if word in ("-o", "+o", "-O", "+O"):
            i += 2
            continue
        if word.startswith("--"):
            i += 1
            continue
        if word.startswith(("-", "+")) and len(word) > 1:
            command_string = command_string or "c" in word[1:]
            i += 1
            continue
        return word if command_string else None
    return None


def _reads_its_input(args: _Argv) -> bool:
    """Whether a shell given ``args`` runs its standard input: ``-s``, or ``/dev/stdin`` as its script."""
    for word in args:
        if word is None:
            return False
        if word == "--":
            continue
        if word.startswith("-") and not word.startswith("--") and len(word) > 1:
            if "s" in word[1:]:
                return True
            continue
        return word in ("/dev/stdin", "-", "/dev/fd/0", "/proc/self/fd/0")
    return False


_SCRIPT_BUILTINS = frozenset({"eval", "trap"})


def _builtin_script(name: str, args: _Argv) -> str | None:
    """The script ``eval`` (its arguments joined) or ``trap`` (its first argument) runs."""
    if any(a is None for a in args):
        return None
    words = [a for a in args if a is not None]
    if name == "eval":
        return " ".join(words)
    words = words[1:] if words[:1] == ["--"] else words
    if not words or words[0].startswith("-"):
        return "" if not words or words[0] in ("-l", "-p") else None
    return words[0]


def _find_commands(args: _Argv) -> list[_Argv]:
    found: list[_Argv] = []
    i = 0
    while i < len(args):
        if args[i] in _FIND_EXEC:
            j = i + 1
            while j < len(args) and args[j] not in (";", "+"):
                j += 1
            found.append(args[i + 1 : j])
            i = j
        i += 1
    return found


# --------------------------------------------------------------------------------------------
# The two views


_BARE_WORD = re.compile(r"[\w@%+=:,./~^*?\[\]{}-]+")


def _quote(word: str) -> str:
    if word and _BARE_WORD.fullmatch(word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _render(argv: _Argv, raw: tuple[str, ...]) -> str:
    return " ".join(r if v is None or _is_globby(r) else _quote(v) for v, r in zip(argv, raw, strict=False))


def _plain(argv: _Argv, raw: tuple[str, ...]) -> str:
    return " ".join(r if v is None else v for v, r in zip(argv, raw, strict=False))


def _raw_of(argv: _Argv) -> tuple[str, ...]:
    return tuple("?" if v is None else v for v in argv)


def _opaque(argv: _Argv) -> bool:
    return not argv or argv[0] is None


_AllowUnits = tuple[tuple[str, ...], ...]


def _allow_argv(
    argv: _Argv, raw: tuple[str, ...], depth: int, stdin: str | None = None
) -> list[tuple[str, ...]] | None:
    """Units for one command given as words: its own forms, then those of what it wraps."""
    if _opaque(argv) or depth > 8 or (raw and _is_globby(raw[0])):
        return None
    forms = [_render(argv, raw)]
    name = argv[0]
    assert name is not None
    while name in HARMLESS_WRAPPERS:
        inner = _unwrap(name, argv[1:])
        if inner is None or _opaque(inner):
            break
        raw = raw[len(argv) - len(inner) :] if len(raw) == len(argv) else _raw_of(inner)
        argv = inner
        name = argv[0]
        assert name is not None
        if _is_globby(raw[0]):
            return None
        forms.append(_render(argv, raw))
    units = [tuple(dict.fromkeys(forms))]
    base = posixpath.basename(name)
    args = argv[1:]
    if base in _WRAPPERS:
        # Not stripped (not harmless, written with a path, or options not understood): the
        # wrapper is a command of its own, and what it runs must be allowed too.
        if base == "command" and any(
            a is not None and a.startswith("-") and ("v" in a or "V" in a) for a in args
        ):
            return units  # ``command -v x`` only looks a name up
        option_scripts, why = program_scripts(base, args)  # ``ssh -o ProxyCommand=...``
        if why is not None:
            return None
        for option_script in option_scripts:
            nested_units = allow_units(split_command(option_script), depth + 1)
            if nested_units is None:
                return None
            units.extend(nested_units)
        inner = _unwrap(base, args)
        if inner is None:
            return None if args else units
        if base == "env" and _env_split_strings(args):
            return None
        nested = _allow_argv(inner, _raw_of(inner), depth + 1, stdin)
        return None if nested is None else units + nested
    if base in _SHELLS:
        if not args and stdin is None:
            return units
        script = _shell_script(args)
        if (
            script is None
            and stdin is not None
            and (_reads_its_input(args) or all(a is not None and a.startswith("-") for a in args))
        ):
            script = stdin  # the shell runs its here-document
        if script is None:
            return units if all(a is not None and not a.startswith(("-", "+")) for a in args[:1]) else None
        nested_units = allow_units(split_command(script), depth + 1)
        return None if nested_units is None else units + list(nested_units)
    if base in _SCRIPT_BUILTINS:
        script = _builtin_script(base, args)
        if script is None:
            return None if args else units
        nested_units = allow_units(split_command(script), depth + 1)
        return None if nested_units is None else units + list(nested_units)
    if base == "find":
        for inner in _find_commands(args):
            nested = _allow_argv(inner, _raw_of(inner), depth + 1)
            if nested is None:
                return None
            units.extend(nested)
    script, why = data_run_as_code(base, args, stdin)
    if why is not None:
        return None
    if script is not None:
        nested_units = allow_units(split_command(script), depth + 1)
        return None if nested_units is None else units + list(nested_units)
    return units


def allow_units(command: ShellCommand, depth: int = 0) -> _AllowUnits | None:
    """The commands that must each be allowed for ``command`` to run (each as its candidate forms).

    None when no set of allow rules may allow it: a problem, a doubtful part, a wrapper whose
    options can't be parsed with certainty, or nothing to run.
    """
    if not command.confident or not command.parts or depth > 8:
        return None
    units: list[tuple[str, ...]] = []
    for part in command.parts:
        forms_here: list[str] = [part.text]
        argv, raw = part.argv, part.raw
        if part.assignments and not part.plain_assignments:
            units.append(tuple(dict.fromkeys([part.text, " ".join((*part.assignments, _render(argv, raw)))])))
            continue  # an assignment that changes what runs: only a rule naming it can allow it
        found = _allow_argv(argv, raw, depth, part.stdin)
        if found is None:
            return None
        first = (*forms_here, *found[0])
        if part.assignments:
            first = (*first, " ".join((*part.assignments, found[0][0])))
        units.append(tuple(dict.fromkeys(first)))
        units.extend(found[1:])
    return tuple(units)


@dataclass(frozen=True, slots=True)
class DenyForms:
    """Every spelling of a command a deny or ask rule is tried against, and why it may be anything."""

    forms: frozenset[str]
    opaque: str | None


def _program_name(name: str) -> str:
    """The program a command name runs, as deny rules name it: ``/usr/bin/rm`` is ``rm``."""
    return posixpath.basename(name) or name


def _deny_env_split(args: _Argv, forms: set[str], depth: int) -> str | None:
    """``env -S STRING``: its words go back into env's own arguments (``-S '-i rm x'`` is ``env -i rm x``)."""
    reason: str | None = None
    for script, after in _env_split_strings(args):
        words = env_split(script) if script is not None else None
        if script is None or words is None:
            return "env -S with a string only known when it runs"
        # Both readings: env's own (its words as env's arguments again) and, stricter, a shell's.
        again: _Argv = ("env", *words, *args[after:])
        reason = reason or _deny_argv(again, _raw_of(again), forms, depth + 1)
        reason = reason or _deny_command(split_command(script), forms, depth + 1)
    return reason


def _deny_argv(
    argv: _Argv, raw: tuple[str, ...], forms: set[str], depth: int, stdin: str | None = None
) -> str | None:
    """Add the forms of one command (words) to ``forms``; return a reason when it could be anything."""
    if depth > 8:
        return "wrappers nested too deeply"
    if _opaque(argv):
        return f"the command name {raw[0] if raw else '?'!r} is only known when bash runs it"
    if _is_globby(raw[0]):
        return f"the command name {raw[0]!r} is a pattern bash expands"
    name = argv[0]
    assert name is not None
    base = _program_name(name)
    forms.add(_render(argv, raw))
    forms.add(_plain(argv, raw))
    if base != name:
        argv = (base, *argv[1:])
        raw = (base, *raw[1:])
        forms.add(_render(argv, raw))
        forms.add(_plain(argv, raw))
    args = argv[1:]
    reason: str | None = None
    if base in _WRAPPERS:
        candidates: list[_Argv] = []
        exact = _unwrap(base, args)
        if exact is not None:
            candidates.append(exact)
        candidates.extend(_suffixes(args))
        if base == "env":
            reason = reason or _deny_env_split(args, forms, depth)
        for inner in dict.fromkeys(candidates):
            reason = reason or _deny_argv(inner, _raw_of(inner), forms, depth + 1, stdin)
        for script in _wrapper_scripts(_WRAPPERS[base], args, exact):
            if script is None:
                return f"{base} runs a script only known when bash runs it"
            reason = reason or _deny_command(split_command(script), forms, depth + 1)
        option_scripts, why = program_scripts(base, args)  # ``ssh -o ProxyCommand=...``
        if why is not None:
            return why
        for option_script in option_scripts:
            reason = reason or _deny_command(split_command(option_script), forms, depth + 1)
    elif base in _SHELLS:
        script = _shell_script(args)
        if script is None and any(a is None for a in args):
            return f"{base} runs a script only known when bash runs it"
        if script is None and (
            _reads_its_input(args) or not [a for a in args if a is not None and not a.startswith(("-", "+"))]
        ):
            script = stdin  # no script file (or ``-s``, ``/dev/stdin``): the shell runs its input
            if script is None:
                return f"{base} runs a script read from its input"
        if script is not None:
            reason = _deny_command(split_command(script), forms, depth + 1)
    elif base in _SCRIPT_BUILTINS:
        script = _builtin_script(base, args)
        if script is None and args:
            return f"{base} of a string only known when bash runs it"
        if script is not None:
            reason = _deny_command(split_command(script), forms, depth + 1)
    elif base == "find":
        for inner in _find_commands(args):
            reason = reason or _deny_argv(inner, _raw_of(inner), forms, depth + 1)
    else:
        script, why = data_run_as_code(base, args, stdin)
        if why is not None:
            return why
        if script is not None:
            reason = _deny_command(split_command(script), forms, depth + 1)
    return reason


def _programs_run(argv: _Argv) -> list[tuple[_Argv, str]]:
    """The part's words and program name, then those of the commands its wrappers run (``sudo cp``)."""
    runs: list[tuple[_Argv, str]] = []
    while argv and argv[0] is not None and len(runs) < 8:
        base = _program_name(argv[0])
        runs.append((argv, base))
        inner = _unwrap(base, argv[1:]) if base in _WRAPPERS else None
        if not inner:
            break
        argv = inner
    return runs


def _deny_command(command: ShellCommand, forms: set[str], depth: int) -> str | None:
    if depth > 8:
        return "scripts nested too deeply"
    source = command.source.strip()
    if source:
        forms.add(source)
    if command.canonical:
        forms.add(command.canonical)
    reason: str | None = None
    joined: list[str] = []
    for part in command.parts:
        forms.add(part.text)
        joined.append(_plain(part.argv, part.raw))
        found = _deny_argv(part.argv, part.raw, forms, depth, part.stdin)
        if found is not None and part.doubts and "too deep" in part.doubts:
            found = "nesting too deep to analyse"
        reason = reason or found
    if joined:
        forms.add(" ".join(joined))
    ran = [run for part in command.parts for run in _programs_run(part.argv)]
    reason = reason or runs_written_file(ran, command.writes, _SHELLS)
    if not isinstance(command.source, str) or (not command.parts and command.problems):
        reason = reason or "; ".join(command.problems) or "nothing recognisable"
    return reason


@lru_cache(maxsize=8192)
def deny_forms(command: str) -> DenyForms:
    """Every form of ``command`` a deny or ask rule is tried against, and whether it is opaque."""
    forms: set[str] = set()
    reason = _deny_command(split_command(command), forms, 0)
    return DenyForms(forms=frozenset(f for f in forms if f), opaque=reason)


def allow_candidates(part: ShellPart) -> tuple[str, ...]:
    """The forms of one part an allow rule may match (the first unit of the part; wrapped commands aside)."""
    found = _allow_argv(part.argv, part.raw, 0) if not part.doubts else None
    return (part.text,) if found is None else tuple(dict.fromkeys((part.text, *found[0])))


def deny_candidates(part: ShellPart) -> tuple[str, ...]:
    """Every form of one part a deny or ask rule is tried against."""
    forms: set[str] = {part.text}
    _deny_argv(part.argv, part.raw, forms, 0)
    return tuple(sorted(forms))


# --------------------------------------------------------------------------------------------
# Patterns


@lru_cache(maxsize=16384)
def _wildcard_regex(pattern: str) -> re.Pattern[str]:
    pieces: list[str] = []
    stars = 0
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "*\\":
            pieces.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if c == "*":
            pieces.append(".*")
            stars += 1
        else:
            pieces.append(re.escape(c))
        i += 1
    regex = "".join(pieces)
    # Claude Code: a single trailing " *" is optional, so "ls *" also matches a bare "ls".
    if stars == 1 and pattern.endswith(" *") and not pattern.endswith("\\ *"):
        regex = regex[: -len(re.escape(" ") + ".*")] + "(?:" + re.escape(" ") + ".*)?"
    return re.compile(regex, re.DOTALL)


_UNESCAPED_STAR = re.compile(r"(?<!\\)\*")


def _has_wildcard(pattern: str) -> bool:
    return _UNESCAPED_STAR.search(pattern) is not None


def match_shell_pattern(pattern: str, command: str) -> bool:
    r"""Whether one simple ``command`` matches a ``Bash(...)`` rule's content.

    ``prefix:*`` (legacy) matches ``prefix`` and ``prefix <anything>`` (a word boundary, so
    ``npm test:*`` does not match ``npm testing``); a pattern with ``*`` is a wildcard over the
    whole command (``\*`` is a literal star); anything else must equal the command exactly.
    """
    command = command.strip()
    if pattern.endswith(":*") and not pattern.endswith("\\:*"):
        prefix = pattern[:-2]
        return command == prefix or (
            command.startswith(prefix) and command[len(prefix) : len(prefix) + 1] in (" ", "\t", "\n")
        )
    if _has_wildcard(pattern):
        return _wildcard_regex(pattern).fullmatch(command) is not None
    return command == pattern.replace("\\*", "*")


_BLANK = re.compile(r"[ \t\n]")


def pattern_head(pattern: str) -> str | None:
    """The command name every command matching ``pattern`` starts with; None if it may be any."""
    head = _BLANK.split(pattern.removesuffix(":*"), maxsplit=1)[0]
    if not head or "*" in head or "\\" in head:
        return None
    return head


def command_head(form: str) -> str:
    """The first word of a form, as :func:`pattern_head` sees it."""
    return _BLANK.split(form.strip(), maxsplit=1)[0]
