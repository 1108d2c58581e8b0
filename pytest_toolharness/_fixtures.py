"""What the plugin's fixtures hand out: the adapter under test, fresh harnesses held to its declaration.

The fixtures themselves are declared by the entry point (:mod:`pytest_toolharness.plugin`, so that
pytest finds them without importing this module); they call the functions here. The adapter is built
once per session (once per xdist worker); each harness is checked against the capabilities the
adapter declares. Which suite tests the adapter can't run is decided at collection (``_collection``).
"""

from __future__ import annotations

import contextlib
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness._adapter_loading import load_adapter
from pytest_toolharness._run_state import RUN_STATE
from pytest_toolharness.adapters import (
    AdapterLoadError,
    CapabilityError,
    adapter_capabilities,
    check_harness,
)
from pytest_toolharness.specs import ExecutionResult

__all__ = [
    "NOT_RUN_PROPERTY",
    "WireBudget",
    "adapter_or_error",
    "built_adapter",
    "checked_harness",
    "declared_capabilities",
    "load_adapter_before",
    "session_adapter",
    "wire_budget",
]

NOT_RUN_PROPERTY = "toolharness_not_run"
"""The user property naming why a requirement test did not run: ``profile`` or ``capability``."""


def session_adapter(config: pytest.Config) -> Any:
    """The ``toolharness_adapter`` fixture's value: the session's adapter; a test that can't get it fails."""
    try:
        return _session_adapter(config)
    except AdapterLoadError as exc:
        pytest.fail(f"toolharness: {exc}", pytrace=False)


_ADAPTER = pytest.StashKey[tuple[Any, Exception | None]]()


def _session_adapter(config: pytest.Config) -> Any:
    """The session's adapter, built on first use and kept (with the error, when it could not be built)."""
    if _ADAPTER not in config.stash:
        try:
            config.stash[_ADAPTER] = (load_adapter(config, config.stash[RUN_STATE].settings)[0], None)
        except Exception as exc:  # kept, and raised again to every test that asks for the adapter
            config.stash[_ADAPTER] = (None, exc)
    adapter, error = config.stash[_ADAPTER]
    if error is not None:
        raise error
    return adapter


def adapter_or_error(config: pytest.Config) -> tuple[Any, Exception | None]:
    """The session's adapter, built now if no test built it yet, or None and why it could not be built."""
    try:
        return _session_adapter(config), None
    except Exception as exc:  # every test that asks for the adapter fails with it
        return None, exc


def built_adapter(config: pytest.Config) -> Any:
    """The session's adapter if a test built it here; None if none did, or building it failed."""
    adapter, error = config.stash.get(_ADAPTER, (None, None))
    return adapter if error is None else None


def declared_capabilities(adapter: Any) -> frozenset[str]:
    """The adapter's capabilities with those they include (``conversation`` brings ``transcript``)."""
    return adapter_capabilities(adapter, repr(getattr(adapter, "name", type(adapter).__name__)))


def load_adapter_before(item: pytest.Item) -> None:
    """Build the adapter before the first test that uses it is timed (importing a harness takes seconds)."""
    if "toolharness_adapter" in getattr(item, "fixturenames", ()):
        with contextlib.suppress(Exception):  # the fixture reports it, on the test
            _session_adapter(item.config)


def checked_harness(adapter: Any) -> Any:
    """A fresh harness, checked against the adapter's declaration (fails if a declared method is missing)."""
    factory = getattr(adapter, "new_harness", None)
    harness = factory() if callable(factory) else adapter
    try:
        check_harness(
            harness,
            declared_capabilities(adapter),
            f"adapter {getattr(adapter, 'name', type(adapter).__name__)!r}",
        )
    except CapabilityError as exc:
        pytest.fail(f"toolharness: {exc}", pytrace=False)
    if "execution" in adapter.capabilities and callable(getattr(harness, "execute", None)):
        _check_execute_results(harness, getattr(adapter, "name", type(adapter).__name__))
    return harness


def _check_execute_results(harness: Any, adapter: str) -> None:
    """Hold this harness's ``execute`` to the contract: awaitable, resolving to an ExecutionResult.

    The harness keeps its type (a test may look at it); only its ``execute`` attribute is wrapped.
    Without this, a harness returning the wrong type fails deep inside the suite with an
    AttributeError. A harness whose attributes can't be set is left as it is.
    """
    original = harness.execute
    where = f"adapter {adapter!r}: {type(harness).__name__}.execute"

    async def execute(scenario: Any) -> ExecutionResult:
        pending = original(scenario)
        if not inspect.isawaitable(pending):
            raise TypeError(
                f"{where} must be a coroutine (async def) whose result is an ExecutionResult; "
                f"it returned {type(pending).__name__} without awaiting"
            )
        result = await pending
        if not isinstance(result, ExecutionResult):
            raise TypeError(
                f"{where} must return an ExecutionResult (pytest_toolharness.adapters.ExecutionResult), "
                f"got {type(result).__name__}: {_short(result)}"
            )
        return result

    with contextlib.suppress(AttributeError, TypeError):
        harness.execute = execute


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


@dataclass(frozen=True)
class WireBudget:
    """What a drawn wire test may spend, where its failures are kept, and how to run it again.

    ``seconds`` is the drawing time (``--toolharness-wire-budget``, at most half the per-test budget,
    so shrinking and the report fit in it); ``replay`` the file of failing drawn scenarios
    (``--toolharness-wire-replay``, else the pytest cache); ``target`` the ``--toolharness-target``;
    ``packaged`` the failing drawn scenarios the target's profile ships beside its packaged baseline
    (``<profile>.drawn.jsonl``), so a baselined drawn finding is replayed in every run, CI's included.
    """

    examples: int
    seconds: float
    replay: Path | None
    target: str | None
    #: The replay file the target's profile ships beside its baseline (read, never written).
    packaged: Path | None = None


def wire_budget(config: pytest.Config) -> WireBudget:
    """The ``toolharness_wire_budget`` fixture's value, from the run's settings."""
    settings = config.stash[RUN_STATE].settings
    seconds = settings.wire_budget
    if settings.test_timeout:
        seconds = min(seconds, settings.test_timeout / 2)
    replay = settings.wire_replay
    cache = getattr(config, "cache", None)
    if replay is None and cache is not None:
        replay = Path(cache.mkdir("toolharness-wire")) / "failures.jsonl"
    packaged = None
    if settings.default_baseline and settings.baseline is not None:
        shipped = settings.baseline.with_suffix(".drawn.jsonl")
        packaged = shipped if shipped.is_file() else None
    return WireBudget(settings.wire_examples, seconds, replay, settings.target, packaged)
