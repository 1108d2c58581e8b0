"""PERM-15 mutant: what an interpreter's inline code writes is not read for protected paths."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    'python3 -c \'open(".bashrc", "w")\', awk \'BEGIN{print > ".git/config"}\', node -e'
    ' \'require("fs").writeFileSync(".claude/settings.json", "")\' are auto-allowed by acceptEdits and'
    " bypassPermissions: the code's own writes, literal or built, are not protected-path checked"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_interpreter_code",
        lambda _original: lambda part: None,
    )
)
