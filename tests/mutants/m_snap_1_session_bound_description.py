"""SNAP-1 mutant: each tool's description embeds the session's working directory."""

from __future__ import annotations

import json
from typing import Any

from reference_impl._wire import wire_json
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SNAP-1"
DESCRIPTION = (
    "Tool descriptions mention the session's working directory, so the same definitions give other "
    "bytes in every session and can't be pinned"
)


def _with_cwd(original: Any) -> Any:
    def _render_base(tool: Any, context: Any) -> str:
        base = json.loads(original(tool, context))
        base["description"] = f"{base['description']}\n\nWorking directory: {context.cwd}"
        return wire_json(base)

    return _render_base


adapter = make_factory(Patch("reference_impl.request._schemas", "_render_base", _with_cwd))
