"""Mutant: any non-zero exit code of a command hook blocks the call, not only exit code 2."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-3"
DESCRIPTION = "a hook script that exits 1 (a crash, a missing binary) blocks the tool like exit 2"


def _mutate(original: Any) -> Any:
    def interpret(res: Any, event: str) -> Any:
        if res.exit_code not in (None, 0, 2) and not res.timed_out and res.signal is None:
            res = replace(res, exit_code=2)
        return original(res, event)

    return interpret


adapter = make_factory(Patch("reference_impl.hooks._runner", "_interpret_command", _mutate))
