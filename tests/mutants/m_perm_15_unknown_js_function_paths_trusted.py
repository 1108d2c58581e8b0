"""PERM-15 mutant: a path literal given to a JavaScript function node's lists do not hold is trusted."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "node -e 'process.report.writeReport(\".git/config\")' runs unasked in bypassPermissions: only the fs "
    "functions node's lists hold are read as writing"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._code_targets",
        "_read_tokens",
        rewrite(
            '            if not perl and following == "(" and text not in _JS_READS_ONLY:\n',
            "            if False:\n",
        ),
    )
)
