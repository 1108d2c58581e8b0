"""SBX-7 mutant: the exec tracer resumes a process that a stop signal stopped (no ``PTRACE_LISTEN``)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite_script

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-7"
DESCRIPTION = (
    "the exec tracer continues every ptrace event stop alike, a group-stop too: a process of the command "
    "sent SIGSTOP or SIGTSTP runs on, and job control inside the sandbox stops nothing"
)

adapter = make_factory(
    Patch(
        "reference_impl.sandbox._exec_guard",
        "TRACER_SCRIPT",
        rewrite_script(
            "            if stop in _STOPPING and _ptrace(libc, _LISTEN, pid) == 0:\n                continue\n",
            "",
        ),
    )
)
