"""Mutants of the reference CLI as a wire target runs it: a patch applied inside its own process.

A wire scenario runs ``python -m reference_impl`` as a process of its own, where a :class:`Patch`
applied in the pytest process does not reach. :func:`cli_patch` makes the reference target run the
CLI after ``code`` (Python run first in that process: it patches a module, sets a signal handler).
"""

from __future__ import annotations

import sys
from typing import Any

from tests.mutants._base import Patch

__all__ = ["cli_patch"]

_RUN_CLI = "import runpy, sys\nsys.argv[0] = 'reference_impl'\nrunpy.run_module('reference_impl', run_name='__main__', alter_sys=True)\n"


def cli_patch(code: str) -> Patch:
    """A :class:`Patch` of the reference target's command: ``code``, then the reference CLI, in one process."""

    def mutate(original: Any) -> Any:
        del original

        def command(self: Any, inv: Any) -> list[str]:
            return [sys.executable, "-c", code + "\n" + _RUN_CLI, *self.arguments(inv)]

        return command

    return Patch("pytest_toolharness.wire.targets._command", "ReferenceTarget.command", mutate)
