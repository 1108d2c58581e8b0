r"""Where bash ends a token the grammar ends elsewhere (PERM-16, PERM-17).

tree-sitter-bash's scanners end some constructs where bash does not, and whatever lies between the
two ends is read as the wrong thing: a command taken for text, or text for a command. Each check
here finds bash's end by bash's own rules and compares it with the node's:

- ``$'...'``: bash ends it at the first quote no backslash escapes (``$'\\'`` is one backslash);
- ``${...}``: at the first ``}`` outside quotes, escapes and nested ``${`` (``${x#{}``, ``${x:-(}``,
  ``${x#\'}``, ``${x#a"}"}``);
- a here-document: at the first line that is its delimiter (continued lines joined first when the
  delimiter is unquoted; never a line that only starts with it, nor one with blanks before it
  without ``<<-``), before anything in the body is expanded;
- a ``regex`` among a simple command's words (``: == x; rm x #]``, after ``==`` or ``=~``): bash has
  no such token there.

Where they differ, what bash runs is not what the tree shows: the reader makes the command opaque.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from reference_impl.permissions._bash_words import heredoc_delimiter

if TYPE_CHECKING:
    import tree_sitter

__all__ = ["misread_extents"]

_OPEN_AT_LINE_END = frozenset(b"'\"`(\\")


def misread_extents(root: tree_sitter.Node, source: bytes) -> list[tuple[tree_sitter.Node, str]]:
    """The nodes bash ends elsewhere than the grammar does, each with why (see the module docstring)."""
    found: list[tuple[tree_sitter.Node, str]] = []
    known_ends: dict[tuple[int, bool], int | None] = {}
    stack: list[tuple[tree_sitter.Node, bool, bool]] = [(root, False, False)]
    while stack:
        node, quoted, tested = stack.pop()
        kind = node.type
        if kind == "ansi_c_string" and _ansi_c_end(source, node.start_byte) != node.end_byte:
            found.append((node, "a $'...' string bash ends elsewhere than the grammar"))
        elif kind == "expansion" and source[node.start_byte : node.start_byte + 2] == b"${":
            end = _expansion_end(source, node.start_byte, quoted, known_ends)
            if end is not None and end != node.end_byte:
                found.append((node, "a ${...} expansion bash ends elsewhere than the grammar"))
        elif kind == "regex" and not tested and node.parent is not None and node.parent.type == "command":
            found.append((node, "a pattern the grammar reads as one token where bash reads words"))
        elif kind == "heredoc_start" and node.parent is not None and _heredoc_misplaced(node, source):
            found.append((node.parent, "a here-document bash ends elsewhere than the grammar"))
        inner_quoted = quoted or kind == "string"
        inner_tested = tested or kind == "test_command"
        stack.extend((child, inner_quoted, inner_tested) for child in node.children)
    return found


def _ansi_c_end(source: bytes, start: int) -> int:
    """Where bash ends the ``$'...'`` starting at ``start``: after the first quote no backslash escapes."""
    found = _ANSI_C.match(source, start)
    return found.end() if found else len(source)


_ANSI_C = re.compile(rb"\$'(?:[^'\\]|\\.)*'", re.DOTALL)


def _expansion_end(
    source: bytes, start: int, quoted: bool, known: dict[tuple[int, bool], int | None]
) -> int | None:
    """Where bash ends the ``${`` starting at ``start`` (None: a substitution inside, not followed here).

    Inside double quotes a single quote is literal; elsewhere it quotes, as a double quote and
    ``$'...'`` do. The ends of the ``${`` nested in it are found on the way and kept in ``known``:
    scanning from a nested one would retrace the same steps, so a line of thousands nested
    (``${x:-${x:-...}}``) is read once, not once per level.
    """
    if (start, quoted) in known:
        return known[start, quoted]
    opened, at = [start], start + 2
    while at < len(source):
        char = source[at : at + 1]
        if char == b"\\":
            at += 2
            continue
        if source[at : at + 2] in (b"$(", b"$[") or char == b"`":
            break
        if source[at : at + 2] == b"$'" and not quoted:
            at = _ansi_c_end(source, at)
            continue
        if char in (b"'", b'"') and not (quoted and char == b"'"):
            close = _closing_quote(source, at)
            if close is None:
                break
            at = close + 1
            continue
        if source[at : at + 2] == b"${":
            opened.append(at)
            at += 2
            continue
        if char == b"}":
            known[opened.pop(), quoted] = at + 1
            if not opened:
                return at + 1
        at += 1
    known.update(((still_open, quoted), None) for still_open in opened)
    return None


def _closing_quote(source: bytes, at: int) -> int | None:
    """The offset of the quote closing the one at ``at`` (a double quote's escapes read), or None."""
    quote = source[at]
    index = at + 1
    while index < len(source):
        if quote == ord('"') and source[index] == ord("\\"):
            index += 2
            continue
        if source[index] == quote:
            return index
        index += 1
    return None


def _heredoc_misplaced(start: tree_sitter.Node, source: bytes) -> bool:
    """Whether the grammar ends the here-document of ``start`` on another line than bash does.

    Only for a ``<<EOF`` whose line bash ends at its newline (the rest of the line opens no quotes
    or parentheses and is not continued) and holds no other here-document.
    """
    node = start.parent
    assert node is not None
    delimiter = heredoc_delimiter(
        source[start.start_byte : start.end_byte].decode("utf-8", "surrogateescape")
    )
    newline = source.find(b"\n", start.end_byte)
    if delimiter is None or newline < 0:
        return False
    rest = source[start.end_byte : newline]
    if b"<<" in rest or any(c in _OPEN_AT_LINE_END for c in rest):
        return False
    written = source[start.start_byte : start.end_byte]
    literal = any(c in written for c in b"'\"\\")
    dash = b"<<-" in source[node.start_byte : start.start_byte]
    ends = [c for c in node.children if c.type == "heredoc_end"]
    grammar = source.rfind(b"\n", 0, ends[0].start_byte) + 1 if ends else None
    return _bash_end_line(source, newline + 1, delimiter.encode(), literal=literal, dash=dash) != grammar


def _bash_end_line(source: bytes, at: int, delimiter: bytes, *, literal: bool, dash: bool) -> int | None:
    """Where the line bash ends a here-document's body on starts (None: the body runs to the end)."""
    while at < len(source):
        first, line, joined = at, b"", True
        while joined:
            stop = source.find(b"\n", at)
            physical = source[at : stop if stop >= 0 else len(source)]
            if dash:
                physical = physical.lstrip(b"\t")
            trailing = len(physical) - len(physical.rstrip(b"\\"))
            joined = not literal and trailing % 2 == 1 and stop >= 0
            line += physical[:-1] if joined else physical
            at = stop + 1 if stop >= 0 else len(source)
        if line == delimiter:
            return first
    return None
