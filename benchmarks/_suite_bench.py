"""``suite_*``: wall time of the conformance suite against the reference harness, in a subprocess.

``python -m pytest --toolharness-conformance -p no:cacheprovider -q`` runs in an empty
temporary directory, so only the packaged suite is collected; then again with ``-n 2``
(pytest-xdist). The baseline is the same command with ``--collect-only``: start-up and
collection, which every run pays.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

__all__ = ["run"]

_COMMAND = ["-m", "pytest", "--toolharness-conformance", "-p", "no:cacheprovider", "-q"]
_TIMEOUT_S = 900


def _summary(output: str) -> str:
    # pytest's own last line ("N passed, M failed in Xs", "N tests collected in Xs"), without the time.
    for line in reversed(output.splitlines()):
        if re.search(r"\b(passed|failed|errors?|collected|no tests ran)\b.*\bin [\d.]+s", line):
            return re.sub(r"\s+in\s+[\d.]+s.*$", "", line.strip("= ").strip())
    return "no pytest summary found"


def _timed(extra: list[str]) -> tuple[float, float, str, int]:
    # Wall time, the child's CPU time (user + system, all its processes), summary, exit code.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory(prefix="toolharness-suite-") as tmp:
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        started = time.perf_counter()
        completed = subprocess.run(
            [sys.executable, *_COMMAND, *extra],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            env=env,
            check=False,
        )
        wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, _summary(completed.stdout + completed.stderr), completed.returncode


def run(quick: bool = False) -> dict[str, Any]:
    """Suite wall time with default settings and with ``-n 2``, and the collect-only baseline."""
    figures: dict[str, Any] = {}
    collect_s, _cpu, collect_summary, _rc = _timed(["--collect-only"])
    figures["suite_collect_only_s"] = round(collect_s, 2)
    figures["suite_collected"] = collect_summary
    wall, cpu, summary, rc = _timed([])
    figures["suite_wall_s"] = round(wall, 2)
    figures["suite_cpu_s"] = round(cpu, 2)
    figures["suite_result"] = summary
    figures["suite_exit_code"] = rc
    figures["suite_ratio_vs_collect_only"] = round(wall / collect_s, 2)
    if not quick:
        wall_n2, cpu_n2, summary_n2, rc_n2 = _timed(["-n", "2"])
        figures["suite_wall_s_n2"] = round(wall_n2, 2)
        figures["suite_cpu_s_n2"] = round(cpu_n2, 2)
        figures["suite_result_n2"] = summary_n2
        figures["suite_exit_code_n2"] = rc_n2
        figures["suite_speedup_n2"] = round(wall / wall_n2, 2)
    return figures


if __name__ == "__main__":
    for key, value in run(quick=True).items():
        print(f"{key:40} {value}")
