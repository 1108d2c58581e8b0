"""Settings keys that only some settings sources may set (PERM-4): the table, and dropping the others.

Claude Code honours a few keys only from managed (policy) settings: a lock such as
``allowManagedPermissionRulesOnly`` set by a repository's ``.claude/settings.json`` would let a cloned
repository throw away the user's own deny rules. A few others are read from every file but the shared
project one, which a cloned repository controls (``autoMode`` would let it write its own allow rules,
``autoMemoryDirectory`` redirect memory writes). :data:`SOURCE_RESTRICTED_KEYS` is the one place that
says which sources may set which key; :func:`restrict_to_source` drops a key a file may not set and
says so in a :class:`SettingsNotice` naming the key, the file and its source (never silently honoured,
never a refused file: the key simply has no effect from there).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reference_impl.permissions._decisions import SETTING_SOURCES, SettingSource

__all__ = [
    "SOURCE_RESTRICTED_KEYS",
    "SettingsNotice",
    "SourceRestriction",
    "managed_flag",
    "restrict_to_source",
]


@dataclass(frozen=True, slots=True)
class SettingsNotice:
    """Something a settings file says that the harness ignores or can't honour, with why.

    ``key`` is the dotted settings key (``sandbox.network.allowManagedDomainsOnly``) or, for a rule,
    the list it sits in (``permissions.allow[3]``); ``file`` and ``source`` say where it was written.
    """

    file: str
    source: SettingSource
    key: str
    message: str

    def __str__(self) -> str:
        return f"settings file {self.file!r} ({self.source}): {self.key}: {self.message}"


@dataclass(frozen=True, slots=True)
class SourceRestriction:
    """One key and the settings sources allowed to set it; ``documented`` says where Claude Code says so."""

    key: str
    sources: frozenset[SettingSource]
    why: str
    documented: str


_MANAGED: frozenset[SettingSource] = frozenset({"policySettings"})
_NOT_PROJECT: frozenset[SettingSource] = frozenset(SETTING_SOURCES) - {"projectSettings"}
_MANAGED_DOCS = "CC docs, settings: managed-only settings"


def _managed(key: str, why: str) -> SourceRestriction:
    return SourceRestriction(key, _MANAGED, why, _MANAGED_DOCS)


SOURCE_RESTRICTED_KEYS: tuple[SourceRestriction, ...] = (
    _managed("allowManagedPermissionRulesOnly", "only managed permission rules apply"),
    _managed("allowManagedHooksOnly", "only managed hooks run"),
    _managed("allowManagedMcpServersOnly", "only the managed MCP server allowlist applies"),
    _managed("allowedChannelPlugins", "the channel plugin allowlist"),
    _managed("blockedMarketplaces", "the plugin marketplace blocklist"),
    _managed("channelsEnabled", "turns channels on for the organisation"),
    _managed("pluginTrustMessage", "the organisation's plugin trust warning"),
    _managed("strictKnownMarketplaces", "the marketplaces plugins may come from"),
    _managed("sandbox.filesystem.allowManagedReadPathsOnly", "only managed read paths apply"),
    _managed("sandbox.network.allowManagedDomainsOnly", "only managed network domains apply"),
    SourceRestriction(
        "autoMode",
        _NOT_PROJECT,
        "a cloned repository could write its own auto-mode allow rules",
        "CC docs, auto mode config: not read from shared project settings",
    ),
    SourceRestriction(
        "autoMemoryDirectory",
        _NOT_PROJECT,
        "a cloned repository could redirect memory writes",
        "CC docs, memory: accepted from policy, local and user settings, not project settings",
    ),
    SourceRestriction(
        "skipDangerousModePermissionPrompt",
        _NOT_PROJECT,
        "a cloned repository could skip the bypass-permissions warning",
        "CC docs, settings: ignored when set in project settings",
    ),
    # Stricter than Claude Code's documentation (the harness may be stricter, never looser): a
    # command that produces credentials, taken from a file a cloned repository controls, runs that
    # repository's code at start-up (anthropics/claude-code#42593).
    SourceRestriction("apiKeyHelper", _NOT_PROJECT, "it runs a command to make credentials", ""),
    SourceRestriction("awsAuthRefresh", _NOT_PROJECT, "it runs a command to make credentials", ""),
    SourceRestriction("awsCredentialExport", _NOT_PROJECT, "it runs a command to make credentials", ""),
)
"""Which settings sources may set which key; every other source's value is ignored with a notice."""


def _describe(sources: frozenset[SettingSource]) -> str:
    if sources == _MANAGED:
        return "only managed settings (policySettings) may set it"
    if sources == _NOT_PROJECT:
        return "shared project settings (projectSettings, which a cloned repository controls) may not set it"
    return f"it may be set only from {', '.join(s for s in SETTING_SOURCES if s in sources)}"


def restrict_to_source(
    data: Mapping[str, Any], source: SettingSource, name: str
) -> tuple[dict[str, Any], tuple[SettingsNotice, ...]]:
    """``data`` without the keys ``source`` may not set, and a notice for each key dropped.

    ``data`` itself is left alone; the result is a copy only when something was dropped. A key
    whose parent is not an object is left to the loader that reads that parent (it refuses it).
    """
    result: dict[str, Any] = dict(data)
    notices: list[SettingsNotice] = []
    copied = False
    for restriction in SOURCE_RESTRICTED_KEYS:
        if source in restriction.sources:
            continue
        *parents, last = restriction.key.split(".")
        holder: Any = result
        for part in parents:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if not isinstance(holder, dict) or last not in holder:
            continue
        if not copied:
            result, copied = copy.deepcopy(result), True
            holder = result
            for part in parents:
                holder = holder[part]
        del holder[last]
        notices.append(
            SettingsNotice(
                name,
                source,
                restriction.key,
                f"ignored: {_describe(restriction.sources)} ({restriction.why})",
            )
        )
    return result, tuple(notices)


def managed_flag(files: Iterable[Any], key: str) -> bool:
    """Whether a managed (policySettings) file sets the top-level ``key`` to true.

    ``files`` are :class:`~reference_impl.permissions._settings.SettingsFile` objects (typed loosely
    to keep this module below the loader).
    """
    return any(f.source == "policySettings" and f.data.get(key) is True for f in files)
