"""PERM-15 mutant: a program writing git's configuration with no path on its line is judged by its words alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "git maintenance register / start (and scalar register) add maintenance.repo to ~/.gitconfig, "
    "unasked in bypassPermissions"
)


def _none(_original: Any) -> Callable[..., list[str | None]]:
    # As before session 31: no program writes a file its line does not name.
    return lambda _base, _args: []


adapter = make_factory(Patch("reference_impl.permissions._line_writes", "conventional_writes", _none))
