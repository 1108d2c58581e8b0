"""PERM-15 mutant: a program the engine does not model is taken to write none of the files its line names."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "only the writers the engine models (tee, cp, sort -o, ...) write what their line names: `chmod +x "
    ".git/hooks/pre-commit`, `truncate -s 0 ~/.bashrc`, `curl -o .git/config` run unasked under an allow "
    "rule naming the program, or in bypassPermissions"
)

_MODELLED = frozenset(
    {"tee", "dd", "sort", "shuf", "uniq", "sed", "cp", "mv", "ln", "install", "rsync", "git"}
)


def _modelled_only(original: Callable[..., list[str | None]]) -> Callable[..., list[str | None]]:
    def program_targets(argv: tuple[str | None, ...], depth: int = 0) -> list[str | None]:
        if not argv or argv[0] is None or posixpath.basename(argv[0]) not in _MODELLED:
            return []
        return original(argv, depth)

    return program_targets


def _mutate(original: Any) -> Any:
    return _modelled_only(original)


adapter = make_factory(Patch("reference_impl.permissions._protected_paths", "program_targets", _mutate))
