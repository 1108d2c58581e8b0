"""Mutant: the sandbox expands path globs with Python's ``glob``, not as the path rules read them."""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-1"
DESCRIPTION = (
    "the sandbox's globs expanded by Python's glob module (the sandbox before session 27): a Read deny "
    "rule's `[[:digit:]]*` or `a**/**` hides nothing in the sandbox while the Read tool is denied"
)


def _python_glob(original: Callable[..., tuple[str, ...]]) -> Callable[..., tuple[str, ...]]:
    del original

    def expand_globs(patterns: Sequence[str], **kwargs: Any) -> tuple[str, ...]:
        del kwargs
        found = {
            os.path.normpath(match)
            for pattern in patterns
            for match in glob.iglob(pattern, recursive=True, include_hidden=True)
        }
        return tuple(sorted(found))

    return expand_globs


adapter = make_factory(Patch("reference_impl.sandbox._runner", "expand_globs", _python_glob))
