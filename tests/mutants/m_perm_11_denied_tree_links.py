"""PERM-11 mutant: a symbolic link inside a denied tree does not deny the file it names."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = (
    "Read(./secret/**) with secret/key -> ../data/key.txt: the denied tree's links are not resolved "
    "(only hard links are compared by inode), so Read data/key.txt is allowed"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._paths",
        "_covers_inode",
        rewrite("                if entry.is_symlink():\n", "                if False:\n"),
    )
)
