"""What the plugin keeps about a run in ``config.stash``: settings, catalogue, report, the suite's folder."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the entry point imports this module in every pytest run: only the names, then
    from pytest_toolharness._options import Settings
    from pytest_toolharness._report import RequirementResult, RunReport
    from pytest_toolharness._requirements import Catalogue

__all__ = ["RUN_STATE", "RunState"]


@dataclass
class RunState:
    """A run's settings, catalogue and report, and what the plugin learns on the way."""

    settings: Settings
    catalogue: Catalogue
    report: RunReport
    suite_dir: Path | None
    results: list[RequirementResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seen_requirement_tests: bool = False
    # The adapter's profiles and not-applicable declarations, as a worker that built it sent them.
    declared_by_worker: tuple[frozenset[str], dict[str, str]] | None = None


RUN_STATE = pytest.StashKey[RunState]()
