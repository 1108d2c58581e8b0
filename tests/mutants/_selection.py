"""A part of one module's mutants: those on some lines or in some functions (``--lines``, ``--function``),
or a random sample of them (``--sample N``, :mod:`tests.mutants._sample`).

A whole-module run of the permission engine takes most of an hour on the shared machine; after a
test got stronger, the functions it aims at can be measured alone. A mutant belongs to a selection
when the line it starts on is in one of its line ranges or its innermost enclosing ``def`` (as the
triage file names functions) is one of its functions. A sample is drawn among the mutants the lines
and functions select (all of them when none are given). The empty selection is the whole module.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tests.mutants._sample import SampleItem, sample_ids

__all__ = ["Selection", "line_range"]


def line_range(text: str) -> range:
    """``A-B`` (inclusive) or ``A`` as a range of line numbers; argparse's type for ``--lines``."""
    first, _, last = text.partition("-")
    try:
        start, stop = int(first), int(last or first)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a line range (A-B or A)") from None
    if start < 1 or stop < start:
        raise argparse.ArgumentTypeError(f"{text!r} is not a line range (1 <= A <= B)")
    return range(start, stop + 1)


@dataclass(frozen=True)
class Selection:
    """Mutants starting on ``lines`` or inside ``functions``, or ``sample`` of those; nothing given selects
    every mutant."""

    lines: tuple[range, ...] = ()
    functions: tuple[str, ...] = ()
    sample: int = 0
    """When not 0, only this many of the mutants ``lines`` and ``functions`` select, drawn at random."""

    def __bool__(self) -> bool:
        return bool(self.lines or self.functions or self.sample)

    def selects(self, line: int, function: str) -> bool:
        """Whether ``lines`` or ``functions`` select a mutant starting on ``line``, innermost in ``function``
        ("" outside any); the sample is drawn from these by :meth:`sampled`."""
        if not (self.lines or self.functions):
            return True
        return any(line in lines for lines in self.lines) or function in self.functions

    def sampled(
        self, module: str, source_lines: Sequence[str], selected: Iterable[SampleItem]
    ) -> frozenset[str] | None:
        """The job ids of the sample drawn from ``selected`` (every mutant :meth:`selects` takes, run or
        not); None without a sample: every selected mutant counts."""
        if not self.sample:
            return None
        return sample_ids(module, source_lines, selected, self.sample)

    def describe(self) -> str:
        """How the score line names the part: ``lines 120-150, function _decide``; "" for the whole module."""
        parts = [f"lines {r.start}-{r.stop - 1}" if len(r) > 1 else f"line {r.start}" for r in self.lines]
        parts += [f"function {name}" for name in self.functions]
        if self.sample:
            parts.append(f"a random sample of {self.sample} mutants")
        return ", ".join(parts)
