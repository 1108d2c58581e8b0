"""PERM-17 mutant: a bash builtin that runs a command given in an option is taken as harmless."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "jobs -x 'rm x', mapfile -C 'rm x' -c 1 < f, compgen -C 'rm x' w: the builtins' own options are not read"
    " (as before session 30), and Bash(rm:*) deny misses the rm bash runs"
)


# No builtin's option is read as a command: ``data_run_as_code`` sees none.
adapter = make_factory(
    Patch(
        "reference_impl.permissions._evaluated", "builtin_commands", lambda _original: lambda *_a: ([], None)
    )
)
