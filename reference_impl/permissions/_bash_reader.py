r"""What bash would run: shell commands parsed with a real bash grammar (PERM-11, PERM-16, PERM-17).

A command line is parsed by tree-sitter's bash grammar and the syntax tree is walked. The walk
models the constructs it understands (lists, pipelines, subshells, groups, simple commands, words
and their quoting, redirections, here-documents, command and process substitutions); it **fails
closed**: any other node type (``if``, ``for``, functions, ``[[ ]]``, arithmetic, a syntax error,
...) is a *problem*, and a command with a problem is never allowed by a rule (it is asked about).
Commands inside a construct the walker does not model are still collected, for deny rules.

Each simple command becomes a :class:`ShellPart`: its words after bash's quote removal
(:mod:`~reference_impl.permissions._bash_words`), ``None`` for a word bash only knows at run time
(``$X``, ``$(...)``, a glob). A command name bash only knows at run time is a *doubt*: allow rules
never trust it, and deny rules treat it as possibly anything. What the commands themselves run
(wrappers, ``bash -c``, ``eval``) is :mod:`~reference_impl.permissions._wrapped_commands`'s; the
spellings rules are tried against are :mod:`~reference_impl.permissions._shell_forms`'s.

This module only analyses strings; it calls no other part of the harness.
"""

from __future__ import annotations

import bisect
import itertools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

from reference_impl.permissions._bash_words import (
    ansi_c_value,
    canonical_list,
    continuation_joins,
    heredoc_delimiter,
    is_globby,
    is_harmless_variable,
    unquote_double,
    unquote_word,
    variable_changes_programs,
)
from reference_impl.permissions._evaluated import (
    MAY_HIDE_CODE,
    hidden_code,
    mark_evaluated_code,
    names_set_by,
)
from reference_impl.permissions._shell_parts import SYNTAX_ERROR, ShellCommand, ShellPart
from reference_impl.permissions._token_extents import misread_extents
from reference_impl.permissions._unread_substitutions import (
    MAY_SUBSTITUTE,
    escaped_at,
    mark_unread_substitutions,
)

__all__ = [
    "SYNTAX_ERROR",
    "ShellCommand",
    "ShellPart",
    "split_command",
]

MAX_COMMAND_LENGTH = 100_000
"""Longer command lines are not analysed (asked about, and matched by every deny rule)."""

MAX_DEPTH = 48
"""Deeper nesting (substitutions in substitutions, ``bash -c`` in ``bash -c``) is not analysed."""

_SAFE_WRITE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
# Characters bash does not treat as blanks but other tokenisers (tree-sitter's included) might.
_ODD_BLANKS = re.compile("[\x00\x0b\x0c\r\x85\xa0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]")


# --------------------------------------------------------------------------------------------
# Parsing


_LOCAL = threading.local()


def _bash_parser() -> tree_sitter.Parser:
    parser: tree_sitter.Parser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return parser


_REDIRECTIONS = frozenset({"file_redirect", "herestring_redirect", "heredoc_redirect"})
# A word bash takes for an assignment when it comes before the command name.
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")

_UNESCAPED_BLANK = re.compile(r"(?<!\\)(?:\\\\)*[ \t\n]")
# A word ending in a ``$`` no backslash escapes: before a double quote, the locale string's prefix.
_LOCALE_PREFIX = re.compile(r"(?<!\\)(?:\\\\)*\$\Z")


_MODELLED_STATEMENTS = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "subshell",
        "compound_statement",
        "redirected_statement",
        "negated_command",
        "do_group",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
    }
)
_PASSIVE = frozenset({"comment", "heredoc_start", "heredoc_end", "heredoc_content", "file_descriptor"})


# ``$(( ... ))`` of numbers and operators alone: no name bash could evaluate, nothing it could run.
_CONSTANT_ARITHMETIC = re.compile(r"\$\(\([\d\s+\-*/%()<>=!&|^~?:,]*\)\)")


@dataclass
class _Walk:
    source: bytes
    parts: list[ShellPart] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    writes: list[str | None] = field(default_factory=list)
    holds: list[str | None] = field(default_factory=list)
    stdin: str | None = None
    last_command: int = 0
    trailing: dict[int, tuple[list[tree_sitter.Node], int]] = field(default_factory=dict)
    read_backquotes: set[int] = field(default_factory=set)
    """Offsets of backquotes in here-document bodies whose substitution the walk read (the grammar shows none)."""
    """Words after a redirection's target, by the id of the command bash gives them to (and its end)."""

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
            self.redirected(node, depth)
        elif kind in _MODELLED_STATEMENTS:
            self.statement_children(node, depth)
        elif kind == "declaration_command":
            self.declaration(node, depth)
        elif kind == "for_statement":
            self.for_loop(node, depth)
        elif kind in ("variable_assignment", "variable_assignments"):
            self.problem("a shell variable is set for the rest of the command line")
            names = [self.text(n).split("=", 1)[0] for n in (node, *node.named_children)]
            if any(variable_changes_programs(name, rest_of_line=True) for name in names):
                self.opaque(node, "a variable set for the rest of the line may change what runs")
            self.children(node, depth)
        elif kind == "command_substitution" or kind == "process_substitution":
            self.children(node, depth)
        elif kind in ("file_redirect", "herestring_redirect"):
            self.redirect(node, depth)
        elif kind == "heredoc_redirect":
            self.heredoc(node, depth)
        elif kind in _PASSIVE:
            return
        elif kind == "test_command":
            # ``[ -d x ]``, ``[[ $a == b* ]]``: a test runs nothing but the substitutions in its words
            # (array subscripts and arithmetic are marked by mark_evaluated_code); in ``[ ]`` a ``<``
            # or ``>`` is a redirection the grammar reads as a comparison.
            text = self.text(node)
            if not text.startswith("[[") and ("<" in text or ">" in text):
                self.problem("a redirection inside [ ] is not analysed")
            self.substitutions(node, depth)
        else:
            self.problem(f"the shell construct {kind!r} is not analysed")
            self.children(node, depth)

    def for_loop(self, node: tree_sitter.Node, depth: int) -> None:
        """``for f in WORDS; do ...; done``: the words are data (a loop variable is a run-time word)."""
        for i, child in enumerate(node.children):
            role = node.field_name_for_child(i)
            if role == "variable" and variable_changes_programs(self.text(child), rest_of_line=True):
                self.problem(why := f"the loop sets {self.text(child)!r}, which may change what runs")
                self.opaque(child, why)
            elif role == "value":
                self.word(child, depth)
            elif role == "body":
                self.statement(child, depth + 1)

    def statement_children(self, node: tree_sitter.Node, depth: int) -> None:
        """Walk the redirections and statements of a statement the walk models."""
        for child in node.named_children:
            if child.type == "file_redirect" or child.type == "herestring_redirect":
                self.redirect(child, depth)
            elif child.type == "heredoc_redirect":
                self.heredoc(child, depth)
            else:
                self.statement(child, depth + 1)

    def redirected(self, node: tree_sitter.Node, depth: int) -> None:
        """A statement with redirections after it: the words after a target are the command's arguments.

        Bash reads ``rm >/dev/null -rf d`` as ``rm -rf d`` with its output redirected; the grammar
        makes ``-rf`` and ``d`` more destinations of the redirection.
        """
        body = node.child_by_field_name("body")
        extra: list[tree_sitter.Node] = []
        for child in node.named_children:
            if child.type == "file_redirect":
                extra.extend(_destinations(child)[_target_pieces(child) :])
        last = body
        while last is not None and last.type in ("list", "pipeline") and last.named_children:
            last = last.named_children[-1]  # the grammar hangs ``a && b >f c`` on the list; bash on ``b``
        if body is None or last is None or last.type != "command":
            if extra:
                self.problem(
                    "words after a redirection's target of a compound command (a syntax error in bash)"
                )
            first = len(self.parts)
            self.stdin = None
            self.statement_children(node, depth)
            if self.stdin is not None and len(self.parts) > first:
                self.parts[first] = replace(self.parts[first], stdin=self.stdin)
            return
        self.trailing[last.id] = (extra, node.end_byte if extra else last.end_byte)
        if last is body:
            self.command(body, depth)
        else:
            self.statement(body, depth + 1)
        command = self.last_command
        self.stdin = None
        for child in node.named_children:
            if child.type == "file_redirect" or child.type == "herestring_redirect":
                self.redirect(child, depth)
            elif child.type == "heredoc_redirect":
                self.heredoc(child, depth)
        if self.stdin is not None:
            self.parts[command] = replace(self.parts[command], stdin=self.stdin)

    def opaque(self, node: tree_sitter.Node, why: str) -> None:
        """A command bash may run that the walk can't name: allow never, every deny rule may apply."""
        self.parts.append(ShellPart(text=self.text(node).strip(), argv=(None,), raw=("?",), doubts=(why,)))

    def syntax_error(self, node: tree_sitter.Node, depth: int) -> None:
        self.problem(SYNTAX_ERROR)
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
            elif child.type == "expansion":
                self.substitutions(child, depth + 1)  # ``case ${GIT_DIR=x} in``: it may assign
            elif depth <= MAX_DEPTH:
                self.children(child, depth + 1)
            else:
                self.problem(f"nesting deeper than {MAX_DEPTH} levels is not analysed")
                self.opaque(child, "nesting too deep to analyse")

    def declaration(self, node: tree_sitter.Node, depth: int) -> None:
        """``export X=1``, ``declare``, ``local``, ``readonly``: the builtin as one simple command.

        Its variables last for the rest of the line, so each must be data: a value known now, and a
        name that neither changes which program runs nor reads like one that holds a command.
        """
        builtin = self.text(node.children[0])
        argv: list[str | None] = [builtin]
        raw = [builtin]
        for child in node.named_children:
            text = self.text(child)
            raw.append(text)
            if child.type == "variable_assignment":
                name = text.split("=", 1)[0].rstrip("+")
                values = child.children_by_field_name("value")
                value = self.word(values[0], depth) if values else ""
                if "[" in name or (
                    name != "PATH" and (value is None or variable_changes_programs(name, rest_of_line=True))
                ):
                    # PATH changes which programs later names find: programs on disk before the
                    # line, unless the line writes one (see _line_writes), so it alone is data.
                    # Fail closed like an unknown command: every deny rule may apply, no allow rule does.
                    self.problem(
                        why := f"{builtin} sets {name!r} for the rest of the line: it may change what runs"
                    )
                    self.opaque(child, why)
                argv.append(None if value is None else f"{name}={value}")
            elif (
                child.type == "variable_name"
                and text != "PATH"
                and variable_changes_programs(text, rest_of_line=True)
            ):
                self.problem(why := f"{builtin} {text}: a variable that may change what runs")
                self.opaque(child, why)
                argv.append(text)
            else:
                argv.append(text if child.type == "variable_name" else self.word(child, depth))
        self.parts.append(ShellPart(text=self.text(node), argv=tuple(argv), raw=tuple(raw)))

    def command(self, node: tree_sitter.Node, depth: int) -> None:
        """One simple command, with the words bash adds after its redirections (see :meth:`redirected`)."""
        trailing, end = self.trailing.pop(node.id, ([], node.end_byte))
        argv: list[str | None] = []
        raw: list[str] = []
        assignments: list[str] = []
        plain = True
        doubts: list[str] = []
        self.stdin = None
        word_end = -1  # where the last word ended: a piece that starts there is the same word to bash
        target_end = -1  # where the last redirection ended: a piece that starts there is its target's
        target_written = target_read = glued = False
        assigned_end = -1  # where the last assignment ended: a piece that starts there is its value's
        assigned: str | None = None  # that assignment's value so far (None: only known at run time)

        def add(word: tree_sitter.Node) -> None:
            nonlocal word_end
            value, text = self.word(word, depth), self.text(word)
            if argv and word.start_byte == word_end:
                # ``''\rm`` or ``''".git"$'\x2f'conf``: the grammar gives pieces, bash reads one word.
                argv[-1] = None if argv[-1] is None or value is None else argv[-1] + value
                raw[-1] += text
            else:
                argv.append(value)
                raw.append(text)
            word_end = word.end_byte

        for child in node.children:
            kind = child.type
            if not child.is_named:
                if kind == "$":
                    # ``'a'\$`` (a quoted piece, an escaped ``$`` ending the word): the grammar gives the
                    # ``\$`` as an unnamed token beside the word's pieces; bash reads it as a literal ``$``.
                    add(child)
                continue
            if child.start_byte == target_end and kind not in _REDIRECTIONS:
                # ``>''\sub rm``: the grammar ends the target at ``''`` and makes ``\sub`` the command
                # name; bash reads ``''\sub`` as one word, the target, and runs ``rm``. Bash's reading
                # is kept (deny rules match ``rm``); the target is unknown, so the line is not trusted.
                self.problem("the grammar and bash disagree on where a redirection's target ends")
                self.opaque(child, "a redirection whose target the grammar splits")
                self.word(
                    child.named_children[0] if kind == "command_name" and child.named_children else child,
                    depth,
                )
                if target_written:
                    self.writes.append(None)
                if target_read:
                    self.stdin = None
                    self.holds.append(None)
                target_end, glued = child.end_byte, True
                continue
            if child.start_byte == assigned_end and not argv and kind not in _REDIRECTIONS:
                # ``x='a'\ b rm``, ``x='a'\$b rm``: the grammar ends the value at the quoted piece and
                # takes the rest for the command's name; bash reads one word, the value, and runs ``rm``.
                value = self.word(
                    child.named_children[0] if kind == "command_name" and child.named_children else child,
                    depth,
                )
                assignments[-1] += self.text(child)
                assigned = None if assigned is None or value is None else assigned + value
                name = assignments[-1].split("=", 1)[0].rstrip("+")
                if assigned is None or "[" in name or variable_changes_programs(name, value=assigned):
                    plain = False
                assigned_end, glued = child.end_byte, True
                continue
            if glued and not argv and _ASSIGNMENT.match(self.text(child)):
                # After the glued piece the grammar reads assignments as words: bash, as assignments.
                assignments.append(self.text(child))
                plain = False
                assigned_end, assigned = child.end_byte, self.word(child, depth)
                continue
            if kind == "variable_assignment" and not argv:
                text = self.text(child)
                assignments.append(text)
                name = text.split("=", 1)[0].rstrip("+")
                values = child.children_by_field_name("value")
                value = self.word(values[0], depth) if values else ""
                if (
                    value is None
                    or "[" in name
                    or not is_harmless_variable(name)  # ``GREP=nuke zgrep``: zgrep runs $GREP
                    or variable_changes_programs(name, value=value)
                ):
                    plain = False
                assigned_end, assigned = child.end_byte, value
            elif kind in ("file_redirect", "herestring_redirect"):
                self.redirect(child, depth)
                target_end = child.end_byte
                target_written = kind == "file_redirect" and _operator(child) in _OUTPUT_REDIRECTS
                target_read = kind == "herestring_redirect" or _operator(child) in ("<", "<>", "<&")
            elif kind == "heredoc_redirect":
                self.heredoc(child, depth)
            elif kind == "command_name":
                inner = child.named_children
                add(inner[0] if inner else child)
            elif kind == "comment":
                continue
            else:
                add(child)
        for word_node in trailing:
            add(word_node)
        if not argv or argv[0] is None or is_globby(raw[0]):
            doubts.append(f"the command name {raw[0] if raw else '?'!r} is only known when bash runs it")
        elif argv[0] == "coproc":
            doubts.append("coproc is a reserved word the grammar reads as a command name")
        elif argv[0] in _RENAMING_BUILTINS:
            doubts.append(f"{argv[0]} changes what later command names run")
            argv[0] = None
        self.last_command = len(self.parts)
        self.parts.append(
            ShellPart(
                text=self.source[node.start_byte : end].decode("utf-8", "surrogateescape").strip(),
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
        changing = [
            n for n in names_set_by(argv) if n is not None and n != "PATH" and variable_changes_programs(n)
        ]
        if hidden is None and changing:
            # ``read -r HOME <<< d; git status`` (git reads d/.gitconfig), as ``export HOME=d`` does: the
            # known names only (``read -r file`` is common); PATH alone is data, as for ``export``.
            hidden = f"{argv[0]} sets {changing[0]!r} for the rest of the line: it may change what runs"
        if hidden is not None:
            # The command itself stays (its deny rules still match it); beside it, code nobody can
            # name, so every deny rule may apply and no allow rule does.
            self.problem(hidden)
            self.opaque(node, hidden)

    # words ----------------------------------------------------------------------------------

    def word(self, node: tree_sitter.Node, depth: int) -> str | None:
        """The value bash gives ``node`` after quote removal, or None when only known at run time."""
        kind = node.type
        if kind == "$" and not node.is_named:
            # A lone ``$`` or ``\$`` the grammar left unnamed is literal; a ``$`` before a double-quoted
            # string (``$""';'``) is its locale prefix (``$"..."``), which adds nothing.
            text = self.text(node)
            if _LOCALE_PREFIX.search(text) and self.source[node.end_byte : node.end_byte + 1] == b'"':
                # So is the ``$`` ending ``-$`` before ``"ab"`` (the grammar's one unnamed piece): bash
                # reads ``-$"ab"`` as ``-ab``.
                return unquote_word(text[:-1])
            return unquote_word(text)
        if kind == "word" or kind == "number":
            raw = self.text(node)
            if _UNESCAPED_BLANK.search(raw):
                # The grammar made one word of what bash splits (seen: newlines before ``\x``).
                self.problem("the grammar and bash disagree on where a word ends")
                self.opaque(node, "a word the grammar and bash split differently")
                return None
            return unquote_word(raw)
        if kind == "raw_string":
            return self.text(node)[1:-1]
        if kind == "ansi_c_string":
            return ansi_c_value(self.text(node)[2:-1])
        if kind == "string":
            if all(child.type == "string_content" for child in node.named_children):
                text = self.text(node)
                return unquote_double(text[text.index('"') + 1 : -1])
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
            if not _CONSTANT_ARITHMETIC.fullmatch(self.text(node)):
                # A name in it is evaluated as arithmetic in turn: ``x='a[$(rm y)]'; echo $((x))``.
                self.problem(
                    "arithmetic expansion is not analysed (it can run commands through array subscripts)"
                )
            self.substitutions(node, depth)
            return None
        if kind == "ERROR" or node.is_missing:
            self.problem(SYNTAX_ERROR)
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
        if node.type == "expansion" and (name := _assigned_name(node, self.text)) is not None:
            # ``${GIT_DIR=x}``, ``${HOME:=d}``: bash assigns while it expands (exported under ``set -a``),
            # as ``GIT_DIR=x;`` does; the same names make the line opaque.
            self.problem("a shell variable is set for the rest of the command line")
            if variable_changes_programs(name, rest_of_line=True):
                self.opaque(
                    node, f"an expansion sets {name!r} for the rest of the line: it may change what runs"
                )
        for child in node.named_children:
            if child.type in ("command_substitution", "process_substitution"):
                self.statement(child, depth + 1)
                continue
            if child.type == "subscript" or child.type == "arithmetic_expansion":
                self.problem("an array subscript or arithmetic is not analysed")
            elif child.type == "ERROR":
                self.problem(SYNTAX_ERROR)
            self.substitutions(child, depth + 1)

    # redirections ---------------------------------------------------------------------------

    def redirect(self, node: tree_sitter.Node, depth: int) -> None:
        operator = _operator(node)
        destinations = _destinations(node)
        # Only pieces of the target count: pieces among the words after it are one argument to bash
        # (``npm test >/dev/null ''\-q``: ``-q``), joined where the command reads them.
        if (
            _target_pieces(node) > _targets(node)
            if node.type == "file_redirect"
            else any(a.end_byte == b.start_byte for a, b in itertools.pairwise(destinations))
        ):
            # ``> ''\sub/../.git/config``: bash reads one word where the grammar gives two pieces, so
            # the target the grammar names is not the one bash writes: fail closed.
            self.problem("the grammar and bash disagree on where a redirection's target ends")
            self.opaque(node, "a redirection whose target the grammar splits")
            if operator in _OUTPUT_REDIRECTS:
                self.writes.append(None)
            if operator in ("<", "<>", "<&") or node.type == "herestring_redirect":
                self.stdin = None
            if operator in ("<", "<&"):
                self.holds.append(None)
            return
        if node.type == "file_redirect":
            destinations = destinations[: _targets(node)]  # the rest are the command's words (see redirected)
        number = next((self.text(c) for c in node.children if c.type == "file_descriptor"), "0")
        for destination in destinations:
            value = self.word(destination, depth)
            if number == "0" and (node.type == "herestring_redirect" or operator in ("<", "<>", "<&")):
                # Only what feeds descriptor 0 is the command's input; a later ``< f`` replaces it.
                self.stdin = (
                    value + "\n" if node.type == "herestring_redirect" and value is not None else None
                )
            if (
                node.type == "file_redirect"
                and operator in ("<", "<&")
                and value != "-"
                and not (value or "").isdigit()
            ):
                self.holds.append(value)  # ``3< .git/config``: reopened for writing by ``/dev/fd/3``
            if node.type != "file_redirect" or operator not in _OUTPUT_REDIRECTS:
                continue
            if operator == ">&" and value is not None and (value.isdigit() or value == "-"):
                continue  # a file-descriptor duplication, not a file
            written = self.text(destination)
            if value is not None and is_globby(
                written.removeprefix("~/") if written.startswith("~/") else written
            ):
                value = None
            self.writes.append(value)
            if value not in _SAFE_WRITE_TARGETS:
                self.problem(
                    f"output redirection to {value if value is not None else self.text(destination)!r}"
                )

    def heredoc(self, node: tree_sitter.Node, depth: int) -> None:
        if (
            _body_misread(self, node)
            or _ARGUMENT_KINDS.intersection(c.type for c in node.named_children)
            or not _heredoc_delimited(self, node)
        ):
            # The grammar took the body for words (seen: a body that starts with a backslash, where
            # the line holding ``<<EOF`` opens quotes, so :func:`_body_misreadings` leaves it), or
            # the command's words after ``<<EOF`` for the redirection's (``rm <<EOF -rf x``), or
            # its delimiter is not the word bash reads (seen: ``<<EOF;rm`` taken as one word, and a
            # later line taken as the end), so neither the body nor what follows is known: fail closed.
            self.problem("the grammar misreads this here-document")
            self.opaque(node, "a here-document the grammar misreads")
            self.stdin = None
            return
        literal = _delimiter_quoted(self, node)
        for child in node.named_children:
            if child.type == "heredoc_body":
                if not literal:  # a quoted delimiter's body is never expanded, whatever the grammar shows
                    self.substitutions(child, depth)
                    self.body_backquotes(child, depth)
                fd = next((self.text(c) for c in node.children if c.type == "file_descriptor"), "0")
                if fd == "0" and (literal or all(c.type == "heredoc_content" for c in child.named_children)):
                    self.stdin = _body_input(self, node, self.text(child))
            elif child.type in _PASSIVE:
                continue
            else:
                self.statement(child, depth + 1)

    def body_backquotes(self, body: tree_sitter.Node, depth: int) -> None:
        """Read the backquote substitutions of an unquoted here-document body, which the grammar shows as text.

        Only those without a backslash (bash reads one's text again after removing escapes) and
        outside every node the grammar made of the body (an expansion, a substitution).
        """
        if depth > MAX_DEPTH:
            return
        shown = [(c.start_byte, c.end_byte) for c in body.named_children if c.type != "heredoc_content"]
        ticks = [
            at
            for at in range(body.start_byte, body.end_byte)
            if self.source[at] == ord("`")
            and not escaped_at(self.source, at)
            and not any(a <= at < b for a, b in shown)
        ]
        for opened, closed in zip(ticks[::2], ticks[1::2], strict=False):
            text = self.source[opened + 1 : closed]
            if b"\\" in text:
                continue  # left unread: the reader of unread substitutions fails closed on it
            self.read_backquotes.update((opened, closed))
            inner = _split(text.decode("utf-8", "surrogateescape"), True)
            self.parts.extend(inner.parts)
            for problem in inner.problems:
                self.problem(problem)


def _assigned_name(node: tree_sitter.Node, text: Callable[[tree_sitter.Node], str]) -> str | None:
    """The variable an ``expansion`` node assigns (``${NAME=word}``, ``${NAME:=word}``), or None."""
    if not any(c.type in ("=", ":=") for c in node.children if not c.is_named):
        return None
    named = node.named_children
    return text(named[0]) if named and named[0].type == "variable_name" else None


def _operator(node: tree_sitter.Node) -> str:
    """A redirection's operator (``>``, ``2>`` gives ``>``, ``<<<``)."""
    return next((c.type for c in node.children if not c.is_named), "")


def _destinations(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """A redirection's destination words as the grammar gives them (bash's target is the first)."""
    return node.children_by_field_name("destination") or [
        c for c in node.named_children if c.type != "file_descriptor"
    ]


def _targets(node: tree_sitter.Node) -> int:
    """How many of a file redirection's words are its target: none for ``<&-`` / ``>&-`` (close a descriptor)."""
    return 0 if any(c.type in ("<&-", ">&-") for c in node.children) else 1


def _target_pieces(node: tree_sitter.Node) -> int:
    r"""How many of a file redirection's destination words bash reads as its target (``''\sub`` is two)."""
    destinations = _destinations(node)
    count = _targets(node)
    while (
        0 < count < len(destinations) and destinations[count - 1].end_byte == destinations[count].start_byte
    ):
        count += 1
    return count


_ARGUMENT_KINDS = frozenset(
    {
        "word",
        "concatenation",
        "string",
        "raw_string",
        "ansi_c_string",
        "simple_expansion",
        "expansion",
        "number",
    }
)
"""Nodes of a command's words: under a here-document's redirection, the grammar misplaced them."""


def _body_misread(walk: _Walk, node: tree_sitter.Node) -> bool:
    """Whether the grammar took lines of a here-document's body for the command's words (seen: a body that starts with a backslash).

    Anything of the redirection but its body and end that reaches past the line holding ``<<EOF``
    is such a misreading, whatever node the grammar made of it (a word, a concatenation, a pipeline).
    """
    starts = [c for c in node.named_children if c.type == "heredoc_start"]
    newline = walk.source.find(b"\n", starts[0].end_byte) if len(starts) == 1 else -1
    return newline >= 0 and any(
        child.type not in ("heredoc_body", "heredoc_end") and child.end_byte > newline
        for child in node.named_children
    )


_BODY_EXPANSION = re.compile(r"\$[\w{(\[@*#?$!-]|`")
"""Where bash expands a here-document's body: a ``$`` before a name, a digit, ``{``, ``(``, ``[`` or a
special parameter, or a backquote (any other ``$`` is literal: ``$'b'``, ``$"a"``, ``x$``, ``$/``)."""

_BODY_ESCAPE = re.compile(r"\\[$`\\]")
"""A backslash that quotes the next character in a here-document's body (its delimiter unquoted)."""


def _body_input(walk: _Walk, node: tree_sitter.Node, body: str) -> str | None:
    r"""What bash gives the command from a here-document's ``body`` as written, or None where that is not known.

    ``<<-`` strips each line's leading tabs. A quoted delimiter's body is literal; an unquoted
    one's is known when every ``$`` and backquote in it is escaped and no line is continued
    (``\<newline>`` joins it to the next before bash looks for the delimiter): bash then only
    removes the backslash before ``$``, a backquote or a backslash (``x\\b`` gives ``x\b``, and
    ``\`cmd\``` a backquote a shell fed the body runs).
    """
    starts = [c for c in node.named_children if c.type == "heredoc_start"]
    if len(starts) != 1:
        return None
    if b"<<-" in walk.source[node.start_byte : starts[0].start_byte]:
        body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
    if _delimiter_quoted(walk, node):
        return body
    unescaped = _BODY_ESCAPE.sub("", body)
    if "\\\n" in unescaped or _BODY_EXPANSION.search(unescaped):
        return None
    return _BODY_ESCAPE.sub(lambda escaped: escaped[0][1], body)


def _delimiter_quoted(walk: _Walk, node: tree_sitter.Node) -> bool:
    """Whether any of a here-document's delimiter is quoted (bash then leaves the body literal)."""
    starts = [c for c in node.named_children if c.type == "heredoc_start"]
    return len(starts) == 1 and any(c in walk.text(starts[0]) for c in "'\"\\")


def _heredoc_delimited(walk: _Walk, node: tree_sitter.Node) -> bool:
    """Whether the grammar's here-document starts with one word and, if it ends, ends on that word."""
    starts = [child for child in node.named_children if child.type == "heredoc_start"]
    ends = [child for child in node.named_children if child.type == "heredoc_end"]
    if len(starts) != 1 or len(ends) > 1:
        return False
    delimiter = heredoc_delimiter(walk.text(starts[0]))
    if delimiter is None:
        return False
    return not ends or walk.text(ends[0]).lstrip("\t") == delimiter


_RENAMING_BUILTINS = frozenset({"alias", "hash", "enable"})
"""Builtins after which a command name may run another program: treated as opaque."""


def split_command(command: str) -> ShellCommand:
    """Parse ``command`` with bash's grammar and list every simple command bash would run."""
    if not isinstance(command, str):
        problem = f"the command is not a string but {type(command).__name__}"
        part = ShellPart(text=repr(command)[:80], argv=(None,), raw=("?",), doubts=(problem,))
        return ShellCommand(source=repr(command), parts=(part,), problems=(problem,), canonical="")
    return _split(command, True)


_ESCAPED_BLANK = re.compile(rb"\\[ \t]")


def _skipped_text(root: tree_sitter.Node, source: bytes) -> int | None:
    """Where the grammar's tokens leave out text bash reads (other than blanks and line continuations), or None.

    Seen: ``- $""`` gives a ``$`` token and a string, and no token for the ``-``: the word is gone.
    """
    end = 0
    for start, stop in sorted(_token_ranges(root, _TEXT_HOLDERS)):
        if start > end and _SKIPPABLE.sub(b"", source[end:start]):
            return end
        end = max(end, stop)
    return end if _SKIPPABLE.sub(b"", source[end:]) else None


_SKIPPABLE = re.compile(rb"[ \t\n]|\\\n")
"""What no token of the grammar needs to cover: blanks, newlines, line continuations."""


_TEXT_HOLDERS = frozenset({"heredoc_body", "string", "translated_string"})
"""Nodes whose own text lies between their children (a body's text before its first expansion)."""


def _token_ranges(root: tree_sitter.Node, whole: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """The byte ranges of the tree's tokens (its leaves, named or not, and the nodes of ``whole``)."""
    covered: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count and node.type not in whole:
            stack.extend(node.children)
        elif node.end_byte > node.start_byte:
            covered.append((node.start_byte, node.end_byte))
    return covered


def _swallowed_blanks(root: tree_sitter.Node, source: bytes) -> list[int]:
    r"""Where the grammar skipped an escaped blank as if it separated words: bash reads it in a word.

    tree-sitter-bash takes ``\<space>`` and ``\<tab>`` outside a word token for blanks between
    words (``'a'\ b``, ``\ 'a'``, ``x='a'\ b rm``, ``'a'\ `` at the end); bash reads each as a
    blank inside the word, wherever it stands in it. An escaped blank is swallowed when no token
    covers it (inside quotes, a word, a comment or a here-document body a token does).
    """
    found = [m.start() for m in _ESCAPED_BLANK.finditer(source)]
    if not found:
        return []
    covered = sorted(_token_ranges(root))
    starts = [start for start, _ in covered]
    swallowed = []
    for at in found:
        index = bisect.bisect_right(starts, at) - 1
        if index < 0 or covered[index][1] <= at:
            swallowed.append(at)
    return swallowed


def _body_misreadings(root: tree_sitter.Node, source: bytes) -> list[tuple[int, bytes]]:
    r"""Lines of here-document bodies tree-sitter-bash misreads, each respelled in the same length.

    Given as (where, what to show there); in a body each spelling is plain text, as the original is:

    - a body that starts with a backslash and another character is taken for words of the command
      (``cat <<EOF\n\\: $(nuke)\nEOF``): the two are shown as ``__``;
    - a ``$`` before a quote (``$'s'``, literal in a body) is shown as ``_``: the grammar reads a quoting;
    - a line whose leading blanks come before ``$`` or a backslash is misread by one character
      (``\t$(nuke)`` shown as text, ``\t\\$(nuke)`` as a substitution): its last blank is shown as ``_``.

    Only lines before the body's first ``$(``, ``${``, ``$[`` or backquote (none can be inside a
    substitution), never the delimiter's line, and only in a body whose ``<<EOF`` line opens no
    quotes or parentheses, holds no other here-document and is not continued.
    """
    found: list[tuple[int, bytes]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if not _holds_heredoc(node):
            continue
        starts = [c for c in node.named_children if c.type == "heredoc_start"]
        ends = [c for c in node.named_children if c.type == "heredoc_end"]
        newline = source.find(b"\n", starts[0].end_byte) if len(starts) == 1 else -1
        rest = source[starts[0].end_byte : newline] if newline >= 0 else b""
        delimiter = (
            heredoc_delimiter(source[starts[0].start_byte : starts[0].end_byte].decode()) if starts else None
        )
        if newline < 0 or delimiter is None or b"<<" in rest or any(c in rest for c in b"'\"`(\\"):
            continue
        end = ends[0].start_byte if ends else node.end_byte
        at = newline + 1
        while at < end:
            stop = source.find(b"\n", at, end)
            line = source[at : stop if stop >= 0 else end]
            if line.lstrip(b"\t") == delimiter.encode():
                break
            blanks = len(line) - len(line.lstrip(b" \t"))
            if blanks and line[blanks : blanks + 1] in (b"$", b"\\"):
                found.append((at + blanks - 1, b"_"))
            elif at == newline + 1 and line[:1] == b"\\" and line[1:2]:
                found.append((at, b"__"))
            opener = _BODY_OPENER.search(line)
            cut = opener.start() if opener else len(line)
            found.extend((at + m.start(), b"_") for m in _QUOTED_DOLLAR.finditer(line, 0, cut))
            if stop < 0 or opener:
                break
            at = stop + 1
    return found


_QUOTED_DOLLAR = re.compile(rb"(?<![\\$])\$(?=['\"])")
"""A ``$`` before a quote, literal in a body (``$'s'``, ``$"t"``), which the grammar reads as a word's quoting."""

_LITERAL_DOLLAR = re.compile(rb"(?<![\\$])\$(?![\w{(\[@*#?$!'\"-])")
"""A ``$`` bash keeps literal anywhere (before a blank, ``/``, ``.``, ``=``, ``%``...): the grammar finds a
syntax error in some (``echo $/``)."""


def _literal_dollars(source: bytes) -> list[tuple[int, bytes]]:
    """Each ``$`` bash keeps literal wherever it stands (see :data:`_LITERAL_DOLLAR`), shown as ``_``."""
    return [(found.start(), b"_") for found in _LITERAL_DOLLAR.finditer(source)]


def _holds_heredoc(node: tree_sitter.Node) -> bool:
    """Whether ``node`` is a here-document's redirection, or a syntax error the grammar made of one."""
    return node.type == "heredoc_redirect" or (
        node.type == "ERROR" and any(c.type == "heredoc_start" for c in node.named_children)
    )


_BODY_OPENER = re.compile(rb"(?<!\\)(?:\\\\)*(?:\$[({[]|`)")
"""An expansion a body's line may leave open past its end."""


def _newlines_in_words(root: tree_sitter.Node, source: bytes) -> list[tuple[int, bytes]]:
    r"""Newlines tree-sitter-bash keeps inside a word token or a simple command, and comments it reads on past, shown as ``;``.

    Seen: ``a\n\\rm x`` read as one command whose words are ``a\n\\rm`` and ``x``. An unquoted
    newline no backslash escapes ends a word in bash: between commands it ends the command, as
    ``;`` does; where it is only a blank (``a=(x\ny)``), the ``;`` is a syntax error and the line
    fails closed.
    """
    found: list[tuple[int, bytes]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if _holds_heredoc(node):
            continue  # a body the grammar takes for words is read by the heredoc walk
        if node.type == "command":
            found.extend(_words_read_on(node, source))
        if node.child_count:
            stack.extend(node.children)
        elif node.type == "word":
            for at in range(node.start_byte, node.end_byte):
                if source[at] == ord("\n") and not escaped_at(source, at):
                    found.append((at, b";"))
    return found


def _words_read_on(command: tree_sitter.Node, source: bytes) -> list[tuple[int, bytes]]:
    r"""Where the grammar reads a simple command's words on past a line's end, respelled to end it there.

    After the command's name, an unescaped newline between two of its words is shown as ``;``
    (``echo a\n\\\n\\rm``: the grammar takes the continued line for more words), and a comment
    bash starts as a newline and blanks (``echo a # c\n\\\nrm``). Before the name the grammar's
    joining of an assignment-only line with the next is read by the walk (and ``x=1 >f;`` is a
    syntax error to the grammar).
    """
    found: list[tuple[int, bytes]] = []
    named = False
    for before, after in itertools.pairwise(command.children):
        named = named or before.type == "command_name"
        if not named:
            continue
        if before.type == "comment":
            if before.start_byte == 0 or source[before.start_byte - 1 : before.start_byte] in b" \t\n;&|()":
                found.append((before.start_byte, b"\n" + b" " * (before.end_byte - before.start_byte - 1)))
            continue
        found.extend(
            (at, b";")
            for at in range(before.end_byte, after.start_byte)
            if source[at] == ord("\n") and not escaped_at(source, at)
        )
    return found


def _continued_words(root: tree_sitter.Node, source: bytes) -> list[tuple[int, bytes]]:
    r"""Each line continuation between two word characters, shown as ``__`` (outside comments).

    bash removes ``\\<newline>`` before it splits words: ``r\\\nm -rf x`` runs ``rm``, where
    tree-sitter-bash reads two words. ``__`` keeps them one word; the walk reads its value from
    the source (the continuation removed). A comment ends at the newline: its backslash joins nothing.
    """
    comments = [(c.start_byte, c.end_byte) for c in _nodes_of(root, "comment")]
    return [
        (found.start(), b"__")
        for found in _CONTINUED_WORD.finditer(source)
        if not escaped_at(source, found.start()) and not any(a <= found.start() < b for a, b in comments)
    ]


_CONTINUED_WORD = re.compile(rb"(?<=[\w./-])\\\n(?=[\w./-])")


def _nodes_of(root: tree_sitter.Node, kind: str) -> list[tree_sitter.Node]:
    """The nodes of the tree of type ``kind``."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == kind:
            found.append(node)
        stack.extend(node.children)
    return found


def _escaped_backquotes(source: bytes) -> list[tuple[int, bytes]]:
    r"""Each backquote a backslash escapes, with its backslash, shown as ``__``.

    tree-sitter-bash pairs backquotes without regard to escapes (``echo `a`\n\\```: it reads
    the second line's into the substitution). Outside a backquote substitution an escaped one is
    plain text, in a word, any quotes or a body; inside one (a nested substitution) the walk reads
    the substitution's text, backslash and all, and fails closed on it.
    """
    return [
        (found.start() - 1, b"__")
        for found in _BACKQUOTE.finditer(source, 1)
        if escaped_at(source, found.start())
    ]


_BACKQUOTE = re.compile(rb"`")


def _partly_quoted_delimiters(root: tree_sitter.Node, source: bytes) -> list[tuple[int, bytes]]:
    r"""Here-document delimiters quoted in part (``E'O'F``, ``"E"OF``), which tree-sitter-bash can't read, respelled.

    Each is given back (where it starts, and a spelling of the same length the grammar reads):
    its letters with backslashes before enough of them (``\E\OF``), which bash reads as the same
    quoted delimiter. One the grammar reads (wholly quoted, or escaped) is left as it is.
    """
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != "heredoc_start":
            continue
        end = _word_end(source, node.start_byte)
        written = source[node.start_byte : end].decode("utf-8", "surrogateescape")
        delimiter = heredoc_delimiter(written)
        wholly = len(written) > 1 and written[0] in "'\"" and written.index(written[0], 1) == len(written) - 1
        if delimiter is None or wholly or not any(c in written for c in "'\""):
            continue
        escapes = len(written.encode()) - len(delimiter.encode())
        if 0 < escapes <= len(delimiter) and "\n" not in delimiter:
            shown = "".join("\\" + c if i < escapes else c for i, c in enumerate(delimiter))
            found.append((node.start_byte, shown.encode()))
    return found


def _word_end(source: bytes, at: int) -> int:
    """Where the shell word starting at ``at`` ends (quotes and escapes read, not expansions)."""
    while at < len(source):
        char = source[at : at + 1]
        if char in (b"'", b'"'):
            close = source.find(char, at + 1)
            if close < 0:
                return len(source)
            at = close + 1
        elif char == b"\\":
            at += 2
        elif char in b" \t\n;&|<>()":
            return at
        else:
            at += 1
    return len(source)


def _parsed(source: bytes) -> tuple[tree_sitter.Node, bytes]:
    r"""The syntax tree of ``source`` with bash's reading of what the grammar misreads, shown in the same length, and what was shown.

    Each swallowed ``\<blank>`` (see :func:`_swallowed_blanks`) is shown to the grammar as ``\_``,
    a word character: the tree then joins it to the pieces beside it as bash does. Lines of
    here-document bodies the grammar misreads are shown as other plain text (see
    :func:`_body_misreadings`), so it reads the body and its expansions as bash does; a delimiter
    quoted in part is shown escaped (see :func:`_partly_quoted_delimiters`), an escaped backquote and a
    ``$`` bash keeps literal as plain text (:func:`_escaped_backquotes`, :func:`_literal_dollars`), a newline inside a word
    token or among a command's words as ``;`` (see :func:`_newlines_in_words`). The walk reads the words
    from ``source`` itself, so each keeps its value.
    """
    parsed = source
    for _ in range(4):  # a rewrite may uncover another (it converges in one in every case seen)
        root = _bash_parser().parse(parsed).root_node
        swallowed = _swallowed_blanks(root, parsed)
        # Here-documents first: a body the grammar misreads holds words with newlines in them.
        respelled = [
            *_body_misreadings(root, parsed),
            *_partly_quoted_delimiters(root, parsed),
            *_escaped_backquotes(parsed),
            *_literal_dollars(parsed),
        ]
        respelled = respelled or [*_newlines_in_words(root, parsed), *_continued_words(root, parsed)]
        if not swallowed and not respelled:
            return root, parsed
        shown = bytearray(parsed)
        for at in swallowed:
            shown[at + 1] = ord("_")
        for at, spelled in respelled:
            shown[at : at + len(spelled)] = spelled
        parsed = bytes(shown)
    return _bash_parser().parse(parsed).root_node, parsed


def _before_the_error(command: str) -> tuple[ShellPart, ...]:
    """The commands of the longest run of whole lines of ``command`` the grammar reads without an error (the last 4 tried)."""
    ends = [at for at, char in enumerate(command) if char == "\n"][-4:]
    for end in reversed(ends):
        lines = _split(command[:end], False)
        if SYNTAX_ERROR not in lines.problems:
            return lines.parts
    return ()


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
    root, shown = _parsed(source)
    if root.has_error:
        walk.problem(SYNTAX_ERROR)
    walk.statement(root, 0)
    if MAY_HIDE_CODE.search(command):
        mark_evaluated_code(walk, root)
    if MAY_SUBSTITUTE.search(command):
        mark_unread_substitutions(walk, root, source, walk.read_backquotes)
    for node, why in misread_extents(root, source):
        # bash ends a token elsewhere than the grammar: what lies between is misread either way.
        while node.parent is not None and node.type not in ("command", "redirected_statement", "program"):
            node = node.parent
        walk.problem(why)
        walk.opaque(node, why)
    # (odd blanks are read above; a line already opaque says enough)
    skipped = None if _ODD_BLANKS.search(command) else _skipped_text(root, shown)
    if skipped is not None and not any(part.argv == (None,) for part in walk.parts):
        node = root.descendant_for_byte_range(skipped, skipped + 1) or root
        walk.problem("the grammar skips text bash reads")
        walk.opaque(node, "text the grammar skips (a word bash reads may be missing)")
    if root.has_error and not any(part.argv == (None,) for part in walk.parts):
        # The grammar failed somewhere the walk never reached as an ERROR (a ``;`` after an
        # unterminated here-document, seen): bash's reading is unknown, so fail closed.
        walk.opaque(root, "a syntax error: what bash runs of it is not known")
    if root.has_error and splice:
        # bash runs each command as it completes it: the lines before the error run (deny rules
        # apply to them as written; allow rules never trust a line with an error).
        for part in _before_the_error(command):
            walk.parts.append(replace(part, doubts=(*part.doubts, "read before a syntax error")))
    if splice:
        # Where the grammar and bash read the text differently, keep bash's reading too (for
        # deny rules; allow rules never trust such a command): bash joins ``a\<newline>b`` into
        # one word, and an odd blank (``\f``, NBSP) is part of a word, never a separator.
        joined = continuation_joins(command)
        odd = _ODD_BLANKS.sub("_", command) if _ODD_BLANKS.search(command) else None
        both = continuation_joins(odd) if odd is not None else None
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
        canonical=canonical_list(root, walk.text, MAX_DEPTH),
        writes=tuple(walk.writes),
        holds=tuple(walk.holds),
    )
