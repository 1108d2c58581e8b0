"""Mutant: the sandbox's exec check lets every program through: deny rules hold only where the command is read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-7"
DESCRIPTION = (
    "the exec check judges nothing: a denied program started from a script, a copy or an interpreter runs"
)


def _allow_everything(_original: Callable[..., str | None]) -> Callable[..., str | None]:
    def judge(self: Any, attempt: Any) -> str | None:
        del self, attempt
        return None

    return judge


adapter = make_factory(Patch("reference_impl.sandbox._exec_rules", "ExecJudge.__call__", _allow_everything))
