"""Broken on purpose: the module itself no longer imports (an import from a module that moved)."""

from __future__ import annotations

from typing import Any

from reference_impl._permissions import _decide  # type: ignore[import-not-found]

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-1"
DESCRIPTION = "imports from reference_impl._permissions, which no longer exists"


def _mutate(original: Any) -> Any:
    del original
    return _decide


adapter = make_factory(Patch("reference_impl.permissions._engine", "_decide", _mutate))
