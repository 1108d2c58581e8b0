"""A scenario's roles read back from the files every target gets, for profiles that write their own config.

Every target is handed a Claude Code style ``settings.json`` (``permissions``: ``allow`` / ``ask`` /
``deny`` rule strings, ``defaultMode``; ``hooks``) and a ``{"mcpServers": ...}`` file, both written
in the target's own tool names (its profile's :class:`~pytest_toolharness.wire.scenarios._core.ToolNames`).
A CLI that takes neither (opencode, Cline) gets its own config from a profile that reads them back
here as roles: :func:`settings_rules` (each rule's action, tool and optional pattern) and
:func:`mcp_servers` (each stdio server's command line and environment).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pytest_toolharness.specs import SETTINGS_FILES

T = TypeVar("T")

__all__ = [
    "ACTIONS",
    "McpServer",
    "Rule",
    "mcp_servers",
    "mode_setting",
    "read_settings_file",
    "setting_sources",
    "settings_rules",
]

#: The rule actions, weakest first: a later one beats an earlier one on the same call.
ACTIONS: tuple[str, ...] = ("allow", "ask", "deny")

_RULE = re.compile(r"^(?P<tool>[^()\s]+)(?:\((?P<spec>.*)\))?$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Rule:
    """One permission rule: ``action`` on ``tool``, for calls matching ``pattern`` (None: every call).

    ``pattern`` is a glob (``*`` any text): Claude Code's ``prefix:*`` becomes ``prefix*``.
    """

    action: str
    tool: str
    pattern: str | None = None


@dataclass(frozen=True, slots=True)
class McpServer:
    """One stdio MCP server of the suite's MCP config."""

    name: str
    command: str
    args: tuple[str, ...]
    env: dict[str, str]


def read_settings_file(path: Path) -> dict[str, Any]:
    """The settings file as a dict (an error naming the file when it is not a JSON object)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: settings must be a JSON object, not {type(data).__name__}")
    return data


def setting_sources(workdir: Path) -> dict[str, Path]:
    """Claude Code's other settings files the scenario wrote (source -> path), in ``SETTINGS_FILES`` order.

    ``~`` is the run's scratch home, ``workdir / "home"``; the rest is relative to ``workdir``.
    """
    found: dict[str, Path] = {}
    for source, place in SETTINGS_FILES.items():
        path = workdir / "home" / place[2:] if place.startswith("~/") else workdir / place
        if path.is_file():
            found[source] = path
    return found


def _pattern(spec: str) -> str:
    return spec[: -len(":*")] + "*" if spec.endswith(":*") else spec


def mode_setting(settings: dict[str, Any], modes: Mapping[str, T], what: str) -> T:
    """``modes[permissions.defaultMode]`` (``default`` when unset); an error naming ``what`` for an unknown mode."""
    permissions = settings.get("permissions") or {}
    mode = permissions.get("defaultMode", "default") if isinstance(permissions, dict) else "default"
    if mode not in modes:
        raise ValueError(f"settings: permission mode {mode!r} has no {what}; known: {sorted(modes)}")
    return modes[mode]


def settings_rules(settings: dict[str, Any]) -> list[Rule]:
    """The ``permissions`` rules, allow first, then ask, then deny (so the strongest comes last)."""
    permissions = settings.get("permissions", {})
    if not isinstance(permissions, dict):
        raise ValueError("settings: 'permissions' must be an object")
    rules = []
    for action in ACTIONS:
        texts = permissions.get(action, [])
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ValueError(f"settings: permissions.{action} must be a list of rule strings")
        for text in texts:
            match = _RULE.match(text.strip())
            if match is None:
                raise ValueError(f"settings: permission rule {text!r} is not Tool or Tool(pattern)")
            spec = match.group("spec")
            pattern = None if spec is None or spec in ("", "*") else _pattern(spec)
            rules.append(Rule(action, match.group("tool"), pattern))
    return rules


def mcp_servers(path: Path) -> list[McpServer]:
    """The stdio servers of an ``{"mcpServers": {...}}`` file, in name order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    servers = data.get("mcpServers", {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ValueError(f"{path}: needs an object 'mcpServers'")
    found = []
    for name in sorted(servers):
        entry = servers[name]
        if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
            raise ValueError(f"{path}: MCP server {name!r} needs a string 'command'")
        args = entry.get("args", [])
        env = entry.get("env", {})
        found.append(
            McpServer(
                name, entry["command"], tuple(str(a) for a in args), {str(k): str(v) for k, v in env.items()}
            )
        )
    return found
