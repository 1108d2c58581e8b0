"""``hook_sources`` for the reference harness: http, async and plugin hooks from the suite's specs (HOOK-8).

A spec with ``hook_type="http"`` becomes an :class:`~reference_impl.hooks.HttpHook` pointed at a
:class:`~pytest_toolharness.adapters.HookEndpoint` that lives as long as the scenario; one with
``from_plugin=True`` is written as a plugin (:func:`~pytest_toolharness.adapters.write_plugin`) and
loaded the way the CLI's ``--plugin-dir`` loads it; ``run_async=True`` makes an async command hook.

A spec's ``if_rule`` becomes the hook's ``if`` as the harness reads it from a settings file
(:func:`hook_condition`), so the suite checks the harness's own parsing of it too.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_toolharness.adapters import HookEndpoint, hook_command, write_plugin
from pytest_toolharness.specs import HookSpec
from reference_impl import CommandHook, HookMatcher, Hooks, PermissionRule
from reference_impl.hooks import HttpHook, collect_background, hooks_from_plugin, hooks_from_settings

__all__ = ["SourcedHooks", "hook_condition", "is_sourced"]

_PLUGINS = itertools.count()


def hook_condition(spec: HookSpec) -> PermissionRule | None:
    """The ``if`` rule of ``spec``'s hook, read by the harness from a settings handler that says ``spec.if_rule``.

    Raises the harness's :class:`~reference_impl.hooks.HookConfigError` when it refuses the ``if``.
    """
    if spec.if_rule is None:
        return None
    handler = {"type": "command", "command": "true", "if": spec.if_rule}
    settings = {"hooks": {spec.event: [{"hooks": [handler]}]}}
    (hook,) = hooks_from_settings(settings, name="conformance scenario").events[spec.event][0].hooks
    assert isinstance(hook, CommandHook)
    return hook.condition


def is_sourced(spec: HookSpec) -> bool:
    """Whether ``spec`` is for ``hook_sources`` (http, async or plugin) rather than plain hooks."""
    return spec.hook_type == "http" or spec.run_async or spec.from_plugin


class SourcedHooks:
    """The sourced specs of a scenario installed; :meth:`close` stops their endpoints and waits for async hooks.

    ``hooks`` are in declaration order: http and async hooks, then the plugin's. With ``log``, every
    one of them appends the input it got to that file (a loop scenario's ``hook_log``).
    """

    def __init__(self, specs: Sequence[HookSpec], workdir: Path, *, log: Path | None = None) -> None:
        self.endpoints: list[HookEndpoint] = []
        events: dict[str, list[HookMatcher]] = {}
        plugin_specs: list[HookSpec] = []
        for index, spec in enumerate(s for s in specs if is_sourced(s)):
            entry: Any
            if spec.from_plugin:
                plugin_specs.append(spec)
                continue
            if spec.hook_type == "http":
                endpoint = HookEndpoint(spec, log=log).start()
                self.endpoints.append(endpoint)
                entry = HttpHook(
                    endpoint.url,
                    dict(spec.headers),
                    spec.allowed_env_vars,
                    timeout=spec.timeout,
                    condition=hook_condition(spec),
                    on_failure=spec.on_failure,
                )
            else:
                command = hook_command(spec, workdir / "async-hooks", index, log=log)
                entry = CommandHook(
                    command, timeout=spec.timeout, run_async=True, condition=hook_condition(spec)
                )
            events.setdefault(spec.event, []).append(
                HookMatcher(matcher=spec.matcher, hooks=[entry], timeout=spec.timeout)
            )
        hooks = Hooks(events, source="conformance scenario (hook sources)")
        if plugin_specs:
            root = write_plugin(plugin_specs, workdir / "plugins" / f"plugin-{next(_PLUGINS)}", log=log)
            hooks = hooks.merged(hooks_from_plugin(root))
        self.hooks = hooks

    async def close(self, hooks: Hooks) -> None:
        """Wait for the async hooks ``hooks`` started, then stop the endpoints."""
        await collect_background(hooks, wait=True)
        for endpoint in self.endpoints:
            endpoint.close()
