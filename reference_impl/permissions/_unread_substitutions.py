r"""Substitutions bash runs that the grammar's tree does not show (PERM-16, PERM-17).

The walk finds commands where tree-sitter's bash grammar puts a command or process substitution
node. Bash finds them in places the grammar reads as plain text: a backtick in a ``${a:-...}``
word, ``$(...)`` in the pattern of ``${a#...}``/``${a/x/...}``, ``<(...)`` inside ``${}``, single
quotes that double-quoted ``${...}`` keeps literal, a backtick in an unquoted here-document body, and
backslashes that bash removes inside backticks before it reads them again (``\``` ``, ``\$``).

So the reader does not trust the tree's placement: every ``$(``, backtick, ``<(`` and ``>(`` in the
text must be *accounted for*: opened or closed by a substitution node the walk reads, escaped by a
backslash, or inside text bash keeps literal (single quotes outside ``${}``, ``$'...'``, a comment,
a quoted here-document's body). Any other is code the walk can't read: an opaque part, so every
deny rule may apply and no allow rule does. A backtick substitution with a backslash in it is one
too: bash reads its text again after removing escapes, which the grammar does not model.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tree_sitter

    from reference_impl.permissions._evaluated import _WalkRecorder

__all__ = ["MAY_SUBSTITUTE", "escaped_at", "mark_unread_substitutions"]

MAY_SUBSTITUTE = re.compile(r"\$[([]|`|[<>]\(")
"""Where bash may start a command or process substitution or an arithmetic expansion; a cheap test first."""
_OPENERS = re.compile(rb"\$\(|`|[<>]\(")
_ARITHMETIC_OPENERS = re.compile(rb"\$\[|\$\(\(")

_LITERAL_KINDS = frozenset({"raw_string", "ansi_c_string"})
# Inside these, bash's quoting differs from the grammar's (``"${a:+'$(x)'}"`` keeps the quotes).
_REQUOTING_ANCESTORS = frozenset({"expansion", "string", "heredoc_body"})
_COMMENT_FOLLOWS = frozenset(" \t\n;&|()")
UNREAD_SUBSTITUTION = "a substitution bash runs where the grammar shows none"
UNREAD_ARITHMETIC = (
    "an arithmetic expansion bash evaluates where the grammar shows none (its names' values are evaluated, "
    "and an array subscript in them can run commands)"
)
REREAD_BACKTICKS = "a backtick substitution with backslashes, which bash reads again after removing them"


def escaped_at(source: bytes, at: int) -> bool:
    """Whether an odd run of backslashes ends just before ``at`` (the character there is quoted)."""
    count = 0
    while at - count - 1 >= 0 and source[at - count - 1] == ord("\\"):
        count += 1
    return count % 2 == 1


def _kept_literal(node: tree_sitter.Node, requoted: bool, source: bytes) -> bool:
    """Single quotes, ``$'...'`` (outside ``${}`` and double quotes), or a comment where bash starts one."""
    if node.type in _LITERAL_KINDS:
        return not requoted
    return node.type == "comment" and (
        node.start_byte == 0 or chr(source[node.start_byte - 1]) in _COMMENT_FOLLOWS
    )


def _accounted(
    walk: _WalkRecorder, root: tree_sitter.Node, source: bytes
) -> tuple[set[int], set[int], list[tuple[int, int]]]:
    """Opener offsets the tree's substitution and arithmetic nodes explain, and the ranges bash keeps literal."""
    openers: set[int] = set()
    arithmetic: set[int] = set()
    literal: list[tuple[int, int]] = []
    stack: list[tuple[tree_sitter.Node, bool]] = [(root, False)]
    while stack:
        node, requoted = stack.pop()
        kind = node.type
        if kind == "arithmetic_expansion":
            arithmetic.add(node.start_byte)
        if kind in ("command_substitution", "process_substitution", "arithmetic_expansion"):
            openers.add(node.start_byte)
            if walk.text(node).startswith("`"):
                openers.add(node.end_byte - 1)
                if "\\" in walk.text(node):
                    walk.problem(REREAD_BACKTICKS)
                    walk.opaque(node, REREAD_BACKTICKS)
        elif _kept_literal(node, requoted, source):
            literal.append((node.start_byte, node.end_byte))
        elif kind == "heredoc_redirect":
            start = next((c for c in node.named_children if c.type == "heredoc_start"), None)
            if start is not None and any(q in walk.text(start) for q in "'\"\\"):
                literal.extend(
                    (c.start_byte, c.end_byte) for c in node.named_children if c.type == "heredoc_body"
                )
        inner = requoted or kind in _REQUOTING_ANCESTORS
        stack.extend((child, inner) for child in node.children)
    return openers, arithmetic, literal


def mark_unread_substitutions(
    walk: _WalkRecorder, root: tree_sitter.Node, source: bytes, read: set[int] | None = None
) -> None:
    """Make opaque every place bash may start a substitution or an arithmetic expansion no node the walk reads explains.

    An arithmetic expansion (``$[y]``, ``$((y))``) is explained only by an arithmetic node: inside
    ``${x:-...}`` the grammar shows ``$[y]`` as text and ``$((y))`` as a command substitution of a
    subshell running ``y``, while bash evaluates ``y``'s value (``a[$(cmd)]`` runs ``cmd``). ``read``
    holds the openers the walk read where the grammar shows none (a here-document body's backquotes).
    """
    openers, arithmetic, literal = _accounted(walk, root, source)
    openers |= read or set()
    literal.sort()
    starts = [start for start, _ in literal]
    for pattern, accounted, why in (
        (_OPENERS, openers, UNREAD_SUBSTITUTION),
        (_ARITHMETIC_OPENERS, arithmetic, UNREAD_ARITHMETIC),
    ):
        for found in pattern.finditer(source):
            at = found.start()
            # The literal range starting last before ``at`` (one nested in another only fails closed).
            last = bisect.bisect_right(starts, at) - 1
            if at in accounted or escaped_at(source, at) or (last >= 0 and at < literal[last][1]):
                continue
            node = root.descendant_for_byte_range(at, at + 1) or root
            while node.parent is not None and node.type not in ("command", "redirected_statement", "program"):
                node = node.parent
            walk.problem(why)
            walk.opaque(node, why)
            return
