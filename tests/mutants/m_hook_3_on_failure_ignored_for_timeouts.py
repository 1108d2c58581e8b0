"""HOOK-3 mutant: ``onFailure: "block"`` honoured for a failing exit status, but a timeout still decides nothing."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "HOOK-3"
DESCRIPTION = 'a hook with onFailure "block" that times out is a non-blocking error: the call goes on'


def _mutate(original: Any) -> Any:
    def _failure_blocks(run: Any) -> Any:
        if run.error is not None and run.error.kind == "timeout":
            return run
        return original(run)

    return _failure_blocks


adapter = make_factory(Patch("reference_impl.hooks._runner", "_failure_blocks", _mutate))
