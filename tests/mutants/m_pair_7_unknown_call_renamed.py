"""PAIR-7 mutant: the history copy of the assistant turn renames a call of an unknown tool to ``invalid``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-7"
DESCRIPTION = (
    "A call of a tool the request did not offer is re-sent renamed to an internal `invalid` tool, its input "
    "replaced by an error (as a public CLI does); the calls themselves still run and are answered"
)


def _offered(session: Any) -> set[str]:
    built = getattr(session, "last_request", None)
    params: Mapping[str, Any] = getattr(built, "params", None) or {}
    return {str(tool.get("name")) for tool in params.get("tools", []) if isinstance(tool, Mapping)}


def _renaming(original: Any) -> Any:
    async def _stream(self: Any, *args: Any, **kwargs: Any) -> Any:
        blocks, stop_reason = await original(self, *args, **kwargs)
        offered = _offered(self)
        renamed = [
            {
                "type": "tool_use",
                "id": b["id"],
                "name": "invalid",
                "input": {"tool": b["name"], "error": f"Model tried to call unavailable tool {b['name']!r}"},
            }
            if b.get("type") == "tool_use" and b.get("name") not in offered
            else b
            for b in blocks
        ]
        return renamed, stop_reason

    return _stream


adapter = make_factory(Patch("reference_impl.agent._loop", "AgentSession._stream", _renaming))
