"""Baselines of expected failures, by finding: each entry names a requirement and what failed.

An entry is ``id`` (the requirement), ``reason`` (the finding), ``test`` (the failing test: its name,
``name[param]`` for one parametrization, or a substring of its node ID holding ``::``) and optionally ``match`` (a
regular expression searched in the failure's text: the exception's type and message). The tests an
entry names get pytest's ``xfail(strict=True)`` at collection: the failure is pytest's own expected
failure, a pass is pytest's strict XPASS, and the entry goes stale on its own. A failure under a
baselined requirement that no entry names (or whose text the entry's ``match`` misses) is a new
failure and fails the run.

An old-format entry without ``test`` still stands for "any test of this requirement" (the requirement
is forgiven as a whole, as before), and the run says it is deprecated.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness._requirements import Catalogue

__all__ = ["BaselineEntry", "failure_text", "judge_baselined", "load_baseline", "mark_baselined"]


@dataclass(frozen=True)
class BaselineEntry:
    """One expected failure: the requirement, the finding, and the test (and signature) that fails."""

    id: str
    reason: str
    test: str | None = None
    match: str | None = None

    def covers(self, nodeid: str, requirement_ids: tuple[str, ...] | list[str]) -> bool:
        """Whether this entry names the test ``nodeid`` of these requirements."""
        if self.id not in requirement_ids or self.test is None:
            return False
        name = nodeid.rpartition("::")[2]
        if "::" in self.test:
            return self.test in nodeid
        return self.test in (name, name.partition("[")[0])

    def matches(self, text: str) -> bool:
        """Whether a failure's text is this finding (always, without a ``match``)."""
        return self.match is None or re.search(self.match, text) is not None

    def describe(self) -> str:
        """How the report names the entry."""
        named = f"{self.id} {self.test}" if self.test is not None else self.id
        return f"{named} (match {self.match!r})" if self.match is not None else named


def failure_text(exc: BaseException) -> str:
    """What a baseline's ``match`` is searched in: ``Type: message`` of the exception and of each in a group."""
    lines = [f"{type(exc).__name__}: {exc}"]
    if isinstance(exc, BaseExceptionGroup):
        lines.extend(failure_text(sub) for sub in exc.exceptions)
    return "\n".join(lines)


def _read(path: Path, where: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise pytest.UsageError(f"{where}: can't read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise pytest.UsageError(
            f"{where}: not UTF-8 text (byte {exc.start} is {exc.object[exc.start : exc.start + 1]!r}); "
            "save it as UTF-8"
        ) from None
    try:
        return json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise pytest.UsageError(
            f"{where}: not valid {path.suffix.lstrip('.').upper() or 'TOML'}: {exc}"
        ) from None


def _optional_text(entry: dict[str, Any], key: str, where: str) -> str | None:
    value = entry.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise pytest.UsageError(f"{where} needs '{key}' to be a non-empty string, got {value!r}")
    return value


def load_baseline(path: Path, catalogue: Catalogue) -> tuple[BaselineEntry, ...]:
    """Read a baseline: TOML ``[[expected_failures]]`` tables or JSON ``{"expected_failures": [...]}``.

    Raises ``pytest.UsageError`` naming the file, the entry and what is wrong.
    """
    where = f"baseline {str(path)!r}"
    data = _read(path, where)
    entries = data.get("expected_failures") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise pytest.UsageError(
            f"{where}: needs a list 'expected_failures' of entries with 'id' and 'reason'"
        )
    baseline: list[BaselineEntry] = []
    unknown: list[str] = []
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise pytest.UsageError(f"{where}: entry {number} needs a string 'id'")
        requirement_id = entry["id"]
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise pytest.UsageError(
                f"{where}: entry {number} ({requirement_id}) needs a non-empty 'reason' saying why it is expected to fail"
            )
        named = f"{where}: entry {number} ({requirement_id})"
        test = _optional_text(entry, "test", named)
        match = _optional_text(entry, "match", named)
        if match is not None:
            try:
                re.compile(match)
            except re.error as exc:
                raise pytest.UsageError(f"{named}: 'match' is not a regular expression: {exc}") from None
        new = BaselineEntry(requirement_id, reason.strip(), test, match)
        if any((e.id, e.test, e.match) == (new.id, new.test, new.match) for e in baseline):
            raise pytest.UsageError(f"{where}: {new.describe()} is listed twice")
        if requirement_id not in catalogue:
            unknown.append(requirement_id)
        baseline.append(new)
    if unknown:
        raise pytest.UsageError(f"{where}: unknown requirement id(s): {', '.join(unknown)}")
    return tuple(baseline)


_BASELINED = pytest.StashKey[tuple[BaselineEntry, ...]]()


def mark_baselined(
    item: pytest.Item, ids: tuple[str, ...] | list[str], baseline: tuple[BaselineEntry, ...]
) -> None:
    """Give a test a baseline entry names pytest's ``xfail(strict=True)``: a pass is a stale entry."""
    entries = tuple(e for e in baseline if e.covers(item.nodeid, ids))
    if entries:
        item.stash[_BASELINED] = entries
        reason = "; ".join(f"{e.describe()}: {e.reason}" for e in entries)
        item.add_marker(pytest.mark.xfail(strict=True, reason=f"baseline: {reason}"))


def judge_baselined(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """A baselined test's failure whose text no entry's ``match`` finds is a new failure; a pass is stale."""
    entries = item.stash.get(_BASELINED, ())
    if not entries or call.when != "call":
        return
    if report.skipped and hasattr(report, "wasxfail") and call.excinfo is not None:
        text = failure_text(call.excinfo.value)
        if not any(e.matches(text) for e in entries):
            del report.wasxfail
            report.outcome = "failed"
            report.sections.append(
                (
                    "toolharness baseline",
                    "a new failure: the baseline entries of this test expect another one\n"
                    + "\n".join(f"  {e.describe()}" for e in entries),
                )
            )
    elif report.failed and call.excinfo is None:
        report.toolharness_stale = True  # type: ignore[attr-defined]
