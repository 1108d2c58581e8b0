"""PERM-12 mutant: the settings loader never asks whether a rule can match, so a dead rule loads."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "the loader checks a rule's syntax only: a deny or ask rule that can never match as written "
    "(`Bash(ls &&)`, content on a tool that has none, a misspelt built-in name) loads and guards nothing"
)


def _always_live(_original: Any) -> Any:
    return lambda rule: None


adapter = make_factory(Patch("reference_impl.permissions._settings", "dead_rule_reason", _always_live))
