"""Mutant: make's Makefile is read as the working directory's default one, alone."""

from __future__ import annotations

import posixpath
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "make's recipes are read from ./Makefile only: a file it includes, the one -f names and the one in "
    "the directory -C names are not, so their recipes run a denied program unasked"
)


def _mutate(original: Any) -> Any:
    from reference_impl.permissions import _project_files

    def _makefiles(words: list[str], cwd: str) -> list[tuple[str, str]]:
        found = []
        for name in ("GNUmakefile", "makefile", "Makefile"):
            text = _project_files._read(posixpath.join(cwd, name))
            if text:
                found.append((f"recipe in {name}", "\n".join(_project_files._recipe_lines(text))))
        return found

    return _makefiles


adapter = make_factory(Patch("reference_impl.permissions._project_files", "_makefiles", _mutate))
