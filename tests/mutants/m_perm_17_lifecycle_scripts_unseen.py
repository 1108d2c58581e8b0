"""PERM-17 mutant: npm commands run only the script they name, never the lifecycle scripts npm's documentation lists."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "npm install, npm pack, npm version, npm uninstall are allowed by Bash(npm:*) beside Bash(nuke:*) deny "
    "although their preinstall/prepack/preversion/dependencies scripts run nuke: only `npm run x`'s x is read"
)


def _mutate(original: Any) -> Any:
    def npm_hooks(command: str, script: str | None) -> Any:
        found = original(command, script)
        if found is None or command != "run" or script is None:
            return None
        return type(found)((script,), ())

    return npm_hooks


adapter = make_factory(Patch("reference_impl.permissions._project_files", "npm_hooks", _mutate))
