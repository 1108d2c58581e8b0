"""Mutant: hook inputs lack ``permission_mode`` (an older harness's payload)."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-6"
DESCRIPTION = "hook inputs carry session_id, transcript_path and cwd but not permission_mode"


def _mutate(original: Any) -> Any:
    def to_dict(self: Any, *, with_mode: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = original(self, with_mode=with_mode)
        data.pop("permission_mode", None)
        return data

    return to_dict


adapter = make_factory(Patch("reference_impl.hooks._model", "HookBaseInput.to_dict", _mutate))
