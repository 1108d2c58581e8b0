"""PERM-1/PERM-17 mutant: ANSI-C octal escapes read as two digits, so a denied name spelled in octal is only asked about."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "under Bash(rm:*) deny, `$'\\162\\155' -rf x` is not read as rm (each octal escape stops after two "
    "digits); the unknown program is asked about, and a person who says yes runs rm"
)

_THREE_DIGITS = re.compile(r"\\([0-7])([0-7])([0-7])")


def _two_digits(original: Callable[[str], str]) -> Any:
    def ansi_c_value(body: str) -> str:
        # ``\162`` read as ``\16`` then a literal ``2``: the same as ``\0162`` read correctly.
        return original(_THREE_DIGITS.sub(lambda m: "\\0" + m.group(1) + m.group(2) + m.group(3), body))

    return ansi_c_value


adapter = make_factory(Patch("reference_impl.permissions._bash_reader", "ansi_c_value", _two_digits))
