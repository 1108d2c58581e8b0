"""PERM-17 mutant: a locale string glued after a plain piece keeps its ``$`` (``-$"ab"`` read as ``-$ab``)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "rm \\;\\; -$\";;\" ' ' runs under deny Bash(rm ';;' '-;;' ' '): the reader keeps the $ of a locale "
    "string glued after a plain piece, so the argument reads -$;; and the rule's -;; is not matched"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._bash_reader",
        "_Walk.word",
        rewrite(
            "        if _LOCALE_PREFIX.search(text) and self.source[node.end_byte : node.end_byte + 1] == b'\"':\n",
            '        if text == "$" and self.source[node.end_byte : node.end_byte + 1] == b\'"\':\n',
        ),
    )
)
