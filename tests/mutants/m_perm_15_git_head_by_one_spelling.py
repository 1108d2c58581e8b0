"""PERM-15 mutant: a git directory recognised only by the HEAD spellings ``git init`` writes, not all git reads."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "a write to meta/config runs unasked in bypassPermissions when meta is a bare repository whose HEAD is "
    "an object name followed by other text (or ref:<tab>refs/...): git takes it for a repository, the harness not"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._linked_protection",
        "is_git_directory",
        rewrite(
            '    return re.match(rb"[0-9a-fA-F]{40}", text) is not None\n',
            '    return re.fullmatch(rb"[0-9a-f]{40}\\s*", text) is not None\n',
        ),
    )
)
