"""Mutant: the shell walker recurses without a limit and nothing catches what the engine raises."""

from __future__ import annotations

from typing import Any, NoReturn

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-14"
DESCRIPTION = (
    "3,000 nested $( raise RecursionError out of decide_permission and the run (no depth limit, no guard)"
)


def _reraise(original: Any) -> Any:
    del original

    def internal_error_decision(tool_name: str, error: BaseException) -> NoReturn:
        del tool_name
        raise error

    return internal_error_decision


adapter = make_factory(
    Patch("reference_impl.permissions._bash_reader", "MAX_DEPTH", lambda _original: 10**9),
    Patch("reference_impl.permissions._engine", "internal_error_decision", _reraise),
    Patch("reference_impl.execution._pipeline", "internal_error_decision", _reraise),
)
