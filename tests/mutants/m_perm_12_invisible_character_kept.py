"""PERM-12 mutant: a rule with an invisible character loads as written."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "the parser takes a zero-width or no-break space in a rule as part of it: `Read(\\u200b.env)` pasted "
    "from a web page loads, names a file nobody has, and its deny lets `.env` be read"
)


def _sees_nothing_odd(_original: Any) -> Any:
    return lambda text: None


adapter = make_factory(
    Patch("reference_impl.permissions._rule_syntax", "_invisible_character", _sees_nothing_odd)
)
