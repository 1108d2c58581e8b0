"""PERM-17 mutant: pip's --python is skipped as a value: the interpreter pip runs itself again under is unread."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "pip --python=./evil list, python3 -m pip --python v freeze: the option's value is skipped, so the "
    "interpreter pip runs itself again under (a script, a venv's bin/python) is not read"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._project_files",
        "pip_builds_local_project",
        rewrite("in pip_option_values(words, _PIP_NAMED_CODE[:1]):", "in ():"),
    )
)
