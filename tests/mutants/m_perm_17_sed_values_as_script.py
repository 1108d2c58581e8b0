"""PERM-17 mutant: sed's options read without the values its grammar gives them (``-l N`` taken as a flag)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "sed -l 5 '1e rm -rf x' f, --line-len 5, -nl 5 (session 33's red team): only -e and -f are known to "
    "take a value, so the value of -l is taken as sed's script (an address, harmless) and the script "
    "sed really runs is read as an input file"
)


def _only_script_values(original: Callable[[str], Any]) -> Callable[[str], Any]:
    def grammar(program: str) -> Any:
        found = original(program)
        if found is None:
            return None
        names, values, optional = found
        return names, values & {"-e", "-f"}, optional

    return grammar


adapter = make_factory(
    Patch("reference_impl.permissions._sed_options", "option_grammar", _only_script_values)
)
