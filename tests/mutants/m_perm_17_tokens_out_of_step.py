"""PERM-17 mutant: ``/`` after a closing brace starts a pattern, so the code up to the next ``/`` is skipped."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "const o = {} / 1; require('child_process').execSync('nu'+'ke'); const p = 1 / 1; (and perl's "
    "$h{a} / 1): the reader takes the division after a closing brace for a regular expression, and the "
    "call up to the next / for its text"
)


def _pattern_after_brace(_original: Any) -> Any:
    from reference_impl.permissions._code_targets import _after_operand

    return _after_operand


adapter = make_factory(Patch("reference_impl.permissions._code_targets", "_divides", _pattern_after_brace))
