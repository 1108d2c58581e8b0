"""PERM-12 mutant: the liveness check reads a path rule's character class other than the path matcher does."""

from __future__ import annotations

import re
import string
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    "the witness for a class `[...]` is sought among letters, digits and `._-` in the class compiled "
    "as a regex (a backslash an escape): `Read([\\d])`, which names a file `d`, and `Edit([!a-zA-Z0-9._-])`, "
    "which names `@`, are refused as rules that can never match"
)


def _class_char_of_session_25(original: Any) -> Any:
    def _class_char(body: str) -> str:
        pattern = re.compile("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
        return next((c for c in string.ascii_letters + string.digits + "._-" if pattern.fullmatch(c)), "a")

    return _class_char


adapter = make_factory(
    Patch("reference_impl.permissions._rule_liveness", "_class_char", _class_char_of_session_25)
)
