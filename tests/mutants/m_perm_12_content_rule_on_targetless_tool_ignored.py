"""PERM-12 mutant: a content rule on a tool with no permission target loads and matches nothing."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "deny Deploy(prod) on a tool the program adds, with no permission content, loads and never matches:"
    " the call runs as if the rule were not written (nothing to compare is taken as nothing to deny)"
)


def _first_match(original: Any) -> Any:
    def first_match(rules: Any, call: Any, **kwargs: Any) -> Any:
        found = original(rules, call, **kwargs)
        if found is not None and not found.certain and call.target is None:
            return None
        return found

    return first_match


adapter = make_factory(Patch("reference_impl.permissions._engine", "first_match", _first_match))
