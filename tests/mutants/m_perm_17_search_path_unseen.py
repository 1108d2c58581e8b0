"""PERM-17 mutant: Python code that changes ``sys.path`` then imports is read as importing what the engine found."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(python3 -m pytest:*) vouches for a test that writes deps.zip, puts it first on sys.path and imports"
    " helper_z from it past Bash(nuke:*): the module Python then imports is not the one the engine looked for"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._python_targets",
        "_Reader._standard_call",
        rewrite('if callee.rpartition(".")[0] in _SEARCH_PATHS:', "if False:"),
    )
)
