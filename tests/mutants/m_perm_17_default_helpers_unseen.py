"""PERM-17 mutant: the program an absent option leaves to its default (scp -S: ssh, install -s: strip) is unseen."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(ssh:*) misses scp f h:x, Bash(strip:*) misses install -s, Bash(zstd:*) misses tar caf a.tar.zst,"
    " Bash(crontab:*) misses git maintenance start: an option that names a program is absent, so its"
    " default is taken to be no program"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._programs", "default_programs", lambda _original: lambda *_args: ([], [])
    ),
)
