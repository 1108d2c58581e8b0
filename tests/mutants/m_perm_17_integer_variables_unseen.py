"""PERM-17 mutant: a value written to one of bash's own integer variables is read as data."""

from __future__ import annotations

import re
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "for OPTIND in 'a[$(rm x)]' (or read SRANDOM, printf -v RANDOM, OPTIND=$x) runs rm under Bash(rm:*)"
    " deny: bash evaluates a value written to its own integer variables as arithmetic (the engine before"
    " session 29 only knew variables the line declares with -i)"
)


def _never(_original: Any) -> re.Pattern[str]:
    return re.compile(r"(?!)")  # matches nowhere: no write to OPTIND, RANDOM, ... is seen


adapter = make_factory(Patch("reference_impl.permissions._evaluated", "_INTEGER_WRITE", _never))
