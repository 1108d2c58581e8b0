"""PERM-11 mutant: a path the model gives with ~ is not expanded."""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from reference_impl.permissions._paths import PathPatternError
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = "_absolute_path joins a '~/...' path to the working directory instead of expanding it to the home directory, so Read(~/secret) deny rules and ~/.bashrc protection miss the call"


def _no_expanduser(original: Any) -> Any:
    def _absolute_path(path: str, cwd: Path) -> str:
        if "\x00" in path:
            raise PathPatternError(f"path {path!r} contains a NUL byte")
        return path if path.startswith("/") else posixpath.join(str(cwd), path)

    return _absolute_path


adapter = make_factory(Patch("reference_impl.permissions._paths", "_absolute_path", _no_expanduser))
