"""PERM-17 mutant: data the command line runs as a script (sourced input, callbacks, a file it writes) is not seen."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "source <(echo 'rm x'), . /dev/stdin <<< 'rm x', mapfile -C 'rm x', echo 'rm x' > s.sh; bash s.sh:"
    " Bash(rm:*) deny misses the rm bash runs from data"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._shell_forms",
        "data_run_as_code",
        lambda _original: lambda *_args: (None, None),
    ),
    Patch(
        "reference_impl.permissions._shell_forms", "unread_by_writes", lambda _original: lambda *_args: None
    ),
)
