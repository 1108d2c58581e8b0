"""What the wire test modules share: running a named scenario once per module, and judging a run."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from pytest_toolharness.wire.scenarios import CLAUDE_CODE_NAMES, WireScenario

__all__ = ["WireRunner", "judge", "needed_scenarios", "scenario_runner"]

WireRunner = Callable[[str], Any]


# How many scenario runs of a module go on at once: each is a harness process that spends part of
# its time waiting (hooks, sleeps, the scripted API), so a second one fills those gaps.
_PARALLEL_RUNS = 2


def needed_scenarios(
    request: pytest.FixtureRequest, scenarios: Mapping[str, Callable[..., WireScenario]]
) -> list[str]:
    """The scenarios the selected tests of ``request``'s module will ask for, in the order they run.

    A test's scenario is its ``scenario`` parameter, else the scenario names written in its body
    (``wire("security")``). This is only a hint for starting runs early: a scenario it misses is
    run when a test asks for it.
    """
    needed: list[str] = []
    for item in request.session.items:
        if getattr(item, "module", None) is not request.module:
            continue
        callspec = getattr(item, "callspec", None)
        names: list[object] = []
        if callspec is not None and "scenario" in callspec.params:
            names.append(callspec.params["scenario"])
        code = getattr(getattr(item, "function", None), "__code__", None)
        if code is not None:
            names.extend(const for const in code.co_consts if isinstance(const, str))
        needed.extend(n for n in names if isinstance(n, str) and n in scenarios and n not in needed)
    return needed


def scenario_runner(
    new_harness: Callable[[], Any],
    scenarios: Mapping[str, Callable[..., WireScenario]],
    request: pytest.FixtureRequest | None = None,
) -> WireRunner:
    """Runs a named scenario on first use and remembers the run (one harness for the module).

    A scenario needing a role the target's profile lacks (``harness.roles``: no command hooks, no
    tool search) is not run: the test is "not checked", naming the role.

    With ``request`` (the module fixture's), the first use also starts the runs the module's other
    selected tests will ask for (:func:`needed_scenarios`), :data:`_PARALLEL_RUNS` at a time, each
    still its own harness process; a test waits only for its own run. The module's teardown
    cancels the runs nobody asked for yet and waits for those under way.
    """
    runs: dict[str, Any] = {}
    started: dict[str, Future[Any]] = {}
    harnesses: list[Any] = []
    pool: list[ThreadPoolExecutor] = []

    def prepared(name: str) -> WireScenario:
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
        return scenario

    def start_all(first: str) -> None:
        if request is None or pool:
            return
        rest = [n for n in needed_scenarios(request, scenarios) if n != first]
        if not rest:
            return
        pool.append(ThreadPoolExecutor(_PARALLEL_RUNS, thread_name_prefix="wire-scenario"))
        request.addfinalizer(lambda: pool[0].shutdown(wait=True, cancel_futures=True))
        for name in [first, *rest]:
            try:
                scenario = prepared(name)
            except pytest.skip.Exception:
                continue  # its tests skip when they ask for it
            started[name] = pool[0].submit(harnesses[0].run_wire, scenario)

    def run(name: str) -> Any:
        if name not in runs:
            start_all(name)
            future = started.get(name)
            if future is not None:
                runs[name] = future.result()
            else:
                scenario = prepared(name)
                runs[name] = harnesses[0].run_wire(scenario)
        return runs[name]

    return run


def judge(run: Any, problems: list[str], unproven: Sequence[str] = ()) -> None:
    """Fail a failed run; else "not checked" unless the behaviour was proven; else fail on problems.

    A check's problems assume the behaviour happened (a result judged as oversized must come from
    an oversized output), so without that proof they say nothing and are not reported. A run cut off
    while the harness was still working judges nothing: an error of the suite's budget, not a failure.
    """
    run.require_conclusive()
    if run.failure() is not None:
        pytest.fail(run.verdict([]), pytrace=False)
    if unproven:
        pytest.skip(f"not checked: {run.target} ({run.scenario}) did not exercise it: " + "; ".join(unproven))
    verdict = run.verdict(problems)
    if verdict is not None:
        pytest.fail(verdict, pytrace=False)
