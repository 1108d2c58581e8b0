"""Broken on purpose: it loads, but its ``new_harness`` returns something that is not a harness."""

from __future__ import annotations

from typing import Any, NoReturn

from pytest_toolharness.adapters.reference._adapter import ReferenceAdapter
from tests.mutants._base import make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-1"
DESCRIPTION = "new_harness returns an object with no methods: every test errors at setup"


class _NotAHarness:
    def __getattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"not a harness: no {name!r}")


class _Adapter(ReferenceAdapter):
    def new_harness(self) -> Any:
        return _NotAHarness()


adapter = make_factory(adapter_class=_Adapter)
