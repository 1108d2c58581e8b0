"""RESULT-4 mutant: only replacements are frozen; a result once sent inline may be replaced later."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-4"
DESCRIPTION = (
    "the message budget treats every id without a frozen replacement as fresh, so an id whose result "
    "was sent inline is replaced when it comes again in a batch over the budget: only 'replaced' "
    "decisions were kept, not 'inline' ones"
)


def _mutate(original: Any) -> Any:
    def apply_message_budget(results: Any, state: Any, session_dir: Any, **options: Any) -> Any:
        seen = set(state.seen_ids)
        state.seen_ids.clear()
        try:
            return original(results, state, session_dir, **options)
        finally:
            state.seen_ids.update(seen)

    return apply_message_budget


adapter = make_factory(Patch("reference_impl.execution._pipeline", "apply_message_budget", _mutate))
