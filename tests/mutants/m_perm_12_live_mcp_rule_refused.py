"""PERM-12 mutant: the liveness witness of an MCP rule always names server ``server``, so live MCP rules are refused."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "the loader's witness of an MCP rule is always mcp__server__tool (the `mcp__*` branch taken for every "
    "name): `mcp__github` and `mcp__db__query` are judged dead and their settings file refused"
)


def _mutate(original: Any) -> Any:
    return lambda name: "mcp__server__tool"


adapter = make_factory(Patch("reference_impl.permissions._rule_liveness", "_mcp_witness", _mutate))
