"""SBX-5 mutant: ``sandbox.failIfUnavailable: false`` in any settings file lets commands run unconfined."""

from __future__ import annotations

from tests.mutants._base import make_factory
from tests.mutants._sandbox_settings import false_from_any_file_patches

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-5"
DESCRIPTION = (
    "sandbox.failIfUnavailable is merged as 'on only if every file that sets it says on': a local"
    " failIfUnavailable: false beats the managed true, and with no bubblewrap a command runs unsandboxed"
)


adapter = make_factory(*false_from_any_file_patches("fail_if_unavailable"))
