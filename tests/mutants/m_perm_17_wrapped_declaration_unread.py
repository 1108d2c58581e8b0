"""Mutant: a declaration behind ``builtin`` or ``command`` is not read for subscripts."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "'builtin declare' / 'command typeset' are plain commands to the grammar, and the subscript check "
    "reads declarations only: \"builtin declare 'a[$(rm x)]=1'\" runs rm past a deny rule"
)


def _mutate(original: Any) -> Any:
    def hidden_code(argv: tuple[str | None, ...], raw: tuple[str, ...], assignments: tuple[str, ...]) -> Any:
        names = [w for w in argv if w not in ("builtin", "command", "-p", "--")]
        if len(names) < len(argv) and names and names[0] in ("declare", "typeset", "local"):
            return None  # the defect: the wrapped declaration's words are never looked at
        return original(argv, raw, assignments)

    return hidden_code


adapter = make_factory(Patch("reference_impl.permissions._bash_reader", "hidden_code", _mutate))
