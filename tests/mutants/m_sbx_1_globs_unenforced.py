"""Mutant: glob patterns of the sandbox's filesystem settings are accepted and enforced nowhere."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-1"
DESCRIPTION = (
    "`denyRead` / `denyWrite` globs (`./*.key`, `**/.env`) match nothing when the mounts are planned:"
    " the files stay readable and writable (the sandbox before issue 34)"
)


def _matches_nothing(original: Callable[..., tuple[str, ...]]) -> Callable[..., tuple[str, ...]]:
    del original

    def expand_globs(patterns: Sequence[str], **kwargs: Any) -> tuple[str, ...]:
        del patterns, kwargs
        return ()

    return expand_globs


adapter = make_factory(Patch("reference_impl.sandbox._runner", "expand_globs", _matches_nothing))
