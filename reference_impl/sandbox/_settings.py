"""The ``sandbox`` key of Claude Code settings files, validated and merged across sources (SBX-1..6).

Each file's ``sandbox`` object is checked on its own: an unknown key, a wrong type or a malformed
domain pattern refuses it with a :class:`~reference_impl.permissions.SettingsError` naming the file
and the key (``sandbox.network.allowedDomains[2]``), as for ``permissions``: dropping a bad entry could
drop a narrowing one. The files are then merged from the lowest precedence to the highest
(user, project, local, ``--settings``, managed): a scalar set by a later file wins, lists are joined.

Keys Claude Code documents but that the reference harness does not enforce are accepted (so real
settings files load) and listed in :data:`ACCEPTED_NOT_ENFORCED`; every one of them only *widens*
the sandbox or concerns another platform, so ignoring them fails closed. The narrowing ones it can't
enforce (:data:`UNSUPPORTED`: ``credentials``, ...) refuse the file. ``bwrapPath`` and ``socatPath``
count only in managed settings (:data:`MANAGED_ONLY`). Defaults are Claude Code's (2.1.332's schema):
``autoAllowBashIfSandboxed`` false, ``allowUnsandboxedCommands`` true.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reference_impl.permissions import (
    SETTINGS_PRECEDENCE,
    SettingsError,
    SettingsFile,
    normalise_host,
)

__all__ = [
    "ACCEPTED_NOT_ENFORCED",
    "MANAGED_ONLY",
    "SANDBOX_KEYS",
    "UNSUPPORTED",
    "SandboxSettings",
    "domain_pattern",
    "sandbox_settings",
]

_BOOLS = {
    "enabled": "enabled",
    "failIfUnavailable": "fail_if_unavailable",
    "autoAllowBashIfSandboxed": "auto_allow_bash_if_sandboxed",
    "allowUnsandboxedCommands": "allow_unsandboxed_commands",
}
_STRINGS = {"bwrapPath": "bwrap_path", "socatPath": "socat_path"}
_FILESYSTEM_LISTS = {"allowWrite": "allow_write", "denyWrite": "deny_write", "denyRead": "deny_read"}
_NETWORK_LISTS = {"allowedDomains": "allowed_domains", "deniedDomains": "denied_domains"}

ACCEPTED_NOT_ENFORCED: Mapping[str, str] = {
    "ignoreViolations": "object",
    "enableWeakerNestedSandbox": "bool",
    "enableWeakerNetworkIsolation": "bool",
    "allowNestedUserNamespaces": "bool",
    "allowAppleEvents": "bool",
    "enabledPlatforms": "list",
    "windows": "object",
    "ripgrep": "object",
    "filesystem.allowRead": "list",
    "filesystem.allowManagedReadPathsOnly": "bool",
    "filesystem.disabled": "bool",
    "network.strictAllowlist": "bool",
    "network.allowUnixSockets": "list",
    "network.allowAllUnixSockets": "bool",
    "network.allowLocalBinding": "bool",
    "network.allowMachLookup": "list",
    "network.httpProxyPort": "int",
    "network.socksProxyPort": "int",
}
"""Documented keys that are type-checked and then ignored: each would only widen the sandbox, concerns
another platform, or is already what the harness does (``strictAllowlist``: the proxy never asks)."""

UNSUPPORTED: Mapping[str, str] = {
    "credentials": "hiding credential files and environment variables is not implemented",
    "network.tlsTerminate": "TLS termination in the proxy is not implemented",
}
"""Documented keys that would narrow the sandbox in a way the harness can't: a file setting one is
refused (running without what it asks for would be weaker than the user believes)."""

MANAGED_ONLY = ("bwrapPath", "socatPath")
"""Keys honoured only from managed settings, as in Claude Code: a repository's settings must not name
the program that is supposed to confine it (a fake ``bwrap`` would run commands unconfined)."""

SANDBOX_KEYS = frozenset(
    {*_BOOLS, *_STRINGS, "excludedCommands", "filesystem", "network"}
    | {key for key in (*ACCEPTED_NOT_ENFORCED, *UNSUPPORTED) if "." not in key}
)
"""The keys accepted directly inside ``sandbox``."""

_FILESYSTEM_KEYS = frozenset(
    {*_FILESYSTEM_LISTS}
    | {k.split(".")[1] for k in (*ACCEPTED_NOT_ENFORCED, *UNSUPPORTED) if k.startswith("filesystem.")}
)
_NETWORK_KEYS = frozenset(
    {*_NETWORK_LISTS, "allowManagedDomainsOnly"}
    | {k.split(".")[1] for k in (*ACCEPTED_NOT_ENFORCED, *UNSUPPORTED) if k.startswith("network.")}
)
_LABEL = re.compile(r"^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$")


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """The merged ``sandbox`` settings, with Claude Code's defaults.

    ``managed_domains`` holds the domains of managed (policy) settings alone, used instead of
    ``allowed_domains`` when ``allow_managed_domains_only`` is set there.
    """

    enabled: bool = False
    fail_if_unavailable: bool = False
    auto_allow_bash_if_sandboxed: bool = False
    allow_unsandboxed_commands: bool = True
    excluded_commands: tuple[str, ...] = ()
    allow_write: tuple[str, ...] = ()
    deny_write: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    denied_domains: tuple[str, ...] = ()
    allow_managed_domains_only: bool = False
    managed_domains: tuple[str, ...] = ()
    bwrap_path: str | None = None
    socat_path: str | None = None


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536
    if kind == "list":
        return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)
    return isinstance(value, dict)


def _object(name: str, value: Any, where: str, known: frozenset[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SettingsError(name, f"{where} must be an object", key=where)
    unknown = sorted(set(value) - known)
    if unknown:
        raise SettingsError(
            name,
            f"unknown key(s) in {where}: {', '.join(map(repr, unknown))} (expected {', '.join(sorted(known))})",
            key=f"{where}.{unknown[0]}",
        )
    return value


def _strings(name: str, value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise SettingsError(name, f"{where} must be a list of strings", key=where)
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise SettingsError(
                name, f"{where}[{index}] is {item!r}, not a non-empty string", key=f"{where}[{index}]"
            )
    return tuple(item.strip() for item in value)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def domain_pattern(name: str, text: str, where: str) -> str:
    """A domain pattern as the proxy compares it: ``host`` or ``*.host``, normalised; bad ones raise."""
    wildcard = text.startswith("*.")
    host = normalise_host(text[2:] if wildcard else text)
    if host is None or not (
        (_is_ip(host) and not wildcard) or all(_LABEL.match(label) for label in host.split("."))
    ):
        raise SettingsError(
            name, f"{where}: {text!r} is not a domain pattern (host or *.host, no port)", key=where
        )
    return f"*.{host}" if wildcard else host


def _parse_one(settings: SettingsFile) -> dict[str, Any]:
    """The fields one file sets (only those it sets), validated."""
    name = settings.name
    raw = settings.data.get("sandbox")
    if raw is None:
        return {}
    sandbox = _object(name, raw, "sandbox", SANDBOX_KEYS)
    fields: dict[str, Any] = {}
    for key, attribute in _BOOLS.items():
        if key in sandbox:
            if not isinstance(sandbox[key], bool):
                raise SettingsError(name, f"sandbox.{key} must be true or false", key=f"sandbox.{key}")
            fields[attribute] = sandbox[key]
    for key, attribute in _STRINGS.items():
        if key in sandbox:
            if not isinstance(sandbox[key], str) or not sandbox[key].startswith("/"):
                raise SettingsError(name, f"sandbox.{key} must be an absolute path", key=f"sandbox.{key}")
            if settings.source == "policySettings":  # MANAGED_ONLY: elsewhere ignored, as Claude Code does
                fields[attribute] = sandbox[key]
    if "excludedCommands" in sandbox:
        fields["excluded_commands"] = _strings(name, sandbox["excludedCommands"], "sandbox.excludedCommands")
    filesystem = _object(name, sandbox.get("filesystem", {}), "sandbox.filesystem", _FILESYSTEM_KEYS)
    network = _object(name, sandbox.get("network", {}), "sandbox.network", _NETWORK_KEYS)
    for key, why in UNSUPPORTED.items():
        section, _, leaf = key.rpartition(".")
        if leaf in {"filesystem": filesystem, "network": network, "": sandbox}[section]:
            raise SettingsError(name, f"sandbox.{key} is not supported: {why}", key=f"sandbox.{key}")
    for key, kind in ACCEPTED_NOT_ENFORCED.items():
        section, _, leaf = key.rpartition(".")
        holder = {"filesystem": filesystem, "network": network, "": sandbox}[section]
        if leaf in holder and not _type_ok(holder[leaf], kind):
            raise SettingsError(name, f"sandbox.{key} must be of type {kind}", key=f"sandbox.{key}")
    for key, attribute in _FILESYSTEM_LISTS.items():
        if key in filesystem:
            fields[attribute] = _strings(name, filesystem[key], f"sandbox.filesystem.{key}")
    for key, attribute in _NETWORK_LISTS.items():
        if key in network:
            where = f"sandbox.network.{key}"
            texts = _strings(name, network[key], where)
            fields[attribute] = tuple(domain_pattern(name, t, f"{where}[{i}]") for i, t in enumerate(texts))
    if "allowManagedDomainsOnly" in network:
        if not isinstance(network["allowManagedDomainsOnly"], bool):
            raise SettingsError(
                name,
                "sandbox.network.allowManagedDomainsOnly must be true or false",
                key="sandbox.network.allowManagedDomainsOnly",
            )
        # Only managed settings may restrict the others (Claude Code's rule).
        if settings.source == "policySettings":
            fields["allow_managed_domains_only"] = network["allowManagedDomainsOnly"]
    return fields


def _precedence(settings: SettingsFile) -> int:
    order = SETTINGS_PRECEDENCE
    return order.index(settings.source) if settings.source in order else len(order)


_LISTS = ("excluded_commands", "allow_write", "deny_write", "deny_read", "allowed_domains", "denied_domains")


def sandbox_settings(files: Iterable[SettingsFile]) -> SandboxSettings:
    """Validate every file's ``sandbox`` and merge them (lowest precedence first; lists joined).

    Raises :class:`~reference_impl.permissions.SettingsError` naming the file and key at fault.
    """
    merged: dict[str, Any] = {}
    lists: dict[str, list[str]] = {key: [] for key in _LISTS}
    managed: list[str] = []
    for settings in sorted(files, key=_precedence):
        fields = _parse_one(settings)
        for key, value in fields.items():
            if key in lists:
                lists[key].extend(v for v in value if v not in lists[key])
            else:
                merged[key] = value
        if settings.source == "policySettings":
            managed.extend(fields.get("allowed_domains", ()))
    result: dict[str, Any] = {**merged, **{key: tuple(values) for key, values in lists.items()}}
    return SandboxSettings(**result, managed_domains=tuple(managed))
