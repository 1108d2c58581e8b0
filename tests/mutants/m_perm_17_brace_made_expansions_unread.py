"""PERM-17 mutant: a ``$`` the parser keeps literal stays literal, though brace expansion joins it to what follows."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "x='$(rm x)'; echo {$,}{x@P} runs rm: brace expansion, before every other expansion, makes ${x@P} of "
    "a literal $ and the text after the braces, and the prompt expansion runs the substitution in x; the "
    "mutant takes the parser's literal $ for bash's (session 37's red team: 141 lines through a Bash(rm:*) deny)"
)


def _never(original: object) -> object:
    def brace_made_expansion(walk: object, word: object) -> str | None:
        return None

    return brace_made_expansion


adapter = make_factory(Patch("reference_impl.permissions._evaluated", "_brace_made_expansion", _never))
