"""The plugin at work: what runs once a run asks for it (the suite, an option, a requirement test).

The entry point (:mod:`pytest_toolharness.plugin`) imports nothing of this until then, so that a
project that installs the package but doesn't use it pays nothing. :func:`start` reads the catalogue
and baseline and registers the hooks: this module's (the report header, the suite's Hypothesis
profile, what a failed requirement test's report says), ``_collection``'s (what is collected, and how
it is marked) and ``_run_end``'s (the verdicts, the report, the exit status).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

import pytest_toolharness._collection as _collection
import pytest_toolharness._isolation as _isolation
import pytest_toolharness._profiles as _profiles
import pytest_toolharness._run_end as _run_end
from pytest_toolharness._adapter_loading import WORKDIRS_KEY, choose_adapter_source, kept_workdirs
from pytest_toolharness._baselines import judge_baselined, load_baseline
from pytest_toolharness._faults import suite_fault
from pytest_toolharness._fixtures import load_adapter_before
from pytest_toolharness._options import RunLevel, Settings, suite_directory
from pytest_toolharness._report import RunReport, catalogue_location, distinct_errors, passing_examples
from pytest_toolharness._requirements import PROFILES, Level, load_catalogue
from pytest_toolharness._run_state import RUN_STATE, RunState

__all__ = ["collect_items", "record", "start"]

collect_items = _collection.pytest_collection_modifyitems
"""Tag, scope, baseline and skip the collected requirement tests (the entry point's watcher calls it)."""


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _covers_suite(config: pytest.Config, suite_dir: Path) -> bool:
    for arg in config.args:
        if config.option.pyargs and arg.partition("::")[0].split(".")[0] == "conformance":
            return True
        path = (config.invocation_params.dir / arg.partition("::")[0]).resolve()
        if path == suite_dir or suite_dir in path.parents:
            return True
    return False


def _names_our_profile(config: pytest.Config) -> bool:
    name = config.getoption("hypothesis_profile", None)
    return isinstance(name, str) and name in _profiles.PROFILES


def start(config: pytest.Config, settings: Settings) -> None:
    """Start the plugin's work for this run: the catalogue in scope, the baseline, the suite, the report.

    Called from the entry point's ``pytest_configure`` (first of all plugins: Hypothesis's own
    ``pytest_configure`` loads ``--hypothesis-profile``, which may name one of ours) when the run asks
    for the plugin, or later, when a requirement test turns up; the hooks are then registered.
    """
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
    state = RunState(settings, catalogue, report, suite_dir)
    config.stash[RUN_STATE] = state
    old_format = sorted({e.id for e in baseline if e.test is None})
    if old_format:
        state.notes.append(
            f"baseline {settings.baseline}: entries without 'test' stand for any test of "
            f"{', '.join(old_format)} (deprecated: name the failing test, and optionally its 'match')"
        )
    if settings.default_baseline:
        state.notes.append(
            f"baseline: the target's packaged {settings.baseline} (give --toolharness-baseline to use another)"
        )
    for module, name in (
        (_collection, "toolharness-collection"),
        (_run_end, "toolharness-run-end"),
        (sys.modules[__name__], "toolharness-session"),
    ):
        config.pluginmanager.register(module, name)
    if not _is_worker(config):
        config.pluginmanager.register(_Recorder(state), "toolharness-recorder")
        workdirs = kept_workdirs(config, settings) if settings.target else None
        if workdirs is not None:
            state.notes.append(
                f"wire workdirs kept in {workdirs} (per scenario: settings, MCP config, logs, "
                "the target's output, every request body under requests/)"
            )
            config.pluginmanager.register(_WorkdirsToWorkers(workdirs), "toolharness-workdirs")
    if suite_dir is not None:
        _isolation.configure(
            config, settings, lambda nodeid: _requirements_of_test(report, nodeid), load_adapter_before
        )


def record(config: pytest.Config, report: pytest.TestReport) -> None:
    """Feed one test report to the run report (the entry point's watcher: the first one it sees)."""
    config.stash[RUN_STATE].report.record(report)


def _requirements_of_test(report: RunReport, nodeid: str) -> list[str]:
    outcome = report.tests.get(nodeid)
    return list(outcome.requirement_ids) if outcome is not None else []


class _WorkdirsToWorkers:
    """Hands each xdist worker the folder the kept wire workdirs go to (controller side)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Put the folder in the worker's ``workerinput``."""
        node.workerinput[WORKDIRS_KEY] = str(self.root)


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
        _run_end.keep_worker_declarations(self.state, node)


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


def pytest_sessionstart(session: pytest.Session) -> None:
    """When the suite runs, load its Hypothesis profile unless the user chose one.

    Under any profile, draw no constants from the project's source: a draw never depends on the test order.
    """
    state = session.config.stash.get(RUN_STATE, None)
    if state is not None and state.suite_dir is not None:
        previous = _profiles.load_suite_profile()
        session.config.add_cleanup(lambda: _profiles.restore_profile(previous))
        session.config.add_cleanup(_profiles.drop_local_constants())


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On a failed requirement test, say who is at fault, which requirement broke, and how to rerun it.

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
    expected = hasattr(report, "wasxfail") and report.skipped
    if (report.failed or expected) and call.when == "call":
        errors = distinct_errors(call.excinfo.value) if call.excinfo is not None else []
        if len(errors) > 1:
            # Read by the run report (and carried to the xdist controller with the report): an
            # expected failure's group is opened too, so the report shows each error's bytes.
            report.toolharness_errors = errors  # type: ignore[attr-defined]
    if report.failed and call.when == "call":
        state = item.config.stash.get(RUN_STATE, None)
        ids = [str(value) for key, value in item.user_properties if key == "requirement"]
        errors = getattr(report, "toolharness_errors", [])
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
