"""Mutant: the tool-search beta header is sent only on requests where tool search is on."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CACHE-6"
DESCRIPTION = (
    "the beta header disappears when tool search turns off mid-session (headers change the cache key)"
)


def _mutate(original: Any) -> Any:
    del original

    def betas(self: Any, *, tool_search_enabled: bool) -> tuple[str, ...]:
        if not tool_search_enabled or self.provider == "bedrock":
            return ()
        return (self.header,)

    return betas


adapter = make_factory(Patch("reference_impl.request._cache_keys", "BetaLatch.betas", _mutate))
