"""DEFER-4 mutant: ``select:`` names trimmed with Python's ``strip()``, not JavaScript's ``trim``."""

from __future__ import annotations

import re
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-4"
DESCRIPTION = (
    "select: pieces trimmed with str.strip(), which keeps a BOM (U+FEFF) the model's text carries, so "
    "`select: \ufeffRead` loads nothing"
)

_SELECT = re.compile(r"select:([^\n\r\u2028\u2029]+)\Z", re.IGNORECASE | re.ASCII)


def _python_strip(_original: Any) -> Any:
    def parse_select(query: str) -> list[str] | None:
        match = _SELECT.match(query)
        if match is None:
            return None
        return [name for name in (piece.strip() for piece in match.group(1).split(",")) if name]

    return parse_select


adapter = make_factory(Patch("reference_impl.search._toolsearch", "parse_select", _python_strip))
