"""PERM-15 mutant: find's ``-o`` read as part of a plain conjunction, so its ``-name`` patterns are taken to narrow what it removes."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "find . -name '*.none' -o -type f -delete runs unasked in bypassPermissions: the -o is taken for a "
    "test that narrows, so only names matching *.none are judged, while find removes every file"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "find_names",
        rewrite("        elif word in _FIND_PLAIN:\n", '        elif word in _FIND_PLAIN or word == "-o":\n'),
    )
)
