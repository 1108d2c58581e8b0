"""Timing helpers: medians of per-call times measured in small batches.

CPU-bound figures use the process's CPU time (``time.process_time``), not wall time: the
benchmark machine is shared, and CPU time is what the code itself costs. Figures that involve
waiting (sleeps, subprocesses) use wall time.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

__all__ = ["clock", "drawn_examples", "median_seconds", "per_call_seconds"]

_T = TypeVar("_T")


def drawn_examples(strategy: st.SearchStrategy[_T], count: int) -> list[_T]:
    """``count`` examples of ``strategy``, the same ones every run (derandomised, drawn before timing)."""
    found: list[_T] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(example: _T) -> None:
        found.append(example)

    collect()
    return found[:count]


clock = time.process_time
"""The clock of CPU-bound figures."""


def per_call_seconds(call: Callable[[], object], *, batch: int, rounds: int) -> float:
    """The median over ``rounds`` batches of the mean time of one call in a batch of ``batch``."""
    call()  # warm caches (index builds, regex compilation) outside the measurement
    samples = []
    enabled = gc.isenabled()
    gc.disable()  # as timeit does: a collection landing in one batch is noise, not the call's cost
    try:
        for _ in range(rounds):
            start = time.process_time()
            for _ in range(batch):
                call()
            samples.append((time.process_time() - start) / batch)
    finally:
        if enabled:
            gc.enable()
    return statistics.median(samples)


def median_seconds(calls: list[Callable[[], object]], *, repeat: int = 1) -> float:
    """The median time of each call in ``calls`` (each run ``repeat`` times, after one warm-up)."""
    if calls:
        calls[0]()
    samples = []
    for _ in range(repeat):
        for call in calls:
            start = time.process_time()
            call()
            samples.append(time.process_time() - start)
    return statistics.median(samples)
