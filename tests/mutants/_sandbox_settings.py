"""What the sandbox mutants share: a ``SandboxedShell.plan`` that sees one setting changed."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["plan_ignoring"]


def plan_ignoring(**overrides: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A ``Patch`` mutate function: ``plan`` decides as if the shell's settings had ``overrides``."""

    def mutate(original: Callable[..., Any]) -> Callable[..., Any]:
        def plan(self: Any, tool_input: Mapping[str, Any]) -> Any:
            kept = self.settings
            self.settings = dataclasses.replace(kept, **overrides)
            try:
                return original(self, tool_input)
            finally:
                self.settings = kept

        return plan

    return mutate
