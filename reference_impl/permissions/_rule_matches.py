"""What matching rules against a call found: the deny or ask rule that matched, the allow rules that allow."""

from __future__ import annotations

from dataclasses import dataclass

from reference_impl.permissions._rule_syntax import PermissionRule

__all__ = ["AllowMatch", "RuleMatch"]


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """A deny or ask rule that matched; ``certain`` is False when it only *may* apply (opaque command)."""

    rule: PermissionRule
    certain: bool
    detail: str
    unread: tuple[tuple[str, ...], ...] | None = None
    """For an uncertain match that only unread commands make: the forms of each, which allow rules
    naming that program may vouch for (None: nothing can vouch for it)."""


@dataclass(frozen=True, slots=True)
class AllowMatch:
    """The allow rules that together allow a call, and how."""

    rules: tuple[PermissionRule, ...]
    detail: str
