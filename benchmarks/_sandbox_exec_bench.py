"""``sandbox_exec_*``: what SBX-7's exec-time check costs each program it judges.

A deny rule ``Bash(true --never:*)`` puts a judging stub over ``true``; the command then starts
``/usr/bin/true --once`` (the rule's neighbour: judged, and let through) ``N`` times in a loop timed
inside the sandbox (so the sandbox's start is not counted), with the rule and, as the baseline in the
same run, with a rule on a program that does not exist (no stub). Wall time (the loop waits on
processes), the median of interleaved rounds. Figures: the time of one start with and without the
stub, the added milliseconds per start, and their ratio. Needs bubblewrap and socat (else the group
reports nothing and says why).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from reference_impl import context_from_settings, load_settings
from reference_impl.sandbox import SandboxedShell, sandbox_problem, sandbox_settings

__all__ = ["run"]

_LOOP = (
    's=$(date +%s%N); i=0; while [ "$i" -lt {n} ]; do /usr/bin/true --once; i=$((i+1)); done;'
    ' e=$(date +%s%N); echo "loop_ns=$((e-s))"'
)


def _loop_ms(base: Path, rule: str, starts: int) -> float:
    """One sandboxed run of the loop under ``rule``: its milliseconds per start."""
    work = Path(tempfile.mkdtemp(dir=base))
    path = work / "settings.json"
    path.write_text(json.dumps({"sandbox": {"enabled": True}, "permissions": {"deny": [rule]}}))
    files = [load_settings(path, "localSettings")]
    shell = SandboxedShell(
        sandbox_settings(files), context_from_settings(files, cwd=work, can_prompt=False), temp_dir=work
    )
    done = asyncio.run(
        shell.run({"command": _LOOP.format(n=starts)}, cwd=work, timeout=600, abort=asyncio.Event())
    )
    line = next(x for x in done.output.splitlines() if x.startswith("loop_ns="))
    return int(line.partition("=")[2]) / 1e6 / starts


def run(*, quick: bool = False) -> dict[str, Any]:
    """The figures (empty, with the reason printed, when the sandbox can't start here)."""
    problem = sandbox_problem()
    if problem is not None:
        print(f"sandbox_exec: skipped: {problem}")
        return {}
    starts, rounds = (100, 1) if quick else (300, 3)
    judged: list[float] = []
    bare: list[float] = []
    with tempfile.TemporaryDirectory(prefix="sandbox-exec-bench-") as base:
        for _ in range(rounds):
            bare.append(_loop_ms(Path(base), "Bash(no-such-program-sbx7:*)", starts))
            judged.append(_loop_ms(Path(base), "Bash(true --never:*)", starts))
    with_stub, without = statistics.median(judged), statistics.median(bare)
    return {
        "sandbox_exec_ms_per_start_judged": round(with_stub, 3),
        "sandbox_exec_ms_per_start_bare": round(without, 3),
        "sandbox_exec_added_ms_per_start": round(with_stub - without, 3),
        "sandbox_exec_ratio_vs_bare": round(with_stub / without, 2),
    }
