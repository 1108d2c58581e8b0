"""Mutant: a command hook's output is cut at its first 64 KiB, so a larger JSON decision is not read."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-3"
DESCRIPTION = (
    "a hook's stdout kept to its first 64 KiB read (a pipe buffer): a JSON decision past it is ignored"
)

_FIRST_READ = 1 << 16


def _mutate(original: Any) -> Any:
    async def read_capped(stream: Any, limit: int) -> tuple[bytes, bool]:
        kept, truncated = await original(stream, limit)
        return kept[:_FIRST_READ], truncated or len(kept) > _FIRST_READ

    return read_capped


adapter = make_factory(Patch("reference_impl.hooks._command", "_read_capped", _mutate))
