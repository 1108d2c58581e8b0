"""PERM-17 mutant: a Perl pattern's code blocks are read as string data."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "'x' =~ /(?{ system('nu'.'ke') })/ under Bash(nuke:*): the (?{ }) and (??{ }) blocks perl runs as the "
    "pattern matches are read as part of the pattern's text, so the command they build is not asked about"
)


def _as_data(_original: Any) -> Any:
    return lambda _body: []


adapter = make_factory(Patch("reference_impl.permissions._code_targets", "_perl_pattern_code", _as_data))
