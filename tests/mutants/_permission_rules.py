"""What the permission mutants ask of the engine: whether one rule matches one call.

The mutants rewrite rule precedence around ``_decide``; they need the engine's own matching, so that a
mutant differs from the engine only in the defect it names. Kept in one place: when the engine's
internals move, mypy (which checks ``tests.mutants``) names this module instead of a mutant that would
raise at run time, where the engine's fail-closed deny (PERM-14) would hide the error as a "kill".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reference_impl.permissions import _engine, _rules
from tests.mutants._base import Patch

__all__ = ["TRUST_UNREAD", "allow_rule_matches", "rule_matches"]

TRUST_UNREAD = Patch(
    "reference_impl.permissions._shell_forms", "unread_program", lambda _original: lambda *_args, **_kw: None
)
"""The engine trusting every program it does not model (issue 34's principle off). A mutant that
removes one reading adds it, so that the principle's fallback (asking about what is unread) does not
hide the reading it removed; on its own it is the mutant ``m_perm_17_unread_trusted``."""


def rule_matches(rule: Any, tool: Any, tool_input: Any, context: Any) -> bool:
    """Whether ``rule`` alone (allow, ask or deny) matches this call, as the engine matches it."""
    call = _rules.describe_call(tool, tool_input)
    return _engine._matching(call, replace(context, rules=(rule,)), rule.behavior) is not None


def allow_rule_matches(tool: Any, tool_input: Any, context: Any) -> bool:
    """Whether any allow rule of ``context`` allows this call (the engine's allow matching)."""
    return _engine._allow_rule(_rules.describe_call(tool, tool_input), context) is not None
