"""PAIR-6 mutant: a deferred tool is sent twice, once loaded and once with defer_loading, under one name."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-6"
DESCRIPTION = (
    "the tools array is merged from the loaded set and the deferred set without de-duplication by name, after "
    "the request was checked: the loaded set is the whole pool, so a deferred tool goes out loaded and deferred"
)


def _mutate(original: Any) -> Any:
    # The reference refuses a repeated name twice over (the pool, then the request), and the property
    # accepts a refusal: so the merge happens on the built request, as a late assembly step would.
    def build(self: Any, pool: Sequence[Any], entries: Sequence[Any]) -> Any:
        built = original(self, pool, entries)
        tools = list(built.params.get("tools", ()))
        deferred = [tool for tool in tools if tool.get("defer_loading")]
        if not deferred:
            return built
        loaded = [{k: v for k, v in tool.items() if k != "defer_loading"} for tool in tools]
        return dataclasses.replace(built, params={**built.params, "tools": [*loaded, *deferred]})

    return build


adapter = make_factory(Patch("reference_impl.request._builder", "RequestBuilder.build", _mutate))
