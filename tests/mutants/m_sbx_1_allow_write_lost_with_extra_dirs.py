"""Mutant: ``sandbox.filesystem.allowWrite`` is dropped when ``additionalDirectories`` is also set."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-1"
DESCRIPTION = (
    "with permissions.additionalDirectories set, the sandbox takes the working directories as its "
    "writable area and forgets sandbox.filesystem.allowWrite"
)


def _mutate(original: Any) -> Any:
    def derive_policy(settings: Any, context: Any, **kwargs: Any) -> Any:
        if len(context.working_dirs) > 1:
            settings = dataclasses.replace(settings, allow_write=())
        return original(settings, context, **kwargs)

    return derive_policy


adapter = make_factory(Patch("reference_impl.sandbox._shell", "derive_policy", _mutate))
