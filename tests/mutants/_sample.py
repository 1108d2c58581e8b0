"""A uniform random sample of one module's mutants (``--sample N``), stable across runs and edits.

Every module of ``reference_impl`` together has some 30,000 mutants, which a 2-core machine runs in
days; a random sample's score estimates the module's with a known error (random mutant sampling:
Zhang et al., ICSE 2010; Gopinath et al., ISSRE 2015). The sample is a *bottom-k* sample: each mutant
gets a pseudo-random key from what it is (the module, the operator, its line's text and its rank among
the same operator's mutants on lines reading the same), and the N smallest keys are the sample. So
the sample is the same on every machine and run, an edit elsewhere in the module leaves the other
mutants' keys alone, and a larger sample contains the smaller one (``--sample 40`` then
``--sample 80 --resume`` runs only the 40 new ones).

:func:`wilson_interval` gives the score's 95% interval, so a sampled row says how far it may be from
the whole module's.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["SampleItem", "sample_ids", "wilson_interval"]


@dataclass(frozen=True)
class SampleItem:
    """One mutant as the sample sees it: its job id, operator and where it starts (line, column)."""

    job_id: str
    operator: str
    start: tuple[int, int]
    occurrence: int = 0


def _key(module: str, operator: str, text: str, rank: int) -> int:
    digest = hashlib.sha256(f"{module}\0{operator}\0{text}\0{rank}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def sample_ids(
    module: str, source_lines: Sequence[str], items: Iterable[SampleItem], size: int
) -> frozenset[str]:
    """The job ids of the ``size`` mutants of ``items`` with the smallest keys (all of them if fewer)."""
    if size < 1:
        raise ValueError(f"a sample has at least one mutant, not {size}")
    ranked: dict[tuple[str, str], int] = {}
    keyed: list[tuple[int, str]] = []
    # A mutant's rank among its operator's on lines that read the same, in source order: two equal lines'
    # mutants get different keys, and neither key depends on where in the module the lines are.
    for item in sorted(items, key=lambda i: (i.start, i.operator, i.occurrence)):
        line = item.start[0]
        text = source_lines[line - 1].strip() if 0 < line <= len(source_lines) else ""
        rank = ranked.get((item.operator, text), 0)
        ranked[(item.operator, text)] = rank + 1
        keyed.append((_key(module, item.operator, text, rank), item.job_id))
    keyed.sort()
    return frozenset(job_id for _key_value, job_id in keyed[:size])


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a proportion, as percentages; (0, 100) for no trials."""
    if trials <= 0:
        return 0.0, 100.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # Rounded below float noise: 50 of 50 reaches 100%, not 99.99999999999999%.
    return round(100.0 * max(0.0, centre - half), 9), round(100.0 * min(1.0, centre + half), 9)
