"""SBX-1 mutant: ``sandbox.filesystem.denyWrite`` is taken from the last settings file that sets it."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-1"
DESCRIPTION = (
    "denyWrite is merged as a value, not a list: when the project's and the managed settings both set it,"
    " the higher-precedence file's list replaces the other's, and a file the project denied is writable"
)


def _lists(original: Any) -> Any:
    return tuple(key for key in original if key != "deny_write")


adapter = make_factory(Patch("reference_impl.sandbox._settings", "_LISTS", _lists))
