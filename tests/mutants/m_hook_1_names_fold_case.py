"""Mutant: a hook matcher's exact names are compared case-insensitively."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-1"
DESCRIPTION = (
    "matcher 'Deploy' (or 'A|Deploy') also selects 'deploy' and 'DEPLOY': exact names are "
    "compared after lower-casing, so tools differing only in case share their hooks"
)


def _mutate(original: Any) -> Any:
    def compile_matcher(matcher: str | None) -> Callable[[str], bool]:
        predicate: Callable[[str], bool] = original(matcher)
        if matcher is None or matcher in ("", "*") or not matcher.replace("|", "").replace("_", "").isalnum():
            return predicate
        names = frozenset(part.strip().casefold() for part in matcher.split("|"))
        return lambda name: name.casefold() in names

    return compile_matcher


adapter = make_factory(Patch("reference_impl.hooks._model", "compile_matcher", _mutate))
