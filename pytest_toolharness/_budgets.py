"""Budgets of a run of the suite: a time budget per test and per run, hung and crashed tests, SIGTERM.

- **Per-test budget** (``--toolharness-test-timeout``, setup to teardown, Hypothesis's shrinking
  included). Armed with :func:`faulthandler.dump_traceback_later`, whose watchdog is a C thread: it
  fires even while the harness blocks in ``time.sleep`` or in C code holding the GIL. It writes every
  thread's stack to a file and ends the process; the controller reads the file and reports the test
  as hung, naming where it was. Building the adapter (importing a harness can take seconds on a
  loaded machine) has a budget of its own (the per-test budget, at least 120 s), before the first
  test that uses it. Hypothesis's shrinking is held to a third of the budget, so a slow
  shrink ends with its example rather than as "hung".
- **Hung and crashed tests.** :func:`pytest_handlecrashitem` turns xdist's "worker crashed" into a
  line that says what happened to which test (its worker's watchdog fired, or its process died).
- **Run budget** (``--toolharness-run-timeout``): past it the run is interrupted as by Ctrl-C, and
  the report lists what ran.
- **SIGTERM** is handled as Ctrl-C (pytest prints its summary and the report, ``with`` blocks remove
  their temporary directories) instead of killing the process where it stands.

The workers these budgets stop are :mod:`pytest_toolharness._isolation`'s.
"""

from __future__ import annotations

import _thread
import contextlib
import faulthandler
import signal
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest

from pytest_toolharness._options import Settings

__all__ = ["BudgetedRun", "arm_budgets", "bound_shrinking", "catch_sigterm", "disarm", "start_run_timer"]

# Building the adapter (imports of a harness and its SDK) gets at least this long, whatever the test budget.
_PREPARE_BUDGET_S = 120.0

# Hypothesis's shrinking gets this share of the per-test budget (the rest is for generating).
_SHRINK_SHARE = 1 / 3


@dataclass
class BudgetedRun:
    """A run's budgets: its settings, where watchdogs write what hung, and what arming them changed."""

    settings: Settings
    hang_dir: Path
    timer: threading.Timer | None = None
    previous_sigterm: Any = None
    hang_file: IO[str] | None = None
    budget_hit: list[str] = field(default_factory=list)


def arm_budgets(
    config: pytest.Config,
    settings: Settings,
    hang_dir: Path,
    requirements_of: Callable[[str], list[str]],
    prepare: Callable[[pytest.Item], None],
) -> BudgetedRun:
    """Register the per-test watchdog and the hung and crashed tests' reports; :func:`disarm` at the end.

    ``requirements_of(nodeid)`` gives the requirement IDs the run has seen for a test, so a test
    whose worker died still counts for its requirements. ``prepare(item)`` runs before a test's
    budget starts, under a budget of its own (the plugin builds the adapter there).
    """
    run = BudgetedRun(settings, hang_dir)
    config.pluginmanager.register(_Plugin(run, requirements_of, prepare), "toolharness-budgets")
    return run


def start_run_timer(run: BudgetedRun) -> None:
    """On the controller: interrupt the run once ``--toolharness-run-timeout`` is spent."""
    if run.settings.run_timeout:
        run.timer = threading.Timer(run.settings.run_timeout, _run_budget_spent, (run,))
        run.timer.daemon = True
        run.timer.start()


def catch_sigterm(run: BudgetedRun) -> None:
    """Handle SIGTERM as Ctrl-C (only the main thread can)."""
    if threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError):
            run.previous_sigterm = signal.signal(signal.SIGTERM, _sigterm)


def bound_shrinking(test_timeout: float) -> None:
    """Hold Hypothesis's shrinking to its share of the per-test budget."""
    if not test_timeout:
        return
    # Hypothesis stops shrinking after MAX_SHRINKING_SECONDS (300 s), longer than a test's budget;
    # its engine reads the module global each time it starts shrinking. No public setting exists.
    with contextlib.suppress(ImportError):
        from hypothesis.internal.conjecture import engine

        if hasattr(engine, "MAX_SHRINKING_SECONDS"):
            engine.MAX_SHRINKING_SECONDS = max(1, int(test_timeout * _SHRINK_SHARE))


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum} (SIGTERM)")


def _run_budget_spent(run: BudgetedRun) -> None:
    run.budget_hit.append(f"the run budget of {run.settings.run_timeout:g} s was spent")
    _thread.interrupt_main()


def disarm(run: BudgetedRun) -> None:
    """Cancel the timers and watchdog, close the hang file, give SIGTERM back its handler."""
    if run.timer is not None:
        run.timer.cancel()
    with contextlib.suppress(Exception):
        faulthandler.cancel_dump_traceback_later()
    if run.hang_file is not None:
        run.hang_file.close()
    if run.previous_sigterm is not None and threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError, TypeError):
            signal.signal(signal.SIGTERM, run.previous_sigterm)


def _worker_id(config: pytest.Config) -> str:
    workerinput: dict[str, Any] = getattr(config, "workerinput", {})
    return str(workerinput.get("workerid", "main"))


def hang_file_of(hang_dir: Path, worker: str) -> Path:
    """Where the watchdog of ``worker`` writes the stacks of a test that overran its budget."""
    return hang_dir / f"{worker}.hung"


class _Plugin:
    """The hooks of a budgeted run (registered by :func:`arm_budgets`)."""

    def __init__(
        self,
        run: BudgetedRun,
        requirements_of: Callable[[str], list[str]],
        prepare: Callable[[pytest.Item], None],
    ) -> None:
        self.run = run
        self.requirements_of = requirements_of
        self.prepare = prepare

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, Any, Any]:
        """Arm the per-test watchdog for the whole protocol (setup, call with shrinking, teardown)."""
        budget = self.run.settings.test_timeout
        if not budget or float(item.config.getini("faulthandler_timeout") or 0) > 0:
            return (yield)  # pytest's own faulthandler_timeout owns the (single) watchdog
        run = self.run
        if run.hang_file is None:
            run.hang_file = hang_file_of(run.hang_dir, _worker_id(item.config)).open("w+", encoding="utf-8")
        with self._watchdog(item.nodeid, max(budget, _PREPARE_BUDGET_S)):
            self.prepare(item)
        with self._watchdog(item.nodeid, budget):
            return (yield)

    @contextlib.contextmanager
    def _watchdog(self, nodeid: str, budget: float) -> Generator[None]:
        """Stop this process if the block overruns ``budget``, its stacks written to the hang file."""
        hang_file = self.run.hang_file
        assert hang_file is not None
        hang_file.seek(0)
        hang_file.truncate()
        hang_file.write(f"{nodeid}\n")
        hang_file.flush()
        faulthandler.dump_traceback_later(budget, exit=True, file=hang_file)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()
            hang_file.seek(0)
            hang_file.truncate()
            hang_file.flush()

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """Say whether the test hung (the watchdog fired) or its process died, and keep its requirements."""
        worker = getattr(getattr(getattr(report, "node", None), "gateway", None), "id", "")
        path = hang_file_of(self.run.hang_dir, str(worker))
        stacks = ""
        with contextlib.suppress(OSError):
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            if len(lines) > 1 and lines[0] == crashitem:
                stacks = "\n".join(_own_frames(lines[1:]))
        budget = self.run.settings.test_timeout
        if stacks:
            report.longrepr = (
                f"hung: {crashitem} did not finish within its budget of {budget:g} s "
                "(--toolharness-test-timeout, Hypothesis's shrinking included); its worker was stopped. "
                f"It was at (innermost first):\n{stacks}"
            )
        else:
            report.longrepr = (
                f"crashed: the process running {crashitem} died in the middle of it (os._exit, a "
                "segfault, or a kill); the remaining tests ran in a fresh worker"
            )
        report.when = "call"
        report.user_properties = [("requirement", i) for i in self.requirements_of(crashitem)]

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Say that the run budget stopped the run."""
        for note in self.run.budget_hit:
            terminalreporter.write_line(
                f"toolharness: {note} (--toolharness-run-timeout); the tests that did not run are not checked"
            )


# Frames of the machinery around a test (pytest, pluggy, xdist, execnet), left out of a hang report.
_MACHINERY = (
    "/_pytest/",
    "/pluggy/",
    "/xdist/",
    "/execnet/",
    '"<string>"',
    "/pytest_toolharness/_isolation.py",
    "/pytest_toolharness/_budgets.py",
)
_MAX_FRAMES = 8


def _own_frames(dump: list[str]) -> list[str]:
    """The test's and the harness's frames from a faulthandler dump (at most a few)."""
    frames = [line.strip() for line in dump if line.strip().startswith("File ")]
    own = [line for line in frames if not any(part in line for part in _MACHINERY)]
    return own[:_MAX_FRAMES] or frames[:_MAX_FRAMES] or ["(no stack was written)"]
