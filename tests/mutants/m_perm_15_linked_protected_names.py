"""PERM-15 mutant: a protected name that is a symbolic link leads nowhere protected: only git's own places are resolved."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    ".mcp.json -> conf/mcp.json, then Edit conf/mcp.json: the protected names under the working "
    "directory, its parents and home are not resolved through their links, so a write by the "
    "target's own name (no protected segment) is auto-allowed in acceptEdits"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._linked_protection",
        "_protected_targets",
        rewrite("            yield from _linked(root, _NAMES[first])\n", "            pass\n"),
    )
)
