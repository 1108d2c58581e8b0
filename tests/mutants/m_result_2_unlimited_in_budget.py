"""RESULT-2 mutant: results of tools without a size limit are replaced by the message budget."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-2"
DESCRIPTION = "The per-message budget forgets that unlimited tools are exempt and persists their results"


def _no_exemptions(original: Any) -> Any:
    def apply_message_budget(results: Sequence[Any], state: Any, session_dir: Any, **kwargs: Any) -> Any:
        kwargs["exempt_ids"] = ()
        return original(results, state, session_dir, **kwargs)

    return apply_message_budget


adapter = make_factory(Patch("reference_impl.execution._pipeline", "apply_message_budget", _no_exemptions))
