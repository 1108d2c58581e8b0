"""``plugin_overhead_ms``: what the plugin costs a project that installs it but doesn't use it.

A scratch project with one plain test runs ``python -m pytest`` in a subprocess, alternately with
the plugin loaded (as every pytest run in an environment that has the package installed) and with
``-p no:toolharness``. The figure is the median difference of the child processes' CPU time (user
and system: on a shared machine the wall time is mostly waiting), and the ratio of the medians.
Both runs block the environment's other ``pytest11`` plugins (Hypothesis, syrupy, xdist, the
extras' own): they cost the same with and without ours, and their seconds of imports would bury a
difference of milliseconds in noise. ``plugin_import_ms`` is the same question asked closer, the CPU
time of ``import pytest, pytest_toolharness.plugin`` less that of ``import pytest``, each in a fresh
interpreter.
"""

from __future__ import annotations

import importlib.metadata
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["run"]


# As in a user's environment, bytecode is written: pytest then rewrites the plugin's modules (every
# ``pytest11`` plugin's are) once, not in every run (this machine sets PYTHONDONTWRITEBYTECODE).
_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTEST_ADDOPTS")}


def _cpu_seconds(command: list[str], cwd: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=_ENV)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _other_plugins_blocked() -> list[str]:
    """``-p no:NAME`` for every installed ``pytest11`` plugin but ours."""
    names = sorted({e.name for e in importlib.metadata.entry_points(group="pytest11")} - {"toolharness"})
    return [arg for name in names for arg in ("-p", f"no:{name}")]


def run(quick: bool = False) -> dict[str, Any]:
    """Median CPU time of a one-test run with and without the plugin, interleaved."""
    rounds = 5 if quick else 15
    with tempfile.TemporaryDirectory(prefix="toolharness-overhead-") as name:
        project = Path(name)
        (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        (project / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n", encoding="utf-8")
        base = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *_other_plugins_blocked(),
            "test_one.py",
        ]
        with_plugin: list[float] = []
        without: list[float] = []
        _cpu_seconds(base, project)  # warm the file cache and the .pyc files outside the measurement
        for _ in range(rounds):
            with_plugin.append(_cpu_seconds(base, project))
            without.append(_cpu_seconds([*base, "-p", "no:toolharness"], project))
        imports: list[float] = []
        for _ in range(rounds):
            bare = _cpu_seconds([sys.executable, "-c", "import pytest"], project)
            loaded = _cpu_seconds([sys.executable, "-c", "import pytest, pytest_toolharness.plugin"], project)
            imports.append(loaded - bare)
    plugin_s, bare_s = statistics.median(with_plugin), statistics.median(without)
    differences = [a - b for a, b in zip(with_plugin, without, strict=True)]
    return {
        "plugin_overhead_ms": round(statistics.median(differences) * 1000, 1),
        "plugin_overhead_ratio": round(plugin_s / bare_s, 3),
        "plugin_import_ms": round(statistics.median(imports) * 1000, 1),
        "plugin_one_test_run_cpu_ms": round(plugin_s * 1000, 1),
        "plugin_one_test_run_without_cpu_ms": round(bare_s * 1000, 1),
    }


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv))
