"""Mutant: node's bare module names are taken for the installation's, never resolved in node_modules."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "under Bash(node:*), `node t.js` whose t.js requires 'helper' is judged without node_modules/helper: "
    "only relative paths are followed, so the package node resolves (main, exports, index.js) runs a "
    "denied program unasked"
)


def _mutate(original: Any) -> Any:
    def _node_files(specifier: str, here: str) -> list[str] | None:
        if specifier.startswith(("./", "../", "/")):
            found: list[str] | None = original(specifier, here)
            return found
        return []  # a bare name (or ``#name``): taken for a built-in

    return _node_files


adapter = make_factory(Patch("reference_impl.permissions._module_search", "_node_files", _mutate))
