"""Crash-proof runs: harness code in worker processes, scheduled for the suite, with their own temp dirs.

- **Isolation.** When the suite runs without ``-n``, the plugin turns on pytest-xdist with as many
  workers as ``-n auto`` would start, at most four (``--toolharness-isolation=process``, the
  default): the suite's wire tests spend most of their time in subprocesses, and on two cores two
  workers bring a report in about half the time. A harness that calls ``os._exit``, segfaults or
  is killed takes only the worker down: xdist reports the running test as failed, starts a fresh
  worker for the rest, and the controller keeps the report.
- **Scheduling.** Under xdist's ``load`` distribution (the default, and what ``-n N`` gives), the
  tests of a module in :data:`SHARED_RUN_MODULES` go to one worker as a unit, dispatched first: they
  share one run of the harness per scenario (a module-scoped fixture), which split across workers
  would run once per worker. Every other test is still dispatched on its own, the ones marked
  :data:`HEAVY_MARKER` first. The reference CLI and the suite's MCP server start through one fork
  server for all the workers (:mod:`pytest_toolharness.processes._launch`).
- **Temporary files.** Each worker's temporary directory (``TMPDIR``) is inside the controller's run
  directory, which the controller removes at the end: a worker that was stopped or died leaves nothing.

The per-test and run budgets, hung and crashed tests and SIGTERM are :mod:`pytest_toolharness._budgets`'s.
"""

from __future__ import annotations

import atexit
import gc
import importlib.util
import os
import shlex
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness._budgets import (
    BudgetedRun,
    arm_budgets,
    bound_shrinking,
    catch_sigterm,
    disarm,
    start_run_timer,
)
from pytest_toolharness._options import HEAVY_MARKER, Isolation, Settings
from pytest_toolharness._strategies.bash_oracle import SHARED_ORACLE_VARIABLE, prebuild_bash_oracle
from pytest_toolharness.processes import (
    defer_removal_under,
    prestart_fork_server,
    python_interpreter_command,
    release_prestarted_fork_server,
    remove_in_background,
    share_fork_server,
)

__all__ = ["HANG_FILE_KEY", "HEAVY_MARKER", "SHARED_RUN_MODULES", "configure"]

HANG_FILE_KEY = "toolharness_hang_dir"
"""The ``workerinput`` key naming the run directory: where workers' watchdogs write what hung, and
each worker's temporary directory (removed with it by the controller, whatever became of the worker)."""

SHARED_RUN_MODULES = ("test_wire.py", "test_wire_security.py", "test_wire_rules.py", "test_wire_drawn.py")
"""The packaged suite's modules whose tests share one harness run per scenario (a module-scoped
fixture, ``conformance/_wire_runs.py``): each runs on one worker, so each scenario runs once."""

# The suite's share of a machine: more workers than this spend more on starting than they save.
_MAX_WORKERS = 4

# How long the end of a run waits for the bash oracle's build (half a second, as a rule).
_ORACLE_BUILD_WAIT_S = 60.0

# Workers beyond one per CPU: the suite's tests often wait (for hook processes, the harness's own
# processes, timeouts), and a waiting worker leaves its core idle. On 2 cores, five runs each: 3
# workers took 24.0-26.4 s (median 25.4 s), 2 workers 24.8-29.6 s (median 27.1 s), for 4 s more CPU.
_WORKERS_BEYOND_CPUS = 1

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
    run = arm_budgets(config, settings, hang_dir, requirements_of, prepare)
    config.pluginmanager.register(_Plugin(hang_dir), "toolharness-isolation")
    config.add_cleanup(lambda: _cleanup(run, owns))
    if workerinput is None:
        _start_isolation(config, settings)
        _share_fork_server(config, hang_dir)
        _share_bash_oracle(config, hang_dir)
        release_prestarted_fork_server()  # a guess at registration that turned out wrong
        start_run_timer(run)
    catch_sigterm(run)
    bound_shrinking(settings.test_timeout)
    atexit.unregister(_freeze_before_finalizing)  # once, however many runs this process makes
    atexit.register(_freeze_before_finalizing)


def _cleanup(run: BudgetedRun, owns_hang_dir: bool) -> None:
    disarm(run)
    if owns_hang_dir:
        # Thousands of entries the examples made: removing them held the report up by seconds.
        remove_in_background(run.hang_dir)


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
    (:mod:`pytest_toolharness.processes._launch`); shared, their modules are imported once per run rather
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


class _Plugin:
    """The hooks of a run in workers (registered by :func:`configure`)."""

    def __init__(self, hang_dir: Path) -> None:
        self.hang_dir = hang_dir

    @pytest.hookimpl(optionalhook=True)  # an xdist hook: without xdist (-p no:xdist) it is never called
    def pytest_configure_node(self, node: Any) -> None:
        """Tell each xdist worker where to write what hung (controller side)."""
        node.workerinput[HANG_FILE_KEY] = str(self.hang_dir)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Under ``load``: one unit per :data:`SHARED_RUN_MODULES` module, one per other test."""
        if config.option.dist != "load":
            return None
        return _shared_run_scheduler(config, log)

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
            if node not in self.registered_collections:
                return
            super()._reschedule(node)
            # A worker runs a test only once it holds the next one or is told to shut down: a fresh
            # worker given a single one-test unit (the replacement of a worker whose test hung, with
            # one worker in all) waited for ever, and so did the run.
            while not node.shutting_down and self._pending_of(self.assigned_work[node]) < 2:
                if not self.workqueue:
                    node.shutdown()
                    break
                self._assign_work_unit(node)

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
