"""The score of one module's mutation session, with the survivors triaged (``mutation-triage.toml``).

Read from cosmic-ray's own dump of the session database, so it can be taken while a run goes on.
Counted: killed and survived mutants (a mutant no test reaches is a survivor). Not counted: mutants
in type annotations (skipped), mutants that do not compile (incompetent) and runner faults. The
*raw* score is killed / counted; the *triaged* score leaves out the survivors triaged equivalent or
unspecified (see :mod:`tests.mutants._triage`), and every other survivor is a gap in the suite.

A kill by the module's unit tests only (every conformance test of the mutant passed: the runner writes
:data:`UNIT_KILL` first in its output) is a kill of the project's tests, not of the conformance suite:
each score is also given for the conformance suite alone, with those mutants as survivors (triaged
when a triage rule covers them, a gap of the conformance suite otherwise).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.mutants._sample import SampleItem, wilson_interval
from tests.mutants._selection import Selection
from tests.mutants._triage import TriageRule, classify, enclosing_function, load_rules

__all__ = ["NOT_REACHED", "UNIT_KILL", "ModuleScore", "markdown_table", "score_session", "write_survivors"]

NOT_REACHED = "not reached"
UNIT_KILL = "killed by unit tests only"


@dataclass
class ModuleScore:
    """One module's counts; ``gaps`` are the untriaged survivors (line, operator, diff), ``gap_jobs`` their ids."""

    module: str
    selection: str = ""
    sample: int = 0
    """The size of the random sample scored (``--sample``); 0 for every mutant of the selection."""
    killed: int = 0
    killed_by_unit_tests: int = 0
    """Of ``killed``, those only the module's unit tests killed."""
    unit_kills_triaged: int = 0
    """Of ``killed_by_unit_tests``, those a triage rule covers (triaged for the conformance suite alone)."""
    survived: int = 0
    not_reached: int = 0
    equivalent: int = 0
    unspecified: int = 0
    faults: int = 0
    incompetent: int = 0
    skipped: int = 0
    pending: int = 0
    gaps: list[tuple[int, str, str]] = field(default_factory=list)
    gap_jobs: list[str] = field(default_factory=list)
    unspecified_jobs: list[str] = field(default_factory=list)
    unit_kills: list[tuple[int, str, str, str]] = field(default_factory=list)
    """(line, operator, the unit test that killed it, its triage verdict or "") of each kill by unit tests only."""
    triaged: list[tuple[int, str, TriageRule]] = field(default_factory=list)

    @property
    def counted(self) -> int:
        return self.killed + self.survived

    @property
    def raw_percent(self) -> float:
        return 100.0 * self.killed / self.counted if self.counted else 0.0

    @property
    def triaged_percent(self) -> float:
        base = self.counted - self.equivalent - self.unspecified
        # Nothing left once the triaged survivors are out: every counted mutant is killed or triaged.
        return 100.0 * self.killed / base if base else 100.0

    def interval(self) -> tuple[float, float]:
        """The triaged score's 95% interval for the whole module (or part) a sample estimates."""
        return wilson_interval(self.killed, self.counted - self.equivalent - self.unspecified)

    @property
    def conformance_killed(self) -> int:
        """The kills of the conformance suite: those of the unit tests only are not its."""
        return self.killed - self.killed_by_unit_tests

    @property
    def conformance_raw_percent(self) -> float:
        return 100.0 * self.conformance_killed / self.counted if self.counted else 0.0

    @property
    def conformance_base(self) -> int:
        """The triaged score's base for the conformance suite alone (unit kills under a triage rule left out)."""
        return self.counted - self.equivalent - self.unspecified - self.unit_kills_triaged

    @property
    def conformance_triaged_percent(self) -> float:
        base = self.conformance_base
        return 100.0 * self.conformance_killed / base if base else 100.0

    def line(self) -> str:
        """The one-line summary the runner prints."""
        base = self.counted - self.equivalent - self.unspecified
        part = f" ({self.selection} only)" if self.selection else ""
        return (
            f"{self.module}{part}: {self.killed}/{self.counted} killed ({self.raw_percent:.1f}%; "
            f"{self.killed_by_unit_tests} by unit tests only, the conformance suite alone "
            f"{self.conformance_killed}/{self.counted} ({self.conformance_raw_percent:.1f}%)); triaged "
            f"{self.killed}/{base} ({self.triaged_percent:.1f}%; the conformance suite alone "
            f"{self.conformance_killed}/{self.conformance_base} ({self.conformance_triaged_percent:.1f}%)): "
            f"{self.equivalent} equivalent, "
            f"{self.unspecified} unspecified, {len(self.gaps)} gaps ({self.not_reached} of the survivors "
            f"not reached); {self.faults} runner faults, {self.incompetent} incompetent, "
            f"{self.skipped} in annotations, {self.pending} not run"
            + (self._estimate() if self.sample else "")
        )

    def _estimate(self) -> str:
        low, high = self.interval()
        return f"; as an estimate of every mutant's triaged score: {low:.1f}-{high:.1f}% (95% interval)"


def _rows(session: Path) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    dump = Path(sys.executable).parent / "cosmic-ray"
    done = subprocess.run([str(dump), "dump", str(session)], capture_output=True, text=True, check=True)
    return [(row[0], row[1]) for row in (json.loads(line) for line in done.stdout.splitlines())]


def _sample_item(item: dict[str, Any]) -> SampleItem:
    mutation = item["mutations"][0]
    return SampleItem(
        str(item["job_id"]),
        str(mutation["operator_name"]),
        (int(mutation["start_pos"][0]), int(mutation["start_pos"][1])),
        int(mutation.get("occurrence") or 0),
    )


def score_session(
    session: Path,
    module: str,
    root: Path,
    rules: list[TriageRule] | None = None,
    selection: Selection | None = None,
) -> ModuleScore:
    """Count ``session``'s outcomes for ``module`` (a path under ``root``) and triage its survivors.

    Only the mutants of ``selection`` count (a part of the module, ``--lines`` / ``--function``).
    """
    rules = load_rules() if rules is None else rules
    selection = selection or Selection()
    source = (root / module).read_text(encoding="utf-8")
    source_lines, tree = source.splitlines(), ast.parse(source)
    score = ModuleScore(module, selection.describe(), sample=selection.sample)
    # Mutants in annotations are never counted, nor drawn into a sample (as in mutation._jobs).
    rows = [
        (item, result)
        for item, result in _rows(session)
        if (result or {}).get("worker_outcome") != "skipped" or not selection.sample
    ]
    rows = [
        (item, result)
        for item, result in rows
        if selection.selects(
            int(item["mutations"][0]["start_pos"][0]),
            enclosing_function(tree, int(item["mutations"][0]["start_pos"][0])),
        )
    ]
    sampled = selection.sampled(module, source_lines, (_sample_item(item) for item, _result in rows))
    for item, result in rows:
        if sampled is not None and str(item["job_id"]) not in sampled:
            continue
        first = item["mutations"][0]
        if result is None:
            score.pending += 1
            continue
        worker, outcome = result.get("worker_outcome"), result.get("test_outcome")
        if worker == "skipped":
            score.skipped += 1
        elif worker in ("abnormal", "exception"):
            score.faults += 1
        elif worker == "no-test":
            score.pending += 1
        elif outcome == "incompetent":
            score.incompetent += 1
        elif outcome == "killed":
            score.killed += 1
            output = str(result.get("output", ""))
            if output.startswith(UNIT_KILL):
                line_number, operator = int(first["start_pos"][0]), str(first["operator_name"])
                line = source_lines[line_number - 1] if line_number <= len(source_lines) else ""
                score.killed_by_unit_tests += 1
                killer = output.splitlines()[0].removeprefix(UNIT_KILL).strip(": ").split("\x1f")[-1]
                rule = classify(rules, module, operator, line, enclosing_function(tree, line_number))
                score.unit_kills.append((line_number, operator, killer, rule.verdict if rule else ""))
                if rule is not None:
                    score.unit_kills_triaged += 1
        elif outcome == "survived":
            score.survived += 1
            mutation = item["mutations"][0]
            line_number, operator = int(mutation["start_pos"][0]), str(mutation["operator_name"])
            line = source_lines[line_number - 1] if line_number <= len(source_lines) else ""
            rule = classify(rules, module, operator, line, enclosing_function(tree, line_number))
            if rule is not None:
                score.triaged.append((line_number, operator, rule))
                if rule.verdict == "equivalent":
                    score.equivalent += 1
                else:
                    score.unspecified += 1
                    score.unspecified_jobs.append(str(item["job_id"]))
                continue
            if str(result.get("output", "")).startswith(NOT_REACHED):
                score.not_reached += 1
            score.gaps.append((line_number, operator, str(result.get("diff") or "").strip()))
            score.gap_jobs.append(str(item["job_id"]))
    return score


def write_survivors(score: ModuleScore, path: Path) -> None:
    """The survivors as Markdown: the gaps with their diffs, then the triaged ones with their reasons."""
    lines = [f"# Surviving mutants of `{score.module}`", "", score.line(), "", "## Gaps in the suite", ""]
    for line_number, operator, diff in sorted(score.gaps):
        lines += [f"### {operator} at line {line_number}", "", "```diff", diff, "```", ""]
    lines += ["## Triaged", ""]
    for line_number, operator, rule in sorted(score.triaged, key=lambda t: (t[0], t[1])):
        lines.append(f"- line {line_number}, {operator}: **{rule.verdict}**: {rule.reason}")
    if score.unit_kills:
        lines += [
            "",
            "## Killed by unit tests only",
            "",
            "Every conformance test of these mutants passed; the module's own unit tests killed them. For",
            "the conformance suite alone each is a gap, or triaged where a rule above covers its line.",
            "",
        ]
        for line_number, operator, killer, verdict in sorted(score.unit_kills):
            alone = f"triaged {verdict}" if verdict else "a gap of the conformance suite"
            lines.append(f"- line {line_number}, {operator}: `{killer}` ({alone})")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def markdown_table(scores: list[ModuleScore], requirements: dict[str, tuple[str, ...]]) -> str:
    """The per-module score table of docs/mutants.md."""
    lines = [
        "| module | requirements | counted | killed | of them by unit tests only | raw | equivalent "
        "| unspecified | gaps (not reached) | triaged | triaged, conformance suite alone | incompetent "
        "| not run |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for score in scores:
        part = f" ({score.selection})" if score.selection else ""
        # A sample's score is an estimate: its 95% interval beside it.
        interval = " (95%: {:.1f}-{:.1f}%)".format(*score.interval()) if score.sample else ""
        lines.append(
            f"| `{score.module}`{part} | {', '.join(requirements.get(score.module, ()))} | {score.counted} | "
            f"{score.killed} | {score.killed_by_unit_tests} | {score.raw_percent:.1f}% | {score.equivalent} | "
            f"{score.unspecified} | {len(score.gaps)} ({score.not_reached}) | "
            f"**{score.triaged_percent:.1f}%**{interval} | "
            f"{score.conformance_triaged_percent:.1f}% | {score.incompetent} | {score.pending + score.faults} |"
        )
    return "\n".join(lines)
