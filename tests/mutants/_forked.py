"""Run cosmic-ray's mutants in forked children of one warm process, each against the tests that reach it.

cosmic-ray's own executor writes each mutant to disk and starts a new ``pytest`` per mutant: about 3 s
of interpreter start, imports and collection before the first test, and every test of the module's
requirements even when the mutated line is one that only a single test executes. Here, instead:

1. A parent imports the heavy third-party packages once (pytest, Hypothesis, anthropic, pydantic,
   numpy, httpx) and never imports the project, so every child starts from clean project modules.
2. :func:`coverage_map` runs the module's requirement tests once, in a forked child under coverage.py
   with one coverage context per test: which test executes which line of the module, and how long each
   test takes. The run must pass, or nothing is scored (a suite that fails unmutated kills everything).
3. :func:`run_mutants` forks one child per mutant, ``jobs`` at a time. The child installs an import
   hook that serves the mutated source (compiled with the module's real file name) for the module's
   name, in itself and (through a ``sitecustomize`` on PYTHONPATH) in the Python processes its tests
   start, such as the reference CLI behind the wire tests; then it runs ``pytest.main`` on the tests that execute the mutated lines, fastest first, stopping
   at the first failure. Nothing is written to the work tree, so children run in parallel in one tree.
   A mutant whose lines no test executes is *not reached*: it survives without a run. A line that runs
   only while modules are imported (a constant, a decorator, a default) is reached by every test.

A selection labelled :data:`UNIT_TESTS` instead of an adapter spec is the project's own unit tests of
the module: they run with the project's own pytest options (``unit_options`` and ``pyproject.toml``'s
``addopts``), never ``--toolharness-conformance``, and after every conformance test of a mutant, so a
kill by a unit test (``MutantOutcome.by_unit_tests``) means the conformance suite missed the mutant.

The child's exit code is pytest's: 0 survived; 1 (tests failed) or 2 (a collection error, e.g. the
mutated module does not import) killed; anything else (usage error, no tests collected, a crash) is a
runner fault and never counts as a kill. So is a run that met a missing module
(``ModuleNotFoundError``): no mutation operator renames an import, so the environment broke (a venv
replaced mid-run turned a whole session's remaining mutants into "kills" in seconds). A child over its timeout is killed with its process group and
counts as killed, as cosmic-ray counts a timeout.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "PRELOADED",
    "SUITE_OPTIONS",
    "UNIT_TESTS",
    "UNIT_TEST_OPTIONS",
    "CoverageMap",
    "MutantJob",
    "MutantOutcome",
    "coverage_map",
    "coverage_maps",
    "host_plugin_blocks",
    "keyed_test",
    "killers_first",
    "preload",
    "run_mutants",
    "run_of",
]

# Imported by the parent before it forks; none imports the project.
PRELOADED = ("pytest", "hypothesis", "anthropic", "pydantic", "numpy", "httpx", "jsonschema")

# Coverage's context for lines executed outside any test (imports during collection).
_IMPORT_CONTEXT = ""
# Between an adapter spec and a node id in a test key (neither contains it).
_ADAPTER_SEPARATOR = "\x1f"

UNIT_TESTS = "unit-tests"
"""The label, in an adapter's place, of a selection of the project's own tests (no ``module:factory``)."""

# What the project's own tests get beside pyproject.toml's options: the derandomised profile, so a
# unit test's kill does not depend on the day's draws.
UNIT_TEST_OPTIONS: tuple[str, ...] = ("--hypothesis-profile=toolharness-mutants",)

# Printed by a mutant's child when its unit tests start: every conformance test of the mutant passed.
_UNIT_TESTS_STARTED = "unit tests started: "


def preload() -> None:
    """Import :data:`PRELOADED` in this process (the fork parent), single-threaded BLAS first."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    for name in PRELOADED:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)
    leaked = sorted(
        n for n in sys.modules if n.split(".")[0] in ("reference_impl", "pytest_toolharness", "conformance")
    )
    if leaked:
        raise RuntimeError(f"preloading imported project modules, children would not be fresh: {leaked[:5]}")


@dataclass(frozen=True)
class CoverageMap:
    """Which tests execute which lines of one module, and each test's duration (seconds)."""

    lines: dict[int, frozenset[str]]
    durations: dict[str, float]
    skipped: frozenset[str] = frozenset()

    def every_test(self) -> list[str]:
        """Every test of the map, fastest first: for a module whose lines run where no coverage reaches."""
        return sorted(self.durations, key=lambda nodeid: (self.durations[nodeid], nodeid))

    def merged(self, other: CoverageMap) -> CoverageMap:
        """This map and ``other`` (of other runs' tests: their keys differ) as one."""
        lines = {
            n: self.lines.get(n, frozenset()) | other.lines.get(n, frozenset())
            for n in self.lines | other.lines
        }
        return CoverageMap(lines, {**self.durations, **other.durations}, self.skipped | other.skipped)

    def tests_for(self, first_line: int, last_line: int) -> list[str]:
        """The tests that execute any of these lines, fastest first; every test for an import-time line."""
        reached: set[str] = set()
        for line in range(first_line, last_line + 1):
            contexts = self.lines.get(line, frozenset())
            if _IMPORT_CONTEXT in contexts:
                reached.update(self.durations)
            reached.update(c for c in contexts if c != _IMPORT_CONTEXT)
        return sorted(reached, key=lambda nodeid: (self.durations.get(nodeid, 0.0), nodeid))


@dataclass(frozen=True)
class MutantJob:
    """One mutant: its cosmic-ray job id, the mutated source and the tests to run against it."""

    job_id: str
    source: str
    tests: list[str]
    skipped_before: frozenset[str] = frozenset()


@dataclass
class MutantOutcome:
    """What one child reported: ``killed``, ``survived``, ``timeout`` or ``fault`` (never a kill)."""

    job_id: str
    verdict: str
    exit_code: int | None
    seconds: float
    output: str = ""
    tests: list[str] = field(default_factory=list)
    killer: str | None = None
    """The test (:func:`keyed_test` name) that failed first, when one did."""
    by_unit_tests: bool = False
    """Killed, and only by the project's unit tests: every conformance test of the mutant passed."""


_KILLED_BY = "killed by: "


def killers_first(tests: Sequence[str], killers: Sequence[str]) -> list[str]:
    """``tests`` with those in ``killers`` (most recent killer first) moved ahead, the rest in their order.

    Mutants come in source order, and a test that killed one usually kills its neighbours: with
    ``-x`` a killed mutant then costs about one test, not every faster test before its killer.
    """
    wanted = set(tests)
    first = [k for k in killers if k in wanted]
    chosen = set(first)
    return [*first, *(t for t in tests if t not in chosen)]


def _unit_tests_killed(output: Path, tests: Sequence[str], killer: str | None) -> bool:
    """Whether a killed mutant was killed by its unit tests only (read from its child's ``output``).

    A unit test failed first; or the child got as far as its unit tests (every conformance test
    passed) before it timed out or a test stopped being exercised; or no conformance test reaches it.
    """
    if killer is not None:
        return _split_key(killer)[0] == UNIT_TESTS
    if all(_split_key(test)[0] == UNIT_TESTS for test in tests):
        return True
    try:
        text = output.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.startswith(_UNIT_TESTS_STARTED) for line in text.splitlines())


def _killer_in(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = [line[len(_KILLED_BY) :].strip() for line in text.splitlines() if line.startswith(_KILLED_BY)]
    return found[-1] if found else None


# The import hook, as a ``sitecustomize`` module: the child runs it, and Python processes the tests
# start (the reference CLI behind the wire tests) import it from the overlay on their PYTHONPATH.
_SITECUSTOMIZE = """\
import importlib.abc, importlib.util, sys

_NAME, _PATH, _SOURCE, _SCRIPT = {name!r}, {path!r}, {source!r}, {script!r}


class _MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname != _NAME:
            return None
        return importlib.util.spec_from_file_location(fullname, _PATH, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if _SCRIPT:  # a module the harness also runs as a script names its file: the mutated copy
            module.__file__ = _SCRIPT
        with open(_SOURCE, encoding="utf-8") as handle:
            exec(compile(handle.read(), _PATH, "exec", dont_inherit=True), module.__dict__)


sys.meta_path.insert(0, _MutantFinder())
"""


# Coverage in the Python processes the tests start (the reference CLI behind the wire tests), as a
# ``sitecustomize`` on their PYTHONPATH. Targets start from a clean environment that passes
# PYTHONPATH but nothing else of ours, so the test running at the start is read from a file.
_SUBPROCESS_COVERAGE = """\
import os
import sys

_DIRECTORY, _PACKAGE = {directory!r}, {package!r}


class _StartCoverage:
    # Coverage starts when the scored module's package is first imported: the other Python
    # programs the tests start (hook scripts with short timeouts) never pay for it.
    def find_spec(self, fullname, path=None, target=None):
        if fullname != _PACKAGE:
            return None
        sys.meta_path.remove(self)
        try:
            with open(os.path.join(_DIRECTORY, "current-test"), encoding="utf-8") as handle:
                context = handle.read()
        except OSError:
            return None
        import coverage

        started = coverage.Coverage(
            config_file=os.path.join(_DIRECTORY, "coveragerc"), context=context, auto_data=True
        )
        started._warn_no_data = False
        started.start()
        return None


sys.meta_path.insert(0, _StartCoverage())
"""


def _clear_caches(module_files: Sequence[Path]) -> None:
    """Empty the ``functools`` caches of the measured modules (their functions' and classes' methods').

    A cached function's lines run, and are measured, only in the first test that asks it something;
    a mutant of them is then judged by that test alone, though every test that asks is one that can
    notice it (a mutant's child starts with empty caches). Cleared before each test of the coverage
    pass, each test is measured as it would run alone.
    """
    wanted = {str(f.resolve()) for f in module_files}
    names = {f.name for f in module_files}
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not file or Path(file).name not in names:
            continue  # most modules are told apart by their file's name, without a resolve() each
        if str(Path(file).resolve()) not in wanted:
            continue
        for value in list(vars(module).values()):
            for candidate in (value, *(vars(value).values() if isinstance(value, type) else ())):
                candidate = getattr(candidate, "__func__", candidate)  # a classmethod's or staticmethod's
                clear = getattr(candidate, "cache_clear", None)
                if callable(clear):
                    clear()


def _measure_subprocesses(module_files: Sequence[Path], package: str, directory: Path) -> None:
    """Make the Python processes started from now on that import ``package`` record their coverage
    of ``module_files`` in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "sitecustomize.py").write_text(
        _SUBPROCESS_COVERAGE.format(directory=str(directory), package=package), encoding="utf-8"
    )
    (directory / "coveragerc").write_text(
        f"[run]\ndata_file = {directory / 'data'}\nparallel = true\n"
        "include =\n" + "".join(f"    {f.resolve()}\n" for f in module_files) + "sigterm = true\n",
        encoding="utf-8",
    )
    _set_current_test(directory, _IMPORT_CONTEXT)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(directory), os.environ.get("PYTHONPATH")) if p)


def _set_current_test(directory: Path, nodeid: str) -> None:
    (directory / "current-test").write_text(nodeid, encoding="utf-8")


def _subprocess_lines(module_file: Path, directory: Path, tests: Sequence[str]) -> dict[int, set[str]]:
    """The lines the tests' subprocesses ran, each reached by every test of the file that started it.

    A wire test module shares its scenario runs: a run started while one test ran is judged by
    others of the same file, so a subprocess's line counts for the whole file (a process started
    outside any test, for every test).
    """
    import coverage

    by_file: dict[str, list[str]] = {}
    for test in tests:
        by_file.setdefault(test.split("::", 1)[0], []).append(test)
    lines: dict[int, set[str]] = {}
    for path in sorted(directory.glob("data.*")):
        data = coverage.CoverageData(basename=str(path))
        data.read()
        for measured in data.measured_files():
            if Path(measured).resolve() != module_file.resolve():
                continue
            for line, contexts in data.contexts_by_lineno(measured).items():
                reached = lines.setdefault(line, set())
                for context in contexts:
                    file_tests = by_file.get(context.split("::", 1)[0]) if context else None
                    reached.update(file_tests or [_IMPORT_CONTEXT])
    return lines


def _install_mutant(
    module_name: str, module_file: Path, source: str, overlay: Path, *, as_script: bool = False
) -> None:
    """Serve ``source`` as ``module_name`` here and in every Python subprocess started from now on.

    ``as_script``: the harness also runs the module as a script (``python -I -S FILE``, which no
    import hook reaches) from the path its ``__file__`` gives: that path is then a copy of ``source``.
    """
    overlay.mkdir(parents=True, exist_ok=True)
    source_file = overlay / "mutant_source.py.txt"
    source_file.write_text(source, encoding="utf-8")
    script = ""
    if as_script:
        (overlay / "script").mkdir(exist_ok=True)
        script_file = overlay / "script" / module_file.name
        script_file.write_text(source, encoding="utf-8")
        script = str(script_file)
    hook = _SITECUSTOMIZE.format(
        name=module_name, path=str(module_file), source=str(source_file), script=script
    )
    (overlay / "sitecustomize.py").write_text(hook, encoding="utf-8")
    exec(compile(hook, str(overlay / "sitecustomize.py"), "exec"), {})
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(overlay), os.environ.get("PYTHONPATH")) if p)
    # Bytecode stays on: the mutated module is never cached (the hook compiles its source), and the
    # test modules pytest rewrites are then rewritten once, not once per mutant.


def host_plugin_blocks(project_root: Path) -> list[str]:
    """``-p no:NAME`` for the installed pytest plugins the suite does not use (the CLI's own list).

    Asked of a subprocess, so that this process never imports the project. Some are slow to load
    (langsmith's, installed with LangGraph, takes seconds), and every mutant would pay for them.
    """
    code = "import json; from pytest_toolharness._cli import host_plugin_blocks; print(json.dumps(host_plugin_blocks()))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project_root, capture_output=True, text=True, check=True
    )
    return [str(arg) for arg in json.loads(done.stdout)]


# What every run of the conformance suite gets: strict level, the derandomised mutants profile.
SUITE_OPTIONS: tuple[str, ...] = (
    "--toolharness-conformance",
    "--toolharness-level=strict",
    "--hypothesis-profile=toolharness-mutants",
)


def _pytest_args(
    tests: Sequence[str],
    basetemp: Path,
    options: Sequence[str],
    extra: Sequence[str],
    *,
    own_addopts: bool = False,
) -> list[str]:
    """``own_addopts``: keep pyproject.toml's ``addopts`` (the project's own tests need its ``-p pytester``)."""
    return [
        *tests,
        *options,
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        "-p",
        "no:randomly",
        f"--basetemp={basetemp}",
        "-q",
        "--no-header",
        *(() if own_addopts else ("-o", "addopts=")),
        # anyio (imported with httpx) is a pytest plugin the parent imported: its asserts stay as they are.
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        *extra,
    ]


def _fork(child: Callable[[], int], output: Path) -> int:
    """Fork; the child runs ``child`` in its own process group with output to ``output`` and exits with its code."""
    pid = os.fork()
    if pid:
        return pid
    code = 70
    try:
        os.setpgid(0, 0)
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 - lives until _exit
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        code = child()
    except BaseException:  # a child must never return into the parent's loop
        traceback.print_exc()
        code = 70
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _wait(pid: int) -> int:
    _pid, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


ENVIRONMENT_FAULT = 3
"""A child's exit code when the run broke on the environment (a module missing), not on the mutant."""

_MISSING_MODULE = "ModuleNotFoundError: No module named"
_USAGE_ERROR = 4  # pytest.ExitCode.USAGE_ERROR, without importing pytest here


class _Outcomes:
    """Each test's outcome (failed / skipped / passed) and whether collection failed, as pytest reports them."""

    def __init__(self) -> None:
        self.tests: dict[str, str] = {}
        self.collection_failed = False
        self.missing_module = ""

    def _note_missing_module(self, report: Any) -> None:
        # No mutation operator renames an import: a module gone missing is the environment's fault.
        if report.failed and not self.missing_module:
            text = str(getattr(report, "longreprtext", ""))
            if _MISSING_MODULE in text:
                self.missing_module = text.split(_MISSING_MODULE, 1)[1].splitlines()[0].strip()

    def pytest_collectreport(self, report: Any) -> None:
        self._note_missing_module(report)
        if report.failed:
            self.collection_failed = True

    def pytest_runtest_logreport(self, report: Any) -> None:
        self._note_missing_module(report)
        previous = self.tests.get(report.nodeid, "passed")
        if report.failed or previous == "failed":
            self.tests[report.nodeid] = "failed"
        elif report.skipped or previous == "skipped":
            self.tests[report.nodeid] = "skipped"
        else:
            self.tests[report.nodeid] = "passed"


def _verdict(exit_code: int, outcomes: _Outcomes, skipped_before: frozenset[str]) -> int:
    """0 survived, 1 a test failed or stopped being exercised, 2 collection failed; pytest's code otherwise.

    Judged from the tests, not from the exit code alone: the plugin's strict level also fails a run
    whose requirement is only partially checked, which the unmutated module may already be.
    """
    # Selected by node id, tests whose module fails to import make pytest exit 4 ("found no
    # collectors"), not 2: a collection failure all the same, judged below.
    if exit_code not in (0, 1, 2) and not (exit_code == _USAGE_ERROR and outcomes.collection_failed):
        return exit_code
    if outcomes.missing_module:
        print(f"runner fault, not a kill: the environment lacks the module {outcomes.missing_module}")
        return ENVIRONMENT_FAULT
    if outcomes.collection_failed or exit_code == 2:
        return 2
    if any(outcome == "failed" for outcome in outcomes.tests.values()):
        return 1
    newly_skipped = [
        t for t, outcome in outcomes.tests.items() if outcome == "skipped" and t not in skipped_before
    ]
    if newly_skipped:
        print(f"killed: no longer exercised, skipped now: {newly_skipped}")
        return 1
    return 0


def keyed_test(adapter: str, nodeid: str) -> str:
    """One test under one adapter (``""``: the default one), as the coverage map names it."""
    return f"{adapter}{_ADAPTER_SEPARATOR}{nodeid}" if adapter else nodeid


def _split_key(key: str) -> tuple[str, str]:
    adapter, _sep, nodeid = key.rpartition(_ADAPTER_SEPARATOR)
    return adapter, nodeid


def run_of(key: str) -> str:
    """The run a :func:`keyed_test` name belongs to: an adapter spec, ``""`` (the default) or :data:`UNIT_TESTS`."""
    return _split_key(key)[0]


def _adapter_args(adapter: str) -> list[str]:
    return [f"--toolharness-adapter={adapter}"] if adapter and adapter != UNIT_TESTS else []


def _group_args(
    group: str,
    tests: Sequence[str],
    basetemp: Path,
    options: Sequence[str],
    unit_options: Sequence[str],
    extra: Sequence[str],
) -> list[str]:
    """pytest's arguments for ``tests`` of one group: an adapter's conformance run, or the unit tests."""
    if group == UNIT_TESTS:
        return _pytest_args(tests, basetemp, unit_options, extra, own_addopts=True)
    return _pytest_args(tests, basetemp, options, [*extra, *_adapter_args(group)])


def coverage_map(
    module_file: Path,
    selections: Sequence[tuple[str, Sequence[str]]],
    workdir: Path,
    project_root: Path,
    options: Sequence[str] = SUITE_OPTIONS,
    unit_options: Sequence[str] = UNIT_TEST_OPTIONS,
) -> tuple[CoverageMap | None, str]:
    """Run each (adapter, pytest arguments) unmutated under coverage (adapter ``""``: the default one;
    :data:`UNIT_TESTS`: the project's own tests, with ``unit_options``).

    Each adapter's run is a forked child; the map's tests are :func:`keyed_test` names. None and why
    when a run does not pass or measures nothing.
    """
    maps, why = coverage_maps([module_file], selections, workdir, project_root, options, unit_options)
    return (None, why) if maps is None else maps[module_file]


def coverage_maps(
    module_files: Sequence[Path],
    selections: Sequence[tuple[str, Sequence[str]]],
    workdir: Path,
    project_root: Path,
    options: Sequence[str] = SUITE_OPTIONS,
    unit_options: Sequence[str] = UNIT_TEST_OPTIONS,
) -> tuple[dict[Path, tuple[CoverageMap | None, str]] | None, str]:
    """:func:`coverage_map` of several modules of one package from one run of the tests: the modules
    scored against the same requirements share their slowest step. None and why when a run does not
    pass; a module no test reaches gets its own None and why.
    """
    lines: dict[Path, dict[int, set[str]]] = {f: {} for f in module_files}
    durations: dict[str, float] = {}
    skipped: set[str] = set()
    # A folder of this call's own: a second call in the same workdir must not read the first's data.
    measured = Path(tempfile.mkdtemp(prefix="coverage-", dir=workdir))
    for index, (adapter, selection) in enumerate(selections):
        data_file = measured / f"coverage-{index}.json"
        output = measured / f"coverage-run-{index}.txt"

        subprocess_data = measured / f"subprocess-coverage-{index}"

        def child(
            adapter: str = adapter,
            selection: Sequence[str] = selection,
            data_file: Path = data_file,
            subprocess_data: Path = subprocess_data,
        ) -> int:
            import coverage
            import pytest

            os.chdir(project_root)
            timings: dict[str, float] = {}
            cov = coverage.Coverage(data_file=None, include=[str(f) for f in module_files], branch=False)

            package = module_files[0].resolve().relative_to(project_root.resolve()).parts[0]
            _measure_subprocesses(module_files, package, subprocess_data)
            # Each scenario's CLI as a fresh ``python -m``: a fork server's children would share the
            # coverage (and the test it was started under) of the server that imported the module.
            os.environ["TOOLHARNESS_FORK_SERVER"] = "0"

            class _Contexts:
                @pytest.hookimpl(wrapper=True)
                def pytest_runtest_protocol(self, item: Any) -> Iterator[None]:
                    _clear_caches(module_files)
                    cov.switch_context(item.nodeid)
                    _set_current_test(subprocess_data, item.nodeid)
                    try:
                        return (yield)
                    finally:
                        cov.switch_context(_IMPORT_CONTEXT)
                        _set_current_test(subprocess_data, _IMPORT_CONTEXT)

                def pytest_runtest_logreport(self, report: Any) -> None:
                    timings[report.nodeid] = timings.get(report.nodeid, 0.0) + report.duration

            outcomes = _Outcomes()
            cov.start()
            try:
                args = _group_args(adapter, selection, workdir / "basetemp", options, unit_options, ())
                code = int(pytest.main(args, plugins=[_Contexts(), outcomes]))
            finally:
                cov.stop()
            data = cov.get_data()
            by_file: dict[str, dict[int, set[str]]] = {}
            for module_file in module_files:
                measured = next(
                    (f for f in data.measured_files() if Path(f).resolve() == module_file.resolve()), None
                )
                by_line = {
                    line: set(contexts)
                    for line, contexts in (data.contexts_by_lineno(measured) if measured else {}).items()
                }
                for line, contexts in _subprocess_lines(module_file, subprocess_data, list(timings)).items():
                    by_line.setdefault(line, set()).update(contexts)
                by_file[str(module_file)] = by_line
            skipped = sorted(t for t, outcome in outcomes.tests.items() if outcome == "skipped")
            data_file.write_text(
                json.dumps(
                    {
                        "lines": {
                            f: {n: sorted(c) for n, c in by_line.items()} for f, by_line in by_file.items()
                        },
                        "durations": timings,
                        "skipped": skipped,
                    }
                ),
                encoding="utf-8",
            )
            return _verdict(code, outcomes, frozenset(outcomes.tests))

        code = _wait(_fork(child, output))
        label = {"": "the default adapter", UNIT_TESTS: "the unit tests"}.get(adapter, adapter)
        if code != 0:
            return (
                None,
                f"the unmutated module's tests did not pass against {label} (exit {code}):\n{_tail(output)}",
            )
        loaded = json.loads(data_file.read_text(encoding="utf-8"))
        if not loaded["durations"]:
            return None, f"no test ran against {label}:\n{_tail(output)}"
        for nodeid, seconds in loaded["durations"].items():
            durations[keyed_test(adapter, nodeid)] = seconds
        skipped.update(keyed_test(adapter, nodeid) for nodeid in loaded["skipped"])
        for module_file in module_files:
            for line, contexts in loaded["lines"][str(module_file)].items():
                lines[module_file].setdefault(int(line), set()).update(
                    c if c == _IMPORT_CONTEXT else keyed_test(adapter, c) for c in contexts
                )
    maps: dict[Path, tuple[CoverageMap | None, str]] = {}
    for module_file, by_line in lines.items():
        maps[module_file] = (
            (
                CoverageMap(
                    lines={n: frozenset(c) for n, c in by_line.items()},
                    durations=durations,
                    skipped=frozenset(skipped),
                ),
                "",
            )
            if by_line
            else (None, f"coverage saw no line of {module_file} (is it the module the tests import?)")
        )
    return maps, ""


def _run_tests(
    tests: Sequence[str],
    basetemp: Path,
    options: Sequence[str],
    skipped_before: frozenset[str],
    unit_options: Sequence[str] = UNIT_TEST_OPTIONS,
) -> int:
    """Run ``tests`` (:func:`keyed_test` names) adapter by adapter, each in a forked grandchild; stop at a failure.

    The unit tests run last, whatever their order in ``tests``: they run only when every conformance
    test passed, so a kill of theirs is one the conformance suite missed.
    """
    by_adapter: dict[str, list[str]] = {}
    for key in tests:
        adapter, nodeid = _split_key(key)
        by_adapter.setdefault(adapter, []).append(nodeid)
    if UNIT_TESTS in by_adapter:
        by_adapter[UNIT_TESTS] = by_adapter.pop(UNIT_TESTS)
    for adapter, nodeids in by_adapter.items():
        if adapter == UNIT_TESTS:
            print(f"{_UNIT_TESTS_STARTED}{len(nodeids)}", flush=True)
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                import pytest

                outcomes = _Outcomes()
                args = _group_args(adapter, nodeids, basetemp, options, unit_options, ["-x"])
                code = int(pytest.main(args, plugins=[outcomes]))
                before = frozenset(_split_key(k)[1] for k in skipped_before if _split_key(k)[0] == adapter)
                code = _verdict(code, outcomes, before)
                failed = [nodeid for nodeid, outcome in outcomes.tests.items() if outcome == "failed"]
                if code == 1 and failed:
                    print(f"{_KILLED_BY}{keyed_test(adapter, failed[0])}")
            except BaseException:  # a grandchild must never return into the child
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        code = _wait(pid)
        if code != 0:
            return code
    return 0


def run_mutants(
    module_name: str,
    module_file: Path,
    jobs: Iterator[MutantJob],
    *,
    parallel: int,
    timeout: Callable[[MutantJob], float],
    workdir: Path,
    project_root: Path,
    on_outcome: Callable[[MutantOutcome], None],
    options: Sequence[str] = SUITE_OPTIONS,
    unit_options: Sequence[str] = UNIT_TEST_OPTIONS,
    as_script: bool = False,
) -> None:
    """Run every job in a forked child, ``parallel`` at a time, and hand each outcome to ``on_outcome``.

    ``as_script``: the module is also run as a script by the harness (see :func:`_install_mutant`).
    """
    running: dict[int, tuple[MutantJob, float, int]] = {}
    free_slots = list(range(parallel))
    killers: list[str] = []  # tests that killed a mutant, the latest first

    def start(job: MutantJob) -> None:
        slot = free_slots.pop()
        tests = killers_first(job.tests, killers)
        basetemp = workdir / f"slot{slot}"

        def child() -> int:
            _install_mutant(
                module_name, module_file, job.source, workdir / f"slot{slot}-overlay", as_script=as_script
            )
            os.chdir(project_root)

            try:
                # The mutated module is imported here, once, before the grandchildren fork.
                importlib.import_module(module_name)
            except ModuleNotFoundError as missing:  # no mutation operator renames an import
                traceback.print_exc()
                print(f"runner fault, not a kill: the environment lacks the module {missing.name}")
                return ENVIRONMENT_FAULT
            except (Exception, SystemExit):  # a script's ``if __name__ == "__main__"`` turned true exits
                traceback.print_exc()
                print(f"killed: the mutated {module_name} raises while it is imported")
                return 2
            return _run_tests(tests, basetemp, options, job.skipped_before, unit_options)

        pid = _fork(child, workdir / f"slot{slot}.txt")
        running[pid] = (job, time.monotonic(), slot)

    def finish(pid: int, code: int | None, verdict: str | None = None) -> None:
        job, started, slot = running.pop(pid)
        free_slots.append(slot)
        if verdict is None:
            verdict = {0: "survived", 1: "killed", 2: "killed"}.get(code if code is not None else -1, "fault")
        killer = _killer_in(workdir / f"slot{slot}.txt") if verdict == "killed" else None
        by_unit_tests = verdict in ("killed", "timeout") and _unit_tests_killed(
            workdir / f"slot{slot}.txt", job.tests, killer
        )
        if killer is not None:
            if killer in killers:
                killers.remove(killer)
            killers.insert(0, killer)
        on_outcome(
            MutantOutcome(
                job_id=job.job_id,
                verdict=verdict,
                exit_code=code,
                seconds=time.monotonic() - started,
                output=_tail(workdir / f"slot{slot}.txt", 25),
                tests=job.tests,
                killer=killer,
                by_unit_tests=by_unit_tests,
            )
        )

    pending = iter(jobs)
    exhausted = False
    while True:
        while not exhausted and free_slots:
            job = next(pending, None)
            if job is None:
                exhausted = True
            else:
                start(job)
        if not running:
            return
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid and pid in running:
            finish(pid, os.waitstatus_to_exitcode(status))
            continue
        now = time.monotonic()
        for child_pid, (job, started, _slot) in list(running.items()):
            if now - started > timeout(job):
                with _suppressed():
                    os.killpg(child_pid, signal.SIGKILL)
                _wait(child_pid)
                finish(child_pid, None, "timeout")
        time.sleep(0.02)


class _suppressed:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return exc[0] is not None and issubclass(exc[0], ProcessLookupError)  # type: ignore[arg-type]


def new_workdir(parent: Path, stem: str) -> Path:
    """A fresh scratch folder for one module's run under ``parent``."""
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{stem}-", dir=parent))
