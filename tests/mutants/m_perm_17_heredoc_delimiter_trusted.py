"""PERM-17 mutant: the grammar's here-document delimiter is trusted though bash reads another word."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "npm test <<EOF;rm ... EOF; rm x: the grammar takes EOF;rm for the delimiter and a later line for"
    " the end, and Bash(rm:*) deny does not catch the rm bash runs"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "_heredoc_delimited",
        rewrite(
            "    if len(starts) != 1 or len(ends) > 1:",
            "    return True\n    if len(starts) != 1 or len(ends) > 1:",
        ),
    )
)
