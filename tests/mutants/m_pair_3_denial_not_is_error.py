"""PAIR-3 mutant: the pipeline's rejections (deny, invalid input, raise) are sent without is_error."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-3"
DESCRIPTION = (
    "Errors made by the per-call pipeline (denials, invalid input, a raising tool) lack is_error: true"
)


def _unflagged(original: Any) -> Any:
    def synthetic_error_result(tool_use_id: str, message: str) -> dict[str, Any]:
        result = dict(original(tool_use_id, message))
        result.pop("is_error", None)
        return result

    return synthetic_error_result


adapter = make_factory(Patch("reference_impl.execution._pipeline", "synthetic_error_result", _unflagged))
