"""Mutant: a rule decision records the rule but not the settings source it came from."""

from __future__ import annotations

from typing import Any

from reference_impl.permissions import DecisionReason
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-13"
DESCRIPTION = "decision reasons drop the rule's settings source, so an audit can't tell which file allowed it"


def _mutate(original: Any) -> Any:
    del original

    def rule_reason(rule: Any, detail: str) -> DecisionReason:
        return DecisionReason(stage="rule", detail=detail, rule=rule.text)

    return rule_reason


adapter = make_factory(Patch("reference_impl.permissions._engine", "_rule_reason", _mutate))
