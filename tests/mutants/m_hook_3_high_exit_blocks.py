"""Mutant: a command hook's exit code of 2 *or more* blocks, not exactly 2."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-3"
DESCRIPTION = (
    "the blocking check reads 'exit_code >= 2': a hook whose program is missing (127) or that "
    "dies with 255 blocks the call like exit 2, though only exit 2 blocks"
)


def _mutate(original: Any) -> Any:
    def interpret(res: Any, event: str) -> Any:
        if res.exit_code is not None and res.exit_code > 2 and not res.timed_out and res.signal is None:
            res = replace(res, exit_code=2)
        return original(res, event)

    return interpret


adapter = make_factory(Patch("reference_impl.hooks._runner", "_interpret_command", _mutate))
