"""What the wire test modules share: running a named scenario once per module, and judging a run."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from pytest_toolharness.wire._scenarios import CLAUDE_CODE_NAMES, WireScenario

__all__ = ["WireRunner", "judge", "scenario_runner"]

WireRunner = Callable[[str], Any]


def scenario_runner(
    new_harness: Callable[[], Any], scenarios: Mapping[str, Callable[..., WireScenario]]
) -> WireRunner:
    """Runs a named scenario on first use and remembers the run (one harness for the module).

    A scenario needing a role the target's profile lacks (``harness.roles``: no command hooks, no
    tool search) is not run: the test is "not checked", naming the role.
    """
    runs: dict[str, Any] = {}
    harnesses: list[Any] = []

    def run(name: str) -> Any:
        if name not in runs:
            if not harnesses:
                harnesses.append(new_harness())
            # The scripted model calls the target's tools by the target's names (its profile's).
            names = getattr(harnesses[0], "names", CLAUDE_CODE_NAMES)
            scenario = scenarios[name](names)
            roles = getattr(harnesses[0], "roles", None)
            missing = sorted(scenario.roles - roles) if roles is not None else []
            if missing:
                target = getattr(getattr(harnesses[0], "target", None), "name", "the target")
                pytest.skip(
                    f"not checked: {target} can't express the {name} scenario's {', '.join(missing)} "
                    "(not among its profile's capabilities)"
                )
            runs[name] = harnesses[0].run_wire(scenario)
        return runs[name]

    return run


def judge(run: Any, problems: list[str], unproven: Sequence[str] = ()) -> None:
    """Fail a failed run; else "not checked" unless the behaviour was proven; else fail on problems.

    A check's problems assume the behaviour happened (a result judged as oversized must come from
    an oversized output), so without that proof they say nothing and are not reported.
    """
    if run.failure() is not None:
        pytest.fail(run.verdict([]), pytrace=False)
    if unproven:
        pytest.skip(f"not checked: {run.target} ({run.scenario}) did not exercise it: " + "; ".join(unproven))
    verdict = run.verdict(problems)
    if verdict is not None:
        pytest.fail(verdict, pytrace=False)
