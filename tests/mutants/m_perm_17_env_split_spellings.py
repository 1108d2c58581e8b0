"""PERM-17 mutant: ``env -S`` is caught in two spellings only, and its string read as a shell's."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory
from tests.mutants._permission_rules import TRUST_UNREAD

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "env --split-string='rm x', env -vS'rm x', env -S 'rm\\_x' and env -S '-i rm x' run rm under "
    "Bash(rm:*) deny (the reference engine before session 7 knew -S STRING and -SSTRING only)"
)


def _two_spellings(_original: Any) -> Any:
    from reference_impl.permissions import _bash_reader, _shell_forms

    def _deny_env_split(args: Any, forms: set[str], depth: int) -> str | None:
        reason = None
        for i, word in enumerate(args):
            if word is not None and (word in ("-S", "--split-string") or word.startswith("-S")):
                script = word[2:] if word.startswith("-S") and len(word) > 2 else None
                script = script if script is not None else (args[i + 1] if i + 1 < len(args) else "")
                if script is None:
                    return "env -S with a run-time string"
                reason = reason or _shell_forms._deny_command(
                    _bash_reader.split_command(script), forms, depth + 1
                )
        return reason

    return _deny_env_split


adapter = make_factory(
    TRUST_UNREAD, Patch("reference_impl.permissions._shell_forms", "_deny_env_split", _two_spellings)
)
