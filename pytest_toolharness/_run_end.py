"""The run's end: the per-requirement verdicts built, written (JSON, JUnit XML, CI summary, console) and the exit status.

The report is built on the controller (under xdist, from every worker's reports); the adapter's
declarations (profiles claimed, requirements not applicable) come from a worker that built it, or
are read here when no worker did. The exit status follows the requirement levels: a suite or adapter
fault fails the run as such, SHOULD-level and baselined failures alone leave it green, and a run of
the suite that checked nothing is not a pass.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest

from pytest_toolharness._adapter_loading import choose_adapter_source, load_adapter
from pytest_toolharness._fixtures import built_adapter
from pytest_toolharness._report_output import (
    failing_tests_lines,
    into_junitxml,
    markdown_summary,
    report_json,
    terminal_lines,
)
from pytest_toolharness._run_state import RUN_STATE, RunState
from pytest_toolharness.adapters import AdapterLoadError, adapter_not_applicable, adapter_profiles

__all__ = ["keep_worker_declarations", "pytest_sessionfinish", "pytest_terminal_summary"]

# The workeroutput key of the adapter's declarations: a worker sends what it built, so that the
# controller does not import the harness (seconds of CPU, at the end of the run) only to read them.
_DECLARATIONS_KEY = "toolharness_declarations"


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def keep_worker_declarations(state: RunState, node: Any) -> None:
    """Keep the adapter's declarations a worker sent (controller side; a crashed worker sends none)."""
    declared = getattr(node, "workeroutput", {}).get(_DECLARATIONS_KEY)
    if isinstance(declared, dict) and state.declared_by_worker is None:
        state.declared_by_worker = (frozenset(declared["profiles"]), dict(declared["not_applicable"]))


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


def _declarations_into(config: pytest.Config, state: RunState) -> None:
    """Give the report the adapter's claimed profiles and not-applicable declarations (controller side)."""
    report = state.report
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


def _narrowed(config: pytest.Config) -> bool:
    """Whether this run picks some tests (node IDs, -k, -m, --lf) rather than running whole paths."""
    option = config.option
    picked = any("::" in str(arg) for arg in config.args)
    return bool(picked or option.keyword or option.markexpr or getattr(option, "lf", False))


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> Generator[None, None, None]:
    """Build the report and write it before the other plugins finish; then set the exit status.

    Before: the JUnit XML writer (its own ``pytest_sessionfinish``) must find each requirement's
    status among its properties. After: syrupy ORs the exit status it was called with back into the
    session's, which would undo a rewrite made before it. Innermost of the wrappers, so that the
    terminal summary, printed after, has the notes.
    """
    config = session.config
    state = config.stash.get(RUN_STATE, None)
    if state is None or _is_worker(config):
        if state is not None:
            _declarations_to_controller(config)
        return (yield)
    if _active(state):
        _write_report(config, state)
    result = yield
    if _active(state):
        _set_exit_status(session, state)
    return result


def _write_report(config: pytest.Config, state: RunState) -> None:
    """Build the per-requirement report; write the JSON, the CI summary, the JUnit XML properties."""
    report = state.report
    _declarations_into(config, state)
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


def _set_exit_status(session: pytest.Session, state: RunState) -> None:
    report = state.report
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


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    """Print the per-requirement table, then every failing test of each requirement with its example."""
    state = config.stash.get(RUN_STATE, None)
    if state is None or (not state.results and not state.notes):
        return
    adapter = choose_adapter_source(config, state.settings).description
    terminalreporter.write_sep("=", f"toolharness conformance: {adapter}")
    for line in terminal_lines(state.results, state.catalogue, state.report.level):
        terminalreporter.write_line(line)
    failing = failing_tests_lines(state.results)
    if failing:
        terminalreporter.write_sep("-", "failing tests by requirement (minimal example, what broke the rule)")
        for line in failing:
            terminalreporter.write_line(line)
    for note in state.notes:
        terminalreporter.write_line(f"toolharness: {note}")
