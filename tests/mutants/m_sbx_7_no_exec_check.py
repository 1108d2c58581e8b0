"""Mutant: the sandbox enforces its files and network but judges no program where it runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-7"
DESCRIPTION = (
    "no stub is bound over the programs the Bash deny rules name: a denied program the engine did not"
    " read on the line (a script, an interpreter, an alias) runs in the sandbox (Claude Code's design)"
)


def _judges_nothing(original: Callable[..., tuple[Any, ...]]) -> Callable[..., tuple[Any, ...]]:
    del original

    def exec_rules(rules: Iterable[Any]) -> tuple[Any, ...]:
        del rules
        return ()

    return exec_rules


adapter = make_factory(Patch("reference_impl.sandbox._shell", "exec_rules", _judges_nothing))
