"""How a mutant is made: the reference adapter, with one defect patched in when the adapter is created.

A mutant module (``tests/mutants/m_<area>_<n>_<slug>.py``) defines ``TARGET`` (the requirement ID it
breaks), ``DESCRIPTION`` (the real bug it models, one line) and ``adapter`` (the factory named on the
command line: ``--toolharness-adapter=tests.mutants.m_pair_1_no_result_after_abort:adapter``).

The defect is applied by replacing one attribute of one module (a function, a constant or a method)
when the factory runs. Every mutant runs in a pytest process of its own, so the patch never leaks
into another run. Patch the module that *uses* a name: ``from x import f`` copies the reference.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_toolharness.adapters.reference._adapter import ReferenceAdapter

__all__ = ["Patch", "make_factory"]


@dataclass(frozen=True)
class Patch:
    """Replace ``module.attribute`` with ``mutate(original)``; ``attribute`` may be ``Class.method``."""

    module: str
    attribute: str
    mutate: Callable[[Any], Any]

    def apply(self) -> None:
        """Install the replacement (idempotent per process)."""
        owner: Any = importlib.import_module(self.module)
        *path, name = self.attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        marker = f"__mutated_{name}"
        if getattr(owner, marker, False):
            return
        original = getattr(owner, name)
        setattr(owner, name, self.mutate(original))
        setattr(owner, marker, True)


def make_factory(
    *patches: Patch, adapter_class: type[ReferenceAdapter] = ReferenceAdapter
) -> Callable[[], ReferenceAdapter]:
    """An adapter factory that applies ``patches`` and returns the (possibly subclassed) reference adapter."""

    def factory() -> ReferenceAdapter:
        for patch in patches:
            patch.apply()
        adapter = adapter_class()
        adapter.name = f"mutant of {adapter.name}"
        return adapter

    return factory
