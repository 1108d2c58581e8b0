"""PERM-15 mutant: a path written through a name git checks out on the same line is judged as a plain path."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "git restore -s side lk && cp f lk/pre-commit runs unasked in bypassPermissions when side tracks "
    "lk -> .git/hooks: what git writes from a commit (or a copy or archive) is not taken for a possible link"
)


def _never(_original: object) -> object:
    def _through(*_args: object) -> None:
        return None

    return _through


adapter = make_factory(Patch("reference_impl.permissions._protected_paths", "_through", _never))
