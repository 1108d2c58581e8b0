"""PERM-12 mutant: blanks around a rule's content are kept, except for the shell, path and domain families."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "the parser trims the content of Bash, Read, Edit and WebFetch rules only: `Task( Explore)` keeps "
    "' Explore', loads, and its deny lets the Explore subagent run (a deny silently narrowed)"
)

_TRIMMED = frozenset({"Bash", "Read", "Edit", "WebFetch"})


def _keeps_blanks(original: Any) -> Any:
    def parse_rule(text: str, behavior: Any, source: Any) -> Any:
        rule = original(text, behavior, source)
        if rule.tool_name in _TRIMMED or rule.content is None or "(" not in text:
            return rule
        raw = text.strip()[text.strip().index("(") + 1 : -1]
        return type(rule)(
            tool_name=rule.tool_name, content=raw, behavior=rule.behavior, source=rule.source, text=rule.text
        )

    return parse_rule


adapter = make_factory(Patch("reference_impl.permissions._settings", "parse_rule", _keeps_blanks))
