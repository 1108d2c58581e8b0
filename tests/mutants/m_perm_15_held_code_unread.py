"""PERM-15 mutant: code a builtin or a program holds in an option is not read for what it writes."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "mapfile -C 'echo x >> .claude/settings.json; :' -c 1 <<< z and git -c diff.external='sh -c \"...\"' "
    "diff run unasked in bypassPermissions: the protected-path check reads sh -c and eval, not the code "
    "the rule check finds held in a builtin's or a program's option"
)


def _nothing(_original: object) -> object:
    def data_run_as_code(*_args: object) -> tuple[None, None]:
        return None, None

    return data_run_as_code


adapter = make_factory(Patch("reference_impl.permissions._protected_paths", "data_run_as_code", _nothing))
