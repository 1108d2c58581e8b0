"""PERM-17 mutant: a path that may be a descriptor, but not one the engine can tell, is taken for standard input."""

from __future__ import annotations

from typing import Any

from reference_impl.permissions._descriptors import STDIN, UNKNOWN_DESCRIPTOR
from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "a program reading its program from /proc/self/root/dev/fd/3 (any /dev or /proc path the engine can't "
    "tell) is judged by the line's standard input, while bash reads descriptor 3"
)


def _as_stdin(original: Any) -> Any:
    def descriptor_of(path: str) -> int | None:
        found = original(path)
        return STDIN if found == UNKNOWN_DESCRIPTOR else found

    return descriptor_of


adapter = make_factory(
    *(
        Patch(module, "descriptor_of", _as_stdin)
        for module in (
            "reference_impl.permissions._shell_forms",
            "reference_impl.permissions._wrapped_commands",
            "reference_impl.permissions._evaluated",
        )
    )
)
