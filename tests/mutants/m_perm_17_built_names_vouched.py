"""PERM-17 mutant: an allow rule on a program the engine does not read vouches for a shell command whose name bash builds."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "sqlite3 :memory: '.shell $(printf nu)ke' runs under Bash(sqlite3:*) beside deny Bash(nuke:*): the "
    "line's words name no nuke, and a name bash makes when it runs is not taken to be any"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rules",
        "_built_at_run_time",
        rewrite("    texts = [command]\n", "    texts = [command]\n    return False\n"),
    )
)
