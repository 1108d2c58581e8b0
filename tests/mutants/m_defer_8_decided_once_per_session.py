"""Mutant: whether tool search is on is decided on the first request and reused afterwards."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-8"
DESCRIPTION = "ENABLE_TOOL_SEARCH=auto:N is evaluated once and cached, not re-made on every request"


def _mutate(original: Any) -> Any:
    decided: dict[tuple[int, str], bool] = {}

    def enabled(deferred_params: Any, *, setting: Any, model: str, **kwargs: Any) -> bool:
        key = (id(setting), model)
        if key not in decided:
            decided[key] = bool(original(deferred_params, setting=setting, model=model, **kwargs))
        return decided[key]

    return enabled


adapter = make_factory(Patch("reference_impl.request._builder", "is_tool_search_enabled", _mutate))
