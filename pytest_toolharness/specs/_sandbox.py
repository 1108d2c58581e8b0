"""The plain data of the ``sandbox`` capability: one Bash call in a sandboxed session, and its outcome.

A :class:`SandboxRun` is one shell command in a fresh session whose working directory is
``workdir`` and whose settings are ``settings`` (a Claude Code settings object: its ``sandbox`` and
``permissions`` keys), written by the adapter where the harness reads project settings
(``.claude/settings.local.json`` in ``workdir`` for Claude Code), so that file is one of the harness's
settings files inside the writable area (SBX-2). The :class:`SandboxOutcome` says whether the
command ran, whether the harness *says* it ran sandboxed, and what the model saw; the suite checks
what really happened from outside (files, sockets).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pytest_toolharness.specs._permissions import HostSpec

__all__ = ["SETTINGS_FILE", "SandboxOutcome", "SandboxRun"]

SETTINGS_FILE = ".claude/settings.local.json"
"""Where, relative to ``workdir``, the run's settings are written (Claude Code's local project settings)."""


@dataclass(frozen=True, slots=True)
class SandboxRun:
    """One Bash call: ``command`` in ``workdir`` under ``settings``.

    ``settings_source`` is the file that holds ``settings``: ``localSettings`` (:data:`SETTINGS_FILE`),
    ``projectSettings`` (``.claude/settings.json``, the repository's) or ``userSettings`` (the user's
    own, outside ``workdir``). ``managed_settings`` are the administrator's (Claude Code's managed
    settings; the only place its ``sandbox.bwrapPath``, ``socatPath`` and ``allowManagedDomainsOnly``
    count), put where the harness reads them, outside ``workdir``. ``other_settings`` are further files
    of the session, ``(source, settings)`` pairs of other sources (``userSettings``, ``projectSettings``,
    ``localSettings``, ``flagSettings`` for ``--settings FILE``, ``policySettings`` for the managed
    ones when ``managed_settings`` is empty), each where the harness reads that source, loaded in
    their order after ``settings`` and before ``managed_settings``: a key set by several files, so that
    the harness's precedence decides. ``disable_sandbox`` sets the call's ``dangerouslyDisableSandbox``.
    ``host`` answers a permission ask and records it; None means nobody can be asked (an ask is
    denied, PERM-8).
    """

    command: str
    workdir: Path
    settings: Mapping[str, Any] = field(default_factory=dict)
    managed_settings: Mapping[str, Any] = field(default_factory=dict)
    disable_sandbox: bool = False
    settings_source: Literal["userSettings", "projectSettings", "localSettings"] = "localSettings"
    other_settings: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    host: HostSpec | None = None
    timeout_ms: int = 60_000


@dataclass(frozen=True, slots=True)
class SandboxOutcome:
    """What came of a :class:`SandboxRun`.

    ``ran``: the command was started; ``sandboxed``: the harness's own claim that it ran inside the
    sandbox (None when it did not run); ``output``: the tool_result text the model saw; ``is_error``:
    the tool_result's flag; ``decision``: the permission decision (``allow`` or ``deny``).
    """

    ran: bool
    sandboxed: bool | None
    output: str
    is_error: bool
    decision: str
