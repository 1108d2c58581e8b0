"""CONC-4 mutant: a concurrency-safe shell call streamed in after a shell failure still starts."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-4"
DESCRIPTION = (
    "the batch remembers a failed shell call, but checks the memory only for calls that would wait "
    "their turn: a concurrency-safe (read-only) shell call streamed in afterwards starts at once"
)


def _mutate(original: Any) -> Any:
    def add_tool_use(self: Any, block: Any) -> None:
        failed = self._failed_shell
        skip = failed is not None and self._is_shell(block) and self._is_safe(block)
        if skip:
            self._failed_shell = None
        try:
            original(self, block)
        finally:
            if skip:
                self._failed_shell = failed

    return add_tool_use


adapter = make_factory(
    Patch("reference_impl.execution._scheduler", "StreamingToolExecutor.add_tool_use", _mutate)
)
