"""The sandbox policy: what a sandboxed shell command may write, read and reach (SBX-1..3, 004 §9.4).

:func:`derive_policy` turns the merged ``sandbox`` settings and the permission rules into a
:class:`SandboxPolicy`:

- writable: the working directories (cwd and ``additionalDirectories``), the session's temp dir,
  ``sandbox.filesystem.allowWrite`` and the paths of ``Edit(...)`` allow rules;
- protected inside the writable area (read-only where they exist, removed after the command where it
  created them): the names of PERM-15's list (:data:`~reference_impl.permissions.PROTECTED_DIRECTORIES`
  and :data:`~reference_impl.permissions.PROTECTED_FILES`: ``.git``, ``.claude`` with the settings files
  and skills, ``.bashrc``, ...) at the top of every writable root, the harness's settings files, and
  ``sandbox.filesystem.denyWrite``; a bare repository planted at a writable root (``HEAD``, ``objects``,
  ``refs``) is removed after the command too; the paths of ``Edit(...)`` deny rules (any of the edit
  tools: what the file tools may not edit, commands may not write);
- hidden (reads fail): ``sandbox.filesystem.denyRead`` and the paths of ``Read(...)`` deny rules;
- glob patterns among ``denyRead`` / ``denyWrite`` (``~/.ssh/**``, ``./*.key``, ``**/.env``) and the
  ``Read(...)`` and ``Edit(...)`` deny rules that can't be one mount (``Read(**/.env)``) are kept as patterns
  (``hidden_globs``, ``protected_globs``), expanded against the filesystem before every command
  (:func:`~reference_impl.sandbox._runner.mount_plan`);
- network: hosts of ``sandbox.network.allowedDomains`` and ``WebFetch(domain:...)`` allow rules, minus
  ``deniedDomains`` and ``WebFetch(domain:...)`` deny rules (a denied host is never let through).

Path rules become mounts when they name a directory (``Edit(//tmp/build/**)``) or one literal path
(``Read(./.env)``); a ``Read(...)`` deny pattern with a wildcard elsewhere (``Read(**/.env)``) is
expanded like a ``denyRead`` glob (the permission engine still applies it to the file tools too).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from reference_impl.permissions import (
    PROTECTED_DIRECTORIES,
    PROTECTED_FILES,
    PROTECTED_TREES,
    PathPatternError,
    PermissionContext,
    PermissionRule,
    is_local_machine,
    normalise_host,
    parse_path_pattern,
)
from reference_impl.sandbox._settings import SandboxSettings

__all__ = [
    "BARE_REPOSITORY_NAMES",
    "EDIT_TOOLS",
    "SandboxPolicy",
    "derive_policy",
    "host_allowed",
    "is_glob",
]

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
"""The tools whose ``Tool(path)`` allow rules widen the sandbox's writable area."""

BARE_REPOSITORY_NAMES = ("HEAD", "objects", "refs")
"""What makes a directory a git repository to git's discovery; planted together, they are removed."""

_UNBINDABLE = ("*", "?", "[")


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """What a sandboxed command may do; paths are absolute and resolved, domains normalised."""

    writable: tuple[str, ...]
    protected: tuple[str, ...]
    hidden: tuple[str, ...]
    allowed_domains: tuple[str, ...]
    denied_domains: tuple[str, ...]
    hidden_globs: tuple[str, ...] = ()
    """Absolute glob patterns (gitignore's globs, as path rules read them) whose matches are hidden."""
    protected_globs: tuple[str, ...] = ()
    """Absolute glob patterns whose matches are read-only, and removed when a command creates one."""

    def allows_host(self, host: str) -> bool:
        """Whether the proxy lets a connection to ``host`` through (denied domains win)."""
        return host_allowed(host, self.allowed_domains, self.denied_domains)


def _matches(host: str, pattern: str) -> bool:
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def host_allowed(host: str, allowed: Iterable[str], denied: Iterable[str]) -> bool:
    """``host`` (any spelling) is allowed by a pattern of ``allowed`` and by none of ``denied``."""
    normal = normalise_host(host)
    if normal is None:
        return False
    # A denied spelling of the local machine denies every other (``0.0.0.0``, ``[::1]``, ``a.localhost``).
    local = is_local_machine(normal)
    if any(_matches(normal, p) or (local and is_local_machine(p.removeprefix("*."))) for p in denied):
        return False
    return any(_matches(normal, pattern) for pattern in allowed)


def is_glob(text: str) -> bool:
    """Whether a settings path is a glob pattern (``*``, ``?`` or ``[``) rather than one path."""
    return any(c in text for c in _UNBINDABLE)


def _absolute(text: str, cwd: Path) -> str:
    expanded = os.path.expanduser(text[1:] if text.startswith("//") else text)
    return os.path.realpath(posixpath.join(str(cwd), expanded))


def _absolute_glob(text: str, cwd: Path) -> str:
    """``text`` as an absolute pattern: the directories before its first wildcard resolved, the rest kept."""
    expanded = os.path.expanduser(text[1:] if text.startswith("//") else text)
    parts = posixpath.normpath(posixpath.join(str(cwd), expanded)).split("/")
    first = next(i for i, part in enumerate(parts) if is_glob(part))
    prefix = os.path.realpath("/".join(parts[:first]) or "/")
    return posixpath.join(prefix, *parts[first:])


def _rule_glob(rule: PermissionRule, context: PermissionContext) -> str | None:
    """A ``Read(...)`` or ``Edit(...)`` deny pattern that is not one path, as an absolute glob pattern."""
    if rule.content is None:
        return None
    try:
        pattern = parse_path_pattern(rule.content, cwd=context.cwd, project_root=context.project_root)
    except PathPatternError:
        return None
    # The root is literal: its own wildcard characters are escaped, so that only the glob is read as one.
    return posixpath.join(re.sub(r"([*?\[\\])", r"\\\1", pattern.root), pattern.glob)


def _rule_path(rule: PermissionRule, context: PermissionContext) -> str | None:
    """The one directory or file a path rule names, or None when it is a wider pattern."""
    if rule.content is None:
        return None
    try:
        pattern = parse_path_pattern(rule.content, cwd=context.cwd, project_root=context.project_root)
    except PathPatternError:
        return None
    if pattern.glob == "**":
        return pattern.root
    literal = pattern.glob.replace("\\", "")
    if "/" in literal or any(c in pattern.glob.replace("\\*", "").replace("\\?", "") for c in _UNBINDABLE):
        return None
    return posixpath.join(pattern.root, literal)


def _rule_domain(rule: PermissionRule) -> str | None:
    if rule.tool_name != "WebFetch" or rule.content is None or not rule.content.startswith("domain:"):
        return None
    host = rule.content[len("domain:") :]
    wildcard = host.startswith("*.")
    normal = normalise_host(host[2:] if wildcard else host)
    if normal is None:
        return None
    return f"*.{normal}" if wildcard else normal


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def protected_names() -> tuple[str, ...]:
    """PERM-15's protected directories and files, as paths relative to a writable root (sorted)."""
    return tuple(sorted(PROTECTED_DIRECTORIES | PROTECTED_FILES | PROTECTED_TREES))


def derive_policy(
    settings: SandboxSettings,
    context: PermissionContext,
    *,
    temp_dir: Path,
    settings_paths: Iterable[Path] = (),
) -> SandboxPolicy:
    """The policy for ``context``'s working directories and rules under these sandbox settings."""
    cwd = context.cwd
    writable = [os.path.realpath(d) for d in (*context.working_dirs, temp_dir)]
    writable.extend(_absolute(p, cwd) for p in settings.allow_write)
    hidden = [_absolute(p, cwd) for p in settings.deny_read if not is_glob(p)]
    hidden_globs = [_absolute_glob(p, cwd) for p in settings.deny_read if is_glob(p)]
    allowed = list(
        settings.managed_domains if settings.allow_managed_domains_only else settings.allowed_domains
    )
    denied = list(settings.denied_domains)
    denied_writes: list[str] = []
    denied_write_globs: list[str] = []
    for rule in context.rules:
        if rule.tool_name in EDIT_TOOLS and rule.behavior == "allow":
            path = _rule_path(rule, context)
            if path is not None:
                writable.append(path)
        elif rule.tool_name in EDIT_TOOLS and rule.behavior == "deny":
            # What the file tools may not edit, the sandboxed commands may not write either.
            path = _rule_path(rule, context)
            if path is not None:
                denied_writes.append(path)
            elif (pattern := _rule_glob(rule, context)) is not None:
                denied_write_globs.append(pattern)
        elif rule.tool_name == "Read" and rule.behavior == "deny":
            path = _rule_path(rule, context)
            if path is not None:
                hidden.append(path)
            elif (pattern := _rule_glob(rule, context)) is not None:
                hidden_globs.append(pattern)
        elif (domain := _rule_domain(rule)) is not None:
            if rule.behavior == "allow" and not (
                settings.allow_managed_domains_only and rule.source != "policySettings"
            ):
                allowed.append(domain)
            elif rule.behavior == "deny":
                denied.append(domain)
    roots = _unique(writable)
    protected = [posixpath.join(root, name) for root in roots for name in protected_names()]
    protected.extend(os.path.realpath(p) for p in settings_paths)
    protected.extend(_absolute(p, cwd) for p in settings.deny_write if not is_glob(p))
    protected.extend(denied_writes)
    return SandboxPolicy(
        writable=roots,
        protected=_unique(protected),
        hidden=_unique(hidden),
        allowed_domains=_unique(allowed),
        denied_domains=_unique(denied),
        hidden_globs=_unique(hidden_globs),
        protected_globs=_unique(
            [*(_absolute_glob(p, cwd) for p in settings.deny_write if is_glob(p)), *denied_write_globs]
        ),
    )
