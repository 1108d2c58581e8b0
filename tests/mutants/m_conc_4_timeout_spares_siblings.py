"""CONC-4 mutant: a shell call that times out does not cancel its shell siblings."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-4"
DESCRIPTION = (
    "Only a raised or failed outcome cancels shell siblings; a timed-out shell call leaves them running"
)

adapter = make_factory(
    Patch(
        "reference_impl.execution._scheduler",
        "StreamingToolExecutor._timed_out",
        rewrite("    if call.shell:\n        self._cancel_shell_siblings(call)\n", ""),
    )
)
