"""Mutant: a tool's base schema is rendered afresh on every request instead of once per session."""

from __future__ import annotations

from typing import Any

from reference_impl.request import _schemas as _schema_cache
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CACHE-3"
DESCRIPTION = "schema bytes drift between turns: a dynamic description is re-rendered on each request"


def _mutate(original: Any) -> Any:
    del original

    def base_json(self: Any, tool: Any, context: Any) -> str:
        return _schema_cache._render_base(tool, context)

    return base_json


adapter = make_factory(Patch("reference_impl.request._schemas", "ToolSchemaCache.base_json", _mutate))
