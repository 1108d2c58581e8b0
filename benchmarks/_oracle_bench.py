"""``oracle_*``: composed command lines judged by the bash oracle, per second, against a bare ``bash -c true``.

The lines are drawn from ``ths.composed_commands(max_depth=2)`` (derandomised, drawn before
anything is timed) and each is run by the oracle the conformance property uses (bubblewrap, the
recording shims, the catalogued programs run for real). The same-run baseline is a bare
``bash -c true`` started as a subprocess: ``oracle_ratio_vs_bare_bash`` says how many bare bash
starts one judged line costs. Wall time: the figure is waiting on processes. Also reported: how many
lines per second the generator draws (``oracle_draws_per_s``), which is not the limit.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from typing import Any

from benchmarks._timing import drawn_examples
from pytest_toolharness import strategies as ths

__all__ = ["draw_lines", "run"]


def draw_lines(count: int) -> list[str]:
    """``count`` composed lines, the same ones every run."""
    return [composed.command for composed in drawn_examples(ths.composed_commands(max_depth=2), count)]


def _wall(call: Any) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def run(*, quick: bool = False) -> dict[str, Any]:
    """The figures, or an empty dict naming nothing when the oracle can't run here."""
    sandbox = ths.bash_sandbox()
    if sandbox is None:
        print(f"oracle benchmark skipped: {ths.bash_sandbox_problem()}")
        return {}
    judge = sandbox.running_for_real(ths.composed_real_programs())
    count = 20 if quick else 60
    started = time.perf_counter()
    lines = draw_lines(count)
    draw_seconds = time.perf_counter() - started
    judge.executed("true")  # warm the page cache outside the measurement
    bare = [
        _wall(lambda: subprocess.run(["bash", "-c", "true"], check=True, stdin=subprocess.DEVNULL))
        for _ in range(count)
    ]
    judged = [_wall(lambda line=line: judge.executed(line)) for line in lines]
    bare_s, judged_s = statistics.median(bare), statistics.median(judged)
    return {
        "oracle_lines_per_s": round(1.0 / judged_s, 2),
        "oracle_median_ms_per_line": round(judged_s * 1000, 1),
        "oracle_bare_bash_ms": round(bare_s * 1000, 2),
        "oracle_ratio_vs_bare_bash": round(judged_s / bare_s, 1),
        "oracle_draws_per_s": round(len(lines) / draw_seconds, 1),
    }
