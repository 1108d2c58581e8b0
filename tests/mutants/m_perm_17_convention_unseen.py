"""PERM-17 mutant: a program that finds code by convention (make's Makefile, PATH) is taken to run nothing written."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "printf 'all:\\n\\trm -rf x\\n' > d && cp d Makefile && make, PATH=.:$PATH t: only a file named "
    "on the line counts as run; a Makefile, conftest.py or a PATH lookup the line fed is not seen"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._line_writes", "_reads_by_convention", lambda _original: lambda _run: None
    )
)
