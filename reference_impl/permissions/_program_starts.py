"""The programs each installed program may start with no option naming them (PERM-17).

``diff -l`` passes its output through ``pr``; ``file -z`` looks inside a compressed file through
``gzip``, ``xz``, ``zstd``...; ``man`` starts ``pager`` and ``groff``. No option on the line names
those programs, and a deny rule on them still applies: the engine asks when one may start.

``program_starts.json`` beside this module is mined from the machine's own programs by
:mod:`~reference_impl.permissions._helper_mining` (which says how); it is read here.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

__all__ = ["STARTS_FILE", "started_by_default"]

STARTS_FILE = Path(__file__).with_name("program_starts.json")


@lru_cache(maxsize=1)
def _starts() -> dict[str, tuple[str, ...]]:
    # The file ships with the package: one missing or broken is an error (the engine denies on it), never
    # an empty catalogue, which would take every program to start nothing.
    data = json.loads(STARTS_FILE.read_text(encoding="utf-8"))
    return {name: tuple(found) for name, found in data.get("programs", {}).items()}


def started_by_default(name: str) -> tuple[str, ...]:
    """The programs ``name`` (a basename) may start whatever its options, as the machine's files show."""
    return _starts().get(name, ())
