"""PERM-14 mutant: a ``Bash(...)`` pattern's wildcards matched by a backtracking regex."""

from __future__ import annotations

import re

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-14"
DESCRIPTION = (
    "Bash(echo *a*ab*-x*zq) as the regex echo .*a.*ab.*-x.*zq: on a long command that nearly matches, "
    "the regex tries every placing of the pieces before it gives up (time polynomial in the command, "
    "of degree the number of wildcards), so a model's command holds the decision for hours"
)


def _backtracking(original: object) -> object:
    def shell_wildcard_matches(pattern: str, command: str) -> bool:
        pieces = [re.escape(p.replace("\\*", "*")) for p in re.split(r"(?<!\\)\*", pattern)]
        return re.fullmatch(".*".join(pieces), command, re.DOTALL) is not None

    return shell_wildcard_matches


adapter = make_factory(
    Patch("reference_impl.permissions._shell_rules", "shell_wildcard_matches", _backtracking)
)
