"""PERM-17 mutant: ``..`` after a symbolic link is folded away as text wherever a program changes directory."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "git -C l/.. status, env -C l/.. make, cd -P l/.. && git status with l -> evil/sub: the kernel climbs from "
    "the link's target into evil/, whose git configuration and Makefile run a denied program, but the engine "
    "folds l/.. to the working directory and reads its files instead"
)

_LEXICAL_CHDIR = rewrite('    if ".." not in joined.split("/"):\n', "    if True:\n")
_LEXICAL_CD = rewrite("    if physical:\n", "    if False:\n")

adapter = make_factory(
    *(
        Patch(f"reference_impl.permissions.{module}", "chdir_directory", _LEXICAL_CHDIR)
        for module in ("_project_files", "_repository_config", "_rules", "_git_tree_writes")
    ),
    *(
        Patch(f"reference_impl.permissions.{module}", "cd_directories", _LEXICAL_CD)
        for module in ("_project_files", "_repository_config")
    ),
)
