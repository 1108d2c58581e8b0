"""Broken on purpose: the Patch names the engine's module path from before the re-layout."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-1"
DESCRIPTION = (
    "patches reference_impl._permissions, which no longer exists (now reference_impl.permissions._engine)"
)


def _mutate(original: Any) -> Any:
    return original


adapter = make_factory(Patch("reference_impl._permissions", "_decide", _mutate))
