"""PERM-17 mutant: ``--no-edit`` read as giving every subcommand its message, tag's annotation too."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(editor:*) misses git tag -a --no-edit v9: for tag --no-edit only undoes -e, and git still opens "
    "the editor for the annotation; the mutant counts --no-edit as a message as for commit"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._git_started",
        "_opens_editor",
        rewrite(
            "    message = sub in _MESSAGE and _read(sub, rest, _MESSAGE[sub], given, begun=False)\n",
            "    shown = (_MESSAGE[sub][0], (*_MESSAGE[sub][1], '--no-edit')) if sub in _MESSAGE else ('', ())\n"
            "    message = sub in _MESSAGE and _read(sub, rest, shown, given, begun=False)\n",
        ),
    )
)
