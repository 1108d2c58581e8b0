"""PERM-17 mutant: Python code is held only to the typed lists of program-starting and evaluating functions."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "Bash(python3 -m pytest:*) vouches for a test calling pydoc.pipepager('x', 'nu'+'ke') (or an event loop's"
    " subprocess_shell, a multiprocessing executable, a logging.config factory, import antigravity) past"
    " Bash(nuke:*): the catalogue mined from the standard library's source is not consulted, only the lists"
)


def _pure(original: Any) -> Any:
    return lambda *args, **kwargs: None


def _no(original: Any) -> Any:
    return lambda *args, **kwargs: False


adapter = make_factory(
    Patch("reference_impl.permissions._python_targets", "member_capability", _pure),
    Patch("reference_impl.permissions._python_targets", "method_capability", _no),
    Patch("reference_impl.permissions._python_targets", "at_import", _no),
)
