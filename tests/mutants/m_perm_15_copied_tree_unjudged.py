"""PERM-15 mutant: code writing into a directory is judged by the directory's name, not by what it holds."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    'python3 -c \'import shutil; shutil.copytree("tmpl", ".", dirs_exist_ok=True)\' (tmpl holding '
    ".vscode/tasks.json) and node's cpSync into the root run unasked in bypassPermissions"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_holding_reason",
        rewrite("    for place in places:\n", "    for place in ():\n"),
    )
)
