"""PERM-17 mutant: a screened option is screened in the spelling the model lists only, not its help's aliases."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "under Bash(git clone:*), `git clone -c core.sshCommand=nuke ssh://h/r` runs nuke unasked: `--config` is"
    " screened, its short spelling `-c` (git clone -h: `-c, --config`) is not; so `git difftool -t`, `git rebase -x`"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._program_model", "screened_alias", lambda _original: lambda *_args: None
    ),
)
