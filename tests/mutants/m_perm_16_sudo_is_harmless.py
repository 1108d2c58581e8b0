"""Mutant: every wrapper is stripped before allow matching, as if sudo or env only changed how a command runs."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-16"
DESCRIPTION = (
    "Bash(npm test:*) allows `sudo npm test` and `env -i npm test`: wrappers need no rule of their own"
)


adapter = make_factory(
    Patch(
        "reference_impl.permissions._shell_forms",
        "HARMLESS_WRAPPERS",
        lambda original: original | {"sudo", "doas", "env", "xargs", "exec", "command", "builtin", "setsid"},
    )
)
