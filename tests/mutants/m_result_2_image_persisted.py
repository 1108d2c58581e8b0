"""RESULT-2 mutant: results holding an image are persisted like text."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-2"
DESCRIPTION = "The size limit ignores block types, so a large result with an image is saved to a file and the image lost"


def _nothing_exempt(_original: Any) -> Any:
    def is_exempt_content(content: object) -> bool:
        return False

    return is_exempt_content


adapter = make_factory(Patch("reference_impl.execution._results", "is_exempt_content", _nothing_exempt))
