"""PERM-17 mutant: only a declaration (``export PATH=...``) changes the PATH later names are looked up on."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "read PATH <<< y; ls: read, mapfile, printf -v, getopts and wait -p assign PATH as export does, but only "
    "export/declare/typeset/readonly/local are taken to change it, so ls runs y/ls (a link to a denied program) unasked"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._shell_forms",
        "unread_by_writes",
        rewrite(
            "for n in variables_assigned(run.argv)",
            'for n in variables_assigned(run.argv) if run.base in ("export", "declare", "typeset", "readonly", "local")',
        ),
    )
)
