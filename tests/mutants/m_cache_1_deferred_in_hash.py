"""Mutant: the cache-break hash includes tools sent with defer_loading."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from reference_impl._wire import wire_bytes
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CACHE-1"
DESCRIPTION = "a deferred tool is counted in the cache hash: connecting an MCP server reports a cache break"


def _mutate(original: Any) -> Any:
    del original

    def cache_break_hash(request: Mapping[str, Any]) -> str:
        key = {
            "model": request.get("model"),
            "system": request.get("system", ()),
            "tools": list(request.get("tools", ())),  # the defect: deferred tools are not left out
        }
        return hashlib.sha256(wire_bytes(key)).hexdigest()

    return cache_break_hash


adapter = make_factory(Patch("reference_impl.request._builder", "cache_break_hash", _mutate))
