"""Finding the mutants and building the command line that runs the conformance suite against one.

A mutant is a module ``tests/mutants/m_*.py`` with ``TARGET`` (a requirement ID of
``conformance/requirements.toml``), ``DESCRIPTION`` (the real bug it models) and ``adapter`` (the
factory). Discovery reads ``TARGET`` and ``DESCRIPTION`` from the module's source without importing
it, so a mutant that no longer imports is still found, run, and reported *broken* (see
:meth:`RunOutcome.broken_reason`) instead of breaking discovery or counting as a kill. Patches are
applied when the factory runs, in the subprocess.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

__all__ = [
    "CI_PROFILE",
    "EXPLORE_PROFILE",
    "MUTANTS_DIR",
    "MUTANTS_PROFILE",
    "PROJECT_ROOT",
    "SUITE_DIR",
    "THRESHOLD_MIN_CHECKED",
    "Mutant",
    "RunOutcome",
    "TestResult",
    "discover",
    "read_junit",
    "read_report",
    "requirement_ids",
    "run_suite",
    "subprocess_env",
    "suite_command",
]

MUTANTS_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = MUTANTS_DIR.parent.parent
SUITE_DIR = PROJECT_ROOT / "conformance"
# Both registered in conformance/conftest.py: derandomised (CI, the default here) and random-with-a-seed
# (for measuring how reliably a mutant is caught).
CI_PROFILE = "toolharness-ci"
MUTANTS_PROFILE = "toolharness-mutants"
EXPLORE_PROFILE = "toolharness-explore"
# A run that checked at least this many requirements, without stopping at the first failure, and
# failed more than half of them is broken: the mutant crashes the harness, it does not break a rule.
THRESHOLD_MIN_CHECKED = 4


@dataclass(frozen=True)
class Mutant:
    """One mutant module: its name, the requirement it breaks, and the bug it models."""

    name: str
    target: str
    description: str
    module: str  # the dotted module path, tests.mutants.<name> for the real mutants

    @property
    def adapter_spec(self) -> str:
        """The ``--toolharness-adapter`` value that names this mutant's factory."""
        return f"{self.module}:adapter"


def requirement_ids() -> list[str]:
    """The requirement IDs of the catalogue, in catalogue order."""
    data = tomllib.loads((SUITE_DIR / "requirements.toml").read_text(encoding="utf-8"))
    return [str(entry["id"]) for entry in data["requirement"]]


def discover(names: list[str] | None = None, directory: Path = MUTANTS_DIR) -> list[Mutant]:
    """Every mutant module of ``directory`` (or the ones named), sorted by name.

    ``directory`` must be inside the project (its modules are imported by dotted path). A module whose
    ``TARGET``, ``DESCRIPTION`` or ``adapter`` is missing or malformed raises ``ValueError``; one that
    fails to import is *not* refused here (its run reports it broken).
    """
    known = set(requirement_ids())
    package = ".".join(directory.resolve().relative_to(PROJECT_ROOT).parts)
    found = sorted(path.stem for path in directory.glob("m_*.py"))
    if names:
        unknown = sorted(set(names) - set(found))
        if unknown:
            raise ValueError(f"no mutant module named {', '.join(unknown)} in {directory}")
        found = [name for name in found if name in names]
    mutants = []
    for name in found:
        values = _module_constants(directory / f"{name}.py")
        target, description = values.get("TARGET"), values.get("DESCRIPTION")
        if target not in known:
            raise ValueError(f"{name}: TARGET = {target!r} is not a requirement ID of requirements.toml")
        if not isinstance(description, str) or not description.strip():
            raise ValueError(f"{name}: DESCRIPTION must be a non-empty string")
        if "adapter" not in values:
            raise ValueError(f"{name}: needs an `adapter` factory (make_factory(...))")
        mutants.append(Mutant(name, str(target), description.strip(), f"{package}.{name}"))
    return mutants


def _module_constants(path: Path) -> dict[str, object]:
    """The module's top-level names: literal values for literal assignments, ``None`` for the rest."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        raise ValueError(f"{path.stem}: not valid Python: {exc}") from exc
    values: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            values[node.name] = None
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and node.value is not None:
                    try:
                        values[target.id] = ast.literal_eval(node.value)
                    except (ValueError, TypeError):
                        values[target.id] = None
    return values


def suite_command(
    adapter_spec: str | None,
    report: Path,
    *,
    junit: Path | None = None,
    requirements: tuple[str, ...] = (),
    seed: int | None = None,
    exitfirst: bool = False,
) -> list[str]:
    """The pytest command that runs the suite (or the given requirements' tests) against an adapter.

    ``junit`` adds a JUnit XML report: the outcome of every test, which tells a setup error (the
    adapter or a fixture crashed) from a failed check.

    Strict level, so a SHOULD failure fails the run too. Derandomised and without shrinking unless
    ``seed`` is given (then random, seeded); never an example database, so an earlier run's failure
    is never replayed into this one. ``exitfirst`` stops at the first failing test (enough when only
    the target's tests run).
    """
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--toolharness-conformance",
        "--toolharness-level=strict",
        f"--toolharness-report={report}",
        "-p",
        "no:cacheprovider",
        "-q",
        "--no-header",
        "-o",
        "console_output_style=classic",
    ]
    if junit is not None:
        command.append(f"--junitxml={junit}")
    if adapter_spec is not None:
        command.append(f"--toolharness-adapter={adapter_spec}")
    for requirement in requirements:
        command.append(f"--toolharness-requirement={requirement}")
    if exitfirst:
        command.append("--exitfirst")
    if seed is None:
        command.append(f"--hypothesis-profile={MUTANTS_PROFILE}")
    else:
        command += [f"--hypothesis-profile={EXPLORE_PROFILE}", f"--hypothesis-seed={seed}"]
    command.append(str(SUITE_DIR))
    return command


@dataclass(frozen=True)
class TestResult:
    """One test of a run, from the JUnit report: ``passed``, ``failed``, ``error`` or ``skipped``."""

    name: str
    outcome: str
    message: str = ""


@dataclass(frozen=True)
class RunOutcome:
    """What one run of the suite gave: exit code, the report's statuses and reasons, every test's outcome."""

    returncode: int
    statuses: dict[str, str]
    output: str
    adapter_spec: str | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    tests: tuple[TestResult, ...] = ()
    exitfirst: bool = False

    @property
    def failed_ids(self) -> list[str]:
        """The requirement IDs whose status is ``failed``, in catalogue order."""
        return [rid for rid, status in self.statuses.items() if status == "failed"]

    def broken_reason(self) -> str | None:
        """Why this run says nothing about the mutant's target, or ``None`` when it is a fair verdict.

        Broken, never killed, when: the run wrote no report; the plugin reported an adapter load error
        for this adapter (its module, a ``Patch`` target or the factory is missing or raised); every
        test that ran errored at setup; or, in a run that did not stop at its first failure and checked
        at least :data:`THRESHOLD_MIN_CHECKED` requirements, more than half of the checked ones failed.
        """
        if not self.statuses:
            last = next((line for line in reversed(self.output.splitlines()) if line.strip()), "")
            return f"the run wrote no report (exit code {self.returncode}): {last.strip()[:300]}"
        load_error = self.load_error()
        if load_error is not None:
            return f"adapter load error: {load_error}"
        ran = [test for test in self.tests if test.outcome != "skipped"]
        if ran and all(test.outcome == "error" for test in ran):
            first = ran[0].message.strip().splitlines()[0] if ran[0].message.strip() else ""
            return f"every test that ran ({len(ran)}) errored at setup, none was checked: {first[:300]}"
        # A suite fault ("error") the mutant provoked says as little about its target as a failure.
        checked = [rid for rid, status in self.statuses.items() if status in ("passed", "failed", "error")]
        failed = [rid for rid, status in self.statuses.items() if status in ("failed", "error")]
        if not self.exitfirst and len(checked) >= THRESHOLD_MIN_CHECKED and 2 * len(failed) > len(checked):
            return (
                f"fails {len(failed)} of the {len(checked)} checked requirements "
                f"(more than half: the harness is unusable, no rule in particular is broken)"
            )
        return None

    def load_error(self) -> str | None:
        """The plugin's adapter load error for this run's adapter, as reported by a test, if any."""
        if self.adapter_spec is None:
            return None
        marker = f"toolharness: adapter {self.adapter_spec!r}"
        texts = [test.message for test in self.tests] + list(self.reasons.values())
        for text in texts:
            at = text.find(marker)
            if at >= 0:
                return text[at + len("toolharness: ") :].splitlines()[0].rstrip('"')
        return None


def read_report(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """``({id: status}, {id: reason})`` from a JSON requirement report; empty when the run wrote none."""
    if not path.is_file():
        return {}, {}
    document: Any = json.loads(path.read_text(encoding="utf-8"))
    requirements = document["requirements"]
    return (
        {str(r["id"]): str(r["status"]) for r in requirements},
        {str(r["id"]): str(r.get("reason", "")) for r in requirements},
    )


def read_junit(path: Path) -> tuple[TestResult, ...]:
    """Every test case of a JUnit XML report, with its outcome and message; empty when there is none."""
    if not path.is_file():
        return ()
    results = []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome, message = "passed", ""
        for kind in ("error", "failure", "skipped"):
            element = case.find(kind)
            if element is not None:
                outcome = "failed" if kind == "failure" else kind
                message = f"{element.get('message', '')}\n{element.text or ''}"
                break
        results.append(TestResult(name, outcome, message))
    return tuple(results)


def subprocess_env() -> dict[str, str]:
    """The environment of a suite run: the project importable, no inherited Hypothesis CI profile switch."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH", "")]))
    env.pop("PYTEST_ADDOPTS", None)
    # One isolated worker per run: the runner's --jobs is its parallelism, and a second worker would
    # cost every mutant run another start-up and collection of the suite.
    env["PYTEST_XDIST_AUTO_NUM_WORKERS"] = "1"
    return env


def run_suite(
    adapter_spec: str | None,
    *,
    requirements: tuple[str, ...] = (),
    seed: int | None = None,
    exitfirst: bool = False,
    timeout: float = 600.0,
) -> RunOutcome:
    """Run the suite in a fresh interpreter from the project root and read its report."""
    with tempfile.TemporaryDirectory(prefix="toolharness-mutant-") as tmp:
        report, junit = Path(tmp) / "report.json", Path(tmp) / "junit.xml"
        command = suite_command(
            adapter_spec, report, junit=junit, requirements=requirements, seed=seed, exitfirst=exitfirst
        )
        try:
            completed = subprocess.run(
                command,
                cwd=PROJECT_ROOT,
                env=subprocess_env(),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as expired:
            # One slow run (a loaded machine) judges nothing, and must not end the whole matrix.
            partial = expired.stdout.decode(errors="replace") if isinstance(expired.stdout, bytes) else ""
            return RunOutcome(
                124,
                {},
                f"{partial}\nthe suite run timed out after {timeout:.0f} s: nothing was judged",
                adapter_spec=adapter_spec,
                exitfirst=exitfirst,
            )
        statuses, reasons = read_report(report)
        return RunOutcome(
            completed.returncode,
            statuses,
            completed.stdout + completed.stderr,
            adapter_spec=adapter_spec,
            reasons=reasons,
            tests=read_junit(junit),
            exitfirst=exitfirst,
        )
