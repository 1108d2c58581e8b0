"""Mutant: the agent loop assembles its pool with the MCP tools first."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CACHE-2"
DESCRIPTION = (
    "the agent loop passes its MCP tools where the built-ins go: every request opens with the MCP "
    "tools, so connecting a server moves every built-in tool and breaks the cached prefix"
)


def _mutate(original: Any) -> Any:
    def assemble_tool_pool(built_in: Any, mcp: Any = (), *, is_denied: Any = None) -> Any:
        return original(mcp, built_in, is_denied=is_denied)

    return assemble_tool_pool


adapter = make_factory(Patch("reference_impl.agent._loop", "assemble_tool_pool", _mutate))
