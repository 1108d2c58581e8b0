"""The plugin's fixtures: the adapter under test, fresh harnesses held to its declaration, its capabilities.

The adapter is built once per session (once per xdist worker); each harness is checked against the
capabilities the adapter declares, and a suite test whose profile or capabilities the adapter lacks
is skipped, with a user property that tells the run report which.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness._adapter_loading import choose_adapter_source, load_adapter
from pytest_toolharness._run_state import RUN_STATE
from pytest_toolharness.adapters import (
    REQUIRES_MARKER,
    AdapterLoadError,
    CapabilityError,
    adapter_capabilities,
    adapter_profiles,
    check_harness,
    missing_capabilities,
)
from pytest_toolharness.specs import ExecutionResult

__all__ = [
    "NOT_RUN_PROPERTY",
    "WireBudget",
    "built_adapter",
    "harness",
    "load_adapter_before",
    "new_harness",
    "toolharness_adapter",
    "toolharness_adapter_spec",
    "toolharness_capabilities",
    "toolharness_wire_budget",
]

NOT_RUN_PROPERTY = "toolharness_not_run"
"""The user property naming why a requirement test did not run: ``profile`` or ``capability``."""


@pytest.fixture(scope="session")
def toolharness_adapter(pytestconfig: pytest.Config) -> Any:
    """The adapter under test, built once per session (once per xdist worker).

    Chosen by ``--toolharness-adapter``, the ``toolharness_adapter`` ini key, the
    ``pytest_toolharness_adapter`` hook, or the default (the reference harness). A test that can't get
    it fails with the reason.
    """
    try:
        return _session_adapter(pytestconfig)
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


def built_adapter(config: pytest.Config) -> Any:
    """The session's adapter if a test built it here; None if none did, or building it failed."""
    adapter, error = config.stash.get(_ADAPTER, (None, None))
    return adapter if error is None else None


def _declared(adapter: Any) -> frozenset[str]:
    """The adapter's capabilities with those they include (``conversation`` brings ``transcript``)."""
    return adapter_capabilities(adapter, repr(getattr(adapter, "name", type(adapter).__name__)))


def load_adapter_before(item: pytest.Item) -> None:
    """Build the adapter before the first test that uses it is timed (importing a harness takes seconds)."""
    if "toolharness_adapter" in getattr(item, "fixturenames", ()):
        with contextlib.suppress(Exception):  # the fixture reports it, on the test
            _session_adapter(item.config)


def _checked_harness(adapter: Any) -> Any:
    """A fresh harness, checked against the adapter's declaration (fails if a declared method is missing)."""
    factory = getattr(adapter, "new_harness", None)
    harness = factory() if callable(factory) else adapter
    try:
        check_harness(
            harness, _declared(adapter), f"adapter {getattr(adapter, 'name', type(adapter).__name__)!r}"
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


@pytest.fixture
def harness(toolharness_adapter: Any) -> Any:
    """A fresh harness for this test: ``toolharness_adapter.new_harness()``, or the adapter itself.

    Setup fails if the harness lacks a method of a capability the adapter declares.
    """
    return _checked_harness(toolharness_adapter)


@pytest.fixture(scope="session")
def new_harness(toolharness_adapter: Any) -> Callable[[], Any]:
    """A function that makes a fresh harness: call it once per Hypothesis example.

    Each call is ``toolharness_adapter.new_harness()`` (or the adapter itself when it has no such
    method), so no example sees state left by another. Session-scoped, so Hypothesis tests can
    use it without tripping the function-scoped-fixture health check. Its setup makes one harness
    and fails, as ``harness`` does, if it lacks a method of a declared capability.
    """
    _checked_harness(toolharness_adapter)

    def make() -> Any:
        return _checked_harness(toolharness_adapter)

    return make


@pytest.fixture(scope="session")
def toolharness_adapter_spec(pytestconfig: pytest.Config) -> str | None:
    """The ``module:factory`` the run's adapter comes from, or None when no spec names it.

    None for an adapter built by a ``pytest_toolharness_adapter`` hook or a ``--toolharness-target``:
    a fresh process (SNAP-2's) can't build the same adapter again from a name.
    """
    return choose_adapter_source(pytestconfig, pytestconfig.stash[RUN_STATE].settings).spec


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


@pytest.fixture(scope="session")
def toolharness_wire_budget(pytestconfig: pytest.Config) -> WireBudget:
    """The drawn wire tests' budget (see :class:`WireBudget`)."""
    settings = pytestconfig.stash[RUN_STATE].settings
    seconds = settings.wire_budget
    if settings.test_timeout:
        seconds = min(seconds, settings.test_timeout / 2)
    replay = settings.wire_replay
    cache = getattr(pytestconfig, "cache", None)
    if replay is None and cache is not None:
        replay = Path(cache.mkdir("toolharness-wire")) / "failures.jsonl"
    packaged = None
    if settings.default_baseline and settings.baseline is not None:
        shipped = settings.baseline.with_suffix(".drawn.jsonl")
        packaged = shipped if shipped.is_file() else None
    return WireBudget(settings.wire_examples, seconds, replay, settings.target, packaged)


@pytest.fixture(scope="session")
def toolharness_capabilities(toolharness_adapter: Any) -> frozenset[str]:
    """The capabilities the adapter declares (a test adds permission rules only with ``permissions``)."""
    return _declared(toolharness_adapter)


@pytest.fixture(autouse=True)
def _toolharness_capabilities(request: pytest.FixtureRequest) -> None:
    """Skip a suite test whose profile the adapter does not claim, or whose capabilities it lacks.

    The first is reported "not claimed", the second "not checked" (or "partially checked" when other
    tests of the requirement ran); a user property tells the report which.
    """
    node = request.node
    if node.get_closest_marker(REQUIRES_MARKER) is None:
        return
    adapter = request.getfixturevalue("toolharness_adapter")
    state = request.config.stash.get(RUN_STATE, None)
    ids = [str(value) for key, value in node.user_properties if key == "requirement"]
    if state is not None and ids:
        claimed = adapter_profiles(adapter, repr(getattr(adapter, "name", type(adapter).__name__)))
        profiles = sorted({state.catalogue[i].profile for i in ids})
        if not claimed.intersection(profiles):
            node.user_properties.append((NOT_RUN_PROPERTY, "profile"))
            pytest.skip(
                f"not claimed: profile {', '.join(profiles)} (the adapter claims {', '.join(sorted(claimed))})"
            )
    missing = missing_capabilities(node, _declared(adapter))
    if missing:
        node.user_properties.append((NOT_RUN_PROPERTY, "capability"))
        pytest.skip(f"not checked: adapter lacks capability {', '.join(missing)}")
