"""How much of the harness's own code one call reaches: a cheap coverage signal for ``target()``.

Hypothesis's ``target()`` climbs a number; :func:`code_reach` gives it one that grows when a drawn
input makes the harness under test take branches it rarely takes: the count of distinct lines run
in the harness's own files while the block runs. The harness's files are every file that is
neither the suite's (this package, and the ``exclude`` directories the caller names) nor the
interpreter's or an installed library's, so no harness needs to declare its engine: the reference
harness, a mutant of it or a project harness installed in editable mode are all measured the same.
Only the frames of those files are traced line by line; every other frame is declined at its call
event, which keeps the cost to one cached path test per function call.
"""

from __future__ import annotations

import sys
import sysconfig
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

__all__ = ["CodeReach", "code_reach"]

_SUITE = str(Path(__file__).resolve().parent.parent)
_LIBRARIES = tuple(
    {
        str(Path(p).resolve())
        for key in ("stdlib", "platstdlib", "purelib", "platlib")
        if (p := sysconfig.get_path(key))
    }
)

_Tracer = Callable[[FrameType, str, Any], Any]


@dataclass
class CodeReach:
    """The distinct ``(file, line)`` pairs of the harness's own code run inside a :func:`code_reach` block."""

    lines: set[tuple[str, int]] = field(default_factory=set)

    @property
    def count(self) -> int:
        """How many distinct lines ran: the number to give ``target()``."""
        return len(self.lines)

    def files(self) -> set[str]:
        """The harness's files that ran at all."""
        return {path for path, _ in self.lines}


def _outside(excluded: tuple[str, ...]) -> Callable[[str], bool]:
    verdicts: dict[str, bool] = {}

    def harness_file(filename: str) -> bool:
        known = verdicts.get(filename)
        if known is None:
            path = str(Path(filename).resolve()) if not filename.startswith("<") else ""
            known = bool(path) and not any(path == d or path.startswith(d + "/") for d in excluded)
            verdicts[filename] = known
        return known

    return harness_file


@contextmanager
def code_reach(exclude: Sequence[Path] = ()) -> Iterator[CodeReach]:
    """Trace the lines of the harness's own files run by this thread inside the block.

    ``exclude`` names further directories of the suite (a conformance package, a test directory)
    whose lines are not the harness's. The tracer in force before (a debugger, coverage.py,
    Hypothesis's explain phase) is put back on exit, and is not chained meanwhile: measure only
    the call under test.
    """
    reach = CodeReach()
    harness_file = _outside((_SUITE, *_LIBRARIES, *(str(Path(d).resolve()) for d in exclude)))
    lines = reach.lines

    def local(frame: FrameType, event: str, _arg: Any) -> _Tracer:
        if event == "line":
            lines.add((frame.f_code.co_filename, frame.f_lineno))
        return local

    def calls(frame: FrameType, event: str, _arg: Any) -> _Tracer | None:
        if event == "call" and harness_file(frame.f_code.co_filename):
            lines.add((frame.f_code.co_filename, frame.f_lineno))
            return local
        return None

    before = sys.gettrace()
    thread_before = threading.gettrace()
    sys.settrace(calls)
    threading.settrace(calls)
    try:
        yield reach
    finally:
        sys.settrace(before)
        threading.settrace(thread_before)
