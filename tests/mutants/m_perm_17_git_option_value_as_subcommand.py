"""PERM-17 mutant: git's first word that is not an option is taken for its subcommand, even a global option's value."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "git's reading stops at the first word not starting with '-': in `git -C . -c alias.x='!rm x' x` the "
    "'.' of -C is taken for the subcommand, so the alias's command after it is never read"
)


def _first_word_is_subcommand(original: Any) -> Any:
    def _git(args: Any) -> tuple[list[str], str | None]:
        for i, word in enumerate(args):
            if word is not None and not word.startswith("-"):
                # Everything before the first plain word, then that word as the subcommand.
                scripts: list[str]
                why: str | None
                scripts, why = original(args[:i])
                return scripts, why
        result: tuple[list[str], str | None] = original(args)
        return result

    return _git


adapter = make_factory(Patch("reference_impl.permissions._programs", "_git", _first_word_is_subcommand))
