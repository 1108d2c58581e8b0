"""PERM-15 mutant: sed's script is looked for among its operands only, not in its long options."""

from __future__ import annotations

from reference_impl.permissions._sed_options import SedLine
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "sed -n --expr=w\\ .vscode/tasks.json /etc/hostname runs unasked in bypassPermissions: the w command "
    "is looked for in sed's operands, and a script given as --expression (however abbreviated) is not one"
)


def _operands_only(_original: object) -> object:
    def sed_line(_args: object) -> SedLine:
        return SedLine()

    return sed_line


adapter = make_factory(Patch("reference_impl.permissions._line_writes", "sed_line", _operands_only))
