"""``sandbox_exec_*``: what SBX-7's exec check costs each program started in the sandbox.

A sandboxed command starts ``/usr/bin/true --once`` ``N`` times in a loop timed inside the sandbox
(so the sandbox's own start is not counted): under ``Bash(true --never:*)``, where every start is
handed to the harness's supervisor and judged (``true`` is a program the rule names: its names, inode
and arguments are all looked at, and it is let through), and, as the baseline in the same run, under
no Bash rule (the same sandbox, no check). Wall time (the loop waits on each process), the median of
interleaved rounds. Figures: one start with and without the check, the added milliseconds per start,
their ratio, and the supervisor's own CPU per exec it answered (the rest of the added wall time is the
two context switches of the notification, which a loaded machine stretches). Needs bubblewrap, socat
and seccomp user notification (else the group reports nothing and says why).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from reference_impl import context_from_settings, load_settings
from reference_impl.sandbox import SandboxedShell, ShellRunError, sandbox_problem, sandbox_settings

__all__ = ["run"]

_LOOP = (
    's=$(date +%s%N); i=0; while [ "$i" -lt {n} ]; do /usr/bin/true --once; i=$((i+1)); done;'
    ' e=$(date +%s%N); echo "loop_ns=$((e-s))"'
)


def _loop(base: Path, deny: list[str], starts: int) -> tuple[float, float | None]:
    """One sandboxed run of the loop under ``deny``: ms per start, and the supervisor's CPU µs per exec."""
    work = Path(tempfile.mkdtemp(dir=base))
    path = work / "settings.json"
    path.write_text(json.dumps({"sandbox": {"enabled": True}, "permissions": {"deny": deny}}))
    files = [load_settings(path, "localSettings")]
    shell = SandboxedShell(
        sandbox_settings(files), context_from_settings(files, cwd=work, can_prompt=False), temp_dir=work
    )
    done = asyncio.run(
        shell.run({"command": _LOOP.format(n=starts)}, cwd=work, timeout=600, abort=asyncio.Event())
    )
    line = next((x for x in done.output.splitlines() if x.startswith("loop_ns=")), None)
    if line is None:
        raise RuntimeError(f"the benchmark's loop did not run: {done.output!r}")
    cpu = None
    if shell.guards:
        guard = shell.guards[-1]
        cpu = guard.cpu_seconds / max(guard.checked, 1) * 1e6
    return int(line.partition("=")[2]) / 1e6 / starts, cpu


def run(*, quick: bool = False) -> dict[str, Any]:
    """The figures (empty, with the reason printed, when the sandbox or its exec check can't start here)."""
    problem = sandbox_problem()
    if problem is not None:
        print(f"sandbox_exec: skipped: {problem}")
        return {}
    starts, rounds = (100, 1) if quick else (300, 5)
    judged: list[float] = []
    bare: list[float] = []
    cpu: list[float] = []
    with tempfile.TemporaryDirectory(prefix="sandbox-exec-bench-") as base:
        for _ in range(rounds):
            bare.append(_loop(Path(base), [], starts)[0])
            try:
                ms, used = _loop(Path(base), ["Bash(true --never:*)"], starts)
            except (RuntimeError, ShellRunError) as error:
                print(f"sandbox_exec: skipped: {error}", file=sys.stderr)
                return {}
            judged.append(ms)
            if used is not None:
                cpu.append(used)
    with_check, without = statistics.median(judged), statistics.median(bare)
    return {
        "sandbox_exec_ms_per_start_judged": round(with_check, 3),
        "sandbox_exec_ms_per_start_bare": round(without, 3),
        "sandbox_exec_added_ms_per_start": round(with_check - without, 3),
        "sandbox_exec_ratio_vs_bare": round(with_check / without, 2),
        "sandbox_exec_supervisor_cpu_us_per_exec": round(statistics.median(cpu), 1) if cpu else None,
    }
