"""RESULT-3 mutant: the message budget replaces results in tool_use order, not largest first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-3"
DESCRIPTION = (
    "Over the budget, results are replaced from the first one on, so small early results go before large ones"
)


def _in_order(original: Any) -> Any:
    def apply_message_budget(results: Sequence[Any], state: Any, session_dir: Any, **kwargs: Any) -> Any:
        # Offer the results one at a time, in order: each step replaces the first fresh result while over.
        from reference_impl.execution import _results

        limit = kwargs.get("limit", _results.MAX_TOOL_RESULTS_PER_MESSAGE_CHARS)
        out = list(results)
        sizes = [_results.content_size(r.get("content")) for r in out]
        for index, result in enumerate(out):
            if sum(sizes) <= limit:
                break
            single = original([result], state, session_dir, exempt_ids=kwargs.get("exempt_ids", ()), limit=0)
            out[index] = single[0]
            sizes[index] = _results.content_size(single[0].get("content"))
        return original(out, state, session_dir, **kwargs)

    return apply_message_budget


adapter = make_factory(Patch("reference_impl.execution._pipeline", "apply_message_budget", _in_order))
