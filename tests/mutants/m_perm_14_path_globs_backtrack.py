"""PERM-14 mutant: a path rule's glob matched by a backtracking regex, once per directory of the path."""

from __future__ import annotations

import re
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-14"
DESCRIPTION = (
    "Read(**/a/**/a/**/a/**/zq) as the regex (?:.*/)?a/(?:.*/)?a/(?:.*/)?a/(?:.*/)?zq, tried on the path "
    "and each of its directories: on a path of hundreds of a/ segments the regex tries every placing of "
    "the segments, so a model's path holds the decision for hours"
)

_PIECES = {"segment": "[^/]*", "any": ".*", "dirs": "(?:.*/)?"}


def _backtracking(original: Any) -> Any:
    del original

    def matches(self: Any, absolute_path: str) -> bool:
        root = self.root.rstrip("/")
        if root and not absolute_path.startswith(root + "/"):
            return False
        relative = absolute_path[len(root) + 1 :] if root else absolute_path.lstrip("/")
        if not relative:
            return False
        regex = re.compile(
            "".join(
                re.escape(t.text)
                if t.kind == "char"
                else t.one.pattern
                if t.kind == "class"
                else _PIECES[t.kind]
                for t in self.matcher.tokens
            ),
            re.DOTALL,
        )
        segments = relative.split("/")
        return any(regex.fullmatch("/".join(segments[:k])) for k in range(1, len(segments) + 1))

    return matches


adapter = make_factory(Patch("reference_impl.permissions._paths", "PathPattern.matches", _backtracking))
