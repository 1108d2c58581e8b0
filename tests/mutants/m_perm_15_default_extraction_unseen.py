"""PERM-15 mutant: an archive extracted with no destination is not read as writing into the working directory."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "python3 -c 'import zipfile; zipfile.ZipFile(\"a.zip\").extractall()' (a.zip holding .git/hooks/pre-commit) "
    "runs unasked in bypassPermissions: the default destination, the working directory, is not seen"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._python_targets",
        "_Reader._handed",
        rewrite(
            "    if at is not None and len(node.args) <= at and not {k.arg for k in node.keywords} & _DESTINATIONS:\n",
            "    if False:\n",
        ),
    )
)
