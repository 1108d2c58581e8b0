"""Mutant: under the exec check the sandbox's ``/proc`` stays writable, so ``/proc/PID/mem`` rewrites a judged program (SBX-7)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-7"
DESCRIPTION = (
    "bubblewrap is never told `--remount-ro /proc`: a process of the command writes a child's /proc/PID/mem,"
    " and rewrites the argv of an allowed mkdir, judged, to a denied one before it reads it"
)


def _writable_proc(original: Callable[..., list[str]]) -> Callable[..., list[str]]:
    def bwrap_argv(*args: Any, **kwargs: Any) -> list[str]:
        kwargs["exec_checked"] = False
        return original(*args, **kwargs)

    return bwrap_argv


adapter = make_factory(Patch("reference_impl.sandbox._shell", "bwrap_argv", _writable_proc))
