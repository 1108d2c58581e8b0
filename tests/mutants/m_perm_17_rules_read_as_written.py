"""PERM-17 mutant: a deny rule naming options or a subcommand is matched against the words as written."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(rm -rf:*) misses rm -fr d, rm --recursive --force d and rm d -r -f; Bash(git push:*) misses "
    "git -C . push; Bash(npm run deploy:*) misses npm rum deploy (the engine before session 17 compared "
    "words, not what the program makes of them)"
)


def _as_written(_original: Any) -> Any:
    def by_grammar(self: Any, commands: Any) -> None:
        return None

    return by_grammar


adapter = make_factory(
    Patch("reference_impl.permissions._shell_rules", "ShellRuleIndex.by_grammar", _as_written)
)
