"""RESULT-4 mutant: a batch under the message budget leaves its ids unseen, so a later pass may replace them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference_impl.execution._results import MAX_TOOL_RESULTS_PER_MESSAGE_CHARS, content_size
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-4"
DESCRIPTION = (
    "The budget pass records its ids as decided only when the message was over the limit: a result sent "
    "inline in a small message counts as fresh in a later pass, which may replace the bytes already sent"
)


def _seen_when_over(original: Any) -> Any:
    def apply_message_budget(results: Sequence[Any], state: Any, session_dir: Any, **options: Any) -> Any:
        before = set(state.seen_ids)
        out = original(results, state, session_dir, **options)
        limit = options.get("limit", MAX_TOOL_RESULTS_PER_MESSAGE_CHARS)
        if sum(content_size(r.get("content")) for r in results) <= limit:
            state.seen_ids = before
        return out

    return apply_message_budget


adapter = make_factory(Patch("reference_impl.execution._pipeline", "apply_message_budget", _seen_when_over))
