"""CONC-5 mutant: the reference CLI ignores SIGINT, so a user's Ctrl-C mid-batch stops nothing."""

from __future__ import annotations

import sys
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-5"
DESCRIPTION = (
    "The CLI sets SIGINT to be ignored (to spare its tools' children a Ctrl-C) and never aborts: "
    "after a Ctrl-C mid-batch the calls queued behind the running one still start"
)

# The reference CLI as ``python -m reference_impl`` runs it, with SIGINT ignored first (asyncio then
# installs no handler of its own: it does so only over Python's default one).
_IGNORING = (
    "import runpy, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "sys.argv[0] = 'reference_impl'\n"
    "runpy.run_module('reference_impl', run_name='__main__', alter_sys=True)\n"
)


def _ignoring_sigint(original: Any) -> Any:
    del original

    def command(self: Any, inv: Any) -> list[str]:
        return [sys.executable, "-c", _IGNORING, *self.arguments(inv)]

    return command


adapter = make_factory(
    Patch("pytest_toolharness.wire.targets._command", "ReferenceTarget.command", _ignoring_sigint)
)
