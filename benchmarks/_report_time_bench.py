"""``report_time_broken_harness_s``: how long a broken harness waits for its complete report.

The reference harness with four planted bugs (a tool_result dropped from every batch of two or more,
every tool classified as not deferred, the tools array reversed, a cache key that changes on every
call) runs through ``pytest --toolharness-conformance`` with default settings, in a subprocess in an
empty directory. The baseline, measured in the same run, is the same command against the correct
reference harness. Besides the wall times: their CPU times (all processes of the run; on a loaded machine the
wall time is mostly waiting), the exit code, and whether every failed requirement's
report carries a minimal example (Hypothesis's "Falsifying example" or "Failing test case").
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["BROKEN_ADAPTER", "run"]

BROKEN_ADAPTER = '''
"""The reference harness with planted bugs (benchmarks/_report_time_bench.py)."""

import itertools
from dataclasses import replace

from pytest_toolharness.adapters.reference import make_adapter as make_reference

_counter = itertools.count()


class BrokenHarness:
    def __init__(self, harness):
        self._harness = harness

    def __getattr__(self, name):
        return getattr(self._harness, name)

    async def execute(self, scenario):
        result = await self._harness.execute(scenario)
        results = [b for b in result.user_content if b.get("type") == "tool_result"]
        if len(results) >= 2:  # bug 1: the last result of a batch goes missing (PAIR-1)
            dropped = results[-1]
            result = replace(result, user_content=[b for b in result.user_content if b is not dropped])
        return result

    def is_deferred(self, spec):
        return False  # bug 2: nothing is ever deferred (DEFER-1)

    def render_tools(self, builtin, mcp):
        return list(reversed(self._harness.render_tools(builtin, mcp)))  # bug 3: order (CACHE-2)

    def cache_key(self, builtin, mcp):
        return f"{self._harness.cache_key(builtin, mcp)}-{next(_counter)}"  # bug 4: unstable (CACHE-1)


class BrokenAdapter:
    def __init__(self):
        self._reference = make_reference()
        self.name = "broken"
        self.capabilities = self._reference.capabilities
        for name in ("profiles", "not_applicable"):
            if hasattr(self._reference, name):
                setattr(self, name, getattr(self._reference, name))

    def new_harness(self):
        return BrokenHarness(self._reference.new_harness())


def make():
    return BrokenAdapter()
'''

_TIMEOUT_S = 1200
_EXAMPLE = re.compile(r"Falsifying example|Failing test case|@reproduce_failure")


def _timed(adapter: str | None, tmp: Path) -> tuple[float, float, int, dict[str, Any], str]:
    report = tmp / f"report-{adapter or 'reference'}.json".replace(":", "_")
    command = [sys.executable, "-m", "pytest", "--toolharness-conformance", "-p", "no:cacheprovider", "-q"]
    command += [f"--toolharness-report={report}"]
    if adapter:
        command.append(f"--toolharness-adapter={adapter}")
    # The adapter's directory first; then the caller's PYTHONPATH, so a checkout measures its own code.
    path = os.pathsep.join(p for p in (str(tmp), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": path}
    env.pop("CI", None)  # default settings: the profile a developer gets, not CI's
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run(
        command, cwd=tmp, capture_output=True, text=True, timeout=_TIMEOUT_S, env=env, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    document: dict[str, Any] = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
    return wall, cpu, completed.returncode, document, completed.stdout + completed.stderr


def _load() -> float:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else float("nan")


def _failed(document: dict[str, Any]) -> list[str]:
    return [r["id"] for r in document.get("requirements", []) if r["status"] == "failed"]


def _with_examples(output: str) -> int:
    # Failure sections are separated by pytest's "____ test_name ____" headers.
    sections = re.split(r"\n_{3,} .+ _{3,}\n", output)
    return sum(1 for section in sections[1:] if _EXAMPLE.search(section))


def run(quick: bool = False) -> dict[str, Any]:
    """The broken harness's report time and the correct harness's, same command, same run."""
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="toolharness-report-time-") as name:
        tmp = Path(name)
        (tmp / "broken_adapter.py").write_text(BROKEN_ADAPTER, encoding="utf-8")
        load_before = _load()
        correct_s, correct_cpu, correct_rc, correct, _ = _timed(None, tmp)
        load_between = _load()
        broken_s, broken_cpu, broken_rc, broken, output = _timed("broken_adapter:make", tmp)
        load_after = _load()
    failed = _failed(broken)
    figures["report_time_broken_harness_s"] = round(broken_s, 1)
    figures["report_time_correct_harness_s"] = round(correct_s, 1)
    # CPU time of all the run's processes: what the wall time comes to on an otherwise idle machine.
    figures["report_time_broken_harness_cpu_s"] = round(broken_cpu, 1)
    figures["report_time_correct_harness_cpu_s"] = round(correct_cpu, 1)
    figures["report_time_broken_vs_correct"] = round(broken_s / correct_s, 2)
    figures["report_time_broken_exit_code"] = broken_rc
    figures["report_time_correct_exit_code"] = correct_rc
    figures["report_time_broken_failed_requirements"] = failed
    figures["report_time_broken_failures_with_example"] = _with_examples(output)
    figures["report_time_correct_failed_requirements"] = _failed(correct)
    # 1-minute load averages before, between and after the two runs: above the core count, the wall
    # times are mostly waiting for a core and the CPU times are the honest figure.
    figures["report_time_load_average_1min"] = [load_before, load_between, load_after]
    figures["report_time_cpus"] = os.cpu_count()
    return figures


if __name__ == "__main__":
    for key, value in run(quick=True).items():
        print(f"{key:45} {value}")
