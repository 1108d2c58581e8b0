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
    "pool": "assemble_pool(): the tools the model sees, in wire order, after whole-tool denies",
    "classification": "is_deferred(): which tools are deferred",
    "schemas": "render_tools(): the tools array on the wire, within one session",
    "cache_key": "cache_key(): the prompt-cache break detection key",
    "search": "search(): the ToolSearch tool (select: and keywords)",
    "notices": "notice(): deferred-tools change notices",
    "conversation": "set_tools(), append_message(), render_request(), compact(), discovered_tools(), resume()",
    "execution": "execute(): one assistant turn's tool_use blocks through the whole pipeline",
    "hooks": "in-process PreToolUse / PostToolUse / PermissionRequest hooks during execute()",
    "command_hooks": "hooks run as subprocesses with the JSON stdin/stdout protocol",
    "host_callback": "asking the host (user) when a decision is ask",
    "abort": "aborting a batch of tool calls",
    "timeouts": "per-call timeouts",
    "result_persistence": "persisting oversized tool results to files",
    "wire": "run_wire(): run a wire scenario against the harness as a process and record its API requests",
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
