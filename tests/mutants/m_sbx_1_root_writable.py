"""Mutant: the sandbox binds the root read-write, so writes outside the working directories land."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-1"
DESCRIPTION = (
    "bubblewrap gets `--bind / /` instead of `--ro-bind / /`: only the protected paths stay read-only"
)


def _writable_root(original: Callable[..., list[str]]) -> Callable[..., list[str]]:
    def bwrap_argv(*args: Any, **kwargs: Any) -> list[str]:
        argv = original(*args, **kwargs)
        at = argv.index("--ro-bind")
        return [*argv[:at], "--bind", *argv[at + 1 :]]

    return bwrap_argv


adapter = make_factory(Patch("reference_impl.sandbox._shell", "bwrap_argv", _writable_root))
