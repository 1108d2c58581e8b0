"""PERM-17 mutant: a Perl module whose functions start programs, unmodelled by the reader, is trusted."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "use IPC::Open3; open3(my $i, my $o, undef, 'nu'.'ke') under Bash(nuke:*): open3 (and IPC::Open2's "
    "open2, IPC::Cmd's run) are not builtins the reader knows, so the program they start is not asked about"
)


def _trusted(_original: Any) -> Any:
    return lambda _name: None


adapter = make_factory(Patch("reference_impl.permissions._code_targets", "perl_module_unread", _trusted))
