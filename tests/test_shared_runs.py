"""Shared wire runs: each scenario runs once per run, on one worker, and a module's runs overlap.

The wire modules share one harness run per scenario through a module-scoped fixture
(``conformance/_wire_runs.py``). Split across xdist workers, each worker would run the scenario
again; the plugin's scheduler keeps such a module on one worker (``SHARED_RUN_MODULES``), and the
fixture starts the runs of the module's selected tests two at a time.
"""

from __future__ import annotations

import json
import types
from typing import Any

import pytest

from pytest_toolharness._isolation import SHARED_RUN_MODULES, _shared_run_scheduler
from tests._fake_suite import make_suite, run_isolated

pytestmark = pytest.mark.usefixtures("_no_step_summary")


@pytest.fixture
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


_RECORDING = """
import json, os, pathlib

def record(name):
    log = pathlib.Path(os.environ["SHARED_RUNS_LOG"])
    with log.open("a") as out:
        out.write(json.dumps({"test": name, "worker": os.environ.get("PYTEST_XDIST_WORKER", "")}) + "\\n")
"""


def _tests(prefix: str, count: int) -> str:
    return "".join(
        f'\n@pytest.mark.requirement("PAIR-1", "MUST")\ndef test_{prefix}_{i}():\n    record("{prefix}_{i}")\n'
        for i in range(count)
    )


def _run_on_two_workers(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, suite: str
) -> tuple[pytest.RunResult, list[dict[str, Any]]]:
    """Run the fake ``suite`` under the default isolation with two workers; the result and what each test recorded."""
    log = pytester.path / "runs.jsonl"
    monkeypatch.setenv("SHARED_RUNS_LOG", str(log))
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")
    result = run_isolated(pytester, suite)
    runs = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return result, runs


def test_a_shared_run_module_runs_on_one_worker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the default isolation (two workers), every test of test_wire.py runs on the same worker."""
    assert "test_wire.py" in SHARED_RUN_MODULES
    suite = make_suite(pytester, _RECORDING + _tests("plain", 12))
    (pytester.path / "suite" / "test_wire.py").write_text("import pytest\n" + _RECORDING + _tests("wire", 12))
    result, runs = _run_on_two_workers(pytester, monkeypatch, suite)
    result.assert_outcomes(passed=24)
    wire_workers = {r["worker"] for r in runs if r["test"].startswith("wire_")}
    plain_workers = {r["worker"] for r in runs if r["test"].startswith("plain_")}
    assert len(wire_workers) == 1, f"test_wire.py was split: {runs}"
    assert "" not in wire_workers, f"test_wire.py ran outside a worker: {runs}"
    assert plain_workers - wire_workers, f"nothing ran beside the shared-run module: {runs}"


_SHARED_MODULE = """
import threading
import pytest
from conformance._wire_runs import scenario_runner

CALLS = []
TWO_STARTED = threading.Event()


class Harness:
    def run_wire(self, scenario):
        CALLS.append(scenario)
        if scenario == "one":
            # Only returns once "two" has started: the runs overlap, or this test fails.
            assert TWO_STARTED.wait(30), "the second run never started while the first was running"
        if scenario == "two":
            TWO_STARTED.set()
        return scenario


SCENARIOS = {name: (lambda names, name=name: name) for name in ("one", "two", "three", "four")}


@pytest.fixture(scope="module")
def wire(request):
    return scenario_runner(Harness, SCENARIOS, request)


def test_one(wire):
    assert wire("one") == "one"


@pytest.mark.parametrize("scenario", ["two", "three"])
def test_param(wire, scenario):
    assert wire(scenario) == scenario


def test_four(wire):
    assert wire("four") == "four"


def test_calls():
    assert sorted(CALLS) == ["one", "three", "two"], CALLS
"""


def test_a_modules_runs_start_together_once_each_and_only_if_selected(pytester: pytest.Pytester) -> None:
    """The first use starts the selected tests' scenarios (two at a time); each runs once; a deselected one never."""
    pytester.makepyfile(test_shared=_SHARED_MODULE)
    result = pytester.runpytest("-p", "no:xdist", "-k", "not four", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)


def test_every_wire_module_is_a_shared_run_module() -> None:
    """Each packaged wire module shares its scenario runs (split, a scenario would run once per worker)."""
    from pathlib import Path

    import conformance

    wire_modules = {p.name for p in Path(conformance.__file__).parent.glob("test_wire*.py")}
    assert wire_modules <= set(SHARED_RUN_MODULES), wire_modules - set(SHARED_RUN_MODULES)


def test_a_heavy_test_is_dispatched_before_the_single_tests_collected_before_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Collected last, a ``toolharness_heavy`` test is still the first test its worker runs."""
    heavy = '\n@pytest.mark.toolharness_heavy\n@pytest.mark.requirement("PAIR-1", "MUST")\ndef test_heavy():\n    record("heavy")\n'
    suite = make_suite(pytester, _RECORDING + _tests("plain", 12) + heavy)
    result, runs = _run_on_two_workers(pytester, monkeypatch, suite)
    result.assert_outcomes(passed=13)
    worker = next(r["worker"] for r in runs if r["test"] == "heavy")
    assert worker, f"the heavy test ran outside a worker: {runs}"
    assert next(r["test"] for r in runs if r["worker"] == worker) == "heavy", runs


class _Worker:
    """What the scheduler sees of an xdist worker: a pipe that takes commands, or is broken."""

    def __init__(self, name: str) -> None:
        self.gateway = types.SimpleNamespace(id=name)
        self.shutting_down = False
        self.pipe_broken = False
        self.sent: list[list[int]] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        if self.pipe_broken:
            # What execnet raises when the process at the other end is gone.
            raise OSError("cannot send (already closed?)")
        self.sent.append(list(indices))

    def shutdown(self) -> None:
        self.shutting_down = True


def _two_workers_scheduled(pytester: pytest.Pytester) -> tuple[Any, _Worker, _Worker, list[str]]:
    """The plugin's scheduler with two workers that collected eight tests, after its first schedule()."""
    config = pytester.parseconfig("--tx", "2*popen")
    scheduler = _shared_run_scheduler(config, None)
    first, second = _Worker("gw0"), _Worker("gw1")
    tests = [f"conformance/test_x.py::test_{i}" for i in range(8)]
    for worker in (first, second):
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, tests)
    scheduler.schedule()
    return scheduler, first, second, tests


def test_a_second_worker_dying_while_the_first_is_handled_is_no_internal_error(
    pytester: pytest.Pytester,
) -> None:
    """Both workers die at once: the first's death reschedules onto the second, whose pipe is already
    broken although xdist has not said so yet. The unit goes back to the queue (for the fresh worker
    xdist starts) instead of an internal error that ends the whole run without a report."""
    scheduler, first, second, tests = _two_workers_scheduled(pytester)
    assert first.sent
    assert second.sent
    second.pipe_broken = True
    queued = len(scheduler.workqueue)
    crashed = scheduler.remove_node(first)  # must not raise
    assert crashed == tests[first.sent[0][0]]
    # Everything the first worker had not run, and nothing sent to the broken one, is still to run.
    assert len(scheduler.workqueue) >= queued
    assert all(len(unit) for unit in scheduler.assigned_work[second].values())
    left = {nodeid for unit in scheduler.workqueue.values() for nodeid in unit}
    assert left | {crashed} | {t for u in scheduler.assigned_work[second].values() for t in u} == set(tests)


def test_a_replacement_worker_gets_work_only_once_its_collection_arrives(pytester: pytest.Pytester) -> None:
    """Both workers die and xdist starts two fresh ones: when the first fresh one has collected,
    the second (still collecting) is given nothing, and everything runs once it has collected too.
    (loadscope keeps the dead workers' collections, so the run counted as collected too early.)"""
    scheduler, first, second, tests = _two_workers_scheduled(pytester)
    crashed = {scheduler.remove_node(first), scheduler.remove_node(second)}
    third, fourth = _Worker("gw2"), _Worker("gw3")
    scheduler.add_node(third)
    scheduler.add_node(fourth)
    scheduler.add_node_collection(fourth, tests)
    scheduler.schedule()  # what xdist calls when gw3's collection is in: must not raise
    assert fourth.sent
    assert not third.sent
    scheduler.add_node_collection(third, tests)
    scheduler.schedule()
    assert third.sent
    # Every test still to run is with a live worker or queued for one; the crashed ones are reported.
    with_workers = {
        t for worker in (third, fourth) for unit in scheduler.assigned_work[worker].values() for t in unit
    }
    queued = {t for unit in scheduler.workqueue.values() for t in unit}
    assert with_workers | queued | crashed == set(tests)
