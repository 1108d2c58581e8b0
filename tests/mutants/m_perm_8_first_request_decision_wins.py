"""PERM-8 mutant: of several PermissionRequest hooks, the first that decides wins; a later deny is lost."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-8"
DESCRIPTION = "PermissionRequest hooks read up to the first decision: an allow before a deny or exit 2 wins"


def _decides(run: Any) -> bool:
    if run.blocking is not None:
        return True
    specific = (run.output or {}).get("hookSpecificOutput")
    return isinstance(specific, dict) and isinstance(specific.get("decision"), dict)


def _mutate(original: Any) -> Any:
    async def run_event_hooks(matched: Any, event: str, *args: Any, **kwargs: Any) -> Any:
        runs = await original(matched, event, *args, **kwargs)
        if event != "PermissionRequest":
            return runs
        first = next((i for i, run in enumerate(runs) if _decides(run)), len(runs))
        return runs[: first + 1]

    return run_event_hooks


adapter = make_factory(Patch("reference_impl.hooks._tool_events", "run_event_hooks", _mutate))
