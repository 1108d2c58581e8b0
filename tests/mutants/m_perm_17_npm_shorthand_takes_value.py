"""PERM-17 mutant: npm's loglevel shorthands (``-s``, ``--silent``) are read as options taking the next word."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "npm -s run deploy and npm run --silent deploy pass Bash(npm run deploy:*): a shorthand that carries"
    " its value (--loglevel silent) is taken for --loglevel, which swallows the next word"
)


def _value_dropped(original: Any) -> Any:
    def catalogue() -> Any:
        programs = dict(original())
        npm = programs.get("npm")
        if npm is not None and npm.global_options is not None:
            names = {k: v.partition("=")[0] for k, v in npm.global_options.names.items()}
            programs["npm"] = replace(npm, global_options=replace(npm.global_options, names=names))
        return programs

    return catalogue


adapter = make_factory(Patch("reference_impl.permissions._program_grammar", "_catalogue", _value_dropped))
