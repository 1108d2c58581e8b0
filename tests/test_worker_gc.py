"""The garbage collector in a worker of the suite: start-up and collection frozen, a larger first generation.

The suite's examples make many short-lived objects; what start-up and collection made lives to the
end of the run. Frozen, it is never walked by a collection again (``_Plugin.pytest_collection_finish``).
"""

from __future__ import annotations

import pytest

from pytest_toolharness._isolation import _GC_YOUNG_THRESHOLD
from tests._fake_suite import in_process_args, make_suite, run_isolated

_PROBE = """
import gc, os

@pytest.mark.requirement("PAIR-1", "MUST")
def test_worker_gc():
    assert os.environ.get("PYTEST_XDIST_WORKER"), "not in a worker"
    assert gc.get_freeze_count() > 1000, gc.get_freeze_count()
    assert gc.get_threshold()[0] == {threshold}, gc.get_threshold()
    assert gc.isenabled()
"""


def test_a_worker_freezes_what_collection_made_and_collects_young_objects_less_often(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "1")
    suite = make_suite(pytester, _PROBE.replace("{threshold}", str(_GC_YOUNG_THRESHOLD)))
    result = run_isolated(pytester, suite)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["*1 passed*"])


def _run_in_process(pytester: pytest.Pytester, suite: str, *first: str) -> None:
    """Run the fake suite without workers (``first``: arguments before the suite's), and expect it to pass."""
    result = pytester.runpytest_subprocess(*first, *in_process_args(suite))
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()


def test_without_workers_the_collector_is_left_as_it_was(pytester: pytest.Pytester) -> None:
    suite = make_suite(
        pytester,
        """
import gc

@pytest.mark.requirement("PAIR-1", "MUST")
def test_in_process():
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold()[0] == 700
""",
    )
    _run_in_process(pytester, suite)


def test_the_heap_is_frozen_before_the_interpreter_finalizes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last full collection of an exiting run would walk the whole heap for little garbage."""
    pytester.makepyfile(
        exit_probe="""
import atexit, gc, os

@atexit.register
def _report():  # registered before the plugin's handler, so it runs after it
    with open(os.environ["EXIT_PROBE"], "w") as out:
        out.write(str(gc.get_freeze_count()))
"""
    )
    probe = pytester.path / "frozen.txt"
    monkeypatch.setenv("EXIT_PROBE", str(probe))
    suite = make_suite(
        pytester,
        """
import gc

@pytest.mark.requirement("PAIR-1", "MUST")
def test_in_process():
    assert gc.get_freeze_count() == 0
""",
    )
    _run_in_process(pytester, suite, "-p", "exit_probe")
    assert int(probe.read_text()) > 1000, "the heap was not frozen at exit"
