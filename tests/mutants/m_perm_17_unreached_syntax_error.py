"""PERM-17 mutant: a grammar failure the walk never reaches as an ERROR node is not made opaque."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._permission_rules import TRUST_UNREAD
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "npm test <<EOF; rm ... : the command bash runs after an unterminated here-document start is lost,"
    " and Bash(rm:*) deny does not catch it"
)

adapter = make_factory(
    TRUST_UNREAD,
    Patch(
        "reference_impl.permissions._bash_reader",
        "_split",
        rewrite(
            "if root.has_error and not any(part.argv == (None,) for part in walk.parts):",
            "if False:",
        ),
    ),
)
