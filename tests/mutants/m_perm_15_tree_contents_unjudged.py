"""PERM-15 mutant: a directory a line may change beneath is judged by its own name, never by what it holds."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "chmod -R a+w . and find . -name '*.json' -delete run unasked in bypassPermissions: the directory "
    "a recursive change is given is judged by its own name, not by the protected files it holds"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_tree_reason",
        rewrite(
            "    if not os.path.isdir(spelled):\n        return None\n",
            "    if True:\n        return None\n",
        ),
    )
)
