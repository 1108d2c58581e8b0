"""PERM-17 mutant: interpreter code that builds the name of what it runs is trusted like code naming it literally."""

from __future__ import annotations

import dataclasses

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    'Bash(python3 -c:*) vouches for python3 -c \'import os; os.system("nu"+"ke")\' past Bash(nuke:*): inline'
    " code is read for its literal commands only, a command it builds when it runs is not asked about"
)


def _literal_only(original):  # type: ignore[no-untyped-def]
    def line_code(*args, **kwargs):  # type: ignore[no-untyped-def]
        found = original(*args, **kwargs)
        return None if found is None else dataclasses.replace(found, built=None)

    return line_code


adapter = make_factory(Patch("reference_impl.permissions._shell_forms", "line_code", _literal_only))
