"""Mutant: a negated bracket class in a path rule's glob matches ``/`` (``[!b]`` read as a regex's ``[^b]``)."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = (
    "a negated class in a path glob takes the separator: Read(//d/a[!b]c) also covers d/a/c, which gitignore "
    "never matches (an allow rule wider than written)"
)


def _mutate(original: Any) -> Any:
    def class_at(pattern: str, start: int) -> tuple[str, int]:
        regex, end = original(pattern, start)
        return regex.replace("[^/", "[^", 1), end

    return class_at


adapter = make_factory(Patch("reference_impl.permissions._paths", "glob_class_at", _mutate))
