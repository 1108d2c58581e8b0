"""PERM-17 mutant: only the first line of an option's help is mined, so node's ``--loader`` loads nothing."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Callable
from functools import cache
from typing import Any

from reference_impl.permissions._grammar_mining import help_options
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "node --experimental-loader=./l.mjs x.js (session 33's red team): node's help wraps --loader's "
    "description ('use the specified module as a custom loader') onto the next lines; read to the end "
    "of its first line only, the option is mined as taking a plain value, and the module it loads is unread"
)


@cache
def _first_lines_commands(program: str) -> frozenset[str]:
    text = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=20, check=False).stdout
    first_lines = "\n".join(line for line in text.splitlines() if not line.startswith(" " * 12))
    return frozenset(help_options(first_lines).get("commands", ()))


def _first_lines_only(original: Callable[[], Any]) -> Callable[[], Any]:
    @cache
    def catalogue() -> Any:
        programs = dict(original())
        for name in ("node", "nodejs"):
            if name in programs:
                options = programs[name].options
                commands = _first_lines_commands("node")
                programs[name] = dataclasses.replace(
                    programs[name], options=dataclasses.replace(options, commands=commands)
                )
        return programs

    return catalogue


adapter = make_factory(Patch("reference_impl.permissions._program_grammar", "_catalogue", _first_lines_only))
