"""Mutant: an http hook's header reference is filled when an allowed name is a prefix of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-8"
DESCRIPTION = (
    "an http hook's header reference $TOKEN_2 counts as allowed when allowedEnvVars lists TOKEN (a check "
    "by prefix), so a variable nobody listed reaches the endpoint"
)


def _mutate(original: Any) -> Any:
    def expand_header(value: str, allowed: tuple[str, ...], env: Mapping[str, str]) -> str:
        widened = tuple(name for name in env if any(name.startswith(a) for a in allowed))
        return str(original(value, widened, env))

    return expand_header


adapter = make_factory(Patch("reference_impl.hooks._http", "expand_header", _mutate))
