"""SBX-1 mutant: ``sandbox.enabled: false`` in any settings file turns the sandbox off."""

from __future__ import annotations

from tests.mutants._base import make_factory
from tests.mutants._sandbox_settings import false_from_any_file_patches

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-1"
DESCRIPTION = (
    "sandbox.enabled is merged as 'on only if every file that sets it says on': a repository's or the"
    " user's enabled: false beats the managed enabled: true, and commands write outside the working directory"
)


adapter = make_factory(*false_from_any_file_patches("enabled"))
