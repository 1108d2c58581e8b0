"""Broken on purpose: it loads, but every method of its harness raises, so every check fails."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NoReturn

from pytest_toolharness.adapters.reference._adapter import ReferenceAdapter, ReferenceHarness
from tests.mutants._base import make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-1"
DESCRIPTION = "every harness method raises: it fails every requirement, not PERM-1 in particular"


def _raising(name: str) -> Callable[..., NoReturn]:
    def method(self: object, *args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(f"this harness is unusable ({name} was called)")

    return method


class _UnusableHarness(ReferenceHarness):
    """The reference harness with every public method replaced (they exist, so the harness loads)."""


for _name, _value in inspect.getmembers(ReferenceHarness, inspect.isfunction):
    if not _name.startswith("_"):
        setattr(_UnusableHarness, _name, _raising(_name))


class _UnusableAdapter(ReferenceAdapter):
    def new_harness(self) -> Any:
        harness = super().new_harness()
        harness.__class__ = _UnusableHarness
        return harness


adapter = make_factory(adapter_class=_UnusableAdapter)
