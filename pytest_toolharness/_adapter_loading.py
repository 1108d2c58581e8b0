"""Finding the adapter the conformance suite runs against.

In order: ``--toolharness-adapter=package.module:factory``, the ``toolharness_adapter`` ini key, the
``pytest_toolharness_adapter(config)`` hook (a ``conftest.py``), and finally the default, the reference
harness. Nothing is imported until a test needs the adapter, so a run that never touches it (or a
missing default) costs nothing; when it is needed and can't be loaded, the error says which source
was used and how to choose another.
"""

from __future__ import annotations

import inspect
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness._options import Settings
from pytest_toolharness.adapters import (
    DEFAULT_ADAPTER_SPEC,
    AdapterLoadError,
    adapter_capabilities,
    adapter_not_applicable,
    adapter_profiles,
    resolve_factory,
)

__all__ = [
    "WORKDIRS_KEY",
    "AdapterSource",
    "choose_adapter_source",
    "kept_workdirs",
    "load_adapter",
]

_HOW_TO_CHOOSE = (
    "choose an adapter with --toolharness-adapter=package.module:factory, the toolharness_adapter "
    "ini key, or a pytest_toolharness_adapter(config) hook in conftest.py"
)


@dataclass(frozen=True)
class AdapterSource:
    """Where the adapter comes from: an import spec, or the hook (``spec is None``)."""

    spec: str | None
    origin: str  # "option", "ini", "hook", "default" or "target"
    target: str | None = None  # --toolharness-target: the wire adapter runs this target

    @property
    def description(self) -> str:
        """How the report names the adapter."""
        if self.target is not None:
            return f"wire target {self.target}"
        if self.spec is None:
            return "pytest_toolharness_adapter hook"
        return self.spec


def choose_adapter_source(config: pytest.Config, settings: Settings) -> AdapterSource:
    """Which source will provide the adapter (without importing or calling anything)."""
    if settings.target:
        return AdapterSource(None, "target", target=settings.target)
    if config.getoption("toolharness_adapter"):
        return AdapterSource(str(config.getoption("toolharness_adapter")), "option")
    if settings.adapter:
        return AdapterSource(settings.adapter, "ini")
    if config.pluginmanager.hook.pytest_toolharness_adapter.get_hookimpls():
        return AdapterSource(None, "hook")
    return AdapterSource(DEFAULT_ADAPTER_SPEC, "default")


#: The ``workerinput`` key telling each xdist worker where the kept wire workdirs go.
WORKDIRS_KEY = "toolharness_workdirs"
_WORKDIRS = pytest.StashKey[Path]()


def kept_workdirs(config: pytest.Config, settings: Settings) -> Path | None:
    """Where ``--toolharness-keep-workdirs`` keeps the wire runs' working directories, or None.

    One folder per pytest run: made by the controller (or a run without workers), handed to each
    xdist worker in ``workerinput``.
    """
    if not settings.keep_workdirs:
        return None
    if _WORKDIRS not in config.stash:
        workerinput: dict[str, Any] = getattr(config, "workerinput", {})
        if WORKDIRS_KEY in workerinput:
            config.stash[_WORKDIRS] = Path(workerinput[WORKDIRS_KEY])
        else:
            config.stash[_WORKDIRS] = Path(tempfile.mkdtemp(prefix="toolharness-workdirs-"))
    return config.stash[_WORKDIRS]


def load_adapter(config: pytest.Config, settings: Settings) -> tuple[Any, AdapterSource]:
    """Build and validate the adapter for this session; raises :class:`AdapterLoadError`."""
    source = choose_adapter_source(config, settings)
    if source.target is not None:
        return _wire_adapter(source.target, settings, config.invocation_params.dir, config), source
    if source.spec is None:
        adapter = config.hook.pytest_toolharness_adapter(config=config)
        if adapter is None:
            # Every hook implementation declined: fall back to the default.
            source = AdapterSource(DEFAULT_ADAPTER_SPEC, "default")
    if source.spec is not None:
        search_dirs = tuple(dict.fromkeys((config.invocation_params.dir, config.rootpath)))
        try:
            factory = resolve_factory(source.spec, search_dirs)
        except AdapterLoadError as exc:
            if source.origin == "default":
                raise AdapterLoadError(
                    f"the default adapter could not be loaded ({exc}); {_HOW_TO_CHOOSE}"
                ) from exc
            raise
        try:
            # A factory with a parameter gets the pytest config (a framework adapter reads its ini keys).
            call: Callable[..., Any] = factory
            adapter = call(config) if _takes_config(call) else call()
        except Exception as exc:
            raise AdapterLoadError(
                f"adapter {source.spec!r}: the factory raised {type(exc).__name__}: {exc}"
            ) from exc
    try:
        adapter_capabilities(adapter, repr(source.description))
        adapter_profiles(adapter, repr(source.description))
        adapter_not_applicable(adapter, repr(source.description))
    except (TypeError, ValueError) as exc:
        raise AdapterLoadError(str(exc)) from exc
    return adapter, source


def _takes_config(factory: Callable[..., Any]) -> bool:
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return False
    return bool(parameters) and parameters[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )


# A wire test waits for one scenario run at most (the module's runs start early): the run's hard
# limit leaves this share of the test's budget for the test's own checks and report.
_RUN_SHARE_OF_TEST = 0.75


def run_limit(settings: Settings) -> float:
    """The longest a progressing wire run may take: twice the target timeout, within the test's budget.

    Never below the target timeout itself (a user who set a long timeout gets it whole).
    """
    from pytest_toolharness.wire.targets import LIMIT_FACTOR

    limit = settings.target_timeout * LIMIT_FACTOR
    if settings.test_timeout:
        limit = min(limit, settings.test_timeout * _RUN_SHARE_OF_TEST)
    return max(settings.target_timeout, limit)


def _wire_adapter(target: str, settings: Settings, base: Path, config: pytest.Config) -> Any:
    """The wire adapter for ``--toolharness-target`` (imported only when a target is given).

    A name is looked up among the target profiles (the entry-point group
    ``pytest_toolharness.targets``): the adapter then claims the profile's requirement profiles and
    knows its roles. Anything else is a command template, whose relative program is resolved from
    ``base``, the invocation directory.
    """
    from pytest_toolharness.wire.targets import CommandTarget, TargetError, WireAdapter, profile_named

    keep = kept_workdirs(config, settings)
    try:
        profile = profile_named(target)
        if profile is not None:
            return WireAdapter(
                profile.target(),
                timeout=settings.target_timeout,
                limit=run_limit(settings),
                claims=frozenset(profile.claims),
                roles=frozenset(profile.capabilities),
                env=dict(settings.target_env),
                keep=keep,
            )
        return WireAdapter(
            CommandTarget(target, base),
            timeout=settings.target_timeout,
            limit=run_limit(settings),
            env=dict(settings.target_env),
            keep=keep,
        )
    except (TargetError, ValueError, OSError) as exc:
        # OSError: a built-in target whose program is missing (claude-code without a binary).
        raise AdapterLoadError(f"--toolharness-target {target!r}: {exc}") from exc
