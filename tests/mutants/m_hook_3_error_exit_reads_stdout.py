"""Mutant: a command hook exiting with a non-blocking error status still has its stdout JSON read."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-3"
DESCRIPTION = (
    "a hook that prints a JSON decision and then exits 1 (or 3, 126...) is read like an exit-0 "
    "hook: its deny or ask decides, although only exit 0 makes stdout an answer"
)


def _mutate(original: Any) -> Any:
    from reference_impl.hooks import _runner

    def _interpret_command(res: Any, event: str) -> Any:
        if res.exit_code not in (None, 0, 2) and res.stdout.strip().startswith("{"):
            return _runner._parse_output(res.command, res.stdout, event)
        return original(res, event)

    return _interpret_command


adapter = make_factory(Patch("reference_impl.hooks._runner", "_interpret_command", _mutate))
