"""Mutant: a redirection whose target bash only knows when it runs is not taken as a protected write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reference_impl.permissions import _protected_paths
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    'echo x >> "$PWD"/.git/config or >> .git/confi? in bypassPermissions: the target needs an '
    "expansion, the protected-path check skips what it can't read literally, and the write runs unasked"
)


def _mutate(original: Any) -> Any:
    def protected_write(call: Any, cwd: Path) -> str | None:
        reason: str | None = original(call, cwd)
        if reason is not None and reason.startswith("the command writes to a file only known when it runs"):
            shell = call.shell
            known = [w for w in shell.writes if w is not None] if shell is not None else []
            return next((r for w in known if (r := _protected_paths.protected_reason(w, cwd))), None)
        return reason

    return protected_write


adapter = make_factory(Patch("reference_impl.permissions._engine", "protected_write", _mutate))
