"""Capabilities: optional features of a harness that some conformance tests need.

A test declares what it needs with ``@requires("command_hooks")``; when the active adapter does not
list a capability in its ``capabilities``, the test is skipped and the report shows the requirement
as "not checked", naming the capability. Unknown capability names are errors on both sides, so a typo
can never silently skip a test forever.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

__all__ = [
    "CAPABILITIES",
    "MARKER",
    "adapter_capabilities",
    "missing_capabilities",
    "requires",
]

MARKER = "toolharness_requires"

# name -> what an adapter promises when it lists the name. Order is documentation order.
CAPABILITIES: dict[str, str] = {
    "permissions": "permission rules, modes and decisions (allow / ask / deny)",
    "settings_files": "loading permission rules from settings files",
    "host_callback": "asking the host (user) when a decision is ask",
    "hooks": "in-process PreToolUse / PostToolUse / PermissionRequest hooks",
    "command_hooks": "hooks run as subprocesses with the JSON stdin/stdout protocol",
    "concurrency": "running concurrency-safe tool calls in parallel",
    "abort": "aborting a batch of tool calls",
    "timeouts": "per-call timeouts",
    "deferred_loading": "deferred tools (defer_loading) and the ToolSearch tool",
    "delta_notices": "deferred-tools change notices",
    "compaction": "transcript compaction",
    "schema_cache": "a session cache of rendered tool schemas",
    "result_persistence": "persisting oversized tool results to files",
    "mcp": "MCP tools (mcp__server__tool)",
}


def _check_names(names: Iterable[object], where: str) -> tuple[str, ...]:
    checked: list[str] = []
    unknown: list[str] = []
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{where}: capability names are strings, got {name!r}")
        (checked if name in CAPABILITIES else unknown).append(name)
    if unknown:
        raise ValueError(
            f"{where}: unknown capability name(s) {', '.join(repr(u) for u in unknown)}; "
            f"known: {', '.join(CAPABILITIES)}"
        )
    return tuple(checked)


def requires(*capabilities: str) -> pytest.MarkDecorator:
    """Mark a test as needing these adapter capabilities (``@requires("hooks", "abort")``)."""
    if not capabilities:
        raise ValueError("requires() needs at least one capability name")
    mark: pytest.MarkDecorator = getattr(pytest.mark, MARKER)
    return mark(*_check_names(capabilities, "requires()"))


def adapter_capabilities(adapter: Any, description: str) -> frozenset[str]:
    """The adapter's declared capabilities, validated: a ``frozenset`` of known names."""
    capabilities = getattr(adapter, "capabilities", None)
    if not isinstance(capabilities, frozenset):
        raise TypeError(
            f"adapter {description} must have a 'capabilities' attribute that is a frozenset of "
            f"capability names, got {type(capabilities).__name__}"
        )
    _check_names(sorted(capabilities), f"adapter {description}")
    return capabilities


def missing_capabilities(item: pytest.Item, available: frozenset[str]) -> list[str]:
    """The capabilities ``item`` declares (via the marker) that are not in ``available``, in order."""
    needed: list[str] = []
    for mark in item.iter_markers(MARKER):
        needed.extend(_check_names(mark.args, f"{item.nodeid}: @{MARKER}"))
    return [name for name in dict.fromkeys(needed) if name not in available]
