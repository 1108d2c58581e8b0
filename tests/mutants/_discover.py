"""Finding the mutants and building the command line that runs the conformance suite against one.

A mutant is a module ``tests/mutants/m_*.py`` with ``TARGET`` (a requirement ID of
``conformance/requirements.toml``), ``DESCRIPTION`` (the real bug it models) and ``adapter`` (the
factory). Discovery imports each module to read ``TARGET`` and ``DESCRIPTION``; importing applies
no patch (patches are applied when the factory runs, in the subprocess).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CI_PROFILE",
    "EXPLORE_PROFILE",
    "MUTANTS_DIR",
    "MUTANTS_PROFILE",
    "PROJECT_ROOT",
    "SUITE_DIR",
    "Mutant",
    "RunOutcome",
    "discover",
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


@dataclass(frozen=True)
class Mutant:
    """One mutant module: its name, the requirement it breaks, and the bug it models."""

    name: str
    target: str
    description: str

    @property
    def adapter_spec(self) -> str:
        """The ``--toolharness-adapter`` value that names this mutant's factory."""
        return f"tests.mutants.{self.name}:adapter"


def requirement_ids() -> list[str]:
    """The requirement IDs of the catalogue, in catalogue order."""
    data = tomllib.loads((SUITE_DIR / "requirements.toml").read_text(encoding="utf-8"))
    return [str(entry["id"]) for entry in data["requirement"]]


def discover(names: list[str] | None = None) -> list[Mutant]:
    """Every mutant module (or the ones named), sorted by name; a malformed one raises ``ValueError``."""
    known = set(requirement_ids())
    root = str(PROJECT_ROOT)
    if root not in sys.path:
        sys.path.insert(0, root)
    found = sorted(path.stem for path in MUTANTS_DIR.glob("m_*.py"))
    if names:
        unknown = sorted(set(names) - set(found))
        if unknown:
            raise ValueError(f"no mutant module named {', '.join(unknown)} in {MUTANTS_DIR}")
        found = [name for name in found if name in names]
    mutants = []
    for name in found:
        module = importlib.import_module(f"tests.mutants.{name}")
        target = getattr(module, "TARGET", None)
        description = getattr(module, "DESCRIPTION", None)
        if target not in known:
            raise ValueError(f"{name}: TARGET = {target!r} is not a requirement ID of requirements.toml")
        if not isinstance(description, str) or not description.strip():
            raise ValueError(f"{name}: DESCRIPTION must be a non-empty string")
        if not callable(getattr(module, "adapter", None)):
            raise ValueError(f"{name}: needs an `adapter` factory (make_factory(...))")
        mutants.append(Mutant(name, str(target), description.strip()))
    return mutants


def suite_command(
    adapter_spec: str | None,
    report: Path,
    *,
    requirements: tuple[str, ...] = (),
    seed: int | None = None,
    exitfirst: bool = False,
) -> list[str]:
    """The pytest command that runs the suite (or the given requirements' tests) against an adapter.

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
class RunOutcome:
    """What one run of the suite gave: exit code, the failing IDs, and the report's statuses."""

    returncode: int
    statuses: dict[str, str]
    output: str

    @property
    def failed_ids(self) -> list[str]:
        """The requirement IDs whose status is ``failed``, in catalogue order."""
        return [rid for rid, status in self.statuses.items() if status == "failed"]


def read_report(path: Path) -> dict[str, str]:
    """``{id: status}`` from a JSON requirement report; an empty dict when the run wrote none."""
    if not path.is_file():
        return {}
    document: Any = json.loads(path.read_text(encoding="utf-8"))
    return {str(r["id"]): str(r["status"]) for r in document["requirements"]}


def subprocess_env() -> dict[str, str]:
    """The environment of a suite run: the project importable, no inherited Hypothesis CI profile switch."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH", "")]))
    env.pop("PYTEST_ADDOPTS", None)
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
        report = Path(tmp) / "report.json"
        command = suite_command(
            adapter_spec, report, requirements=requirements, seed=seed, exitfirst=exitfirst
        )
        completed = subprocess.run(
            command,
            cwd=PROJECT_ROOT,
            env=subprocess_env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return RunOutcome(completed.returncode, read_report(report), completed.stdout + completed.stderr)
