"""The report's outputs: the console table with every failing test under its requirement, the JSON, the CI summary, JUnit XML.

Each shows every requirement's status and what it rests on; the console and the JSON also list each
failing test of a requirement with its minimal example (Hypothesis's falsifying example) and the
failure's message, which quotes the bytes that break the rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest
from _pytest.junitxml import xml_key

from pytest_toolharness._options import RunLevel
from pytest_toolharness._report import FailingTest, RequirementResult, Status
from pytest_toolharness._requirements import PROFILES, Catalogue

__all__ = ["failing_tests_lines", "into_junitxml", "markdown_summary", "report_json", "terminal_lines"]


def _summary(results: Iterable[RequirementResult], level: RunLevel) -> dict[str, Any]:
    results = list(results)
    counts = {status: sum(1 for r in results if r.status is status) for status in Status}
    return {
        "level": level.value,
        "requirements": len(results),
        "passed": counts[Status.PASSED],
        "failed": counts[Status.FAILED],
        "error": counts[Status.ERROR],
        "partially_checked": counts[Status.PARTIALLY_CHECKED],
        "not_checked": counts[Status.NOT_CHECKED],
        "not_applicable": counts[Status.NOT_APPLICABLE],
        "not_claimed": counts[Status.NOT_CLAIMED],
        "expected_failure": counts[Status.EXPECTED_FAILURE],
        "stale_baseline_entry": counts[Status.STALE_BASELINE],
        "failing_run": any(r.fails_run for r in results),
    }


def _by_profile(results: list[RequirementResult]) -> list[tuple[str, list[RequirementResult]]]:
    return [
        (profile, rows)
        for profile in PROFILES
        if (rows := [r for r in results if r.requirement.profile == profile])
    ]


def report_json(results: list[RequirementResult], adapter: str, level: RunLevel) -> str:
    """The JSON report, in catalogue order, as text ending with a newline; a summary per profile too."""
    document = {
        "adapter": adapter,
        "profiles": {
            profile: {
                "claimed": any(r.status is not Status.NOT_CLAIMED for r in rows),
                "summary": _summary(rows, level),
            }
            for profile, rows in _by_profile(results)
        },
        "requirements": [
            {
                "id": r.requirement.id,
                "level": r.requirement.level.value,
                "profile": r.requirement.profile,
                "area": r.requirement.area,
                "title": r.requirement.title,
                "status": r.status.value,
                "reason": r.reason,
                "tests": r.tests,
                "evidence": r.evidence,
                "test_ids": list(r.test_ids),
                "failing_tests": [_failing_json(f) for f in r.failing],
            }
            for r in results
        ],
        "summary": _summary(results, level),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _failing_json(test: FailingTest) -> dict[str, str | None]:
    return {
        "test": test.nodeid,
        "status": test.status,
        "falsifying_example": test.example or None,
        "failure": test.failure,
    }


def _counts_line(results: list[RequirementResult], level: RunLevel) -> str:
    summary = _summary(results, level)
    # Passed and failed always; the other statuses only when some requirement has them.
    parts = [f"{summary['passed']} passed", f"{summary['failed']} failed"]
    for key, label in (
        ("error", "error (suite or adapter at fault)"),
        ("partially_checked", "partially checked"),
        ("not_checked", "not checked"),
        ("not_applicable", "not applicable"),
        ("not_claimed", "not claimed"),
        ("expected_failure", "expected failure(s)"),
    ):
        if summary[key]:
            parts.append(f"{summary[key]} {label}")
    stale = summary["stale_baseline_entry"]
    if stale:
        parts.append(f"{stale} stale baseline entr{'y' if stale == 1 else 'ies'}")
    return f"{', '.join(parts)} (level: {level.value})"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def terminal_lines(results: list[RequirementResult], catalogue: Catalogue, level: RunLevel) -> list[str]:
    """The terminal table: grouped by profile, then by area, one line per requirement.

    A profile the adapter does not claim is one line, not a row per requirement: it was not judged.
    """
    lines: list[str] = []
    id_width = max((len(r.requirement.id) for r in results), default=6)
    status_width = max(len(s.value) for s in Status)
    for profile, rows in _by_profile(results):
        if all(r.status is Status.NOT_CLAIMED for r in rows):
            lines.append(f"profile {profile}: not claimed ({len(rows)} requirements not judged)")
            continue
        lines.append(f"profile {profile}: {_counts_line(rows, level)}")
        area = None
        for r in rows:
            if r.requirement.area != area:
                area = r.requirement.area
                lines.append(f"  {area}: {catalogue.areas[area]}")
            mark = "!" if r.fails_run else " "
            row = f"   {mark} {r.requirement.id:<{id_width}}  {r.requirement.level.value:<6}  {r.status.value:<{status_width}}"
            first, *more = r.reason.splitlines() or [""]
            lines.append(f"{row}  {_clip(first, 100)}".rstrip())
            lines.extend(f"{' ' * len(row)}  {_clip(line, 100)}" for line in more)
    lines.append(_counts_line(results, level))
    return lines


_DETAIL_LINES = 12
"""Lines of a failing test's example and message the console shows (the JSON keeps them whole)."""


def failing_tests_lines(results: list[RequirementResult]) -> list[str]:
    """Every failing test of each requirement, under it: its minimal example and what broke the rule.

    ``failed`` is the harness's failure, ``error`` the suite's or the adapter's fault, ``expected`` a
    failure a baseline names. Each test shows Hypothesis's falsifying example (a property test) and
    the failure's message, whose text quotes the offending bytes; long ones are cut (the JSON report
    has them whole).
    """
    lines: list[str] = []
    for result in results:
        if not result.failing:
            continue
        requirement = result.requirement
        lines.append(
            f"{requirement.id} ({requirement.level.value}, {result.status.value}): {requirement.title}"
        )
        for test in result.failing:
            label = "expected" if test.status == "xfailed" else test.status
            lines.append(f"  {label}: {test.nodeid}")
            shown = [*test.example.splitlines(), *test.failure.splitlines()]
            lines.extend(f"      {_clip(line, 160)}" for line in shown[:_DETAIL_LINES])
            if len(shown) > _DETAIL_LINES:
                lines.append(
                    f"      … {len(shown) - _DETAIL_LINES} more lines (the JSON report has them all)"
                )
    return lines


def markdown_summary(results: list[RequirementResult], adapter: str, level: RunLevel) -> str:
    """A Markdown summary for ``$GITHUB_STEP_SUMMARY``."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = [
        f"## toolharness conformance: `{cell(adapter)}`",
        "",
        _counts_line(results, level),
        "",
        "| ID | level | profile | status | why |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        status = f"**{r.status.value}**" if r.fails_run else r.status.value
        lines.append(
            f"| {r.requirement.id} | {r.requirement.level.value} | {r.requirement.profile} | {status} "
            f"| {cell(r.reason)} |"
        )
    return "\n".join(lines) + "\n\n"


def into_junitxml(config: pytest.Config, results: list[RequirementResult]) -> None:
    """Each requirement's status as a property of pytest's own ``--junitxml`` test suite.

    Before the XML is written: this hook runs first of all plugins' ``pytest_sessionfinish``. Each
    test case already carries its requirement IDs (``requirement`` user properties).
    """
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    for result in results:
        xml.add_global_property(f"toolharness {result.requirement.id}", result.status.value)
