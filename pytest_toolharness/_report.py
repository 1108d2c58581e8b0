"""The per-requirement report: outcomes of the tests folded into one status per requirement.

Test outcomes arrive through ``pytest_runtest_logreport``. Under pytest-xdist the controller receives
every worker's reports (with their ``user_properties``, which carry the requirement IDs), so the
report is built on the controller only and there is one merged report.

A requirement of a profile the adapter does not claim is "not claimed". Otherwise, with several tests,
it is failed if any failed, passed only if all of them ran and passed, "partially checked" (naming
what did not run and why) if some passed and others were skipped, and not checked if all were skipped
(or none ran). At the strict level a MUST that was not fully checked fails the run, unless the adapter
declares it not applicable with a reason, which the report shows. A baselined requirement that fails is an expected failure;
one that passes is a stale baseline entry, which fails the run so the baseline shrinks as fixes land.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import pytest

from pytest_toolharness._baselines import BaselineEntry
from pytest_toolharness._options import RunLevel
from pytest_toolharness._requirements import Catalogue, Level, Requirement

__all__ = [
    "FailingTest",
    "RequirementResult",
    "RunReport",
    "Status",
    "catalogue_location",
    "distinct_errors",
    "falsifying_example",
    "passing_examples",
    "report_reason",
]


class Status(enum.Enum):
    """A requirement's status in the report."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    PARTIALLY_CHECKED = "partially checked"
    NOT_CHECKED = "not checked"
    NOT_APPLICABLE = "not applicable"
    NOT_CLAIMED = "not claimed"
    EXPECTED_FAILURE = "expected failure"
    STALE_BASELINE = "stale baseline entry"


@dataclass(frozen=True)
class FailingTest:
    """A test of a requirement that did not pass: how it ended, its minimal example, the bytes that break the rule."""

    nodeid: str
    status: str
    """``failed``, ``error`` (the suite's or the adapter's fault) or ``xfailed`` (baselined)."""
    example: str = ""
    """The minimal failing example Hypothesis printed (``Falsifying example: ...``); empty for a plain test."""
    failure: str = ""
    """The failure's message: the check's verdict, quoting the bytes that break the rule."""


@dataclass(frozen=True)
class RequirementResult:
    """One row of the report."""

    requirement: Requirement
    status: Status
    reason: str
    tests: int
    fails_run: bool
    evidence: str = ""
    """What the verdict rests on: the tests that ran, where, and those that can't apply here."""
    test_ids: tuple[str, ...] = ()
    failing: tuple[FailingTest, ...] = ()
    """Every test of the requirement that failed, errored or failed as baselined, in node ID order."""


def catalogue_location() -> str:
    """Where the requirement catalogue, the project's own statement of each requirement, is installed."""
    return str(resources.files("conformance").joinpath("requirements.toml"))


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def distinct_errors(exc: BaseException) -> list[str]:
    """The first line of each distinct error in ``exc`` (an exception group is opened, recursively).

    A Hypothesis test that finds several distinct failures raises an ``ExceptionGroup``, whose own
    message ("Hypothesis found 2 distinct failures") says nothing about any of them.
    """
    if isinstance(exc, BaseExceptionGroup):
        found = [line for sub in exc.exceptions for line in distinct_errors(sub)]
        return list(dict.fromkeys(found))
    line = _first_line(str(exc))
    return [f"{type(exc).__name__}: {line}" if line else type(exc).__name__]


def report_reason(report: pytest.TestReport) -> str:
    """What explains a report: the skip reason, the xfail reason or the failure.

    One line, except for a failure with several distinct errors: one line each.
    """
    name = report.nodeid.rpartition("::")[2] or report.nodeid
    errors = getattr(report, "toolharness_errors", None)
    if report.failed and isinstance(errors, list) and errors:
        phase = "" if report.when == "call" else f"error in {report.when}: "
        return "\n".join([f"{name}: {phase}{len(errors)} distinct errors: {errors[0]}", *errors[1:]])
    if hasattr(report, "wasxfail"):
        return f"{name}: xfail: {report.wasxfail}" if report.wasxfail else f"{name}: xfail"
    longrepr = report.longrepr
    if report.skipped:
        if isinstance(longrepr, tuple) and len(longrepr) == 3:
            return str(longrepr[2]).removeprefix("Skipped: ")
        return "skipped"
    message = ""
    crash: Any = getattr(longrepr, "reprcrash", None)
    if crash is not None and crash.message:
        message = str(crash.message)
    else:
        # A plain-text report (pytest.fail(pytrace=False), a crashed or hung xdist worker) leads with
        # what happened; a traceback ends with it.
        text = longrepr if isinstance(longrepr, str) else report.longreprtext
        lines = [line for line in text.splitlines() if line.strip()]
        message = (lines[0] if isinstance(longrepr, str) else lines[-1]) if lines else "failed"
    first = message.strip().splitlines()[0] if message.strip() else "failed"
    phase = "" if report.when == "call" else f"error in {report.when}: "
    return f"{name}: {phase}{first}"


_FAILURE_LIMIT = 4000
"""Characters of a failure's message kept in the report (a wire check quotes whole request bodies)."""


_EXAMPLE_START = re.compile(r"^(?:Falsifying|Failing) (?:explicit )?(?:example|test case):")


def _example_blocks(text: str) -> list[tuple[int, int]]:
    """Where Hypothesis's minimal examples are in ``text``: (first line, end line) of each block."""
    lines = text.splitlines()
    blocks: list[tuple[int, int]] = []
    for index, line in enumerate(lines):
        if _EXAMPLE_START.match(line):
            end = index + 1
            # The call (``test(\n    n=7,\n)``) or the stateful steps, up to a blank line.
            while end < len(lines) and lines[end].strip() and not _EXAMPLE_START.match(lines[end]):
                end += 1
            blocks.append((index, end))
    return blocks


def falsifying_example(text: str) -> str:
    """Hypothesis's minimal failing example(s) in a failure's message, as printed.

    Hypothesis adds it to the exception's notes: ``Failing test case: test(...)`` (``Falsifying
    example:`` before 6.1xx; ``explicit`` for an ``@example``). Empty for a plain test.
    """
    lines = text.splitlines()
    found = ["\n".join(lines[start:end]).rstrip() for start, end in _example_blocks(text)]
    return "\n".join(dict.fromkeys(found))


def _failure_message(report: pytest.TestReport) -> tuple[str, str]:
    """The failure's own message (the check's text, quoting the bytes) and its minimal example, apart.

    The message is clipped to :data:`_FAILURE_LIMIT`; the example is taken out of it.
    """
    crash: Any = getattr(report.longrepr, "reprcrash", None)
    text = str(crash.message) if crash is not None and crash.message else report.longreprtext
    example = falsifying_example(text)
    lines = text.splitlines()
    for start, end in reversed(_example_blocks(text)):
        del lines[start:end]
    message = "\n".join(
        line for line in lines if not line.startswith("You can reproduce this test case")
    ).strip()
    errors = getattr(report, "toolharness_errors", None)
    if isinstance(errors, list) and errors:
        # An exception group's own message ("Hypothesis found 2 distinct failures") quotes nothing.
        message = "\n".join([*errors, message])
    clipped = message if len(message) <= _FAILURE_LIMIT else message[: _FAILURE_LIMIT - 1] + "…"
    return clipped, example


@dataclass
class _TestOutcome:
    requirement_ids: tuple[str, ...]
    status: str = "none"  # "passed", "failed", "skipped", "xfailed"
    reason: str = ""
    not_run: str = ""  # why a skipped suite test did not run: "profile" or "capability"
    nodeid: str = ""
    examples: int = 0  # the property examples that passed (Hypothesis's statistics), when known
    stale: bool = False  # a baselined test that passed
    example: str = ""  # Hypothesis's falsifying example of a failure
    failure: str = ""  # the failure's message

    def note_failure(self, report: pytest.TestReport) -> None:
        """Keep what shows why this test failed: the minimal example and the message."""
        self.failure, self.example = _failure_message(report)


@dataclass
class RunReport:
    """Collects outcomes during the run and turns them into the per-requirement report."""

    catalogue: Catalogue
    level: RunLevel
    in_scope: list[Requirement]
    baseline: tuple[BaselineEntry, ...] = ()
    tests: dict[str, _TestOutcome] = field(default_factory=dict)
    forgivable_failures: int = 0
    unforgivable_failures: int = 0
    suite_faults: list[str] = field(default_factory=list)
    """Each failure that is the suite's or the adapter's fault (node ID: where and what)."""
    claimed: frozenset[str] | None = None
    """The profiles the adapter claims (None: unknown, e.g. the adapter did not load)."""
    not_applicable: Mapping[str, str] = field(default_factory=dict)
    """Requirement ID -> why the adapter says it can't apply to its harness."""
    target: str | None = None
    """The wire target the run is against (None: an adapter in-process)."""

    def _evidence(self, ran: list[_TestOutcome], cannot_apply: list[_TestOutcome]) -> str:
        """What a verdict rests on: "3 wire tests against opencode", "120 property examples in 2 tests in-process"."""
        count = f"{len(ran)} {'test' if len(ran) == 1 else 'tests'}"
        examples = sum(o.examples for o in ran)
        if self.target is not None:
            text = f"{len(ran)} wire {'test' if len(ran) == 1 else 'tests'} against {self.target}"
        elif examples:
            text = f"{examples} property examples in {count} in-process"
        else:
            text = f"{count} in-process"
        if cannot_apply:
            # "not checked: adapter lacks capability a, b" -> the capabilities, once each.
            lacking = sorted(
                {
                    c.strip()
                    for o in cannot_apply
                    for c in o.reason.partition("lacks capability ")[2].split(",")
                }
                - {""}
            )
            what = "s" if len(cannot_apply) > 1 else ""
            text += f"; {len(cannot_apply)} more test{what} can't apply here (need {', '.join(lacking)})"
        return text

    def is_forgivable(self, requirement_id: str) -> bool:
        """Whether a failure of this requirement leaves the run green (SHOULD non-strict, or baselined)."""
        if any(e.id == requirement_id and e.test is None for e in self.baseline):
            return True  # an old-format entry: any test of the requirement
        requirement = self.catalogue[requirement_id]
        return requirement.level is Level.SHOULD and self.level is not RunLevel.STRICT

    def record(self, report: pytest.TestReport) -> None:
        """Fold one phase report of a requirement-tagged test into its outcome."""
        ids = tuple(
            str(value)
            for name, value in report.user_properties
            if name == "requirement" and value in self.catalogue
        )
        if not ids:
            return
        outcome = self.tests.setdefault(report.nodeid, _TestOutcome(ids, nodeid=report.nodeid))
        fault = getattr(report, "toolharness_fault", None)
        if report.failed and hasattr(report, "toolharness_stale"):
            # A baselined test that passed (pytest's strict XPASS): its entry is stale.
            outcome.status, outcome.stale = "passed", True
            self.unforgivable_failures += 1
        elif report.failed and isinstance(fault, str):
            # The suite's or the adapter's fault: never the harness's failure, never forgiven.
            if outcome.status not in ("failed", "error"):
                name = report.nodeid.rpartition("::")[2] or report.nodeid
                outcome.status, outcome.reason = "error", f"{name}: {fault}"
                outcome.note_failure(report)
            self.suite_faults.append(f"{report.nodeid}: {fault}")
        elif report.failed:
            if outcome.status != "failed":
                outcome.status, outcome.reason = "failed", report_reason(report)
                outcome.note_failure(report)
            if all(self.is_forgivable(i) for i in ids):
                self.forgivable_failures += 1
            else:
                self.unforgivable_failures += 1
        elif outcome.status in ("failed", "error"):
            return
        elif hasattr(report, "wasxfail") and report.skipped:
            outcome.status, outcome.reason = "xfailed", report_reason(report)
            outcome.note_failure(report)
        elif report.skipped:
            outcome.status, outcome.reason = "skipped", report_reason(report)
            outcome.not_run = next(
                (str(v) for k, v in report.user_properties if k == "toolharness_not_run"), ""
            )
        elif report.when == "call" and outcome.status == "none":
            outcome.status = "passed"
            examples = getattr(report, "toolharness_examples", 0)
            outcome.examples = examples if isinstance(examples, int) else 0

    def stale_entries(self, requirement_id: str, outcomes: list[_TestOutcome]) -> list[BaselineEntry]:
        """The entries of this requirement whose tests ran and none failed as the entry expects."""
        stale = []
        for entry in (e for e in self.baseline if e.id == requirement_id and e.test is not None):
            named = [o for o in outcomes if entry.covers(o.nodeid, o.requirement_ids)]
            ran = [o for o in named if o.status in ("passed", "failed", "error", "xfailed")]
            if ran and not any(o.status == "xfailed" for o in named):
                stale.append(entry)
        return stale

    def _baselined(
        self, requirement: Requirement, outcomes: list[_TestOutcome], status: Status, reason: str
    ) -> tuple[Status, str]:
        """The status once the baseline is applied: expected failures, stale entries."""
        old = next((e for e in self.baseline if e.id == requirement.id and e.test is None), None)
        if old is not None and status is Status.FAILED:
            return Status.EXPECTED_FAILURE, f"baseline: {old.reason} ({reason})"
        if old is not None and status is Status.PASSED:
            return (
                Status.STALE_BASELINE,
                f"passed, but the baseline expects a failure ({old.reason}); remove the entry",
            )
        stale = self.stale_entries(requirement.id, outcomes)
        if stale and status is not Status.FAILED:
            named = "; ".join(f"{e.describe()}: {e.reason}" for e in stale)
            return (
                Status.STALE_BASELINE,
                f"the baseline expects a failure that did not happen ({named}); remove the entry",
            )
        return status, reason

    def results(self) -> list[RequirementResult]:
        """One result per requirement in scope, in catalogue order."""
        by_requirement: dict[str, list[_TestOutcome]] = {}
        for outcome in self.tests.values():
            for requirement_id in outcome.requirement_ids:
                by_requirement.setdefault(requirement_id, []).append(outcome)
        return [self._result(r, by_requirement.get(r.id, [])) for r in self.in_scope]

    def _result(self, requirement: Requirement, outcomes: list[_TestOutcome]) -> RequirementResult:
        def first(kind: str) -> str:
            return next(o.reason for o in outcomes if o.status == kind)

        # A test the adapter's capabilities rule out can't apply to this kind of target: the verdict
        # rests on the tests that can (a CLI over the wire is judged on the wire tests).
        cannot_apply = [o for o in outcomes if o.not_run == "capability"]
        applicable = [o for o in outcomes if o.not_run != "capability"] or outcomes
        statuses = {o.status for o in applicable}
        skipped = [o for o in applicable if o.status in ("skipped", "none")]
        ran = [o for o in applicable if o.status not in ("skipped", "none")]
        evidence = self._evidence(ran, cannot_apply if applicable is not outcomes else [])
        test_ids = tuple(sorted(o.nodeid for o in outcomes))
        unclaimed = (self.claimed is not None and requirement.profile not in self.claimed) or (
            bool(outcomes) and all(o.not_run == "profile" for o in outcomes)
        )
        if unclaimed:
            claims = ", ".join(sorted(self.claimed)) if self.claimed else "another profile"
            reason = f"profile {requirement.profile} is not claimed by the adapter (it claims {claims})"
            return RequirementResult(requirement, Status.NOT_CLAIMED, reason, len(outcomes), False)
        if "failed" in statuses:
            status, reason = Status.FAILED, first("failed")
        elif "error" in statuses:
            status, reason = Status.ERROR, first("error")
        elif "xfailed" in statuses:
            status, reason = Status.EXPECTED_FAILURE, first("xfailed")
        elif "passed" in statuses and skipped:
            not_run = "; ".join(o.reason or "did not run" for o in skipped)
            status = Status.PARTIALLY_CHECKED
            reason = f"{len(ran)} of {len(applicable)} tests ran and passed; not run: {not_run}"
        elif "passed" in statuses:
            status, reason = Status.PASSED, f"rests on {evidence}"
        elif "skipped" in statuses:
            status, reason = Status.NOT_CHECKED, first("skipped")
        else:
            status, reason = Status.NOT_CHECKED, "no test of this requirement ran"
        declared = self.not_applicable.get(requirement.id)
        if declared is not None and status is Status.NOT_CHECKED:
            status, reason = Status.NOT_APPLICABLE, f"the adapter says: {declared} ({reason})"
        elif declared is not None and status is Status.PARTIALLY_CHECKED:
            reason = f"{reason}; the adapter says the rest is not applicable: {declared}"
        status, reason = self._baselined(requirement, applicable, status, reason)
        unchecked_must = (
            self.level is RunLevel.STRICT
            and requirement.level is Level.MUST
            and status in (Status.NOT_CHECKED, Status.PARTIALLY_CHECKED)
            and declared is None
        )
        fails_run = (
            status in (Status.STALE_BASELINE, Status.ERROR)
            or (status is Status.FAILED and not self.is_forgivable(requirement.id))
            or unchecked_must
        )
        failing = tuple(
            FailingTest(o.nodeid, o.status, o.example, o.failure)
            for o in sorted(outcomes, key=lambda o: o.nodeid)
            if o.status in ("failed", "error", "xfailed")
        )
        return RequirementResult(
            requirement, status, reason, len(outcomes), fails_run, evidence, test_ids, failing
        )


def passing_examples(item: pytest.Item) -> int:
    """How many examples of a property test passed, from Hypothesis's statistics (0: not known)."""
    statistics = getattr(item, "hypothesis_statistics", None)
    if not isinstance(statistics, str):
        return 0
    return sum(int(n) for n in re.findall(r"(\d+) passing", statistics))
