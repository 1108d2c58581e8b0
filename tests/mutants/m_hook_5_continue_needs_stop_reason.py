"""Mutant (held out in session 30, caught since): ``continue: false`` stops the loop only when the hook also gave a ``stopReason``."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-5"
DESCRIPTION = (
    "the collector records a stop only when stopReason is non-empty ('if out.get(\"stopReason\")'): "
    'a bare {"continue": false} is ignored and the agent loop goes on'
)


def _mutate(_original: Any) -> Any:
    def take(self: Any, f: Any) -> None:
        if f.stop and f.stop_reason and not self.stop:  # the defect: no reason, no stop
            self.stop, self.stop_reason = True, f.stop_reason
        if f.system_message:
            self.system_messages.append(f.system_message)
        if f.additional_context:
            self.additional_contexts.append(f.additional_context)

    return take


adapter = make_factory(Patch("reference_impl.hooks._runner", "OutputCollector.take", _mutate))
