"""PERM-15 mutant: a program whose use of its words the engine does not read is trusted with the paths they name."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = "sqlite3 :memory: '.output .mcp.json', vim -es '+w .git/hooks/pre-commit' and echo 'open .git/x w' | tclsh run unasked in bypassPermissions"

adapter = make_factory(
    Patch(
        "reference_impl.permissions._protected_paths",
        "_unread_words_reason",
        rewrite(
            "        if unread_program(base, argv[1:], part.stdin) is not None and code_language(base) is None:\n",
            "        if False:\n",
        ),
    )
)
