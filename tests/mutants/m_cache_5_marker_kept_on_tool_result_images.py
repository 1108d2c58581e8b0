"""CACHE-5 mutant: a marker on an image inside a tool_result survives beside the new message marker."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CACHE-5"
DESCRIPTION = (
    "old cache_control markers are stripped from a tool_result's text blocks only: one left on an image"
    " block inside a tool_result (copied from an earlier request) makes the request carry two"
)


def _strip_markers(block: dict[str, Any]) -> None:
    block.pop("cache_control", None)
    content = block.get("content")
    if block.get("type") == "tool_result" and isinstance(content, list):
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text":
                item.pop("cache_control", None)


adapter = make_factory(
    Patch("reference_impl.request._cache_keys", "_strip_markers", lambda _original: _strip_markers)
)
