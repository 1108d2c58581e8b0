"""A part of one module's mutants: those on some lines or in some functions (``--lines``, ``--function``).

A whole-module run of the permission engine takes most of an hour on the shared machine; after a
test got stronger, the functions it aims at can be measured alone. A mutant belongs to a selection
when the line it starts on is in one of its line ranges or its innermost enclosing ``def`` (as the
triage file names functions) is one of its functions. The empty selection is the whole module.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

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
    """Mutants starting on ``lines`` or inside ``functions``; nothing given selects every mutant."""

    lines: tuple[range, ...] = ()
    functions: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.lines or self.functions)

    def selects(self, line: int, function: str) -> bool:
        """Whether a mutant starting on ``line``, innermost in ``function`` ("" outside any), is selected."""
        if not self:
            return True
        return any(line in lines for lines in self.lines) or function in self.functions

    def describe(self) -> str:
        """How the score line names the part: ``lines 120-150, function _decide``; "" for the whole module."""
        parts = [f"lines {r.start}-{r.stop - 1}" if len(r) > 1 else f"line {r.start}" for r in self.lines]
        parts += [f"function {name}" for name in self.functions]
        return ", ".join(parts)
