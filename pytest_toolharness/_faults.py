"""Whose fault a failed test is: the harness under test's, or the suite's (or the adapter's) own.

A failure is a harness failure when the suite judged it (an ``AssertionError`` or ``pytest.fail`` of
the suite's judging code: ``conformance``, the snapshot fixture, the wire checks) or when the
exception was raised in the harness's own packages, or is one the suite throws *to* the harness for
it to handle (a scripted tool's error, a cancellation, a timeout). Any other exception raised in the
suite's packages (``pytest_toolharness``, ``conformance``, Hypothesis) or in the adapter's own module
is a fault of the suite or the adapter: the report gives it the status "error", never "failed".

The raising frame is the innermost frame of the traceback that belongs to one of those parties
(pytest's, the standard library's and other libraries' frames are skipped: a ``ValueError`` of
``json.loads`` belongs to whoever called it). An exception raised ``from`` (or while handling) a
harness exception is the harness's. An adapter names its harness's packages in an optional
``harness_packages`` attribute (``("reference_impl",)``, ``("pydantic_ai",)``); an adapter that
names none leaves its own module to the harness (it can't be told apart), and a wire target names
``()``: its harness is another process, so every Python exception is the suite's.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_toolharness._fixtures import built_adapter
from pytest_toolharness._run_state import RUN_STATE
from pytest_toolharness.specs import ScriptedToolError

__all__ = ["SUITE_PACKAGES", "Blame", "adapter_harness_packages", "blame", "suite_fault"]

SUITE_PACKAGES = ("pytest_toolharness", "conformance", "hypothesis", "_hypothesis_pytestplugin")
"""The packages of the suite: an exception raised in them (not a judgement) is the suite's fault."""

_JUDGING_MODULES = ("conformance", "pytest_toolharness._snapshot", "pytest_toolharness.wire.checks")
"""Where an ``AssertionError`` or ``pytest.fail`` is the suite's verdict on the harness."""

_SKIPPED = ("_pytest", "pytest", "pluggy")

# Exceptions the suite raises for the harness to handle: one that escapes is the harness's failure.
_HANDED_TO_HARNESS: tuple[type[BaseException], ...] = (
    ScriptedToolError,
    asyncio.CancelledError,
    TimeoutError,
)


@dataclass(frozen=True)
class Blame:
    """A suite or adapter fault: where it was raised (``module:function``) and what it was."""

    where: str
    error: str

    def describe(self) -> str:
        """One line for the report."""
        return f"suite/adapter fault in {self.where}: {self.error}"


def adapter_harness_packages(adapter: Any) -> tuple[str, ...] | None:
    """The adapter's ``harness_packages`` (None: it names none); raises ``TypeError`` if malformed."""
    declared = getattr(adapter, "harness_packages", None)
    if declared is None:
        return None
    if isinstance(declared, str) or not all(isinstance(p, str) and p for p in declared):
        raise TypeError(
            f"adapter {getattr(adapter, 'name', type(adapter).__name__)!r}: harness_packages must be a "
            f"tuple of package names, got {declared!r}"
        )
    return tuple(declared)


def _in(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _frames(tb: types.TracebackType | None) -> Iterator[tuple[str, str]]:
    """``(module, function)`` of each frame, innermost first."""
    frames: list[tuple[str, str]] = []
    while tb is not None:
        frame = tb.tb_frame
        frames.append((str(frame.f_globals.get("__name__", "")), frame.f_code.co_name))
        tb = tb.tb_next
    return reversed(frames)


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for sub in exc.exceptions:
            yield from _leaves(sub)
    else:
        yield exc


def _first_line(exc: BaseException) -> str:
    text = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Parties:
    def __init__(self, harness: tuple[str, ...] | None, adapter_modules: tuple[str, ...]) -> None:
        self.harness = harness or ()
        # An adapter that names no harness package can't be told from its harness.
        self.suite = SUITE_PACKAGES + (adapter_modules if harness is not None else ())
        self.wire = harness == ()

    def raised_in(self, exc: BaseException) -> tuple[str, str] | None:
        """``("harness" | "suite", "module:function")`` of the innermost frame of a party, or None."""
        for module, function in _frames(exc.__traceback__):
            if _in(module, self.harness):
                return "harness", f"{module}:{function}"
            if _in(module, self.suite):
                return "suite", f"{module}:{function}"
        return None

    def blame_one(self, exc: BaseException) -> Blame | None:
        if isinstance(exc, AssertionError | pytest.fail.Exception):
            module = next((m for m, _ in _frames(exc.__traceback__) if not _in(m, _SKIPPED)), "")
            if _in(module, _JUDGING_MODULES) or not _in(module, self.suite):
                return None
        if isinstance(exc, _HANDED_TO_HARNESS) and not self.wire:
            return None
        cause = exc.__cause__
        if cause is not None and (self.raised_in(cause) or ("", ""))[0] == "harness":
            return None  # raised from the harness's own exception: a wrapper of the harness's failure
        party = self.raised_in(exc)
        if party is None:
            return Blame("<unknown>", _first_line(exc)) if self.wire else None
        kind, where = party
        return Blame(where, _first_line(exc)) if kind == "suite" else None


def blame(
    exc: BaseException, harness: tuple[str, ...] | None, adapter_modules: tuple[str, ...] = ()
) -> Blame | None:
    """The suite/adapter fault that ``exc`` is, or None when it is the harness's failure.

    ``harness``: the adapter's harness packages (None: not declared; ``()``: a wire target);
    ``adapter_modules``: the modules of the adapter's own code. In an exception group (Hypothesis's
    distinct failures) one harness failure among them makes the test failed.
    """
    parties = _Parties(harness, adapter_modules)
    faults = [parties.blame_one(leaf) for leaf in _leaves(exc)]
    if not faults or any(f is None for f in faults):
        return None
    return faults[0]


def suite_fault(item: pytest.Item, call: pytest.CallInfo[None]) -> Blame | None:
    """The suite or adapter fault this failure is, or None when it is the harness's (see ``_faults``)."""
    state = item.config.stash.get(RUN_STATE, None)
    if state is None or call.excinfo is None or call.when == "teardown":
        return None
    if not any(key == "requirement" for key, _ in item.user_properties):
        return None
    adapter = built_adapter(item.config)
    try:
        harness = adapter_harness_packages(adapter) if adapter is not None else None
    except TypeError:
        harness = None
    if state.settings.target:
        harness = ()  # the harness is another process: every Python exception is the suite's
    modules = (type(adapter).__module__,) if adapter is not None else ()
    return blame(call.excinfo.value, harness, modules)
