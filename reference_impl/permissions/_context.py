"""What the permission engine decides in: the mode, the rules of every source, the working directories.

:class:`PermissionContext` is built directly or from loaded settings files
(:func:`context_from_settings`); the auto mode's :data:`Classifier` is part of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeAlias

from reference_impl.permissions._decisions import SETTINGS_PRECEDENCE
from reference_impl.permissions._rule_syntax import PermissionRule
from reference_impl.permissions._settings import PERMISSION_MODES, PermissionMode, SettingsFile
from reference_impl.permissions._source_keys import managed_flag
from reference_impl.tools import Tool

__all__ = ["Classifier", "PermissionContext", "context_from_settings"]

Classifier: TypeAlias = Callable[[Tool, Mapping[str, Any]], str]
"""The auto-mode classifier: returns ``"allow"`` or ``"deny"``; anything else, or raising, fails closed."""


@dataclass(frozen=True, slots=True)
class PermissionContext:
    """Everything the engine needs besides the call: mode, rules from every source, directories.

    ``can_prompt`` is False when nobody can be asked (headless, background agents); the engine
    still returns ``ask`` and the executor resolves it (PERM-8), except that a failed auto-mode
    classification denies directly. ``project_root`` anchors ``/x`` path rules (default: cwd).
    """

    mode: PermissionMode = "default"
    rules: tuple[PermissionRule, ...] = ()
    cwd: Path = field(default_factory=Path.cwd)
    additional_dirs: tuple[Path, ...] = ()
    can_prompt: bool = True
    classifier: Classifier | None = None
    project_root: Path | None = None
    block_writes_outside_working_dirs: bool = False
    deny_instead_of_prompting: bool = False

    def __post_init__(self) -> None:
        if self.mode not in PERMISSION_MODES:
            raise ValueError(
                f"unknown permission mode {self.mode!r} (expected one of {', '.join(PERMISSION_MODES)})"
            )

    @property
    def working_dirs(self) -> tuple[Path, ...]:
        """The working directory and the additional ones."""
        return (self.cwd, *self.additional_dirs)

    def with_mode(self, mode: PermissionMode) -> PermissionContext:
        """A copy in another mode."""
        return replace(self, mode=mode)


def context_from_settings(
    files: Iterable[SettingsFile],
    *,
    cwd: Path,
    mode: PermissionMode | None = None,
    extra_rules: Iterable[PermissionRule] = (),
    additional_dirs: Iterable[Path] = (),
    can_prompt: bool = True,
    classifier: Classifier | None = None,
    project_root: Path | None = None,
) -> PermissionContext:
    """Build a context from loaded settings files (all sources together; precedence is by behavior).

    The mode is ``mode`` if given, else the ``defaultMode`` of the highest-precedence file that sets
    one (:data:`SETTINGS_PRECEDENCE`; of two files of one source, the later), else ``default``,
    whatever order ``files`` come in; when any file sets ``disableBypassPermissionsMode`` a
    bypassPermissions mode (given or from a file) falls back to ``default``, and likewise an auto
    mode when any file sets ``disableAutoMode``.
    Relative ``additionalDirectories`` are taken relative to ``cwd``. When a managed file sets
    ``allowManagedPermissionRulesOnly``, only managed rules apply (the loader has already dropped
    that key from every other source, so a repository can't use it to discard the user's rules).
    """
    files = tuple(files)
    rules = [rule for settings in files for rule in settings.rules]
    rules.extend(extra_rules)
    if managed_flag(files, "allowManagedPermissionRulesOnly"):
        rules = [rule for rule in rules if rule.source == "policySettings"]
    chosen: PermissionMode = "default"
    for settings in _by_precedence(files):
        if settings.permissions.default_mode is not None:
            chosen = settings.permissions.default_mode
    if mode is not None:
        chosen = mode
    if chosen == "bypassPermissions" and any(f.permissions.disable_bypass_permissions_mode for f in files):
        chosen = "default"
    if chosen == "auto" and any(f.permissions.disable_auto_mode for f in files):
        chosen = "default"  # ``disableAutoMode: "disable"`` loads and means what it says
    directories = [Path(d) for d in additional_dirs]
    for settings in files:
        directories.extend(cwd / Path(d).expanduser() for d in settings.permissions.additional_directories)
    # True from any source wins (a repository can't turn these off).
    block_writes = any(f.permissions.block_writes_outside_working_directories for f in files)
    deny_instead = any(f.permissions.deny_instead_of_prompting for f in files)
    return PermissionContext(
        block_writes_outside_working_dirs=block_writes,
        deny_instead_of_prompting=deny_instead,
        mode=chosen,
        rules=tuple(rules),
        cwd=cwd,
        additional_dirs=tuple(dict.fromkeys(directories)),
        can_prompt=can_prompt,
        classifier=classifier,
        project_root=project_root,
    )


def _by_precedence(files: tuple[SettingsFile, ...]) -> list[SettingsFile]:
    """The files from the lowest precedence to the highest (a later file's scalar wins); stable."""
    rank = {source: index for index, source in enumerate(SETTINGS_PRECEDENCE)}
    return sorted(files, key=lambda settings: rank.get(settings.source, len(rank)))
