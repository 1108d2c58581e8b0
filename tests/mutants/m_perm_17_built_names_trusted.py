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
    def code_targets(language, code):  # type: ignore[no-untyped-def]
        found = original(language, code)
        # A built command or code also makes every write unknown (the same reason): both dropped,
        # so only what the code names literally is judged; a built *write* is still seen (PERM-15's).
        from_run = found.built is not None and found.writes_built == found.built
        return dataclasses.replace(found, built=None, writes_built=None if from_run else found.writes_built)

    return code_targets


adapter = make_factory(Patch("reference_impl.permissions._code_targets", "code_targets", _literal_only))
