"""Mutant: the message cache marker is added to the last block without removing older ones."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from reference_impl.request import EPHEMERAL
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CACHE-5"
DESCRIPTION = "markers already in the transcript are kept, so requests carry two or more message breakpoints"


def _mutate(original: Any) -> Any:
    del original

    def place(messages: Sequence[Any]) -> list[Any]:
        copied: list[Any] = copy.deepcopy(list(messages))
        if not copied:
            return []
        last = copied[-1]
        if isinstance(last.get("content"), str):
            last["content"] = [{"type": "text", "text": last["content"]}]
        blocks = [b for b in last["content"] if b.get("type") not in ("thinking", "redacted_thinking")]
        blocks[-1]["cache_control"] = dict(EPHEMERAL)
        return copied

    return place


adapter = make_factory(Patch("reference_impl.request._builder", "place_message_cache_marker", _mutate))
