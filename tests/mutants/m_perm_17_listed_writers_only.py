"""PERM-17 mutant: only redirections and a list of file-making programs count as writing a file."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "uniq d s.sh && sh s.sh, sed -n 'w s.sh' d; sh s.sh, tar xf t && make: a program outside the list "
    "of file makers (tee, cp, dd...) is taken to write nothing (the engine before session 17)"
)

_LISTED = frozenset({"tee", "cp", "ln", "link", "install", "mv", "rsync", "scp", "dd", "truncate"})


def _listed_only(original: Any) -> Any:
    def writes(base: str, args: Any) -> Any:
        return original(base, args) if base in _LISTED else ([], None)

    return writes


adapter = make_factory(Patch("reference_impl.permissions._line_writes", "program_writes", _listed_only))
