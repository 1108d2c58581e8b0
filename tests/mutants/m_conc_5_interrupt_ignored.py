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
    async def settle_ask_with_hooks_or_host(*args: Any, **kwargs: Any) -> Any:
        decision, tool_input, _interrupts = await original(*args, **kwargs)
        return decision, tool_input, False

    return settle_ask_with_hooks_or_host


adapter = make_factory(
    Patch("reference_impl.execution._pipeline", "settle_ask_with_hooks_or_host", _never_interrupts)
)
