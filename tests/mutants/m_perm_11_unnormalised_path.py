"""Mutant: path rules are compared with the path as written, made absolute but not normalised."""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = "Read(./.env) deny dodged by ./a/../.env: the path is joined to cwd but never normalised"


def _mutate(original: Any) -> Any:
    del original

    def path_forms(path: str, cwd: Path) -> tuple[str, ...]:
        return (path if path.startswith("/") else posixpath.join(str(cwd), path),)

    return path_forms


adapter = make_factory(Patch("reference_impl.permissions._rules", "path_forms", _mutate))
