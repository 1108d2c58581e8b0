"""PERM-17 mutant: a git display that verifies signatures is taken to start no signature program."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(gpg:*) misses git log --show-signature, git log --format=%G?, git -c log.showSignature=true "
    "log: git checks each signed commit it shows with gpg (gpgsm, ssh-keygen), which no word names"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._git_started",
        "_verifies",
        rewrite(
            '    return shown or "--show-signature" in rest or any(_SIGNATURE_FORMAT.search(w) for w in rest)\n',
            "    return False\n",
        ),
    )
)
