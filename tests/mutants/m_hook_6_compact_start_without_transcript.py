"""Mutant: the SessionStart after a compaction is fired with an input that has no transcript_path."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-6"
DESCRIPTION = (
    "after a compaction the harness fires SessionStart (source compact) with the new summary's "
    "fields only: transcript_path is missing, though every input carries it"
)


def _mutate(original: Any) -> Any:
    async def run_event_hooks(matched: Any, event: str, data: dict[str, Any], *rest: Any) -> Any:
        if event == "SessionStart" and data.get("source") == "compact":
            data = {k: v for k, v in data.items() if k != "transcript_path"}
        return await original(matched, event, data, *rest)

    return run_event_hooks


adapter = make_factory(Patch("reference_impl.hooks._lifecycle", "run_event_hooks", _mutate))
