"""PERM-17 mutant: code bash evaluates in array subscripts, arithmetic and code variables is not seen."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "printf -v 'a[$(rm x)]' y, $((x)) on x='a[$(rm x)]', BASH_ENV=<(...): Bash(rm:*) deny misses the rm"
    " bash runs while evaluating a name, arithmetic or a code variable"
)

adapter = make_factory(
    Patch("reference_impl.permissions._bash_reader", "hidden_code", lambda _original: lambda *_args: None),
    Patch(
        "reference_impl.permissions._bash_reader",
        "mark_evaluated_code",
        lambda _original: lambda *_args: None,
    ),
)
