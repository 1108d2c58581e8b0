"""Bounded, crash-proof runs: harness code in a worker process, a time budget per test and per run.

- **Isolation.** When the suite runs without ``-n``, the plugin turns on pytest-xdist with as many
  workers as ``-n auto`` would start, at most four (``--toolharness-isolation=process``, the
  default): the suite's wire tests spend most of their time in subprocesses, and on two cores two
  workers bring a report in about half the time. A harness that calls ``os._exit``, segfaults or
  is killed takes only the worker down: xdist reports the running test as failed, starts a fresh
  worker for the rest, and the controller keeps the report. :func:`pytest_handlecrashitem` turns
  xdist's "worker crashed" into a line that says what happened to which test.
- **Scheduling.** Under xdist's ``load`` distribution (the default, and what ``-n N`` gives), the
  tests of a module in :data:`SHARED_RUN_MODULES` go to one worker as a unit, dispatched first: they
  share one run of the harness per scenario (a module-scoped fixture), which split across workers
  would run once per worker. Every other test is still dispatched on its own, the ones marked
  :data:`HEAVY_MARKER` first. The reference CLI and the suite's MCP server start through one fork
  server for all the workers (:mod:`pytest_toolharness.wire.processes._launch`).
- **Per-test budget** (``--toolharness-test-timeout``, setup to teardown, Hypothesis's shrinking
  included). Armed with :func:`faulthandler.dump_traceback_later`, whose watchdog is a C thread: it
  fires even while the harness blocks in ``time.sleep`` or in C code holding the GIL. It writes every
  thread's stack to a file and ends the process; the controller reads the file and reports the test
  as hung, naming where it was. Building the adapter (importing a harness can take seconds on a
  loaded machine) has a budget of its own (the per-test budget, at least 120 s), before the first
  test that uses it. Hypothesis's shrinking is held to a third of the budget, so a slow
  shrink ends with its example rather than as "hung".
- **Run budget** (``--toolharness-run-timeout``): past it the run is interrupted as by Ctrl-C, and
  the report lists what ran.
- **Temporary files.** Each worker's temporary directory (``TMPDIR``) is inside the controller's run
  directory, which the controller removes at the end: a worker that was stopped or died leaves nothing.
- **SIGTERM** is handled as Ctrl-C (pytest prints its summary and the report, ``with`` blocks remove
  their temporary directories) instead of killing the process where it stands.
"""

from __future__ import annotations

import _thread
import atexit
import contextlib
import faulthandler
import gc
import importlib.util
import os
import shlex
import signal
import tempfile
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest

from pytest_toolharness._options import Isolation, Settings
from pytest_toolharness._strategies.shell import SHARED_ORACLE_VARIABLE, prebuild_bash_oracle
from pytest_toolharness.wire.processes._launch import (
    prestart_fork_server,
    python_interpreter_command,
    release_prestarted_fork_server,
    share_fork_server,
)
from pytest_toolharness.wire.processes._scratch import defer_removal_under, remove_in_background

__all__ = ["HANG_FILE_KEY", "HEAVY_MARKER", "SHARED_RUN_MODULES", "configure"]

HEAVY_MARKER = "toolharness_heavy"
"""Marks a test that takes seconds: under xdist it is dispatched before the other single tests, so
that it does not start last and end the run alone on one worker while the others wait."""

HANG_FILE_KEY = "toolharness_hang_dir"
"""The ``workerinput`` key naming the run directory: where workers' watchdogs write what hung, and
each worker's temporary directory (removed with it by the controller, whatever became of the worker)."""

SHARED_RUN_MODULES = ("test_wire.py", "test_wire_security.py", "test_wire_rules.py")
"""The packaged suite's modules whose tests share one harness run per scenario (a module-scoped
fixture, ``conformance/_wire_runs.py``): each runs on one worker, so each scenario runs once."""

# Building the adapter (imports of a harness and its SDK) gets at least this long, whatever the test budget.
_PREPARE_BUDGET_S = 120.0

# The suite's share of a machine: more workers than this spend more on starting than they save.
_MAX_WORKERS = 4

# How long the end of a run waits for the bash oracle's build (half a second, as a rule).
_ORACLE_BUILD_WAIT_S = 60.0

# Workers beyond one per CPU: the suite's tests often wait (for hook processes, the harness's own
# processes, timeouts), and a waiting worker leaves its core idle. On 2 cores, five runs each: 3
# workers took 24.0-26.4 s (median 25.4 s), 2 workers 24.8-29.6 s (median 27.1 s), for 4 s more CPU.
_WORKERS_BEYOND_CPUS = 1

# Hypothesis's shrinking gets this share of the per-test budget (the rest is for generating).
_SHRINK_SHARE = 1 / 3


@dataclass
class _Run:
    settings: Settings
    hang_dir: Path
    owns_hang_dir: bool
    timer: threading.Timer | None = None
    previous_sigterm: Any = None
    hang_file: IO[str] | None = None
    budget_hit: list[str] = field(default_factory=list)


_RUN = pytest.StashKey[_Run]()

# Allocations (net) before a young collection in a worker: CPython's default is 700.
_GC_YOUNG_THRESHOLD = 5000


def _xdist_usable(config: pytest.Config) -> bool:
    return config.pluginmanager.hasplugin("xdist") and hasattr(config.option, "tx")


def configure(
    config: pytest.Config,
    settings: Settings,
    requirements_of: Callable[[str], list[str]],
    prepare: Callable[[pytest.Item], None] = lambda item: None,
) -> None:
    """Set up isolation, budgets and SIGTERM for a run of the suite (controller or worker).

    ``requirements_of(nodeid)`` gives the requirement IDs the run has seen for a test, so a test
    whose worker died still counts for its requirements. ``prepare(item)`` runs before a test's
    budget starts, under a budget of its own (the plugin builds the adapter there).
    """
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    if workerinput is not None and HANG_FILE_KEY in workerinput:
        hang_dir, owns = Path(workerinput[HANG_FILE_KEY]), False
        _scratch_under(hang_dir / f"tmp-{workerinput.get('workerid', 'worker')}")
        # The controller removes the run directory once the workers are gone: removing this worker's
        # part at its exit too would only make the controller wait for it.
        defer_removal_under(hang_dir)
    else:
        hang_dir, owns = Path(tempfile.mkdtemp(prefix="toolharness-run-")), True
    run = _Run(settings, hang_dir, owns)
    config.stash[_RUN] = run
    plugin = _Plugin(run, requirements_of, prepare)
    config.pluginmanager.register(plugin, "toolharness-isolation")
    config.add_cleanup(lambda: _cleanup(run))
    if workerinput is None:
        _start_isolation(config, settings)
        _share_fork_server(config, hang_dir)
        _share_bash_oracle(config, hang_dir)
        release_prestarted_fork_server()  # a guess at registration that turned out wrong
        if settings.run_timeout:
            run.timer = threading.Timer(settings.run_timeout, _run_budget_spent, (run,))
            run.timer.daemon = True
            run.timer.start()
    if threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError):
            run.previous_sigterm = signal.signal(signal.SIGTERM, _sigterm)
    _bound_shrinking(settings.test_timeout)
    atexit.unregister(_freeze_before_finalizing)  # once, however many runs this process makes
    atexit.register(_freeze_before_finalizing)


def _freeze_before_finalizing() -> None:
    """At exit, after pytest's own collections (which report what ``__del__`` raised): freeze the heap.

    The interpreter's last full collection walks every object still alive only to find little
    garbage: 0.3 to 0.5 s of a controller's exit, in which the run is over but has not returned.
    Frozen objects are skipped; they are freed all the same as the modules go.
    """
    gc.freeze()


def _scratch_under(directory: Path) -> None:
    """Make ``directory`` this worker's temporary directory, and its subprocesses' (``TMPDIR``).

    A worker stopped by its watchdog, or killed, runs no ``atexit`` handler and no ``finally``: what
    the harness, the adapter or the suite put in the temporary directory would stay there. Under the
    controller's run directory it goes when the controller removes that directory at the end.
    """
    directory.mkdir(parents=True, exist_ok=True)
    os.environ["TMPDIR"] = str(directory)
    tempfile.tempdir = str(directory)


def _start_isolation(config: pytest.Config, settings: Settings) -> None:
    option = config.option
    wanted = settings.isolation
    if wanted is Isolation.AUTO:
        wanted = Isolation.NONE if settings.suite_path is not None else Isolation.PROCESS
    if wanted is not Isolation.PROCESS or not _xdist_usable(config):
        return
    if option.dist != "no" or option.tx or getattr(option, "collectonly", False):
        return  # -n given (already isolated), or nothing runs
    if getattr(option, "usepdb", False):
        return  # a debugger needs the test in this process
    workers = _worker_count(config)
    option.dist, option.tx, option.numprocesses = "load", ["popen"] * workers, workers
    if getattr(option, "maxworkerrestart", None) is None:
        option.maxworkerrestart = 50  # every test of a harness that exits may take its worker down


# Arguments after which the controller starts no workers of its own (or none at all): options, with
# or without a value, and ``-p no:xdist``; ``toolharness_suite_path`` (given with ``-o``) means an
# in-process run.
_NO_OWN_WORKERS = frozenset(
    {"-n", "--numprocesses", "--dist", "--tx", "--collect-only", "--co", "--pdb", "--help", "-h"}
    | {"--version", "-V", "--toolharness-isolation", "no:xdist", "--fixtures", "--markers"}
)


def _stops_own_workers(arg: str) -> bool:
    if arg.startswith("-") and not arg.startswith("--") and len(arg) > 2 and arg[:2] == "-n":
        return True  # -n4, -nauto
    return arg.partition("=")[0] in _NO_OWN_WORKERS or "toolharness_suite_path" in arg


def prestart(pluginmanager: pytest.PytestPluginManager) -> None:
    """At this plugin's registration, start the fork server if the command line runs the suite in workers.

    The server's import of :data:`WORKER_PRELOAD` (the SDK: 1.5 to 2.5 s) then overlaps pytest's own
    start-up, instead of starting when xdist asks for the first worker, about a second later. Only
    the command line is known this early, so this is a guess: ``--toolharness-conformance`` given and
    none of :data:`_NO_OWN_WORKERS` nor ``-o toolharness_suite_path=...``; :func:`configure` stops the server if the guess was wrong (an
    ini file's ``addopts``, say). The workers' request adds the other plugins to this preload.
    """
    config = pluginmanager.get_plugin("pytestconfig")
    if not isinstance(config, pytest.Config) or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    args = [*config.invocation_params.args, *shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))]
    if "--toolharness-conformance" not in args:
        return
    if any(_stops_own_workers(arg) for arg in args) or importlib.util.find_spec("xdist") is None:
        return
    prestart_fork_server(WORKER_PRELOAD)


def _share_fork_server(config: pytest.Config, run_dir: Path) -> None:
    """With workers: one fork server for all of them (its socket in the run directory).

    The reference harness and the suite's MCP server start through it
    (:mod:`pytest_toolharness.wire.processes._launch`); shared, their modules are imported once per run rather
    than once per worker. Nothing is imported before a wire scenario asks.
    """
    option = config.option
    if not getattr(option, "tx", None) or getattr(option, "collectonly", False):
        return
    preload = worker_preload(config)
    stop = share_fork_server(run_dir, preload)
    if stop is not None:
        config.add_cleanup(stop)  # before the run directory goes (cleanups run last-added first)
        _fork_workers(config, preload)


def _share_bash_oracle(config: pytest.Config, run_dir: Path) -> None:
    """With workers: the bash oracle's programs built once, by this process, for all of them."""
    option = config.option
    if getattr(option, "tx", None) and not getattr(option, "collectonly", False):
        building = prebuild_bash_oracle(run_dir / "bash-oracle")
        if building is not None:
            config.add_cleanup(lambda: _unshare_bash_oracle(building))


def _unshare_bash_oracle(building: threading.Thread) -> None:
    # Before the run directory goes (cleanups run last-added first): files written after its
    # removal began would keep it; and a later run in this process must not look for it there.
    building.join(_ORACLE_BUILD_WAIT_S)
    os.environ.pop(SHARED_ORACLE_VARIABLE, None)


# Imported once by the fork server for every worker: the SDK whose types the suite's adapters build
# (a dependency of the distribution; a third of a worker's start-up CPU).
WORKER_PRELOAD = ("anthropic",)
_DISTRIBUTION = "pytest-toolharness"


def worker_preload(config: pytest.Config) -> list[str]:
    """What the fork server imports for the workers: the SDK and other distributions' plugins.

    :data:`WORKER_PRELOAD`, and the pytest plugins of other distributions this process loaded from
    entry points (a worker loads the same ones). Never this distribution's modules: the suite's must
    be imported by the worker, after pytest's assertion rewriter is in place.
    """
    plugins = [
        name
        for module, dist in config.pluginmanager.list_plugin_distinfo()
        if dist.metadata["Name"] != _DISTRIBUTION
        and isinstance(name := getattr(module, "__name__", None), str)
    ]
    return list(dict.fromkeys([*WORKER_PRELOAD, *plugins]))


def _fork_workers(config: pytest.Config, preload: list[str]) -> None:
    """Start xdist's plain ``popen`` workers as children of the fork server, :func:`worker_preload` imported.

    A worker is still a process of its own (a crash takes only it down); it only skips importing the
    SDK and the plugins again. ``TOOLHARNESS_FORK_SERVER=0`` starts fresh interpreters.
    """
    import shlex

    option = config.option
    command = python_interpreter_command(preload)
    if command is None or any("//" in part for part in command):
        return
    spec = f"popen//python={shlex.join(command)}"
    option.tx = [spec if tx == "popen" else tx for tx in option.tx]


def _worker_count(config: pytest.Config) -> int:
    """One worker more than the CPUs ``-n auto`` counts, at most :data:`_MAX_WORKERS`.

    xdist's hook counts the CPUs; ``PYTEST_XDIST_AUTO_NUM_WORKERS``, when set, is the count itself.
    """
    try:
        count = int(config.hook.pytest_xdist_auto_num_workers(config=config))
    except (TypeError, ValueError, AttributeError):
        count = 1
    if not os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        count += _WORKERS_BEYOND_CPUS
    return max(1, min(count, _MAX_WORKERS))


def _bound_shrinking(test_timeout: float) -> None:
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


def _run_budget_spent(run: _Run) -> None:
    run.budget_hit.append(f"the run budget of {run.settings.run_timeout:g} s was spent")
    _thread.interrupt_main()


def _cleanup(run: _Run) -> None:
    if run.timer is not None:
        run.timer.cancel()
    with contextlib.suppress(Exception):
        faulthandler.cancel_dump_traceback_later()
    if run.hang_file is not None:
        run.hang_file.close()
    if run.previous_sigterm is not None and threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError, TypeError):
            signal.signal(signal.SIGTERM, run.previous_sigterm)
    if run.owns_hang_dir:
        # Thousands of entries the examples made: removing them held the report up by seconds.
        remove_in_background(run.hang_dir)


def _worker_id(config: pytest.Config) -> str:
    workerinput: dict[str, Any] = getattr(config, "workerinput", {})
    return str(workerinput.get("workerid", "main"))


def hang_file_of(hang_dir: Path, worker: str) -> Path:
    """Where the watchdog of ``worker`` writes the stacks of a test that overran its budget."""
    return hang_dir / f"{worker}.hung"


class _Plugin:
    """The hooks of an isolated, budgeted run (registered by :func:`configure`)."""

    def __init__(
        self, run: _Run, requirements_of: Callable[[str], list[str]], prepare: Callable[[pytest.Item], None]
    ) -> None:
        self.run = run
        self.requirements_of = requirements_of
        self.prepare = prepare

    @pytest.hookimpl(optionalhook=True)  # an xdist hook: without xdist (-p no:xdist) it is never called
    def pytest_configure_node(self, node: Any) -> None:
        """Tell each xdist worker where to write what hung (controller side)."""
        node.workerinput[HANG_FILE_KEY] = str(self.run.hang_dir)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Under ``load``: one unit per :data:`SHARED_RUN_MODULES` module, one per other test."""
        if config.option.dist != "load":
            return None
        return _shared_run_scheduler(config, log)

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

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """In an xdist worker: :data:`HEAVY_MARKER` tests first, the rest in their order.

        Every worker collects the same list and the scheduler keeps its order (after the shared-run
        modules, which go first as units).
        """
        if getattr(config, "workerinput", None) is not None:
            items.sort(key=lambda item: item.get_closest_marker(HEAVY_MARKER) is None)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """In an xdist worker: the garbage collector set for a run of many short-lived examples.

        What start-up and collection made (modules, the items, the strategies) lives to the end, so
        it is frozen: no collection walks it again (full collections cost about 0.25 s each before).
        A larger first generation means fewer collections of an example's short-lived objects.
        Together they took the workers' collection time from about 4.6 s to under 2 s.
        """
        if getattr(session.config, "workerinput", None) is not None:
            gc.freeze()
            gc.set_threshold(_GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])

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

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Say that the run budget stopped the run."""
        for note in self.run.budget_hit:
            terminalreporter.write_line(
                f"toolharness: {note} (--toolharness-run-timeout); the tests that did not run are not checked"
            )


def _shared_run_scheduler(config: pytest.Config, log: Any) -> Any:
    """The ``loadscope`` scheduler of xdist, with a scope per shared-run module and per other test.

    ``loadscope`` orders its units by size, largest first, so the shared-run modules start first
    and the single tests fill the workers around them.
    """
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class SharedRunScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module.rsplit("/", 1)[-1] in SHARED_RUN_MODULES else nodeid

        def _assign_work_unit(self, node: Any) -> None:
            # A worker can die while another's death is being handled: xdist tells of it later,
            # but sending it work fails now. The unit goes back to the front of the queue for a live
            # worker (or the fresh one that replaces this one), not into an internal error of the run.
            scope = next(iter(self.workqueue))
            try:
                super()._assign_work_unit(node)
            except OSError:
                unit = self.assigned_work[node].pop(scope)
                self.workqueue[scope] = unit
                self.workqueue.move_to_end(scope, last=False)

        def _reschedule(self, node: Any) -> None:
            # A replacement worker whose collection has not arrived yet gets nothing: when it arrives,
            # schedule() runs again for every worker. (loadscope keeps dead workers' collections, so
            # the run counts as collected while a fresh worker is still collecting: two replaced at
            # once made the first one's schedule() hand the second work, an internal error.)
            if node in self.registered_collections:
                super()._reschedule(node)

        def remove_node(self, node: Any) -> str | None:
            # As loadscope's, but the test that was running when the worker died is not queued
            # again: xdist reports it as crashed, and run again it would take every fresh worker down.
            workload: dict[str, dict[str, bool]] = self.assigned_work.pop(node)
            pending = [(s, n) for s, unit in workload.items() for n, done in unit.items() if not done]
            if not pending:
                return None
            scope, crashitem = pending[0]
            workload[scope][crashitem] = True
            self.workqueue.update({s: unit for s, unit in workload.items() if not all(unit.values())})
            for other in self.assigned_work:
                self._reschedule(other)
            return crashitem

    return SharedRunScheduling(config, log)


# Frames of the machinery around a test (pytest, pluggy, xdist, execnet), left out of a hang report.
_MACHINERY = (
    "/_pytest/",
    "/pluggy/",
    "/xdist/",
    "/execnet/",
    '"<string>"',
    "/pytest_toolharness/_isolation.py",
)
_MAX_FRAMES = 8


def _own_frames(dump: list[str]) -> list[str]:
    """The test's and the harness's frames from a faulthandler dump (at most a few)."""
    frames = [line.strip() for line in dump if line.strip().startswith("File ")]
    own = [line for line in frames if not any(part in line for part in _MACHINERY)]
    return own[:_MAX_FRAMES] or frames[:_MAX_FRAMES] or ["(no stack was written)"]
