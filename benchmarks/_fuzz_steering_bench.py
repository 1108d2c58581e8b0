"""``fuzz_steering_*``: what 100 composed command lines reach in the permission engine, unsteered vs steered.

The property ``test_deny_rule_holds_through_composed_carriers`` (PERM-17) draws lines from
``ths.composed_commands(max_depth=2)`` under a drawn deny/ask rule, mode and rule form. Before this
benchmark's change it steered Hypothesis (``target()``) only toward lines with more carriers that
the harness ran; now it also climbs the harness's code reach (``ths.code_reach``: distinct lines of
the harness's own code one call runs). Both variants run the same derandomised 100 examples'
budget against the reference harness (no oracle: the figures are about where the generator goes,
not what bash runs). Figures per variant (``unsteered`` = carriers only, ``steered`` = carriers and
code reach): distinct lines of the harness reached over the run, distinct decision reasons (stage
and detail sentence with the line's own words taken out), distinct carrier families of lines the
harness ran under the rule, and wall seconds; ``fuzz_steering_*_gain`` = steered / unsteered.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import strategies as st

from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters.reference import ReferenceAdapter
from pytest_toolharness.specs import RuleSpec

__all__ = ["explore", "run"]

_CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")


def _reason(decision: dict[str, Any], command: str) -> str:
    """The decision's behavior, stage and sentence, with the line itself and quoted words taken out."""
    detail = _QUOTED.sub("<q>", str(decision.get("detail", "")).replace(command, "<line>"))
    return f"{decision.get('behavior', '?')}/{decision.get('stage', '?')}: {detail[:80]}"


def explore(examples: int, *, steered: bool) -> dict[str, Any]:
    """Run the property's draws for ``examples`` examples; what they reached."""
    adapter = ReferenceAdapter()
    lines: set[tuple[str, int]] = set()
    reasons: set[str] = set()
    families: set[str] = set()
    calls = 0

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.target],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        composed=ths.composed_commands(max_depth=2),
        deny_form=st.sampled_from(["Bash({}:*)", "Bash({} *)", "Bash({} -rf:*)"]),
        mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
        behavior=st.sampled_from(["deny", "ask"]),
    )
    def draw(composed: ths.ComposedCommand, deny_form: str, mode: str, behavior: str) -> None:
        nonlocal calls
        calls += 1
        rules = [RuleSpec(deny_form.format(composed.target), behavior)]  # type: ignore[arg-type]
        if composed.allowed:
            rules.append(RuleSpec(f"Bash({composed.allowed}:*)", "allow"))
        with ths.code_reach(exclude=(_CONFORMANCE,)) as reach:
            run = run_calls(
                adapter.new_harness(),
                [shell_tool()],
                [("Bash", {"command": composed.command})],
                rules=rules,
                mode=mode,
            )
        lines.update(reach.lines)
        reasons.add(_reason(run.decision(), composed.command))
        ran = run.ran() > 0
        if ran:
            families.add(composed.carriers[0] if composed.carriers else "plain")
        target(float(len(composed.carriers)) if ran else 0.0, label="carriers of a line the harness ran")
        if steered:
            target(float(reach.count), label="harness lines the call reached")

    started = time.perf_counter()
    draw()
    return {
        "lines": len(lines),
        "reasons": len(reasons),
        "families_ran": len(families),
        "calls": calls,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _explore_fresh(examples: int, *, steered: bool) -> dict[str, Any]:
    """:func:`explore` in a new interpreter: the engine's caches warmed by one variant don't hide lines from the other."""
    root = Path(__file__).resolve().parent.parent
    variant = "steered" if steered else "unsteered"
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks._fuzz_steering_bench", str(examples), variant],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    found: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


def run(*, quick: bool = False) -> dict[str, Any]:
    """The figures of both variants and the steered variant's gain."""
    examples = 30 if quick else 100
    figures: dict[str, Any] = {"fuzz_steering_examples": examples}
    found = {name: _explore_fresh(examples, steered=name == "steered") for name in ("unsteered", "steered")}
    for name, result in found.items():
        for key, value in result.items():
            figures[f"fuzz_steering_{name}_{key}"] = value
    for key in ("lines", "reasons", "families_ran", "seconds"):
        base = found["unsteered"][key] or 1
        figures[f"fuzz_steering_{key}_gain"] = round(found["steered"][key] / base, 2)
    return figures


if __name__ == "__main__":
    print(json.dumps(explore(int(sys.argv[1]), steered=sys.argv[2] == "steered"), sort_keys=True))
