"""The pytest plugin entry point (``pytest11``: ``toolharness``): light, because every pytest run loads it.

It imports only what its options, markers and fixtures need. The plugin's work is in ``_session``
(with ``_collection`` and ``_run_end``), imported and registered when the run asks for it:
``--toolharness-conformance`` (or its ini key), another ``--toolharness-*`` setting (adapter, target,
report, baseline, requirement), one of our Hypothesis profiles, or, in a run that asked for nothing,
the first requirement test collected or reported, or a test asking for one of the fixtures. A
project that installs the package but doesn't use it pays for this module only
(``benchmarks/_plugin_overhead_bench.py`` measures it).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Generator
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

import pytest_toolharness._hookspecs as _hookspecs
from pytest_toolharness._options import HEAVY_MARKER, Settings, add_options, read_settings
from pytest_toolharness._profiles import PROFILES as HYPOTHESIS_PROFILES
from pytest_toolharness._requirements import REQUIRES_MARKER
from pytest_toolharness._run_state import RUN_STATE

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion

__all__ = [
    "harness",
    "new_harness",
    "tool_schema_snapshot",
    "toolharness_adapter",
    "toolharness_adapter_spec",
    "toolharness_capabilities",
    "toolharness_wire_budget",
]


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add ``pytest_toolharness_adapter``."""
    pluginmanager.add_hookspecs(_hookspecs)


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """Add the ``--toolharness-*`` options and ini keys; start the fork server early if the run needs it."""
    add_options(parser)
    config = pluginmanager.get_plugin("pytestconfig")
    args = [
        *getattr(getattr(config, "invocation_params", None), "args", ()),
        os.environ.get("PYTEST_ADDOPTS", ""),
    ]
    if any("--toolharness-conformance" in str(arg) for arg in args):
        import pytest_toolharness._isolation as isolation  # the suite's run: its cost is no longer optional

        isolation.prestart(pluginmanager)


def _asks_for_us(config: pytest.Config, settings: Settings) -> bool:
    name = config.getoption("hypothesis_profile", None)
    return bool(
        settings.conformance
        or settings.adapter
        or settings.target
        or settings.report
        or settings.baseline
        or settings.requirements
        or (isinstance(name, str) and name in HYPOTHESIS_PROFILES)
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Register the markers; start the plugin's work if the run asks for it, else watch for requirement tests.

    First of all plugins: Hypothesis's own ``pytest_configure`` loads ``--hypothesis-profile``, which
    may name one of ours.
    """
    config.addinivalue_line("markers", "toolharness: a conformance-suite test (added automatically).")
    config.addinivalue_line(
        "markers",
        f"{HEAVY_MARKER}: a test that takes seconds (fresh interpreters, many subprocesses): dispatched first.",
    )
    config.addinivalue_line(
        "markers",
        "requirement(id, level): the requirement this test checks, e.g. requirement('PAIR-1', 'MUST').",
    )
    config.addinivalue_line(
        "markers", f"{REQUIRES_MARKER}(*capabilities): adapter capabilities the test needs; skipped without."
    )
    config.pluginmanager.register(_InterruptedRunSnapshots(), "toolharness-interrupted-snapshots")
    settings = read_settings(config)
    if _asks_for_us(config, settings):
        _start(config, settings)
    else:
        config.pluginmanager.register(_Watcher(config), "toolharness-watcher")


def _start(config: pytest.Config, settings: Settings | None = None) -> ModuleType:
    """Import and register the plugin's work (once); returns the ``_session`` module."""
    # By its full name: the module in sys.modules, even if a test's run (pytester) dropped it since.
    session = importlib.import_module("pytest_toolharness._session")
    if RUN_STATE not in config.stash:
        session.start(config, settings if settings is not None else read_settings(config))
    return session


class _Watcher:
    """In a run that asked for nothing: starts the plugin at the first requirement test it sees."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """A requirement test among the collected ones starts the plugin, which then sees them all."""
        if RUN_STATE in config.stash or not any(i.get_closest_marker("requirement") for i in items):
            return
        # Registered now, the plugin's own hook misses this call: it is called here, once.
        _start(config).collect_items(session, config, items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Under xdist the controller collects nothing: a worker's requirement test report starts it."""
        if RUN_STATE in self.config.stash or not any(k == "requirement" for k, _ in report.user_properties):
            return
        _start(self.config).record(self.config, report)


class _InterruptedRunSnapshots:
    """Switch off syrupy's unused-snapshot detection in a run that was interrupted.

    Registered in every pytest process. An interrupted run has not seen every test's snapshots: under
    pytest-xdist the workers' snapshot reports never reach the controller and syrupy warns so (an
    error under ``filterwarnings = error``, which then kills the controller before it shuts its
    workers down, leaving their temporary directories behind); without xdist it would call the
    snapshots of the tests that never ran unused and fail the run over them. Either is a lie about an
    interrupted run, whose exit code must say "interrupted".
    """

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Generator[None, None, None]:
        """Before syrupy finishes its session: no unused-snapshot verdict for an interrupted run."""
        if exitstatus == pytest.ExitCode.INTERRUPTED and hasattr(
            session.config.option, "disable_unused_snapshots"
        ):
            session.config.option.disable_unused_snapshots = True
        return (yield)


# -- the fixtures: each starts the plugin (if nothing did) and hands over to _fixtures / _snapshot --


@pytest.fixture(scope="session")
def toolharness_adapter(pytestconfig: pytest.Config) -> Any:
    """The adapter under test, built once per session (once per xdist worker).

    Chosen by ``--toolharness-adapter``, the ``toolharness_adapter`` ini key, the
    ``pytest_toolharness_adapter`` hook, or the default (the reference harness). A test that can't get
    it fails with the reason.
    """
    _start(pytestconfig)
    from pytest_toolharness._fixtures import session_adapter

    return session_adapter(pytestconfig)


@pytest.fixture
def harness(toolharness_adapter: Any) -> Any:
    """A fresh harness for this test: ``toolharness_adapter.new_harness()``, or the adapter itself.

    Setup fails if the harness lacks a method of a capability the adapter declares.
    """
    from pytest_toolharness._fixtures import checked_harness

    return checked_harness(toolharness_adapter)


@pytest.fixture(scope="session")
def new_harness(toolharness_adapter: Any) -> Callable[[], Any]:
    """A function that makes a fresh harness: call it once per Hypothesis example.

    Each call is ``toolharness_adapter.new_harness()`` (or the adapter itself when it has no such
    method), so no example sees state left by another. Session-scoped, so Hypothesis tests can
    use it without tripping the function-scoped-fixture health check. Its setup makes one harness
    and fails, as ``harness`` does, if it lacks a method of a declared capability.
    """
    from pytest_toolharness._fixtures import checked_harness

    checked_harness(toolharness_adapter)

    def make() -> Any:
        return checked_harness(toolharness_adapter)

    return make


@pytest.fixture(scope="session")
def toolharness_adapter_spec(pytestconfig: pytest.Config) -> str | None:
    """The ``module:factory`` the run's adapter comes from, or None when no spec names it.

    None for an adapter built by a ``pytest_toolharness_adapter`` hook or a ``--toolharness-target``:
    a fresh process (SNAP-2's) can't build the same adapter again from a name.
    """
    _start(pytestconfig)
    from pytest_toolharness._adapter_loading import choose_adapter_source

    return choose_adapter_source(pytestconfig, pytestconfig.stash[RUN_STATE].settings).spec


@pytest.fixture(scope="session")
def toolharness_capabilities(toolharness_adapter: Any) -> frozenset[str]:
    """The capabilities the adapter declares (a test adds permission rules only with ``permissions``)."""
    from pytest_toolharness._fixtures import declared_capabilities

    return declared_capabilities(toolharness_adapter)


@pytest.fixture(scope="session")
def toolharness_wire_budget(pytestconfig: pytest.Config) -> Any:
    """The drawn wire tests' budget: examples, seconds, replay file (see ``_fixtures.WireBudget``)."""
    _start(pytestconfig)
    from pytest_toolharness._fixtures import wire_budget

    return wire_budget(pytestconfig)


@pytest.fixture
def tool_schema_snapshot(
    snapshot: SnapshotAssertion, request: pytest.FixtureRequest
) -> Callable[[Any], None]:
    """Assert that a tool's schema bytes match its snapshot: ``tool_schema_snapshot(param_or_tool)``.

    Takes an anthropic ``ToolParam`` dict (or anything with ``to_param()``), encodes it exactly as the
    SDK sends it, and compares with ``__snapshots__/<test module>/<test>[<tool name>].json`` beside the
    test. ``pytest --snapshot-update`` writes or refreshes the files; syrupy reports unused ones.
    """
    from pytest_toolharness._snapshot import tool_schema_snapshot as schema_snapshot

    return schema_snapshot(snapshot, request)
