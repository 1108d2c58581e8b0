"""Proof that a wire scenario exercised the behaviour a check judges, from the suite's own logs.

A check over the recorded requests passes vacuously when the path it judges never happened: a
"hook block" whose hook never ran, a "tool error" from a tool never called, a completion-order
test whose calls ran one after the other. Each function here returns the reasons a behaviour was
*not* exercised (an empty list: it was), read from evidence the harness under test can't fake: the
suite's MCP server's call log (:attr:`~pytest_toolharness.wire.targets._wire_adapter.WireRun.mcp_calls`), the
tools it served (``served``), what the suite's command hooks logged (``hook_calls``) and the
requests themselves. A test with reasons reports its requirement as "not checked", never passed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pytest_toolharness.wire.checks._requests import main_requests, served_tool_names
from pytest_toolharness.wire.scenarios import PairingIds

if TYPE_CHECKING:
    from pytest_toolharness.wire.targets import WireRun

__all__ = [
    "PAIRING_PROOFS",
    "PAIRING_ROLES",
    "applicable",
    "called",
    "hook_fired",
    "hook_saw",
    "intervals",
    "mcp_tools_in_requests",
    "offered",
    "overlap_unproven",
    "overlapping",
    "pairing_unproven",
    "served_unproven",
]


def _ended(run: WireRun, tool: str) -> list[dict[str, Any]]:
    return [e for e in run.mcp_calls if e.get("event") == "end" and e.get("tool") == tool]


def called(
    run: WireRun, tool: str, *, outcome: str | None = None, arguments: Mapping[str, Any] | None = None
) -> bool:
    """The suite's MCP server ran ``tool`` to its end (with ``outcome``, on ``arguments``, when given)."""
    return any(
        (outcome is None or e.get("outcome") == outcome)
        and (arguments is None or e.get("arguments") == dict(arguments))
        for e in _ended(run, tool)
    )


def hook_saw(run: WireRun, hook: str, tool: str) -> bool:
    """The suite's command hook ``hook`` logged an input for a tool named ``tool`` (or ``*_tool``).

    ``tool`` is the model's name; the hook may know it by the target's hook name for it.
    """
    tool = run.names.hook_name(tool)
    for entry in run.hook_calls:
        data = entry.get("input")
        name = str(data.get("tool_name", "")) if isinstance(data, Mapping) else ""
        if entry.get("hook") == hook and (name == tool or name.endswith(("_" + tool, "__" + tool))):
            return True
    return False


def hook_fired(run: WireRun, hook: str, event: str) -> int:
    """How many inputs of ``event`` (its ``hook_event_name``) the suite's command hook ``hook`` logged.

    For any event, tool or lifecycle (UserPromptSubmit, SessionStart, Stop, ...): the proof that the
    harness fired it, read from the hook's own log.
    """
    return sum(
        1
        for entry in run.hook_calls
        if entry.get("hook") == hook
        and isinstance(entry.get("input"), Mapping)
        and entry["input"].get("hook_event_name") == event
    )


def offered(run: WireRun, name: str) -> bool:
    """Some main request offered a tool named ``name`` (so a failure of it is that tool's own)."""
    return any(name in request.tool_names for request in main_requests(run.requests))


def mcp_tools_in_requests(run: WireRun) -> set[str]:
    """The request tool names that are the suite's MCP tools, by what its server served."""
    return set(served_tool_names(run.requests, run.served))


def _needs(condition: bool, reason: str) -> str | None:
    return None if condition else reason


def _hook_blocked(run: WireRun) -> str | None:
    if not hook_saw(run, "block", "guarded"):
        return "the blocking PreToolUse hook never ran (its log is empty), so no call was blocked by it"
    if called(run, "guarded"):
        return "the blocking hook ran but the guarded tool ran anyway: the call was never blocked"
    return None


#: For each pairing path, what proves the harness took it (None: proven), from the suite's logs.
PAIRING_PROOFS: dict[str, Callable[[WireRun], str | None]] = {
    PairingIds.OK: lambda run: _needs(
        called(run, "echo", outcome="ok", arguments={"text": "hello"}),
        "the working MCP tool (echo) was never run by the MCP server",
    ),
    PairingIds.UNKNOWN: lambda run: _needs(
        not any(name.endswith("no_such_tool") for r in main_requests(run.requests) for name in r.tool_names),
        "the harness offers a tool named like the unknown one",
    ),
    PairingIds.INVALID: lambda run: _needs(
        offered(run, run.names.builtin("read")),
        "the harness offers no read tool, so its input was never validated by it",
    ),
    PairingIds.ERROR: lambda run: _needs(
        called(run, "fail", outcome="error"), "the failing MCP tool (fail) never ran to its error"
    ),
    PairingIds.EMPTY: lambda run: _needs(
        called(run, "empty", outcome="ok"), "the empty MCP tool (empty) never ran"
    ),
    PairingIds.DENIED: lambda run: _needs(
        offered(run, run.names.builtin("shell")),
        "the harness offers no shell tool, so no rule stood between the call and it",
    ),
    PairingIds.HOOK_BLOCKED: _hook_blocked,
    PairingIds.SECOND: lambda run: _needs(
        called(run, "echo", outcome="ok", arguments={"text": "again"}),
        "the second turn's MCP call (echo) was never run",
    ),
}


#: The pairing paths a target can only take with a role of its profile: a target without the role
#: (no command hooks: the hook can't block) is not judged on that path, rather than "not checked"
#: on every requirement the turn shows.
PAIRING_ROLES: dict[str, str] = {
    PairingIds.INVALID: "read_tool",
    PairingIds.DENIED: "permission_rules",
    PairingIds.HOOK_BLOCKED: "command_hooks",
}


def applicable(run: WireRun, ids: Iterable[str]) -> list[str]:
    """The pairing paths of ``ids`` the run's target can express (all of them when its roles are unknown)."""
    roles = run.roles
    return [i for i in ids if roles is None or PAIRING_ROLES.get(i) is None or PAIRING_ROLES[i] in roles]


def pairing_unproven(run: WireRun, ids: Iterable[str]) -> list[str]:
    """Why the pairing paths ``ids`` were not all exercised (ids without a proof need none)."""
    reasons = []
    for tool_use_id in ids:
        proof = PAIRING_PROOFS.get(tool_use_id)
        reason = proof(run) if proof is not None else None
        if reason is not None:
            reasons.append(f"{tool_use_id}: {reason}")
    return reasons


def overlap_unproven(run: WireRun, first: str, second: str) -> list[str]:
    """Why the MCP calls of ``first`` and ``second`` did not overlap (per the server's log), if not."""
    starts = {e.get("tool"): float(e["time"]) for e in run.mcp_calls if e.get("event") == "start"}
    ends = {e.get("tool"): float(e["time"]) for e in run.mcp_calls if e.get("event") == "end"}
    missing = [t for t in (first, second) if t not in starts or t not in ends]
    if missing:
        return [f"the MCP server never ran {', '.join(missing)} to the end"]
    if not (starts[second] < ends[first] and starts[first] < ends[second]):
        return [f"{first} and {second} ran one after the other, so their results' order was never at stake"]
    return []


def intervals(run: WireRun) -> dict[str, tuple[float, float]]:
    """Each MCP tool the server ran to its end → (start, end) wall times, from its call log."""
    starts = {str(e.get("tool")): float(e["time"]) for e in run.mcp_calls if e.get("event") == "start"}
    return {
        str(e.get("tool")): (starts[str(e.get("tool"))], float(e["time"]))
        for e in run.mcp_calls
        if e.get("event") == "end" and str(e.get("tool")) in starts
    }


def overlapping(run: WireRun, tool: str) -> list[str]:
    """The tools whose calls overlapped ``tool``'s in time (per the server's log), in name order."""
    spans = intervals(run)
    if tool not in spans:
        return []
    start, end = spans[tool]
    return sorted(other for other, (s, e) in spans.items() if other != tool and s < end and start < e)


def served_unproven(run: WireRun, names: Iterable[str]) -> list[str]:
    """Why the suite's MCP server did not serve every tool of ``names`` (its ``mcp_tool`` names)."""
    missing = [name for name in names if name not in run.served]
    if not missing:
        return []
    if not run.served:
        return ["the harness never listed the suite's MCP server's tools (the server logged no tools/list)"]
    return [f"the suite's MCP server never served {', '.join(missing)}"]
