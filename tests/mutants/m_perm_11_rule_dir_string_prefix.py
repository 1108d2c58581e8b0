"""Mutant: a path rule's directory is compared as a string prefix, not as a parent directory."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = (
    "Edit(//x/proj/**) also covers /x/proj-other/f and /x/project/f: the rule's root is checked "
    "with startswith(root) instead of startswith(root + '/')"
)


def _mutate(original: Any) -> Any:
    del original

    def matches(self: Any, absolute_path: str) -> bool:
        root = self.root.rstrip("/")
        if root and not absolute_path.startswith(root):  # BUG: no separator after the root
            return False
        relative = absolute_path[len(root) :].lstrip("/") if root else absolute_path.lstrip("/")
        if not relative:
            return False
        segments = relative.split("/")
        return any(self.matcher.fullmatch("/".join(segments[:k])) for k in range(1, len(segments) + 1))

    return matches


adapter = make_factory(Patch("reference_impl.permissions._paths", "PathPattern.matches", _mutate))
