"""Mutant: a rule that fails to parse is silently skipped instead of refused."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from reference_impl import RuleSyntaxError, SettingSource, parse_rule
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = "settings loading drops an unparsable deny rule with a warning, widening what is allowed"


def _mutate(original: Any) -> Any:
    del original

    def rules(specs: Sequence[Any]) -> tuple[Any, ...]:
        parsed = []
        for spec in specs:
            try:
                parsed.append(parse_rule(spec.text, spec.behavior, cast(SettingSource, spec.source)))
            except (RuleSyntaxError, ValueError):
                continue  # the defect: fail open
        return tuple(parsed)

    return rules


# The reference adapter turns RuleSpecs into rules with one function, _permission_context.rules_of:
# patched where it is defined (execution scenarios) and where _adapter imported it (the pool's deny rules).
adapter = make_factory(
    Patch("pytest_toolharness.adapters.reference._permission_context", "rules_of", _mutate),
    Patch("pytest_toolharness.adapters.reference._adapter", "rules_of", _mutate),
)
