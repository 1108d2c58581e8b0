"""Mutant: the permission engine as it was at commit 531c59b, before the fail-closed static reading.

Not a hand-made defect: the whole engine of that commit (a frozen copy in
``tests/mutants/frozen_engine_531c59b``) patched in wherever the harness asks the engine. It passes
the suite of its own day; what catches it are the composing generators
(``pytest_toolharness._strategies.shell_grammar``), which find bypasses in many distinct mechanisms
(docs/fuzzing-findings.md). It stays as the yardstick for the generators once the live engine is fixed.
"""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory
from tests.mutants.frozen_engine_531c59b import _engine as frozen

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "the engine of commit 531c59b: scripts written then run, code-carrying variables, options that run "
    "commands and inline interpreter code get past a deny rule (docs/fuzzing-findings.md)"
)


def _frozen(name: str) -> Any:
    def replace(original: Any) -> Any:
        del original
        return getattr(frozen, name)

    return replace


adapter = make_factory(
    Patch("reference_impl.execution._pipeline", "decide_permission", _frozen("decide_permission")),
    Patch("reference_impl.execution._asks", "decide_permission", _frozen("decide_permission")),
    Patch("reference_impl.agent._loop", "is_tool_denied_as_whole", _frozen("is_tool_denied_as_whole")),
)
