"""Auto-allow follows how THIS call runs, drawn over every combination of the settings: SBX-4.

``sandbox.autoAllowBashIfSandboxed`` lets a call through without asking only because the sandbox
holds it. Whether it does is a property of the call, not of ``sandbox.enabled``: a call asking for
``dangerouslyDisableSandbox``, one in ``excludedCommands``, and any call when the sandbox is off or
can't start, runs outside it (unless ``allowUnsandboxedCommands`` is false) and must go through the
ordinary decision. Where it ran is observed, not taken from the harness: a direct connection to a
loopback server arrives only from outside the sandbox.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._sandbox_runs import allowing_host, denying_host, http_server, layout, run, skip_without
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat", "curl")]

# excludedCommands entries: the program, its prefix form, the program with its first option, and
# entries that do not cover the command.
EXCLUSIONS: dict[str, bool] = {"curl": True, "curl:*": True, "curl -sS": True, "wget": False, "curl-x": False}


@dataclass(frozen=True)
class Leaving:
    """One drawn combination: the settings, what the call asks, the rules and who answers."""

    enabled: bool
    auto_allow: bool | None
    allow_unsandboxed: bool | None
    excluded: tuple[str, ...]
    disable: bool
    unavailable: bool
    rule: str | None
    answer: str
    managed_scalar: bool = False
    """``allowUnsandboxedCommands`` set in managed settings, its opposite in the local file (managed wins)."""

    def settings(self) -> dict[str, Any]:
        sandbox: dict[str, Any] = {"enabled": self.enabled}
        if self.auto_allow is not None:
            sandbox["autoAllowBashIfSandboxed"] = self.auto_allow
        if self.allow_unsandboxed is not None:
            local = not self.allow_unsandboxed if self.managed_scalar else self.allow_unsandboxed
            sandbox["allowUnsandboxedCommands"] = local
        if self.excluded:
            sandbox["excludedCommands"] = list(self.excluded)
        result: dict[str, Any] = {"sandbox": sandbox}
        if self.rule is not None:
            result["permissions"] = {self.rule: ["Bash(curl:*)"]}
        return result

    def sandboxed(self) -> bool:
        """Whether the call runs inside the sandbox (SBX-4, SBX-5: an unavailable one runs nothing inside)."""
        if not self.enabled or self.unavailable:
            return False
        leaves = self.disable or any(EXCLUSIONS[entry] for entry in self.excluded)
        return not (leaves and self.allow_unsandboxed is not False)

    def runs(self) -> bool:
        """Whether the call runs: a rule decides; else auto-allow for a sandboxed call; else the host."""
        if self.rule is not None:
            return self.rule == "allow"
        if self.sandboxed() and self.auto_allow is True:
            return True
        return self.answer == "allow"


LEAVINGS = st.builds(
    Leaving,
    enabled=st.booleans(),
    auto_allow=st.sampled_from([True, True, False, None]),
    allow_unsandboxed=st.sampled_from([None, True, False]),
    excluded=st.lists(st.sampled_from(sorted(EXCLUSIONS)), max_size=2, unique=True).map(tuple),
    disable=st.booleans(),
    unavailable=st.booleans(),
    rule=st.sampled_from([None, None, "allow", "deny"]),
    answer=st.sampled_from(["allow", "deny", "nobody"]),
    managed_scalar=st.booleans(),
)


@pytest.mark.requirement("SBX-4", "MUST")
@settings(max_examples=14, deadline=None)
@given(case=LEAVINGS)
@example(case=Leaving(True, True, None, (), True, False, None, "nobody"))
@example(case=Leaving(True, True, None, ("curl:*",), False, False, None, "deny"))
@example(case=Leaving(True, True, None, (), False, True, None, "nobody"))
@example(case=Leaving(True, True, False, ("curl",), True, False, None, "nobody"))
@example(case=Leaving(False, True, None, (), False, False, None, "deny"))
# Managed settings forbid leaving, the local file allows it: the managed value holds (a merge that
# let a lower source win was a held-out mutant of session 38).
@example(case=Leaving(True, True, False, (), True, False, None, "nobody", managed_scalar=True))
def test_auto_allow_follows_how_the_call_runs(new_harness: Callable[[], Any], case: Leaving) -> None:
    """SBX-4: only a call that will run sandboxed is auto-allowed; every other one gets the ordinary decision.

    Drawn: ``enabled``, ``autoAllowBashIfSandboxed``, ``allowUnsandboxedCommands`` (each set or
    left out; the last also in managed settings with its opposite in the local file, where the
    managed value holds), ``excludedCommands`` entries that cover the command or not, ``dangerouslyDisableSandbox``,
    a sandbox that can't start (managed ``bwrapPath`` to nothing), a ``Bash(curl:*)`` allow or deny
    rule, and a host that allows, denies or is absent. A call runs exactly when the ordinary decision
    (rule, then host) or, for a sandboxed call, auto-allow lets it; when it runs, its direct
    connection arrives exactly when it runs outside the sandbox.
    """
    host = {"allow": allowing_host(), "deny": denying_host(), "nobody": None}[case.answer]
    managed_sandbox: dict[str, Any] = {"bwrapPath": "/nonexistent/bwrap"} if case.unavailable else {}
    if case.managed_scalar and case.allow_unsandboxed is not None:
        managed_sandbox["allowUnsandboxedCommands"] = case.allow_unsandboxed
    managed = {"sandbox": managed_sandbox} if managed_sandbox else None
    with tempfile.TemporaryDirectory() as scratch, http_server() as (port, hits):
        outcome = run(
            new_harness(),
            f"curl -sS --max-time 20 --noproxy '*' http://127.0.0.1:{port}/out",
            layout(Path(scratch)).work,
            case.settings(),
            host=host,
            disable_sandbox=case.disable,
            managed=managed,
        )
        arrived = "/out" in hits
    said = f"{case} (sandboxed: {case.sandboxed()}): {outcome.output!r}"
    if not case.runs():
        assert not outcome.ran, f"ran without the ordinary decision allowing it: {said}"
        assert not arrived, f"reached the server without the ordinary decision allowing it: {said}"
        return
    assert outcome.ran, f"the decision allows the call, yet it did not run: {said}"
    assert arrived != case.sandboxed(), f"ran {'outside' if arrived else 'inside'} the sandbox: {said}"
