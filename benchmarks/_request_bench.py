"""``request_*``: building one request with 10,000 deferred and 50 discovered tools, per turn.

The pool is 10,000 deferred MCP tools from the corpus (names suffixed past its 1,254 records),
the ToolSearch tool and three ordinary tools; the transcript has a ToolSearch call whose result
references 50 of the deferred tools, so they are discovered. The first build (which also adds
the deferred-tools notice) is timed apart from the following turns. Baseline: serialising the
same request body with ``wire_bytes`` and hashing all of it, the least any sender must do.
"""

from __future__ import annotations

import hashlib
import statistics
from typing import Any

from anthropic.types import MessageParam
from pydantic import BaseModel

from benchmarks._corpus import noop_call
from benchmarks._timing import clock
from benchmarks._toolsearch_bench import build_pool
from reference_impl import RequestBuilder, Tool, TranscriptEntry, build_tool, tool_search_tool, wire_bytes
from reference_impl.request import cache_break_hash

__all__ = ["run"]


class _Path(BaseModel):
    path: str


def _pool(deferred: int) -> list[Tool]:
    ordinary = [
        build_tool(name, f"{name} a file", noop_call, input_model=_Path) for name in ("Read", "Edit", "Write")
    ]
    return [*ordinary, tool_search_tool(), *build_pool(deferred)]


def _transcript(discovered: list[str]) -> list[TranscriptEntry]:
    question: MessageParam = {"role": "user", "content": "Find the tools for this task."}
    call: MessageParam = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_search", "name": "ToolSearch", "input": {"query": "x"}}
        ],
    }
    result: MessageParam = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_search",
                "content": [{"type": "tool_reference", "tool_name": name} for name in discovered],
            }
        ],
    }
    return [question, call, result]


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def run(quick: bool = False) -> dict[str, Any]:
    """Per-turn request build time and cache-hash time, against serialising and hashing the body."""
    deferred = 10_000
    pool = _pool(deferred)
    discovered = [tool.name for tool in pool[4 : 4 + 50 * 200 : 200]]
    entries = _transcript(discovered)
    builder = RequestBuilder(model="claude-sonnet-4-5", max_tokens=1024)

    started = clock()
    first = builder.build(pool, entries)
    first_s = clock() - started
    entries = [*entries, *first.appended_entries]
    if len(first.discovered_tool_names) != 50 or len(first.deferred_tool_names) != deferred:
        raise AssertionError("benchmark setup: expected 10,000 deferred and 50 discovered tools")

    builds, hashes, serialise = [], [], []
    turns = 1 if quick else 3
    built = first
    for _ in range(turns):
        started = clock()
        built = builder.build(pool, entries)
        builds.append(clock() - started)
        started = clock()
        cache_break_hash(built.params)
        hashes.append(clock() - started)
        started = clock()
        hashlib.sha256(wire_bytes(built.params)).hexdigest()
        serialise.append(clock() - started)
    if built.cache_hash != first.cache_hash:
        raise AssertionError("benchmark setup: the cache hash changed between identical turns")
    build_ms = _median(builds) * 1e3
    hash_ms = _median(hashes) * 1e3
    serialise_ms = _median(serialise) * 1e3
    return {
        "request_tools_sent": len(built.params["tools"]),
        "request_first_build_ms": round(first_s * 1e3, 2),
        "request_build_ms": round(build_ms, 2),
        "request_cache_hash_ms": round(hash_ms, 3),
        "request_serialise_and_hash_ms": round(serialise_ms, 2),
        "request_build_ratio_vs_serialise": round(build_ms / serialise_ms, 2),
        "request_cache_hash_ratio_vs_serialise": round(hash_ms / serialise_ms, 3),
        "request_body_bytes": len(wire_bytes(built.params)),
    }


if __name__ == "__main__":
    for key, value in run(quick=True).items():
        print(f"{key:50} {value}")
