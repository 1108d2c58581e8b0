"""Loading the ``permissions`` of Claude Code settings files (PERM-4, PERM-12).

A settings file is JSON; only its ``permissions`` object is read here (``hooks``, ``env`` and every
other top-level key are left to their own modules and ignored). Loading is all-or-nothing: one
malformed rule, an unknown key inside ``permissions``, a duplicated key, a wrong type or an
unknown ``defaultMode`` refuses the *whole file* with a :class:`SettingsError` that names the file
and the offending rule or key. Dropping just the bad entry could silently drop a deny rule and
so widen what is allowed; refusing the file leaves the caller to decide, visibly (fail closed).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeAlias, get_args

from reference_impl.permissions._decisions import SETTING_SOURCES, PermissionBehavior, SettingSource
from reference_impl.permissions._rule_liveness import dead_rule_reason, unknown_tool_note
from reference_impl.permissions._rule_syntax import PermissionRule, RuleSyntaxError, parse_rule
from reference_impl.permissions._rule_words import RuleWordsError, bash_read_shell_rule
from reference_impl.permissions._source_keys import SettingsNotice, restrict_to_source

__all__ = [
    "KNOWN_PERMISSION_KEYS",
    "PERMISSION_MODES",
    "PermissionMode",
    "PermissionSettings",
    "SettingsError",
    "SettingsFile",
    "load_settings",
    "rules_from_strings",
]

PermissionMode: TypeAlias = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
"""Every permission mode, as spelled in settings (``defaultMode``) and on the command line."""

KNOWN_PERMISSION_KEYS = frozenset(
    {
        "allow",
        "deny",
        "ask",
        "defaultMode",
        "additionalDirectories",
        "blockWritesOutsideWorkingDirectories",
        "denyInsteadOfPrompting",
        "disableBypassPermissionsMode",
        "disableAutoMode",
    }
)
"""Keys accepted inside ``permissions``; any other key is refused (a misspelt ``Deny`` must not vanish)."""


class SettingsError(ValueError):
    """A settings file that is refused; the message names the file and the rule or key at fault."""

    def __init__(self, name: str, problem: str, *, rule: str | None = None, key: str | None = None) -> None:
        super().__init__(f"settings file {name!r}: {problem}")
        self.name = name
        self.problem = problem
        self.rule = rule
        self.key = key


@dataclass(frozen=True, slots=True)
class PermissionSettings:
    """The ``permissions`` object of one settings file, parsed."""

    allow: tuple[PermissionRule, ...] = ()
    deny: tuple[PermissionRule, ...] = ()
    ask: tuple[PermissionRule, ...] = ()
    default_mode: PermissionMode | None = None
    additional_directories: tuple[str, ...] = ()
    disable_bypass_permissions_mode: bool = False
    disable_auto_mode: bool = False
    block_writes_outside_working_directories: bool = False
    deny_instead_of_prompting: bool = False

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        """Every rule of the file: deny, then ask, then allow."""
        return (*self.deny, *self.ask, *self.allow)


@dataclass(frozen=True, slots=True)
class SettingsFile:
    """One loaded settings file: where it came from and what it grants or refuses.

    ``data`` is the parsed JSON object, for modules that read other keys (``hooks``), without the
    keys its source may not set (:data:`~reference_impl.permissions._source_keys.SOURCE_RESTRICTED_KEYS`);
    ``notices`` says what was ignored and why, for the harness to show at start.
    """

    name: str
    source: SettingSource
    permissions: PermissionSettings
    data: dict[str, Any] = field(default_factory=dict)
    notices: tuple[SettingsNotice, ...] = ()

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        """Every rule of the file (deny, ask, allow)."""
        return self.permissions.rules


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            # json.loads keeps the last value, which could silently drop an earlier deny list.
            raise _DuplicateKeyError(key)
        result[key] = value
    return result


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _load_rule(text: str, behavior: PermissionBehavior, source: SettingSource) -> PermissionRule:
    """Parse one rule; a deny or ask shell rule's words are read as bash reads them (PERM-12, PERM-17).

    Read as text, ``Bash("rm":*)`` or ``Bash(/bin/rm:*)`` would deny only lines spelled alike; read
    as bash reads it, it denies ``rm`` however the line spells it. One naming no program bash runs
    under that name (``Bash(рm:*)``, ``Bash(rm::*)``) raises :class:`RuleSyntaxError`.
    """
    rule = parse_rule(text, behavior, source)
    if rule.tool_name != "Bash" or rule.content is None or behavior == "allow":
        return rule
    try:
        content = bash_read_shell_rule(rule.content)
    except RuleWordsError as error:
        raise RuleSyntaxError(text, error.problem) from error
    return replace(rule, content=content)


def rules_from_strings(
    texts: Iterable[str], behavior: PermissionBehavior, source: SettingSource
) -> tuple[PermissionRule, ...]:
    """Parse several rule strings (e.g. ``--allowedTools`` values); the first bad one raises.

    A deny or ask rule that can never match (:func:`dead_rule_reason`) is refused like a malformed one.
    """
    rules = tuple(_load_rule(text, behavior, source) for text in texts)
    for rule in rules:
        dead = dead_rule_reason(rule) if behavior != "allow" else None
        if dead is not None:
            raise RuleSyntaxError(rule.text, f"this {behavior} rule can never match: {dead}")
    return rules


def _rule_list(
    name: str, permissions: dict[str, Any], key: str, source: SettingSource, notices: list[SettingsNotice]
) -> tuple[PermissionRule, ...]:
    value = permissions.get(key)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SettingsError(name, f"permissions.{key} must be a list of rule strings", key=key)
    behavior: PermissionBehavior = "allow" if key == "allow" else "deny" if key == "deny" else "ask"
    rules: list[PermissionRule] = []
    for index, text in enumerate(value):
        if not isinstance(text, str):
            raise SettingsError(
                name, f"permissions.{key}[{index}] is {text!r}, not a rule string", key=f"{key}[{index}]"
            )
        try:
            rule = _load_rule(text, behavior, source)
        except RuleSyntaxError as error:
            raise SettingsError(
                name, f"permissions.{key}[{index}]: rule {text!r} is invalid: {error.problem}", rule=text
            ) from error
        where = f"permissions.{key}[{index}]"
        dead = dead_rule_reason(rule)
        if dead is not None and behavior != "allow":
            # Fail closed: its author believes it guards something; a file we can't honour is refused.
            raise SettingsError(
                name,
                f"{where}: {behavior} rule {text!r} can never match: {dead}; "
                "the file is refused rather than guard nothing",
                rule=text,
            )
        if dead is not None:
            notices.append(
                SettingsNotice(name, source, where, f"allow rule {text!r} can never match: {dead}")
            )
        note = unknown_tool_note(rule)
        if note is not None:
            notices.append(SettingsNotice(name, source, where, f"rule {text!r}: {note}"))
        rules.append(rule)
    return tuple(rules)


def _parse_permissions(
    name: str, permissions: Any, source: SettingSource, notices: list[SettingsNotice]
) -> PermissionSettings:
    if permissions is None:
        return PermissionSettings()
    if not isinstance(permissions, dict):
        raise SettingsError(name, "'permissions' must be an object", key="permissions")
    unknown = sorted(set(permissions) - KNOWN_PERMISSION_KEYS)
    if unknown:
        raise SettingsError(
            name,
            f"unknown key(s) in permissions: {', '.join(map(repr, unknown))} "
            f"(expected {', '.join(sorted(KNOWN_PERMISSION_KEYS))})",
            key=unknown[0],
        )
    mode = permissions.get("defaultMode")
    if mode is not None and mode not in PERMISSION_MODES:
        raise SettingsError(
            name,
            f"permissions.defaultMode {mode!r} is not one of {', '.join(PERMISSION_MODES)}",
            key="defaultMode",
        )
    directories = permissions.get("additionalDirectories") or []
    if not isinstance(directories, list) or not all(isinstance(d, str) and d for d in directories):
        raise SettingsError(
            name,
            "permissions.additionalDirectories must be a list of non-empty strings",
            key="additionalDirectories",
        )
    disable_bypass = permissions.get("disableBypassPermissionsMode")
    if disable_bypass not in (None, "disable"):
        raise SettingsError(
            name,
            'permissions.disableBypassPermissionsMode must be "disable"',
            key="disableBypassPermissionsMode",
        )
    disable_auto = permissions.get("disableAutoMode")
    if disable_auto not in (None, "disable"):
        raise SettingsError(name, 'permissions.disableAutoMode must be "disable"', key="disableAutoMode")
    flags: dict[str, bool] = {}
    for key in ("blockWritesOutsideWorkingDirectories", "denyInsteadOfPrompting"):
        value = permissions.get(key, False)
        if not isinstance(value, bool):
            raise SettingsError(name, f"permissions.{key} must be true or false", key=key)
        flags[key] = value
    return PermissionSettings(
        block_writes_outside_working_directories=flags["blockWritesOutsideWorkingDirectories"],
        deny_instead_of_prompting=flags["denyInsteadOfPrompting"],
        allow=_rule_list(name, permissions, "allow", source, notices),
        deny=_rule_list(name, permissions, "deny", source, notices),
        ask=_rule_list(name, permissions, "ask", source, notices),
        default_mode=mode,
        additional_directories=tuple(directories),
        disable_bypass_permissions_mode=disable_bypass == "disable",
        disable_auto_mode=disable_auto == "disable",
    )


def load_settings(
    text_or_path: str | os.PathLike[str], source: SettingSource, *, name: str | None = None
) -> SettingsFile:
    """Load one settings file from JSON text (a ``str``) or from a file (a ``Path``).

    ``source`` is where the file sits in Claude Code's hierarchy (``userSettings``,
    ``projectSettings``, ...); ``name`` labels the file in errors (default: the path, or
    ``<settings>`` for text). Raises :class:`SettingsError` naming the file and the rule or key.
    """
    if source not in SETTING_SOURCES:
        raise ValueError(f"unknown settings source {source!r} (expected one of {', '.join(SETTING_SOURCES)})")
    source = SETTING_SOURCES[SETTING_SOURCES.index(source)]  # the constant itself, however it was built
    if isinstance(text_or_path, str):
        text = text_or_path
        label = name or "<settings>"
    else:
        label = name or os.fspath(text_or_path)
        try:
            text = Path(text_or_path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise SettingsError(label, f"can't be read: {error}") from error
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except _DuplicateKeyError as error:
        raise SettingsError(label, f"duplicate key {error.key!r}", key=error.key) from error
    except json.JSONDecodeError as error:
        raise SettingsError(label, f"is not valid JSON: {error}") from error
    if not isinstance(data, dict):
        raise SettingsError(label, "must contain a JSON object")
    data, dropped = restrict_to_source(data, source, label)
    notices = list(dropped)
    permissions = _parse_permissions(label, data.get("permissions"), source, notices)
    return SettingsFile(name=label, source=source, permissions=permissions, data=data, notices=tuple(notices))
