"""PERM-17 mutant: a global option moving a program's configuration into the project is trusted."""

from __future__ import annotations

import re

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(whoami:*) misses docker --config=d info (d/cli-plugins/docker-* run for their metadata) and "
    "kubectl --kubeconfig=k get pods (k's exec credential plugin): the allow rule on the program vouches"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._program_model",
        "_SUBCOMMAND_SCREENS",
        lambda original: {**original, "docker": ("", ())},
    ),
    Patch("reference_impl.permissions._program_model", "_RELOCATING", lambda _original: re.compile(r"(?!)")),
)
