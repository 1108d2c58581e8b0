"""PERM-17 mutant: what Python code puts in the environment, or on sys.path, is read only where it is used."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(python3 -m pytest:*) vouches for a conftest setting os.environ['BROWSER'] = 'nu'+'ke' before a test"
    " opens a literal URL with webbrowser past Bash(nuke:*): a built value put in the environment is not"
    " asked about, and the program the browser call starts is read from the literal URL alone"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._python_targets",
        "_Reader.finish",
        rewrite("if self.environment_built:", "if self.environment_built and False:"),
    )
)
