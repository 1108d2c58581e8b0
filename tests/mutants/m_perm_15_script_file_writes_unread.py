"""PERM-15 mutant: the script file an interpreter is given is not read for the paths it writes."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "python3 w.py, where w.py does os.chdir('.git') then open('config', 'a'), runs unasked in "
    "bypassPermissions: only inline code is read for what it writes"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_script_code",
        rewrite("    for place in places:\n", "    for place in ():\n"),
    )
)
