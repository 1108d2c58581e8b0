"""``wire_drawn_*``: drawn wire scenarios per minute per agent CLI, against the CLI's bare start.

For each installed CLI (claude-code, opencode, cline, gemini; one at a time), the same derandomised
drawn scenarios the conformance suite's ``test_drawn_refusals_*`` draws for its profile
(``conformance/_strategies_wire.py``) are run through the scripted model server, each as the suite
runs it (fresh working directory, the target's own config written). The same-run baseline is the
CLI's bare start, ``<cli> --version`` with a throwaway HOME: ``wire_drawn_<cli>_ratio_vs_bare_start``
says how many bare starts one drawn scenario costs. Wall time: the figures are waiting on processes.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._timing import drawn_examples
from conformance._strategies_wire import drawn_scenarios
from pytest_toolharness.wire.scenarios import DrawnScenario
from pytest_toolharness.wire.targets import TargetProfile, profile_named, run_wire_scenario

__all__ = ["TARGETS", "draw_scenarios", "run"]

TARGETS = ("claude-code", "opencode", "cline", "gemini")


def draw_scenarios(profile: TargetProfile, count: int) -> list[DrawnScenario]:
    """``count`` drawn scenarios for ``profile``, the same ones every run."""
    roles = frozenset(profile.capabilities)
    return drawn_examples(drawn_scenarios(roles, refusing="permission_rules" in roles), count)


def _bare_start(binary: Path) -> float:
    with tempfile.TemporaryDirectory() as home:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home}
        started = time.perf_counter()
        subprocess.run([str(binary), "--version"], capture_output=True, env=env, timeout=120, check=False)
        return time.perf_counter() - started


def run(*, quick: bool = False) -> dict[str, Any]:
    """The figures of each installed CLI; a CLI that is not installed is named and left out."""
    figures: dict[str, Any] = {}
    count = 2 if quick else 5
    for name in TARGETS:
        profile = profile_named(name)
        try:
            binary = profile.find_binary() if profile is not None else None
        except FileNotFoundError:
            binary = None
        if profile is None or binary is None:
            print(f"wire_drawn: {name} is not installed, left out")
            continue
        target = profile.target()
        scenarios = draw_scenarios(profile, count)
        bare = statistics.median(_bare_start(binary) for _ in range(3))
        walls = []
        for index, drawn in enumerate(scenarios):
            with tempfile.TemporaryDirectory(prefix="wire-drawn-bench-") as folder:
                started = time.perf_counter()
                run_wire_scenario(
                    target, drawn.scenario(profile.names), Path(folder) / f"{index}", timeout=120
                )
                walls.append(time.perf_counter() - started)
        wall = statistics.median(walls)
        key = name.replace("-", "_")
        figures[f"wire_drawn_{key}_per_min"] = round(60.0 / wall, 1)
        figures[f"wire_drawn_{key}_median_s"] = round(wall, 2)
        figures[f"wire_drawn_{key}_bare_start_s"] = round(bare, 2)
        figures[f"wire_drawn_{key}_ratio_vs_bare_start"] = round(wall / bare, 1)
    return figures
