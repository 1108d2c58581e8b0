"""``permission_*``: median decide_permission time with 10 to 10,000 rules, against a linear scan.

The rules mimic real settings files (``Bash(cmd:*)`` and ``Bash(cmd *)``, ``mcp__server__tool``,
``mcp__server__*``, ``WebFetch(domain:x)``, ``Read(//abs/**)``), spread over allow, deny and ask.
The call is an MCP tool that only the last allow rule names, so every rule has to be considered.
The baseline is the obvious implementation: ``rule_matches`` on every rule, in order, per behavior.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from benchmarks._corpus import noop_call
from benchmarks._timing import per_call_seconds
from reference_impl import (
    PermissionBehavior,
    PermissionContext,
    PermissionRule,
    Tool,
    decide_permission,
    mcp_tool,
    parse_rule,
    rule_matches,
)

__all__ = ["make_rules", "run"]

_SIZES = (10, 100, 1_000, 10_000)


def make_rules(count: int) -> list[PermissionRule]:
    """``count`` rules of the usual kinds; the last one allows ``mcp__target__run``."""
    rules: list[PermissionRule] = []
    behaviors: tuple[PermissionBehavior, ...] = ("allow", "deny", "ask")
    for i in range(count - 1):
        kind = i % 6
        text = (
            f"Bash(tool{i}:*)",
            f"Bash(tool{i} --flag *)",
            f"mcp__server{i}__do_thing",
            f"mcp__server{i}__*",
            f"WebFetch(domain:host{i}.example.com)",
            f"Read(//srv/data{i}/**)",
        )[kind]
        rules.append(parse_rule(text, behaviors[i % 3], "userSettings"))
    rules.append(parse_rule("mcp__target__run", "allow", "userSettings"))
    return rules


def _linear(rules: list[PermissionRule], tool: Tool, tool_input: dict[str, Any], cwd: Path) -> str:
    for behavior in ("deny", "ask", "allow"):
        for rule in rules:
            if rule.behavior == behavior and rule_matches(rule, tool, tool_input, cwd=cwd):
                return behavior
    return "ask"


def run(quick: bool = False) -> dict[str, Any]:
    """Median decision time per rule count, the linear-scan baseline and their ratio."""
    figures: dict[str, Any] = {}
    cwd = Path("/tmp")
    tool = mcp_tool("target", "run", "the target", {"type": "object"}, noop_call)
    tool_input: dict[str, Any] = {}
    for size in _SIZES:
        rules = make_rules(size)
        context = PermissionContext(mode="default", rules=tuple(rules), cwd=cwd)
        decision = decide_permission(tool, tool_input, context)
        if decision.behavior != "allow":
            raise AssertionError(f"benchmark setup: expected allow with {size} rules, got {decision!r}")
        rounds = 15 if not quick else 5
        ours = per_call_seconds(
            functools.partial(decide_permission, tool, tool_input, context), batch=200, rounds=rounds
        )
        naive = per_call_seconds(
            functools.partial(_linear, rules, tool, tool_input, cwd),
            batch=max(1, 10_000 // size),
            rounds=rounds,
        )
        figures[f"permission_median_us_{size}_rules"] = round(ours * 1e6, 2)
        figures[f"permission_linear_us_{size}_rules"] = round(naive * 1e6, 2)
        figures[f"permission_speedup_vs_linear_{size}_rules"] = round(naive / ours, 2)
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:50} {value}")
