"""``executor_*``: per-call overhead of run_tool_use and of the streaming executor on no-op tools.

CPU time per call (batches of 10 tool_use blocks). Baselines, measured in the same run: awaiting the tool's ``call`` directly (for run_tool_use),
and ``asyncio.gather`` of the same no-op calls (for the executor). ``executor_parallel_ratio``
is the wall time of 8 concurrency-safe tools that each sleep ``t``, divided by ``t``.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from anthropic.types import ToolUseBlockParam
from pydantic import BaseModel

from benchmarks._timing import clock
from reference_impl import (
    ExecutionContext,
    PermissionContext,
    StreamingToolExecutor,
    Tool,
    ToolContext,
    ToolInput,
    ToolOutput,
    build_tool,
    parse_rule,
    run_tool_use,
    run_tool_uses,
)
from reference_impl.execution import CallControl, ToolRunOutcome

__all__ = ["run"]


class _Empty(BaseModel):
    pass


async def _noop(_input: ToolInput, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="ok")


def _always(_input: ToolInput) -> bool:
    return True


def _tools(sleep: float) -> list[Tool]:
    async def sleeper(_input: ToolInput, _context: ToolContext) -> ToolOutput:
        await asyncio.sleep(sleep)
        return ToolOutput(content="slept")

    return [
        build_tool("Noop", "does nothing", _noop, input_model=_Empty, is_concurrency_safe=_always),
        build_tool("Sleep", "sleeps", sleeper, input_model=_Empty, is_concurrency_safe=_always),
    ]


def _block(i: int, name: str = "Noop") -> ToolUseBlockParam:
    return {"type": "tool_use", "id": f"toolu_{i:06d}", "name": name, "input": {}}


async def _measure(batch: int, repeat: int, rounds: int, sleep: float, session_dir: Path) -> dict[str, float]:
    tools = _tools(sleep)
    rules = (parse_rule("Noop", "allow", "userSettings"), parse_rule("Sleep", "allow", "userSettings"))
    ctx = ExecutionContext(
        tools=tools,
        permission_context=PermissionContext(rules=rules, cwd=session_dir),
        session_dir=session_dir,
    )
    noop = tools[0]
    blocks = [_block(i) for i in range(batch)]

    async def direct() -> None:
        abort = asyncio.Event()
        for block in blocks:
            await noop.call({}, ToolContext(tool_use_id=block["id"], abort=abort, cwd=session_dir))

    async def pipeline() -> None:
        for block in blocks:
            outcome = await run_tool_use(block, CallControl(abort=asyncio.Event()), ctx)
            if outcome.result.get("is_error"):
                raise AssertionError(f"benchmark setup: the no-op call failed: {outcome.result!r}")

    async def gathered() -> None:
        abort = asyncio.Event()
        await asyncio.gather(
            *(noop.call({}, ToolContext(tool_use_id=b["id"], abort=abort, cwd=session_dir)) for b in blocks)
        )

    async def executor() -> None:
        result = await run_tool_uses(blocks, ctx)
        if len(result.outcomes) != len(blocks):
            raise AssertionError("benchmark setup: the executor lost calls")

    fixed = ToolRunOutcome({"type": "tool_result", "tool_use_id": "x", "content": "ok"})

    async def trivial_one(_block: ToolUseBlockParam, _control: CallControl) -> ToolRunOutcome:
        return fixed

    async def scheduler() -> None:
        # The streaming executor alone, around a run_one that does nothing.
        streaming = StreamingToolExecutor(
            trivial_one, is_concurrency_safe=lambda _b: True, is_shell=lambda _b: False
        )
        await streaming.run_batch(blocks)

    async def trivial_gathered() -> None:
        await asyncio.gather(*(trivial_one(b, CallControl(abort=asyncio.Event())) for b in blocks))

    runs = {
        "direct": direct,
        "pipeline": pipeline,
        "gathered": gathered,
        "executor": executor,
        "scheduler": scheduler,
        "trivial_gathered": trivial_gathered,
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    for body in runs.values():
        await body()  # warm-up
    for _ in range(rounds):
        for name, body in runs.items():
            started = clock()
            for _ in range(repeat):
                await body()
            times[name].append((clock() - started) / (batch * repeat))
    medians = {name: statistics.median(samples) for name, samples in times.items()}

    sleeps = [_block(i, "Sleep") for i in range(8)]
    walls = []
    for _ in range(3):
        started = time.perf_counter()
        result = await run_tool_uses(sleeps, ctx)
        walls.append(time.perf_counter() - started)
        if any(o.result.get("is_error") for o in result.outcomes):
            raise AssertionError("benchmark setup: a sleep call failed")
    medians["parallel_wall"] = statistics.median(walls)
    return medians


def run(quick: bool = False) -> dict[str, Any]:
    """Per-call overheads in microseconds, their baselines, and the parallel-sleep ratio."""
    sleep = 0.1
    with tempfile.TemporaryDirectory(prefix="toolharness-bench-") as tmp:
        # Batches of 10 calls, the size of a busy assistant turn, many times over.
        m = asyncio.run(_measure(10, 10 if quick else 30, 5 if quick else 9, sleep, Path(tmp)))
    run_overhead = m["pipeline"] - m["direct"]
    executor_overhead = m["executor"] - m["gathered"]
    scheduler_overhead = m["scheduler"] - m["trivial_gathered"]
    return {
        "executor_scheduler_per_call_us": round(m["scheduler"] * 1e6, 2),
        "executor_scheduler_overhead_us": round(scheduler_overhead * 1e6, 2),
        "executor_run_tool_use_us": round(m["pipeline"] * 1e6, 2),
        "executor_direct_call_us": round(m["direct"] * 1e6, 2),
        "executor_run_tool_use_overhead_us": round(run_overhead * 1e6, 2),
        "executor_batch_per_call_us": round(m["executor"] * 1e6, 2),
        "executor_gather_per_call_us": round(m["gathered"] * 1e6, 2),
        "executor_streaming_overhead_us": round(executor_overhead * 1e6, 2),
        # Headline: a no-op call through run_tool_uses (pipeline + scheduler) minus a bare gather.
        "executor_overhead_us": round(executor_overhead * 1e6, 2),
        "executor_ratio_vs_gather": round(m["executor"] / m["gathered"], 1),
        "executor_parallel_sleep_s": sleep,
        "executor_parallel_wall_s": round(m["parallel_wall"], 4),
        "executor_parallel_ratio": round(m["parallel_wall"] / sleep, 3),
    }


if __name__ == "__main__":
    for key, value in run(quick=True).items():
        print(f"{key:50} {value}")
