"""Mutant: the exec check judges only the call's arguments, never the image the kernel then runs (SBX-7)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-7"
DESCRIPTION = (
    "every image is let through at its exec stop: a thread that swaps the path after the seccomp check runs "
    "the denied program"
)


def _continue_everything(_original: Callable[..., bool]) -> Callable[..., bool]:
    def answer(self: Any, tracer: Any) -> bool:
        del self
        if not tracer.stdout.readline():
            return False
        tracer.stdin.write(b"C\n")
        tracer.stdin.flush()
        return True

    return answer


adapter = make_factory(
    Patch("reference_impl.sandbox._exec_guard", "ExecGuard._answer_traced", _continue_everything)
)
