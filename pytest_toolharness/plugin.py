"""The pytest plugin entry point (``pytest11``: ``toolharness``).

Hooks only: the work is in ``_options`` (settings), ``_requirements`` (the catalogue and markers),
``_adapter_loading`` and :mod:`pytest_toolharness.adapters` (the adapter and its declared capabilities),
``_report`` (the per-requirement report), ``_run_state`` (what a run keeps in ``config.stash``),
``_fixtures`` (the adapter and harness fixtures) and ``_snapshot`` (the schema snapshot fixture).
"""

from __future__ import annotations

import fnmatch
import os
import shlex
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

import pytest_toolharness._hookspecs as _hookspecs
import pytest_toolharness._isolation as _isolation
import pytest_toolharness._profiles as _profiles
from pytest_toolharness._adapter_loading import (
    WORKDIRS_KEY,
    choose_adapter_source,
    kept_workdirs,
    load_adapter,
)
from pytest_toolharness._baselines import judge_baselined, load_baseline, mark_baselined
from pytest_toolharness._faults import suite_fault
from pytest_toolharness._fixtures import _toolharness_capabilities as _toolharness_capabilities
from pytest_toolharness._fixtures import (
    built_adapter,
    harness,
    load_adapter_before,
    new_harness,
    toolharness_adapter,
    toolharness_adapter_spec,
    toolharness_capabilities,
    toolharness_wire_budget,
)
from pytest_toolharness._options import RunLevel, add_options, read_settings, suite_directory
from pytest_toolharness._report import (
    RunReport,
    catalogue_location,
    distinct_errors,
    into_junitxml,
    markdown_summary,
    passing_examples,
    report_json,
    terminal_lines,
)
from pytest_toolharness._requirements import PROFILES, Level, item_requirement_ids, load_catalogue
from pytest_toolharness._run_state import RUN_STATE, RunState
from pytest_toolharness._snapshot import InterruptedRunSnapshots, tool_schema_snapshot
from pytest_toolharness.adapters import (
    REQUIRES_MARKER,
    AdapterLoadError,
    adapter_not_applicable,
    adapter_profiles,
    missing_capabilities,
)

# The fixtures are found among this module's names: those of _fixtures and _snapshot are imported here.
__all__ = [
    "harness",
    "new_harness",
    "tool_schema_snapshot",
    "toolharness_adapter",
    "toolharness_adapter_spec",
    "toolharness_capabilities",
    "toolharness_wire_budget",
]

SUITE_WARNING_FILTERS = ("default",)
"""The warning filters of every conformance-suite test, whatever the host project configures."""


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add ``pytest_toolharness_adapter``."""
    pluginmanager.add_hookspecs(_hookspecs)


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """Add the ``--toolharness-*`` options and ini keys; start the fork server early if the run needs it."""
    add_options(parser)
    _isolation.prestart(pluginmanager)


def _covers_suite(config: pytest.Config, suite_dir: Path) -> bool:
    for arg in config.args:
        if config.option.pyargs and arg.partition("::")[0].split(".")[0] == "conformance":
            return True
        path = (config.invocation_params.dir / arg.partition("::")[0]).resolve()
        if path == suite_dir or suite_dir in path.parents:
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Register markers and Hypothesis profiles, read the settings and baseline, add the suite if asked.

    First of all plugins: Hypothesis's own ``pytest_configure`` loads ``--hypothesis-profile``, which
    may name one of ours.
    """
    config.addinivalue_line("markers", "toolharness: a conformance-suite test (added automatically).")
    config.addinivalue_line(
        "markers",
        f"{_isolation.HEAVY_MARKER}: a test that takes seconds (fresh interpreters, many subprocesses): dispatched first.",
    )
    config.addinivalue_line(
        "markers",
        "requirement(id, level): the requirement this test checks, e.g. requirement('PAIR-1', 'MUST').",
    )
    config.addinivalue_line(
        "markers", f"{REQUIRES_MARKER}(*capabilities): adapter capabilities the test needs; skipped without."
    )
    config.pluginmanager.register(InterruptedRunSnapshots(), "toolharness-interrupted-snapshots")
    settings = read_settings(config)
    if settings.conformance or _names_our_profile(config):
        _profiles.register_profiles()
    catalogue = load_catalogue()
    try:
        in_scope = catalogue.select(settings.requirements) if settings.requirements else list(catalogue)
    except ValueError as exc:
        raise pytest.UsageError(f"--toolharness-requirement: {exc}") from None
    if settings.level is RunLevel.MUST:
        if settings.requirements and in_scope and not any(r.level is Level.MUST for r in in_scope):
            raise pytest.UsageError(
                f"--toolharness-requirement {' '.join(settings.requirements)} selects only SHOULD "
                "requirements, and --toolharness-level=must runs MUST ones only: nothing would be "
                "checked (use --toolharness-level=should)"
            )
        in_scope = [r for r in in_scope if r.level is Level.MUST]
    baseline = load_baseline(settings.baseline, catalogue) if settings.baseline is not None else ()
    suite_dir = suite_directory(settings) if settings.conformance else None
    # Appending to config.args before collection adds the suite beside the user's testpaths or
    # arguments, and works when the project has no tests at all (args is then the invocation dir).
    if suite_dir is not None and not _covers_suite(config, suite_dir):
        config.args.append(str(suite_dir))
    report = RunReport(catalogue, settings.level, in_scope, baseline, target=settings.target or None)
    config.stash[RUN_STATE] = RunState(settings, catalogue, report, suite_dir)
    old_format = sorted({e.id for e in baseline if e.test is None})
    if old_format:
        config.stash[RUN_STATE].notes.append(
            f"baseline {settings.baseline}: entries without 'test' stand for any test of "
            f"{', '.join(old_format)} (deprecated: name the failing test, and optionally its 'match')"
        )
    if settings.default_baseline:
        config.stash[RUN_STATE].notes.append(
            f"baseline: the target's packaged {settings.baseline} (give --toolharness-baseline to use another)"
        )
    if not _is_worker(config):
        config.pluginmanager.register(_Recorder(config.stash[RUN_STATE]), "toolharness-recorder")
        workdirs = kept_workdirs(config, settings) if settings.target else None
        if workdirs is not None:
            config.stash[RUN_STATE].notes.append(
                f"wire workdirs kept in {workdirs} (per scenario: settings, MCP config, logs, "
                "the target's output, every request body under requests/)"
            )
            config.pluginmanager.register(_WorkdirsToWorkers(workdirs), "toolharness-workdirs")
    if suite_dir is not None:
        _isolation.configure(
            config, settings, lambda nodeid: _requirements_of_test(report, nodeid), load_adapter_before
        )


class _WorkdirsToWorkers:
    """Hands each xdist worker the folder the kept wire workdirs go to (controller side)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Put the folder in the worker's ``workerinput``."""
        node.workerinput[WORKDIRS_KEY] = str(self.root)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say, above the run, what the suite runs against: the adapter, the profiles in scope, the level."""
    state = config.stash.get(RUN_STATE, None)
    if state is None or (state.suite_dir is None and not state.settings.requirements):
        return []
    adapter = choose_adapter_source(config, state.settings).description
    profiles = ", ".join(p for p in PROFILES if any(r.profile == p for r in state.report.in_scope))
    baseline = f"; baseline {state.settings.baseline}" if state.settings.baseline is not None else ""
    return [
        f"toolharness: adapter {adapter}; profiles {profiles} (those the adapter claims are judged); "
        f"level {state.settings.level.value}{baseline}"
    ]


def _names_our_profile(config: pytest.Config) -> bool:
    name = config.getoption("hypothesis_profile", None)
    return isinstance(name, str) and name in _profiles.PROFILES


def pytest_sessionstart(session: pytest.Session) -> None:
    """When the suite runs, load its Hypothesis profile unless the user chose one."""
    state = session.config.stash.get(RUN_STATE, None)
    if state is not None and state.suite_dir is not None:
        previous = _profiles.load_suite_profile()
        session.config.add_cleanup(lambda: _profiles.restore_profile(previous))


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Collect the suite even when it is installed in a virtualenv inside the project.

    pytest skips virtualenvs and dot-directories (``.venv``) when it walks a directory, and it walks
    the project's directory on the way to the suite's: the directories between are let through, and
    anything else in an ignored directory on that way stays ignored.
    """
    state = config.stash.get(RUN_STATE, None)
    if state is None or state.suite_dir is None:
        return None
    suite = state.suite_dir
    path = collection_path.resolve()
    if path == suite or suite in path.parents:
        return None
    if path in suite.parents:
        return False
    root = config.rootpath.resolve()
    below_root = [d for d in reversed(suite.parents) if root in d.parents]
    gate = next((d for d in below_root if _skipped_by_default(config, d)), None)
    if gate is not None and gate in path.parents:
        return True
    return None


def _skipped_by_default(config: pytest.Config, directory: Path) -> bool:
    if (directory / "pyvenv.cfg").is_file():
        return True
    patterns = [str(p) for p in config.getini("norecursedirs")]
    return any(fnmatch.fnmatch(directory.name, p) for p in patterns if "/" not in p)


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Tag requirement tests, record their IDs as JUnit properties, and deselect out-of-scope ones."""
    state = config.stash[RUN_STATE]
    in_scope = {r.id for r in state.report.in_scope}
    problems: list[str] = []
    kept: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        in_suite = state.suite_dir is not None and state.suite_dir in item.path.resolve().parents
        try:
            ids = item_requirement_ids(item, state.catalogue)
            missing_capabilities(item, frozenset())
        except (ValueError, TypeError) as exc:
            problems.append(str(exc))
            continue
        if in_suite and not ids:
            problems.append(f"{item.nodeid}: a conformance test needs @pytest.mark.requirement(id, level)")
        if in_suite or ids:
            item.add_marker("toolharness")
        if in_suite:
            # The suite's verdicts must not depend on the host project's warning filters (its
            # ``filterwarnings = error`` turns a dependency's DeprecationWarning into a failed
            # requirement): first of the item's marks, so the suite's own marks still win over it.
            item.add_marker(pytest.mark.filterwarnings(*SUITE_WARNING_FILTERS), append=False)
        for requirement_id in ids:
            if ("requirement", requirement_id) not in item.user_properties:
                item.user_properties.append(("requirement", requirement_id))
        mark_baselined(item, ids, state.report.baseline)
        if ids and not in_scope.intersection(ids):
            deselected.append(item)
        else:
            kept.append(item)
        state.seen_requirement_tests = state.seen_requirement_tests or bool(ids)
    if problems:
        raise pytest.UsageError("toolharness: invalid conformance tests:\n  " + "\n  ".join(problems))
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On a failed requirement test, say which requirement broke, in our words, and how to rerun it.

    The section lists the first line of each distinct error (Hypothesis may find several), the
    requirement with a pointer to its entry in the project's catalogue, and a command that reruns
    this test alone (its report then lists only the requirements it reran).
    """
    report = yield
    judge_baselined(item, call, report)
    if report.passed and call.when == "call":
        examples = passing_examples(item)
        if examples:
            report.toolharness_examples = examples  # type: ignore[attr-defined]
    fault = suite_fault(item, call) if report.failed else None
    if fault is not None:
        # Read by the run report (and carried to the xdist controller with the report).
        report.toolharness_fault = fault.describe()  # type: ignore[attr-defined]
        report.sections.append(
            (
                "toolharness error",
                f"not a failure of the harness under test: the suite or the adapter is at fault\n"
                f"  raised in {fault.where}: {fault.error}",
            )
        )
    if report.failed and call.when == "call":
        state = item.config.stash.get(RUN_STATE, None)
        ids = [str(value) for key, value in item.user_properties if key == "requirement"]
        errors = distinct_errors(call.excinfo.value) if call.excinfo is not None else []
        if len(errors) > 1:
            # Read by the run report (and carried to the xdist controller with the report).
            report.toolharness_errors = errors  # type: ignore[attr-defined]
        if state is not None and ids:
            lines = []
            if len(errors) > 1:
                lines.append(f"{len(errors)} distinct errors:")
                lines.extend(f"  {error}" for error in errors)
            for requirement_id in ids:
                requirement = state.catalogue[requirement_id]
                lines.append(f"{requirement.id} ({requirement.level.value}): {requirement.title}")
                lines.append(f'  spec: {catalogue_location()} (id = "{requirement.id}")')
            lines.append(f"reproduce: {_rerun_command(item, state)}")
            report.sections.append(("toolharness requirement", "\n".join(lines)))
    return report


def _rerun_command(item: pytest.Item, state: RunState) -> str:
    adapter = choose_adapter_source(item.config, state.settings)
    adapter_option = f"--toolharness-adapter={adapter.spec} " if adapter.spec else ""
    if adapter.target is not None:
        adapter_option = f"--toolharness-target={shlex.quote(adapter.target)} "
    # An absolute path: the suite may be installed in site-packages, away from where the user is.
    node = str(item.path) + item.nodeid[len(item.nodeid.partition("::")[0]) :]
    if _profiles.has_database():
        how = "Hypothesis replays the failing example from its database, and prints it above"
    else:
        how = (
            "this profile keeps no example database: Hypothesis finds the example again, or "
            "replays the @reproduce_failure line printed above"
        )
    return f"pytest --toolharness-conformance {adapter_option}{shlex.quote(node)} ({how})"


# The workeroutput key of the adapter's declarations: a worker sends what it built, so that the
# controller does not import the harness (seconds of CPU, at the end of the run) only to read them.
_DECLARATIONS_KEY = "toolharness_declarations"


class _Recorder:
    """Feeds test reports to the run report; registered on the controller only (not xdist workers)."""

    def __init__(self, state: RunState) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Under xdist the controller receives every worker's reports here, with their user_properties."""
        self.state.report.record(report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """Keep the adapter's declarations a worker sent (a crashed worker sends none)."""
        declared = getattr(node, "workeroutput", {}).get(_DECLARATIONS_KEY)
        if isinstance(declared, dict) and self.state.declared_by_worker is None:
            self.state.declared_by_worker = (
                frozenset(declared["profiles"]),
                dict(declared["not_applicable"]),
            )


def _declarations_to_controller(config: pytest.Config) -> None:
    """On a worker that built the adapter: put its declarations in ``workeroutput``."""
    adapter = built_adapter(config)
    output: dict[str, Any] | None = getattr(config, "workeroutput", None)
    if adapter is None or output is None:
        return
    description = repr(choose_adapter_source(config, config.stash[RUN_STATE].settings).description)
    output[_DECLARATIONS_KEY] = {
        "profiles": sorted(adapter_profiles(adapter, description)),
        "not_applicable": adapter_not_applicable(adapter, description),
    }


def _active(state: RunState) -> bool:
    s = state.settings
    return bool(
        s.conformance
        or s.report
        or s.baseline
        or s.requirements
        or state.report.tests
        or state.seen_requirement_tests
    )


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Build the report, write it, and set the exit status from the requirement levels."""
    config = session.config
    if RUN_STATE not in config.stash:
        return
    if _is_worker(config):
        _declarations_to_controller(config)
        return
    state = config.stash[RUN_STATE]
    if not _active(state):
        return
    report = state.report
    _declarations_into(report, config, state)
    state.results = report.results()
    if _narrowed(config):
        # A rerun of some tests reports on what it reran, not on the whole catalogue.
        state.results = [r for r in state.results if r.tests]
    adapter = choose_adapter_source(config, state.settings).description
    into_junitxml(config, state.results)
    if state.settings.report is not None:
        state.settings.report.parent.mkdir(parents=True, exist_ok=True)
        state.settings.report.write_text(report_json(state.results, adapter, report.level), encoding="utf-8")
        state.notes.append(f"report written to {state.settings.report}")
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        with open(summary_path, "a", encoding="utf-8") as summary:
            summary.write(markdown_summary(state.results, adapter, report.level))
    failing = [r.requirement.id for r in state.results if r.fails_run]
    if report.suite_faults:
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        state.notes.append(
            f"exit status {int(session.exitstatus)}: {len(report.suite_faults)} test(s) hit a fault of the "
            "suite or the adapter, not of the harness under test (status error): "
            + "; ".join(report.suite_faults[:5])
        )
    if (
        session.exitstatus == pytest.ExitCode.TESTS_FAILED
        and report.forgivable_failures
        and not report.unforgivable_failures
        and report.forgivable_failures == session.testsfailed
        and not failing
    ):
        session.exitstatus = pytest.ExitCode.OK
        state.notes.append(
            "exit status 0: the only failures are SHOULD-level (non-strict) or baselined requirements; "
            "the failing tests are still listed as failed above"
        )
    elif failing and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        state.notes.append(f"exit status 1: failing requirement(s): {', '.join(failing)}")
    if session.exitstatus == pytest.ExitCode.OK and (
        state.suite_dir is not None or state.settings.requirements
    ):
        _fail_if_nothing_checked(session, state)


def _fail_if_nothing_checked(session: pytest.Session, state: RunState) -> None:
    """A run of the suite that checked no requirement is not a pass."""
    outcomes = state.report.tests.values()
    if any(o.status in ("passed", "failed", "xfailed") for o in outcomes):
        return
    if not outcomes:
        session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
        where = f" from {state.suite_dir}" if state.suite_dir is not None else ""
        state.notes.append(
            f"exit status 5: no requirement test was collected{where}, so nothing was checked "
            "(check the paths, -k/-m and --toolharness-requirement given)"
        )
    else:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        state.notes.append(
            "exit status 1: nothing was checked: every requirement test was skipped (see the reasons "
            "above; an adapter declaring no capabilities checks nothing)"
        )


def _narrowed(config: pytest.Config) -> bool:
    """Whether this run picks some tests (node IDs, -k, -m, --lf) rather than running whole paths."""
    option = config.option
    picked = any("::" in str(arg) for arg in config.args)
    return bool(picked or option.keyword or option.markexpr or getattr(option, "lf", False))


def _requirements_of_test(report: RunReport, nodeid: str) -> list[str]:
    outcome = report.tests.get(nodeid)
    return list(outcome.requirement_ids) if outcome is not None else []


def _declarations_into(report: RunReport, config: pytest.Config, state: RunState) -> None:
    """Give the report the adapter's claimed profiles and not-applicable declarations (controller side)."""
    if report.claimed is not None:
        return
    if state.declared_by_worker is not None:
        report.claimed, declared = state.declared_by_worker
    else:
        try:
            adapter, source = load_adapter(config, state.settings)
        except AdapterLoadError:
            return  # every test that needed it failed with the reason already
        description = repr(source.description)
        report.claimed = adapter_profiles(adapter, description)
        declared = adapter_not_applicable(adapter, description)
    unknown = sorted(set(declared) - {r.id for r in state.catalogue})
    if unknown:
        state.notes.append(f"not_applicable names unknown requirement(s): {', '.join(unknown)}")
    report.not_applicable = {k: v for k, v in declared.items() if k not in unknown}


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Print the per-requirement table."""
    state = config.stash.get(RUN_STATE, None)
    if state is None or (not state.results and not state.notes):
        return
    adapter = choose_adapter_source(config, state.settings).description
    terminalreporter.write_sep("=", f"toolharness conformance: {adapter}")
    for line in terminal_lines(state.results, state.catalogue, state.report.level):
        terminalreporter.write_line(line)
    for note in state.notes:
        terminalreporter.write_line(f"toolharness: {note}")
