"""PERM-17 mutant: the paths pytest's ``pythonpath`` setting puts on ``sys.path`` are not followed."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(python3 -m pytest:*) vouches for a test importing helper from deps.zip, which pytest.ini's"
    " pythonpath puts on sys.path, past Bash(nuke:*): the zip's code is never read nor asked about"
)


def _none(original: Any) -> Any:
    return lambda *args, **kwargs: []


adapter = make_factory(Patch("reference_impl.permissions._project_files", "_pytest_path_entries", _none))
