"""CONC-3 mutant: a tool that declares nothing is assumed concurrency safe."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-3"
DESCRIPTION = (
    "build_tool defaults is_concurrency_safe to True (optimistic), so an undeclared tool runs in parallel"
)


def _optimistic(original: Any) -> Any:
    def build_tool(name: str, description: Any, call: Any, **options: Any) -> Any:
        options.setdefault("is_concurrency_safe", lambda _input: True)
        return original(name, description, call, **options)

    return build_tool


# The reference adapter builds its tools with the build_tool it imported by name.
adapter = make_factory(Patch("pytest_toolharness.adapters.reference._tools", "build_tool", _optimistic))
