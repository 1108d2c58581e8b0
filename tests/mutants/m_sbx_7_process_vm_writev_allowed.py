"""SBX-7 mutant: the exec loader's seccomp filter refuses ptrace but lets process_vm_writev through."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite_script

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-7"
DESCRIPTION = (
    "the filter takes ptrace for the only way into another process's memory: process_vm_writev from the "
    "command's process, a child, a thread or a grandchild rewrites a child, whose judged exec then runs "
    "something else"
)

adapter = make_factory(
    Patch(
        "reference_impl.sandbox._shell",
        "LOADER_SCRIPT",
        rewrite_script(
            '"x86_64": (0xC000003E, 317, (59, 322), (101, 311)),',
            '"x86_64": (0xC000003E, 317, (59, 322), (101,)),',
        ),
    )
)
