"""Broken on purpose: the Patch names a method the reference harness does not have."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-1"
DESCRIPTION = "patches ReferenceHarness.no_such_method, which does not exist"


def _mutate(original: Any) -> Any:
    return original


adapter = make_factory(
    Patch("pytest_toolharness.adapters.reference._adapter", "ReferenceHarness.no_such_method", _mutate)
)
