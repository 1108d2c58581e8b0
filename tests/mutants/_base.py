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
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_toolharness.adapters.reference._adapter import ReferenceAdapter
from pytest_toolharness.wire.targets import ReferenceTarget

__all__ = ["CliCode", "MutantFactory", "MutantLoadError", "Patch", "make_factory"]


class MutantLoadError(LookupError):
    """A mutant's patch names a module or attribute that does not exist: the mutant is broken, not killed."""


@dataclass(frozen=True)
class Patch:
    """Replace ``module.attribute`` with ``mutate(original)``; ``attribute`` may be ``Class.method``."""

    module: str
    attribute: str
    mutate: Callable[[Any], Any]

    def apply(self) -> None:
        """Install the replacement (idempotent per process).

        Raises :class:`MutantLoadError`, naming the module and attribute, when either is missing (a
        patch that silently did nothing, or one that crashed the adapter, would look like a kill).
        """
        where = f"Patch({self.module!r}, {self.attribute!r})"
        try:
            owner: Any = importlib.import_module(self.module)
        except ImportError as exc:
            raise MutantLoadError(f"{where}: can't import module {self.module!r}: {exc}") from exc
        original, reached = owner, self.module
        for part in self.attribute.split("."):
            if not hasattr(original, part):
                raise MutantLoadError(f"{where}: {reached!r} has no attribute {part!r}")
            owner, original, reached = original, getattr(original, part), f"{reached}.{part}"
        name = self.attribute.rpartition(".")[2]
        marker = f"__mutated_{name}"
        if getattr(owner, marker, False):
            return
        replacement = self.mutate(original)
        _check_takes_the_same_calls(where, original, replacement)
        setattr(owner, name, replacement)
        setattr(owner, marker, True)

    def apply_in_cli(self) -> None:
        """In the reference CLI's own process (:mod:`tests.mutants._cli`): the same patch."""
        self.apply()


def _check_takes_the_same_calls(where: str, original: Any, replacement: Any) -> None:
    """Raise :class:`MutantLoadError` when a replacement function can't take the original's calls.

    A mutant written against an older signature raises ``TypeError`` on every call; the harness
    turns that into an internal-error deny, which fails a requirement test: a kill that proves nothing
    about the defect the mutant models. Each required parameter of the original is passed as the
    callers may pass it (positionally, keyword-only ones by name).
    """
    if not (inspect.isfunction(original) and inspect.isfunction(replacement)):
        return
    required = [p for p in inspect.signature(original).parameters.values() if p.default is p.empty]
    positional = [p.name for p in required if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    by_name = {p.name: None for p in required if p.kind is p.KEYWORD_ONLY}
    try:
        inspect.signature(replacement).bind(*positional, **by_name)
    except TypeError as exc:
        raise MutantLoadError(
            f"{where}: the replacement {inspect.signature(replacement)} can't take the calls of "
            f"the original {inspect.signature(original)} ({exc}): update the mutant to the new signature"
        ) from exc
    if inspect.iscoroutinefunction(original) != inspect.iscoroutinefunction(replacement):
        raise MutantLoadError(f"{where}: the replacement and the original differ in being async")


@dataclass(frozen=True)
class CliCode:
    """Python that runs first in the reference CLI's own process, and nowhere else.

    For a defect of the CLI that is not one attribute: a signal handler, a patch of how it reads
    its stream. The suite's own process is left as it is.
    """

    code: str

    def apply(self) -> None:
        """Nothing: the code is for the CLI's process."""

    def apply_in_cli(self) -> None:
        """Run the code (it asserts that what it patches exists: a renamed function fails the CLI's start)."""
        exec(compile(self.code, "<mutant CLI code>", "exec"), {"__name__": "__mutant_cli__"})


@dataclass(frozen=True)
class MutantFactory:
    """The adapter factory of one mutant: applies ``patches``, then makes the reference adapter.

    ``module`` is the mutant's module: the wire checks run the reference CLI through
    :mod:`tests.mutants._cli` with it, so the CLI's own process has the defect too.
    """

    patches: tuple[Patch | CliCode, ...]
    adapter_class: type[ReferenceAdapter]
    module: str

    def __call__(self) -> ReferenceAdapter:
        for patch in self.patches:
            patch.apply()
        adapter = self.adapter_class()
        adapter.name = f"mutant of {adapter.name}"
        adapter.wire_target = self.wire_target()
        return adapter

    def wire_target(self) -> ReferenceTarget | None:
        """The reference CLI with this mutant's patches (None when the module is not known)."""
        if not self.module:
            return None
        return ReferenceTarget("tests.mutants._cli", (self.module,))


def make_factory(
    *patches: Patch | CliCode, adapter_class: type[ReferenceAdapter] = ReferenceAdapter
) -> MutantFactory:
    """The adapter factory of the mutant module that calls this (at its top level) with ``patches``."""
    caller = sys._getframe(1).f_globals.get("__name__", "")
    return MutantFactory(patches, adapter_class, caller if caller.rpartition(".")[2].startswith("m_") else "")
