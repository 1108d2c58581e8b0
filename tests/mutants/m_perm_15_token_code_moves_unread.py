"""PERM-15 mutant: JavaScript and Perl code read as never changing its directory."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    'perl -e \'chdir q(.claude); open(F, ">>", "settings.json")\' and node\'s process.chdir run unasked in '
    "bypassPermissions: a move in code read from its tokens is not seen"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._code_targets",
        "_read_tokens",
        rewrite(
            "    moves = (None,) if moving else tuple(nested_moves)\n", "    moves = tuple(nested_moves)\n"
        ),
    )
)
