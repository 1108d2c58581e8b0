"""Matching a rule's wildcards in time linear in the text matched (PERM-14).

A rule's pattern is the user's; the command or path it is matched against is the model's. A
backtracking regex (``Bash(a*a*a*b)`` as ``a.*a.*a.*b``, ``Read(**/a/**/a/**/b)``) takes time
polynomial in the text, of degree the number of wildcards, on a text that almost matches: one
crafted command or path held the decision for minutes. Neither matcher here backtracks:

- :func:`shell_wildcard_matches` (a ``Bash(...)`` pattern: only ``*``, over the whole command):
  the first piece is a prefix, the last a suffix, and each piece between is found at its leftmost
  place after the one before; leftmost is never worse, so a failed search is a failed match.
- :class:`GlobMatcher` (a path rule's gitignore glob, as :mod:`~reference_impl.permissions._paths`
  reads it): every way the glob may have gone is followed at once, one character at a time (a
  Thompson simulation): time in the path's length times the glob's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["GlobMatcher", "GlobToken", "shell_wildcard_matches"]


@lru_cache(maxsize=16384)
def _shell_pieces(pattern: str) -> tuple[tuple[str, ...], bool]:
    r"""The literal pieces between a pattern's unescaped stars, and whether its one ``" *"`` ending is optional.

    ``\*`` is a literal star and ``\\`` a literal backslash; any other backslash is itself.
    """
    pieces: list[str] = []
    current: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern) and pattern[index + 1] in "*\\":
            current.append(pattern[index + 1])
            index += 2
            continue
        if char == "*":
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    pieces.append("".join(current))
    # Claude Code: a single trailing " *" is optional, so "ls *" also matches a bare "ls".
    optional_tail = len(pieces) == 2 and pattern.endswith(" *") and not pattern.endswith("\\ *")
    return tuple(pieces), optional_tail


def shell_wildcard_matches(pattern: str, command: str) -> bool:
    """Whether the whole ``command`` matches a ``Bash(...)`` pattern whose ``*`` stands for any text."""
    pieces, optional_tail = _shell_pieces(pattern)
    if optional_tail and command == pieces[0][:-1]:
        return True
    first, last = pieces[0], pieces[-1]
    if len(pieces) == 1:
        return command == first
    if len(command) < len(first) + len(last) or not command.startswith(first) or not command.endswith(last):
        return False
    at, end = len(first), len(command) - len(last)
    for piece in pieces[1:-1]:
        found = command.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


@dataclass(frozen=True, slots=True)
class GlobToken:
    """One step of a glob: a character, a one-character class, or a run of any characters.

    ``kind`` is ``"char"`` (``text`` itself), ``"class"`` (one character ``one`` matches: ``?``, a
    bracket class), ``"segment"`` (any run without ``/``: ``*``), ``"any"`` (any run: a final ``**``)
    or ``"dirs"`` (nothing, or any run ending in ``/``: ``**/``).
    """

    kind: str
    text: str = ""
    one: re.Pattern[str] | None = None


_RUNS = frozenset({"segment", "any", "dirs"})


class GlobMatcher:
    """A glob's tokens, matched against a whole text without backtracking (see the module docstring)."""

    __slots__ = ("tokens",)

    def __init__(self, tokens: Sequence[GlobToken]) -> None:
        self.tokens = tuple(tokens)

    def __repr__(self) -> str:
        return f"GlobMatcher({self.tokens!r})"

    def fullmatch(self, text: str) -> bool:
        """Whether the whole ``text`` matches."""
        return self._matches(text, directories=False)

    def matches_a_directory_of(self, text: str) -> bool:
        """Whether ``text``, or the text before one of its ``/`` (a directory holding it), matches.

        One pass: the states are looked at before each ``/``, not a match run per directory.
        """
        return self._matches(text, directories=True)

    def _matches(self, text: str, *, directories: bool) -> bool:
        tokens = self.tokens
        end = len(tokens)
        accepted = (end, False)
        # A state is (the token reached, whether inside a "dirs" run that must still end in "/").
        states = self._closure({(0, False)})
        for char in text:
            if directories and char == "/" and accepted in states:
                return True
            following: set[tuple[int, bool]] = set()
            for index, _ in states:
                if index == end:
                    continue
                token = tokens[index]
                if token.kind == "char":
                    if char == token.text:
                        following.add((index + 1, False))
                elif token.kind == "class":
                    assert token.one is not None
                    if token.one.fullmatch(char):
                        following.add((index + 1, False))
                elif token.kind == "segment":
                    if char != "/":
                        following.add((index, False))
                elif token.kind == "any":
                    following.add((index, False))
                else:  # dirs
                    following.add((index, True))
                    if char == "/":
                        following.add((index + 1, False))  # the run may end after any "/"
            if not following:
                return False
            states = self._closure(following)
        return accepted in states

    def _closure(self, states: set[tuple[int, bool]]) -> set[tuple[int, bool]]:
        """``states`` and every state reached from them by matching nothing (a run may be empty)."""
        seen = set(states)
        stack = list(states)
        while stack:
            index, inside = stack.pop()
            if index < len(self.tokens) and not inside and self.tokens[index].kind in _RUNS:
                after = (index + 1, False)
                if after not in seen:
                    seen.add(after)
                    stack.append(after)
        return seen
