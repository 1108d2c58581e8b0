"""PERM-17 mutant: a project script's code is read for literal names only, not for what it builds."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "python3 tool.py under Bash(python3:*) past Bash(nuke:*), where tool.py runs os.system('nu' + 'ke') or"
    " 'sh < b.txt': the script's text is searched for the denied name, its code is not read"
)

adapter = make_factory(
    Patch("reference_impl.permissions._rules", "project_code", lambda _original: lambda where, text: None)
)
