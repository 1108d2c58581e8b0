"""PERM-11 mutant: a read of a directory is judged as the directory alone, not as everything beneath it."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = (
    "Read(./secret/**) deny: Grep or Glob with path secret, secret/. or . runs unasked and reads "
    "secret/key.txt (the rule matches only paths beneath the directory, never the directory searched)"
)


def _nothing_beneath(_original: Any) -> Any:
    def reaches_beneath(_pattern: Any, _directory: str) -> bool | None:
        return False

    return reaches_beneath


adapter = make_factory(Patch("reference_impl.permissions._rules", "reaches_beneath", _nothing_beneath))
