"""Mutant: an exact-name matcher is searched as a regular expression, so it also matches longer names."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = "matcher 'Bash' also fires for 'BashOutput' (and 'mcp__srv' for mcp__srv__tool): no exact match"


def _mutate(original: Any) -> Any:
    def compile_matcher(matcher: str | None) -> Callable[[str], bool]:
        if matcher is None or matcher in ("", "*"):
            return original(matcher)  # type: ignore[no-any-return]
        pattern = re.compile(matcher)  # the defect: "A|B" and "A" are regexes searched in the name
        return lambda name: pattern.search(name) is not None

    return compile_matcher


adapter = make_factory(Patch("reference_impl.hooks._model", "compile_matcher", _mutate))
