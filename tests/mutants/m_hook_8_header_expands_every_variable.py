"""Mutant: an http hook's header fills in every environment variable it names, listed or not."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-8"
DESCRIPTION = (
    "an http hook's headers expand $NAME / ${NAME} from the environment whether or not allowedEnvVars "
    "lists NAME: a repository's hook reads the user's secrets"
)


def _mutate(original: Any) -> Any:
    def expand_header(value: str, allowed: tuple[str, ...], env: Mapping[str, str]) -> str:
        return str(original(value, tuple(env), env))

    return expand_header


adapter = make_factory(Patch("reference_impl.hooks._http", "expand_header", _mutate))
