"""Mutant: a substring expansion's offset is read as arithmetic only after a variable's name."""

from __future__ import annotations

import re
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "'${y:x}' is arithmetic but '${0:x}', '${@:1:x}', '${10:x}' are not: a positional or special "
    "parameter's offset holding 'a[$(rm x)]' runs rm past a deny rule (the reference before session 30)"
)


def _mutate(_original: Any) -> Any:
    # The defect: only an identifier (or an element of one) before the colon.
    return re.compile(r"^\$\{#?[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?:[^-=?+]")


adapter = make_factory(Patch("reference_impl.permissions._evaluated", "_SUBSTRING", _mutate))
