"""DEFER-5 mutant: scores add up in a 16-bit counter, so a query of thousands of terms wraps around."""

from __future__ import annotations

import numpy as np

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "DEFER-5"
DESCRIPTION = (
    "Scores are summed in int16: past 32,767 points (about 1,820 terms at 18 points each) a tool's score "
    "wraps negative and the ranking changes"
)


adapter = make_factory(Patch("reference_impl.search._index", "_SCORE_DTYPE", lambda _original: np.int16))
