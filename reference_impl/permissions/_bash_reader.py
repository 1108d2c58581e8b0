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
from reference_impl.permissions._unread_substitutions import MAY_SUBSTITUTE, mark_unread_substitutions

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
    stdin: str | None = None
    last_command: int = 0
    trailing: dict[int, tuple[list[tree_sitter.Node], int]] = field(default_factory=dict)
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
        recovered = _misread_body(self, node)
        if recovered is not None:
            # The grammar took the body for words (a body that starts with a backslash); bash's body
            # is the source between the line holding ``<<EOF`` and the delimiter's line.
            self.stdin = recovered
            return
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
                fd = next((self.text(c) for c in node.children if c.type == "file_descriptor"), "0")
                if fd == "0" and all(c.type == "heredoc_content" for c in child.named_children):
                    self.stdin = self.text(child)
            elif child.type in _PASSIVE:
                continue
            else:
                self.statement(child, depth + 1)


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


def _misread_body(walk: _Walk, node: tree_sitter.Node) -> str | None:
    """A here-document's body the grammar took for words, read from the source as bash reads it; None otherwise.

    Only where nothing follows the delimiter word on its line, the delimiter ends it, and the body
    needs no expansion: a quoted delimiter's body is literal; an unquoted one's too when it holds no
    ``$``, backquote or backslash before ``$``, a backquote, a backslash or a newline.
    """
    if not any(child.type == "word" for child in node.named_children) or not _heredoc_delimited(walk, node):
        return None
    starts = [c for c in node.named_children if c.type == "heredoc_start"]
    ends = [c for c in node.named_children if c.type == "heredoc_end"]
    if (
        not ends
        or any(c.type == "file_descriptor" for c in node.children)
        or b"<<-" in walk.source[node.start_byte : starts[0].start_byte]
    ):
        return None
    newline = walk.source.find(b"\n", starts[0].end_byte)
    if newline < 0 or walk.source[starts[0].end_byte : newline].strip() or newline >= ends[0].start_byte:
        return None
    body = walk.source[newline + 1 : ends[0].start_byte].decode("utf-8", "replace")
    quoted = any(c in walk.text(starts[0]) for c in "'\"\\")
    if not quoted and re.search(r"[$`]|\\[$`\\\n]", body):
        return None
    return body


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
    covered: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count:
            stack.extend(node.children)
        elif node.end_byte > node.start_byte:
            covered.append((node.start_byte, node.end_byte))
    covered.sort()
    starts = [start for start, _ in covered]
    swallowed = []
    for at in found:
        index = bisect.bisect_right(starts, at) - 1
        if index < 0 or covered[index][1] <= at:
            swallowed.append(at)
    return swallowed


def _parsed(source: bytes) -> tree_sitter.Node:
    r"""The syntax tree of ``source`` with bash's reading of escaped blanks (see :func:`_swallowed_blanks`).

    Each swallowed ``\<blank>`` is shown to the grammar as ``\_``, a word character of the same
    length: the tree then joins it to the pieces beside it as bash does, and the walk, reading
    the words from ``source`` itself, gives it its value (a blank).
    """
    parsed = source
    for _ in range(4):  # a rewrite may uncover another (it converges in one in every case seen)
        root = _bash_parser().parse(parsed).root_node
        swallowed = _swallowed_blanks(root, parsed)
        if not swallowed:
            return root
        shown = bytearray(parsed)
        for at in swallowed:
            shown[at + 1] = ord("_")
        parsed = bytes(shown)
    return _bash_parser().parse(parsed).root_node


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
    root = _parsed(source)
    if root.has_error:
        walk.problem(SYNTAX_ERROR)
    walk.statement(root, 0)
    if MAY_HIDE_CODE.search(command):
        mark_evaluated_code(walk, root)
    if MAY_SUBSTITUTE.search(command):
        mark_unread_substitutions(walk, root, source)
    if root.has_error and not any(part.argv == (None,) for part in walk.parts):
        # The grammar failed somewhere the walk never reached as an ERROR (a ``;`` after an
        # unterminated here-document, seen): bash's reading is unknown, so fail closed.
        walk.opaque(root, "a syntax error: what bash runs of it is not known")
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
    )
