"""PERM-17 mutant: what the machine's files show a program starting with no option naming it is unseen."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(zstd:*) misses file -z a.zst (libmagic starts zstd by name), Bash(sed:*) and Bash(grep:*) miss "
    "zgrep (a script running them), Bash(groff:*) misses man ls: the catalogue mined from the programs' "
    "binaries, libraries, manual pages and scripts (program_starts.json) is not consulted"
)

adapter = make_factory(
    Patch("reference_impl.permissions._programs", "started_by_default", lambda _original: lambda _name: ()),
)
