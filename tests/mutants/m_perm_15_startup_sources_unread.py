"""PERM-15 mutant: the shell start-up files are not read for what they source and put on PATH."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "writes to ~/.cargo/env (which ~/.bashrc sources) or to ~/.local/bin/git (a directory ~/.profile "
    "puts on PATH) run unasked in bypassPermissions"
)


def _unread(_original: Any) -> Any:
    def startup_reason(_form: str) -> str | None:
        return None

    return startup_reason


adapter = make_factory(Patch("reference_impl.permissions._protected_paths", "startup_reason", _unread))
