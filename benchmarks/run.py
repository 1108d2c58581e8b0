"""Run the benchmarks: ``python benchmarks/run.py [--quick] [--only GROUP ...]``.

Every figure is measured beside a baseline measured in the same process (the seed's naive
search, a linear rule scan, a bare ``asyncio.gather``, serialising the request body, ...);
``benchmarks/results.json`` holds the absolute numbers and the ratios, one key per figure, and a
table is printed. Goals are checked here and reported, never asserted in a test.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script from anywhere: import benchmarks and reference_impl

GROUPS = (
    "toolsearch",
    "ranking",
    "cc_agreement",
    "permission",
    "executor",
    "request",
    "suite",
    "report_time",
    "api_server",
    "oracle",
    "sandbox_exec",
    "plugin_overhead",
    "wire_drawn",
    "fuzz_steering",
)
_MODULES = {
    "toolsearch": "benchmarks._toolsearch_bench",
    "ranking": "benchmarks._ranking_bench",
    "cc_agreement": "benchmarks._cc_agreement_bench",
    "permission": "benchmarks._permission_bench",
    "executor": "benchmarks._executor_bench",
    "request": "benchmarks._request_bench",
    "suite": "benchmarks._suite_bench",
    "report_time": "benchmarks._report_time_bench",
    "api_server": "benchmarks._api_server_bench",
    "oracle": "benchmarks._oracle_bench",
    "sandbox_exec": "benchmarks._sandbox_exec_bench",
    "plugin_overhead": "benchmarks._plugin_overhead_bench",
    "wire_drawn": "benchmarks._wire_drawn_bench",
    "fuzz_steering": "benchmarks._fuzz_steering_bench",
}

# (figure, goal text, check): the goals of issue 7 (issue 12's report time; issue 18's anchors,
# optional ranker and agreement with the real CLI).
GOALS: tuple[tuple[str, str, Callable[[float], bool]], ...] = (
    ("toolsearch_median_ms_10k", "< 1 ms", lambda v: v < 1.0),
    ("toolsearch_speedup_vs_naive_10k", ">= 20x", lambda v: v >= 20),
    ("toolsearch_ratio_vs_bm25s_10k", "<= 0.5", lambda v: v <= 0.5),
    ("toolsearch_build_ratio_vs_bm25s_10k", "<= 1.0", lambda v: v <= 1.0),
    ("toolsearch_incremental_ratio", "<= 0.05", lambda v: v <= 0.05),
    ("ranking_recall5_livemcpbench", ">= 0.75", lambda v: v >= 0.75),
    ("ranking_recall5_metatool", ">= 0.75", lambda v: v >= 0.75),
    ("ranking_hybrid_build_s_1k", "<= 3 s of CPU per 1,000 tools", lambda v: v <= 3.0),
    ("ranking_hybrid_median_ms_1k", "<= 5 ms of CPU per query at 1,000 tools", lambda v: v <= 5.0),
    ("cc_ranking_queries", ">= 40 keyword queries run through the real CLI", lambda v: v >= 40),
    (
        "cc_ranking_agreement",
        "reported with cc_ranking_queries; each disagreement explained in docs/toolsearch-agreement.md",
        lambda v: 0.0 <= v <= 1.0,
    ),
    ("permission_median_us_1000_rules", "< 20 us", lambda v: v < 20),
    ("permission_first_sight_us", "< 200 us", lambda v: v < 200),
    ("executor_overhead_us", "< 50 us", lambda v: v < 50),
    ("executor_parallel_ratio", "about 1 (< 1.5)", lambda v: v < 1.5),
    ("suite_wall_s", "< 30 s", lambda v: v < 30),
    ("report_time_broken_harness_s", "< 120 s", lambda v: v < 120),
    ("report_time_broken_harness_cpu_s", "< 120 s of CPU (the proxy on a shared machine)", lambda v: v < 120),
    ("api_server_turn_ms_max", "< 5 ms of CPU per turn, in every API", lambda v: v < 5.0),
    ("api_server_turn_ratio_vs_cli_start", "<= 0.05 of a bare CLI start", lambda v: v <= 0.05),
    ("sandbox_exec_added_ms_per_start", "< 2 ms per judged program start (SBX-7)", lambda v: v < 2.0),
    (
        "plugin_overhead_ms",
        "< 20 ms of CPU added to a one-test run that doesn't use the plugin (issue 31)",
        lambda v: v < 20,
    ),
)

RESULTS = ROOT / "benchmarks" / "results.json"


def _check_extra() -> None:
    missing = [name for name in ("bm25s", "numpy") if importlib.util.find_spec(name) is None]
    if missing:
        sys.exit(
            f"benchmarks: missing {', '.join(missing)}; install the bench extra: pip install -e '.[bench]' "
            "(or: pip install bm25s)"
        )


def _machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in load],
        "clock": "CPU time of this process for per-call figures; wall time for sleeps and the suite",
    }


def _table(figures: dict[str, Any]) -> str:
    goals = {name: (text, check) for name, text, check in GOALS}
    width = max(len(k) for k in figures) if figures else 10
    lines = [f"{'figure':{width}}  {'value':>14}  goal"]
    for key, value in figures.items():
        goal = ""
        if key in goals and isinstance(value, int | float):
            text, check = goals[key]
            goal = f"{text}: {'met' if check(float(value)) else 'NOT met'}"
        lines.append(f"{key:{width}}  {value!s:>14}  {goal}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the selected benchmark groups, write ``results.json`` and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions; skips the -n 2 suite run")
    parser.add_argument("--only", nargs="+", choices=GROUPS, help="run only these groups")
    parser.add_argument("--output", type=Path, default=RESULTS, help=f"where to write (default {RESULTS})")
    args = parser.parse_args(argv)
    _check_extra()
    from benchmarks._corpus import corpus_file

    corpus_file("mcp_tools.json")
    corpus_file("retrieval_queries.json")

    figures: dict[str, Any] = {}
    timings: dict[str, float] = {}
    for group in args.only or GROUPS:
        print(f"-- {group} ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        module = importlib.import_module(_MODULES[group])
        figures.update(module.run(quick=args.quick))
        timings[group] = round(time.perf_counter() - started, 1)

    command = "python benchmarks/run.py" + (" --quick" if args.quick else "")
    if args.only:
        command += " --only " + " ".join(args.only)
    previous: dict[str, Any] = {}
    if args.only and args.output.exists():
        # A partial run updates its groups' figures and keeps the others' from the file.
        previous = json.loads(args.output.read_text(encoding="utf-8"))
        timings = {**previous.get("_group_seconds", {}), **timings}
    merged = {k: v for k, v in previous.items() if not k.startswith("_")} | figures
    goals = {
        name: {"goal": text, "value": merged[name], "met": check(float(merged[name]))}
        for name, text, check in GOALS
        if isinstance(merged.get(name), int | float)
    }
    # One top-level key per figure; the run's circumstances under keys starting with "_".
    document = {
        **{k: v for k, v in previous.items() if k.startswith("_")},
        **merged,
        "_command": command,
        "_machine": _machine(),
        "_group_seconds": timings,
        "_goals": goals,
    }
    args.output.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(_table(figures))
    print(f"\nwritten to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
