"""PERM-17 mutant: an object a capable standard-library member made is taken for one of a harmless class."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(python3 -m pytest:*) vouches for ctx = multiprocessing.get_context('spawn');"
    " ctx.set_executable(shutil.which('nu'+'ke')) (or t = trace.Trace(); t.run(code)) past Bash(nuke:*):"
    " a generic method of an object a capable member made is read as a method of any object"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._python_targets",
        "_Reader.derive",
        rewrite("if self.capable(value) is not None:", "if False:"),
    )
)
