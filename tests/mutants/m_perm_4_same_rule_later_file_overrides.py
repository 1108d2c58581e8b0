"""Mutant: the same rule text in a later settings file overrides the earlier file's rule."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-4"
DESCRIPTION = (
    "rules are merged into a dict keyed by (tool, content), file after file, so `Deploy` allowed in "
    "a later file replaces `Deploy` denied in an earlier one (as if settings overrode per rule)"
)


def _mutate(original: Any) -> Any:
    def context_from_settings(files: Any, **kwargs: Any) -> Any:
        context = original(files, **kwargs)
        by_text: dict[tuple[str, str | None], Any] = {}
        for rule in context.rules:
            by_text.pop((rule.tool_name, rule.content), None)
            by_text[(rule.tool_name, rule.content)] = rule  # BUG: the last file's behaviour wins
        return replace(context, rules=tuple(by_text.values()))

    return context_from_settings


adapter = make_factory(
    Patch("reference_impl.permissions._context", "context_from_settings", _mutate),
    Patch("pytest_toolharness.adapters.reference._permission_context", "context_from_settings", _mutate),
    Patch("pytest_toolharness.adapters.reference._adapter", "context_from_settings", _mutate),
)
