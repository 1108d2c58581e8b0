"""RESULT-1 mutant: the persisted-output preview is cut at 2,000 bytes, in the middle of a character."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-1"
DESCRIPTION = (
    "The preview is the first 2,000 bytes decoded with errors='replace': a multi-byte character is cut in two"
)


def _byte_cut(_original: Any) -> Any:
    def utf8_prefix(text: str, max_bytes: int) -> str:
        return text.encode("utf-8", errors="replace")[:max_bytes].decode("utf-8", errors="replace")

    return utf8_prefix


adapter = make_factory(Patch("reference_impl.execution._results", "utf8_prefix", _byte_cut))
