"""PERM-17 mutant: a deny rule's words are compared as written, not as the values the program reads them as."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "chmod a+rwx x, chmod 0777 x, rm -rf /tmp//d and git push origin +main run under Bash(chmod 777:*),"
    " Bash(rm -rf /tmp/d:*) and Bash(git push --force:*) deny: a mode, a path and a forced refspec are"
    " compared as spelled, and what git-push(1) says a + refspec or --mirror does is not read as --force"
)


def _as_written(_original: Any) -> Any:
    def _same_operand(_head: str, _position: int, want: str, got: str) -> bool | None:
        return got == want

    return _same_operand


adapter = make_factory(
    Patch("reference_impl.permissions._program_grammar", "_same_operand", _as_written),
    Patch("reference_impl.permissions._program_grammar", "_with_implied", lambda _original: lambda _h, r: r),
)
