"""PERM-17 mutant: a shell deny rule's quoting is read as text (``Bash("rm":*)`` names a program ``"rm"``)."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "a deny rule's words keep their quotes and escapes: Bash(\"rm\":*), Bash(\\rm:*), Bash($'rm':*) "
    "load and deny no rm line"
)


def _as_written(original: Any) -> Any:
    def add(self: Any, raw: str, value: str, *, wildcard: bool = False) -> None:
        original(self, raw, raw, wildcard=wildcard)

    return add


adapter = make_factory(Patch("reference_impl.permissions._rule_words", "_Word.add", _as_written))
