"""Count the distinct mechanisms by which composed command lines get past a harness's deny rule.

    python tests/mutants/hunt_mechanisms.py                          # the frozen engine m_engine_531c59b
    python tests/mutants/hunt_mechanisms.py --reference              # today's reference engine
    python tests/mutants/hunt_mechanisms.py --examples 40 --json out.json

For each carrier family of :func:`pytest_toolharness.strategies.composed_commands` (the outermost
production that carries ``rm -rf x``), Hypothesis's ``find`` searches, within ``--examples`` draws,
for a line that the harness runs under ``Bash(rm:*)`` deny in ``bypassPermissions`` mode and in which
the bash oracle (running the catalogued programs for real) sees ``rm`` run, and shrinks it to a
minimal one. The family ``plain`` is the command without a carrier, under ``Bash(rm -rf:*)``: its
words spelled and interleaved with redirections. A family found is a mechanism: the engine misread that production. Derandomised, so
the same budget finds the same lines. The findings are explained in docs/fuzzing-findings.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters.reference import ReferenceAdapter
from pytest_toolharness.specs import RuleSpec

__all__ = ["Finding", "deny_bypass", "hunt", "main", "oracle_for_composed"]

DENY = "Bash(rm:*)"
# The target's command alone, under a rule on its first words: how the engine reads the words.
PLAIN = "plain"
DENY_WORDS = "Bash(rm -rf:*)"
MODE = "bypassPermissions"


@dataclass(frozen=True)
class Finding:
    """A family's minimal bypass: the line, its carriers and what the oracle saw run."""

    family: str
    command: str
    carriers: tuple[str, ...]
    ran: tuple[tuple[str, ...], ...]
    examples: int
    seconds: float


def oracle_for_composed() -> ths.BashSandbox:
    """The bash oracle, running the catalogued programs (and what the carriers write files with) for real."""
    sandbox = ths.bash_sandbox()
    if sandbox is None:
        raise RuntimeError(f"bash oracle unavailable: {ths.bash_sandbox_problem()}")
    return sandbox.running_for_real(ths.composed_real_programs())


def deny_bypass(
    harness_factory: Callable[[], Any],
    oracle: ths.BashSandbox,
    composed: ths.ComposedCommand,
    deny: str = DENY,
) -> tuple[tuple[str, ...], ...]:
    """What bash runs of what ``deny`` names although the harness ran the line under it (() when nothing).

    ``deny`` is ``Bash(rm:*)`` (any ``rm``) or ``Bash(rm -rf:*)`` (an ``rm`` whose first word is ``-rf``).
    """
    rules = [RuleSpec(deny, "deny")]
    if composed.allowed:
        rules.append(RuleSpec(f"Bash({composed.allowed}:*)", "allow"))
    run = run_calls(
        harness_factory(), [shell_tool()], [("Bash", {"command": composed.command})], rules=rules, mode=MODE
    )
    if run.ran() == 0:
        return ()
    words = deny[len("Bash(") : -len(":*)")].split(" ")
    return tuple(
        record for record in oracle.executed(composed.command) if list(record[: len(words)]) == words
    )


def hunt(
    harness_factory: Callable[[], Any],
    *,
    examples: int,
    families: Sequence[str] = ths.CARRIER_FAMILIES,
    depth: int = 1,
) -> tuple[list[Finding], dict[str, int]]:
    """Search each family for a bypass within ``examples`` draws; the findings and the draws each took.

    With ``depth`` 1 (the default) the family is the only carrier, so each finding is a mechanism of
    its own; deeper, a family may be found only through another family's mechanism inside it.
    """
    oracle = oracle_for_composed()
    findings: list[Finding] = []
    spent: dict[str, int] = {}
    for family in (*families, PLAIN):
        count = 0
        seen: dict[str, tuple[tuple[str, ...], ...]] = {}

        def bypasses(
            composed: ths.ComposedCommand,
            seen: dict[str, tuple[tuple[str, ...], ...]] = seen,
            deny: str = DENY_WORDS if family == PLAIN else DENY,
        ) -> bool:
            nonlocal count
            count += 1
            hits = deny_bypass(harness_factory, oracle, composed, deny)
            if hits:
                seen[composed.command] = hits
            return bool(hits)

        started = time.monotonic()
        try:
            found = find(
                ths.composed_commands(families=(family,), max_depth=depth)
                if family != PLAIN
                else ths.composed_commands(max_depth=0),
                bypasses,
                settings=settings(
                    max_examples=examples,
                    derandomize=True,
                    database=None,
                    deadline=None,
                    phases=[Phase.generate, Phase.shrink],
                    suppress_health_check=list(HealthCheck),
                ),
            )
        except NoSuchExample:
            spent[family] = count
            continue
        spent[family] = count
        findings.append(
            Finding(
                family,
                found.command,
                found.carriers,
                seen.get(found.command, ()),
                count,
                round(time.monotonic() - started, 1),
            )
        )
    return findings, spent


def main(argv: Sequence[str] | None = None) -> int:
    """Run the hunt and print one block per mechanism found; exit 1 when fewer than ``--require``."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reference", action="store_true", help="hunt in today's reference engine")
    parser.add_argument("--examples", type=int, default=200, help="draws per family (default 200)")
    parser.add_argument(
        "--depth", type=int, default=1, help="carriers per line (default 1: one mechanism each)"
    )
    parser.add_argument("--family", action="append", help="only these families (repeatable)")
    parser.add_argument("--require", type=int, default=0, help="exit 1 when fewer mechanisms are found")
    parser.add_argument("--json", type=Path, help="write the findings here")
    args = parser.parse_args(argv)
    if args.reference:
        factory: Callable[[], Any] = ReferenceAdapter
        name = "reference engine"
    else:
        from tests.mutants.m_engine_531c59b import adapter

        factory, name = adapter, "m_engine_531c59b"
    adapter_made = factory()
    started = time.monotonic()
    findings, spent = hunt(
        adapter_made.new_harness, examples=args.examples, families=args.family or ths.CARRIER_FAMILIES
    )
    for finding in findings:
        print(
            f"[{finding.family}] after {finding.examples} draws ({finding.seconds} s), carriers {finding.carriers}"
        )
        print(f"    {finding.command!r}")
        print(f"    bash ran: {list(finding.ran)}")
    missed = [family for family in spent if family not in {f.family for f in findings}]
    print(f"not found within {args.examples} draws: {missed}")
    print(f"{name}: {len(findings)} mechanisms in {time.monotonic() - started:.0f} s")
    if args.json is not None:
        rows = [finding.__dict__ for finding in findings]
        args.json.write_text(json.dumps({"engine": name, "findings": rows, "draws": spent}, indent=1) + "\n")
    return 1 if len(findings) < args.require else 0


if __name__ == "__main__":
    sys.exit(main())
