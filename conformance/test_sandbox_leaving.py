"""Auto-allow follows how THIS call runs, drawn over every combination of the settings: SBX-4, SBX-5.

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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._sandbox_runs import (
    FileSource,
    allowing_host,
    denying_host,
    http_server,
    layout,
    run_files,
    sandbox_layers,
    skip_without,
)
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat", "curl")]

# excludedCommands entries: the program, its prefix form, the program with its first option, and
# entries that do not cover the command.
EXCLUSIONS: dict[str, bool] = {"curl": True, "curl:*": True, "curl -sS": True, "wget": False, "curl-x": False}


Files = tuple[tuple[FileSource, dict[str, Any]], ...]


@dataclass(frozen=True)
class Leaving:
    """One drawn combination: the settings, what the call asks, the rules and who answers.

    The scalars are what the files merge to; ``files`` holds them as written, each key possibly in
    several files with conflicting values (None: every key in the local file alone).
    """

    enabled: bool
    auto_allow: bool | None
    allow_unsandboxed: bool | None
    excluded: tuple[str, ...]
    disable: bool
    unavailable: bool
    rule: str | None
    answer: str
    fail_if_unavailable: bool | None = None
    files: Files | None = None

    def values(self) -> dict[str, bool | None]:
        """The ``sandbox`` scalars as the files must merge them."""
        return {
            "enabled": self.enabled,
            "autoAllowBashIfSandboxed": self.auto_allow,
            "allowUnsandboxedCommands": self.allow_unsandboxed,
            "failIfUnavailable": self.fail_if_unavailable,
        }

    def settings(self) -> list[tuple[FileSource, dict[str, Any]]]:
        """The settings files, in the order they are loaded; the rule in the local one."""
        if self.files is None:
            sandbox: dict[str, Any] = {k: v for k, v in self.values().items() if v is not None}
            if self.excluded:
                sandbox["excludedCommands"] = list(self.excluded)
            layers: list[tuple[FileSource, dict[str, Any]]] = [("localSettings", sandbox)]
            if self.unavailable:
                layers.append(("policySettings", {"bwrapPath": "/nonexistent/bwrap"}))
        else:
            layers = [(source, dict(sandbox)) for source, sandbox in self.files]
        files = [(source, {"sandbox": sandbox}) for source, sandbox in layers]
        if self.rule is not None:
            local = next((i for i, (source, _) in enumerate(files) if source == "localSettings"), None)
            if local is None:
                files.append(("localSettings", {}))
                local = len(files) - 1
            files[local][1]["permissions"] = {self.rule: ["Bash(curl:*)"]}
        return files

    def refused(self) -> bool:
        """SBX-5: an enabled sandbox that can't start, with ``failIfUnavailable``, runs no shell command."""
        return self.enabled and self.unavailable and self.fail_if_unavailable is True

    def sandboxed(self) -> bool:
        """Whether the call runs inside the sandbox (SBX-4, SBX-5: an unavailable one runs nothing inside)."""
        if not self.enabled or self.unavailable:
            return False
        leaves = self.disable or any(EXCLUSIONS[entry] for entry in self.excluded)
        return not (leaves and self.allow_unsandboxed is not False)

    def runs(self) -> bool:
        """Whether the call runs: a rule decides; else auto-allow for a sandboxed call; else the host."""
        if self.refused():
            return False
        if self.rule is not None:
            return self.rule == "allow"
        if self.sandboxed() and self.auto_allow is True:
            return True
        return self.answer == "allow"


def spread(case: Leaving) -> st.SearchStrategy[Leaving]:
    """The same combination with its keys written across every settings file (``sandbox_layers``)."""
    managed = {"bwrapPath": "/nonexistent/bwrap"} if case.unavailable else None
    layers = sandbox_layers(case.values(), {"excludedCommands": case.excluded}, managed)
    return layers.map(lambda files: replace(case, files=tuple(files)))


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
    fail_if_unavailable=st.sampled_from([None, True, False]),
).flatmap(spread)

# Managed settings forbid leaving, the user's and the local file allow it (the local file loaded
# last): the managed value holds (a merge that let a lower source win was a held-out mutant of
# session 38). And a managed sandbox that must not run unconfined, the repository's settings turning
# it off and saying not to fail.
MANAGED_HOLDS = Leaving(
    True,
    True,
    False,
    (),
    True,
    False,
    None,
    "nobody",
    files=(
        ("policySettings", {"allowUnsandboxedCommands": False}),
        (
            "userSettings",
            {"enabled": True, "allowUnsandboxedCommands": True, "autoAllowBashIfSandboxed": True},
        ),
        ("localSettings", {"allowUnsandboxedCommands": True}),
    ),
)
MANAGED_FAILS = Leaving(
    True,
    None,
    None,
    (),
    False,
    True,
    "allow",
    "allow",
    fail_if_unavailable=True,
    files=(
        ("projectSettings", {"enabled": False, "failIfUnavailable": False}),
        ("policySettings", {"enabled": True, "failIfUnavailable": True, "bwrapPath": "/nonexistent/bwrap"}),
        ("localSettings", {"failIfUnavailable": False}),
    ),
)


@pytest.mark.requirement("SBX-4", "MUST")
@pytest.mark.requirement("SBX-5", "MUST")
@settings(max_examples=16, deadline=None)
@given(case=LEAVINGS)
@example(case=Leaving(True, True, None, (), True, False, None, "nobody"))
@example(case=Leaving(True, True, None, ("curl:*",), False, False, None, "deny"))
@example(case=Leaving(True, True, None, (), False, True, None, "nobody"))
@example(case=Leaving(True, True, False, ("curl",), True, False, None, "nobody"))
@example(case=Leaving(False, True, None, (), False, False, None, "deny"))
@example(case=MANAGED_HOLDS)
@example(case=MANAGED_FAILS)
def test_auto_allow_follows_how_the_call_runs(new_harness: Callable[[], Any], case: Leaving) -> None:
    """SBX-4, SBX-5: only a call that will run sandboxed is auto-allowed; every other one gets the ordinary decision.

    Drawn: ``enabled``, ``autoAllowBashIfSandboxed``, ``allowUnsandboxedCommands``,
    ``failIfUnavailable`` (each set or left out), ``excludedCommands`` entries that cover the command or
    not, ``dangerouslyDisableSandbox``, a sandbox that can't start (managed ``bwrapPath`` to nothing), a
    ``Bash(curl:*)`` allow or deny rule, and a host that allows, denies or is absent. Every key is
    written in several of the user's, the project's, the local, the ``--settings`` and the managed
    files at once, loaded in any order, with its value in the highest-precedence one and the opposite
    in every lower one; ``excludedCommands`` entries are spread over the files. The documented rule
    decides: a scalar from a higher-precedence file wins (the managed one over all), lists are
    joined. A call runs exactly when the ordinary decision (rule, then host) or, for a sandboxed
    call, auto-allow lets it, and never when the sandbox is on, can't start and must not run without
    it (SBX-5); when it runs, its direct connection arrives exactly when it runs outside the sandbox.
    """
    host = {"allow": allowing_host(), "deny": denying_host(), "nobody": None}[case.answer]
    with tempfile.TemporaryDirectory() as scratch, http_server() as (port, hits):
        outcome = run_files(
            new_harness(),
            f"curl -sS --max-time 20 --noproxy '*' http://127.0.0.1:{port}/out",
            layout(Path(scratch)).work,
            case.settings(),
            host=host,
            disable_sandbox=case.disable,
        )
        arrived = "/out" in hits
    said = f"{case} (sandboxed: {case.sandboxed()}): {outcome.output!r}"
    if not case.runs():
        assert not outcome.ran, f"ran without the ordinary decision allowing it: {said}"
        assert not arrived, f"reached the server without the ordinary decision allowing it: {said}"
        return
    assert outcome.ran, f"the decision allows the call, yet it did not run: {said}"
    assert arrived != case.sandboxed(), f"ran {'outside' if arrived else 'inside'} the sandbox: {said}"
