"""SBX-7 mutant: the exec loader's seccomp filter compares syscall numbers without checking the architecture."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite_script

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-7"
DESCRIPTION = (
    "the seccomp filter never reads the call's audit architecture: through the i386 entry (`int 0x80`) of "
    "a 64-bit process, process_vm_writev has another number, passes, and rewrites a child's memory"
)

adapter = make_factory(
    Patch(
        "reference_impl.sandbox._shell",
        "LOADER_SCRIPT",
        rewrite_script(
            "program = [(_LD_ABS_W, 0, 0, 4), (_JEQ, 1, 0, arch), (_RET, 0, 0, _RET_EPERM), (_LD_ABS_W, 0, 0, 0)]",
            "program = [(_LD_ABS_W, 0, 0, 0)]",
        ),
    )
)
