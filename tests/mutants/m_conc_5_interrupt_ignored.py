"""CONC-5 mutant: a deny that interrupts (the host's, or a PermissionRequest hook's) stops only its own call."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-5"
DESCRIPTION = (
    "A user's deny with interrupt is taken as a plain deny: the calls queued behind it still start "
    "(the reference harness before session 7 set only the denied call's own abort event)"
)


def _never_interrupts(original: Any) -> Any:
    async def _resolve_ask(*args: Any, **kwargs: Any) -> Any:
        decision, tool_input, _interrupts = await original(*args, **kwargs)
        return decision, tool_input, False

    return _resolve_ask


adapter = make_factory(Patch("reference_impl.execution._pipeline", "_resolve_ask", _never_interrupts))
