"""Mutant: the message budget adds up only the results it may replace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference_impl.execution import _results
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "RESULT-3"
DESCRIPTION = (
    "results the budget may not replace (an image, an unlimited tool's, one already persisted) are left "
    "out of the message total, so a message made large by them goes out over 200,000 characters"
)


def _mutate(original: Any) -> Any:
    def apply_message_budget(results: Sequence[Any], state: Any, session_dir: Any, **kwargs: Any) -> Any:
        exempt_ids = kwargs.get("exempt_ids", ())
        uncounted = sum(
            _results.content_size(r.get("content"))
            for r in results
            if r.get("tool_use_id") in exempt_ids
            or _results.is_exempt_content(r.get("content"))
            or _results._is_persisted(r.get("content"))
        )
        limit = kwargs.pop("limit", _results.MAX_TOOL_RESULTS_PER_MESSAGE_CHARS)
        return original(results, state, session_dir, limit=limit + uncounted, **kwargs)

    return apply_message_budget


adapter = make_factory(Patch("reference_impl.execution._pipeline", "apply_message_budget", _mutate))
