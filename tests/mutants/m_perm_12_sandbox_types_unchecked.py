"""PERM-12 mutant: the sandbox keys the harness accepts and ignores are not type-checked."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    'a settings file with `"sandbox": {"network": {"httpProxyPort": "8080"}}` or `"allowLocalBinding": "no"` '
    "loads: the malformed file is not refused, so its author never learns the key means nothing"
)


def _any_type(original: Any) -> Any:
    return lambda _value, _kind: True


adapter = make_factory(Patch("reference_impl.sandbox._settings", "_type_ok", _any_type))
