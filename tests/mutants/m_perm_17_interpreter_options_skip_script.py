"""PERM-17 mutant: an interpreter's script is read only when it is the first word (no options, no directory)."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "python3 -u a.py, node --no-warnings index.js, perl -w a.pl, python3 -Bm a, python3 d and node . run"
    " unread: options before the script skip the read, and a directory is not resolved to the file it runs"
)


def _first_word_only(original: Any) -> Any:
    def run(name: str, args: Any) -> Any:
        if args and args[0] is not None and args[0].startswith("-"):
            return None
        return original(name, args)

    return run


adapter = make_factory(
    Patch("reference_impl.permissions._shell_forms", "interpreter_run", _first_word_only),
    Patch("reference_impl.permissions._project_files", "interpreter_run", _first_word_only),
    Patch(
        "reference_impl.permissions._project_files",
        "script_files",
        lambda _o: lambda runner, path, cwd: [path],
    ),
)
