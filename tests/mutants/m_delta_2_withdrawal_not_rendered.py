"""DELTA-2 mutant: a notice's removed names never reach the model (the render drops the withdrawal part)."""

from __future__ import annotations

from typing import Any

from reference_impl.request import system_reminder
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DELTA-2"
DESCRIPTION = (
    "a deferred_tools_delta is rendered with its added tools only: the model is never told that a tool left"
)


def _added_only(original: Any) -> Any:
    def render(self: Any) -> str:
        # The defect: the "no longer available" part is forgotten (the notice's fields are right).
        if not self.added_lines:
            return str(original(self))
        return system_reminder(
            "The following deferred tools are now available via ToolSearch:\n" + "\n".join(self.added_lines)
        )

    return render


adapter = make_factory(Patch("reference_impl.request._transcript", "DeferredToolsDelta.render", _added_only))
