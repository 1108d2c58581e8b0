"""PERM-12 mutant: a backslash in a path rule's glob-free leading segment names a backslash, not an escape."""

from __future__ import annotations

import os
import posixpath
import re
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "the glob-free leading segments of a path rule become its root as written: `Edit(./src/\\a/*.py)` "
    "loads and denies files under a directory named `\\a`, never `src/a/x.py`, which gitignore's escape names "
    "(a deny silently narrowed)"
)


def _anchor_keeping_backslashes(original: Any) -> Any:
    module = __import__("reference_impl.permissions._paths", fromlist=["_fold"])

    def _anchor(root: str, glob: str, content: str) -> tuple[str, str]:
        segments = glob.split("/")
        literal: list[str] = []
        for segment in segments:
            if module._GLOB_CHARS.search(segment):
                break
            literal.append(segment)
        rest = segments[len(literal) :]
        if ".." in rest:
            raise module.PathPatternError(f"'..' after a wildcard is not supported in {content!r}")
        if not rest:
            literal, rest = literal[:-1], literal[-1:]
            folded = module._fold(posixpath.join(root, *literal, rest[0]))
            parent, name = posixpath.split(folded)
            if not name:
                return os.path.realpath(parent), "**"
            return os.path.realpath(parent), re.sub(r"([*?\[\\])", r"\\\1", name)
        base = module._fold(posixpath.join(root, *literal)) if literal else root
        return os.path.realpath(base), "/".join(rest)

    return _anchor


adapter = make_factory(Patch("reference_impl.permissions._paths", "_anchor", _anchor_keeping_backslashes))
