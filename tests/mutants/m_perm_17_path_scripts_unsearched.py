"""PERM-17 mutant: a script its interpreter looks up in PATH (source name, perl -S name) is read as ./name."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "under Bash(nuke:*) denied, `source setup.sh` and `perl -S setup.pl` are judged by ./setup.sh and"
    " ./setup.pl: the PATH directory's script bash and perl run instead runs nuke unasked"
)


def _unsearched(_original: object) -> object:
    return lambda *_args: None


adapter = make_factory(
    Patch("reference_impl.permissions._rules", "path_searched_script", _unsearched),
    Patch("reference_impl.permissions._line_writes", "path_searched_script", _unsearched),
)
