"""PERM-17 mutant: programs a command starts by default (tar z -> gzip, zcat = gzip, git ssh://) are not seen."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(gzip:*) misses tar czf out.tgz f and zcat x.gz, Bash(ssh:*) misses git ls-remote ssh://h/x:"
    " a program no option names is taken to start nothing"
)

adapter = make_factory(
    Patch("reference_impl.permissions._shell_forms", "helper_commands", lambda _original: lambda *_args: []),
)
