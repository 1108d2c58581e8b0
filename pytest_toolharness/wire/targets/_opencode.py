"""opencode (npm ``opencode-ai``) as a target: ``opencode run`` against the scripted Messages API, offline.

The profile writes opencode's own config (``opencode.json`` in the run's working directory, named
by ``OPENCODE_CONFIG`` too) from the scenario's roles (:mod:`pytest_toolharness.wire.targets._roles`):

- the ``anthropic`` provider with ``baseURL`` the scripted server's ``/v1`` and a dummy key; the
  models list is not fetched (``OPENCODE_DISABLE_MODELS_FETCH``), autoupdate and sharing are off;
- the suite's stdio MCP server as a ``local`` MCP server (its tools are ``<server>_<tool>``);
- the permission rules as opencode's ``permission`` map: every tool asks unless a rule says
  otherwise (as a default-mode harness does), a rule with a pattern becomes a pattern of that tool
  (``bash(echo x:*)`` -> ``"bash": {"echo x*": "deny"}``), deny beating ask beating allow.

opencode has no command hooks, no tool search and no permission modes: a scenario needing them is
not run against it (its requirements are "not checked").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_toolharness.wire.scenarios import ToolNames
from pytest_toolharness.wire.targets._command import TargetInvocation
from pytest_toolharness.wire.targets._roles import mcp_servers, read_settings_file, settings_rules

__all__ = ["OPENCODE_BIN_ENV", "OPENCODE_MODEL", "OPENCODE_NAMES", "OpencodeTarget", "opencode_config"]

#: An explicit path to the ``opencode`` binary; it wins over ``PATH``.
OPENCODE_BIN_ENV = "TOOLHARNESS_OPENCODE_BIN"
#: The model asked for: one of opencode's bundled model list (the scripted server answers any).
OPENCODE_MODEL = "anthropic/claude-sonnet-4-5"
#: opencode's names for the scenario roles.
OPENCODE_NAMES = ToolNames(
    read="read", shell="bash", tool_search=None, mcp_format="{server}_{tool}", write="write"
)
#: opencode's MCP tool-listing timeout, in milliseconds (the suite's server imports the mcp package).
_MCP_TIMEOUT_MS = 30_000

_OFFLINE_ENV = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
}


def opencode_config(inv: TargetInvocation) -> dict[str, Any]:
    """Opencode's config for ``inv``: provider, MCP server and permissions from the scenario's files."""
    permission: dict[str, Any] = {"*": "ask"}
    for rule in settings_rules(read_settings_file(inv.settings_path)):
        if rule.pattern is None:
            current = permission.get(rule.tool)
            if isinstance(current, dict):
                current["*"] = rule.action
            else:
                permission[rule.tool] = rule.action
        else:
            current = permission.get(rule.tool)
            patterns = current if isinstance(current, dict) else {"*": current or "ask"}
            patterns.pop(rule.pattern, None)  # re-inserted last: the stronger action wins
            patterns[rule.pattern] = rule.action
            permission[rule.tool] = patterns
    mcp = {
        server.name: {
            "type": "local",
            "command": [server.command, *server.args],
            "environment": server.env,
            "enabled": True,
            "timeout": _MCP_TIMEOUT_MS,
        }
        for server in mcp_servers(inv.mcp_config_path)
    }
    return {
        "$schema": "https://opencode.ai/config.json",
        "provider": {"anthropic": {"options": {"baseURL": f"{inv.base_url}/v1", "apiKey": "x"}}},
        "model": OPENCODE_MODEL,
        "autoupdate": False,
        "share": "disabled",
        "mcp": mcp,
        "permission": permission,
    }


class OpencodeTarget:
    """``opencode run --format json -m anthropic/... PROMPT`` with the config written for the run."""

    name = "opencode"
    names = OPENCODE_NAMES

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def _config_path(self, inv: TargetInvocation) -> Path:
        return inv.workdir / "opencode.json"

    def command(self, inv: TargetInvocation) -> list[str]:
        """The command line; writes ``opencode.json`` into the working directory first."""
        self._config_path(inv).write_text(json.dumps(opencode_config(inv), indent=1, sort_keys=True), "utf-8")
        return [str(self.binary), "run", "--format", "json", "-m", OPENCODE_MODEL, inv.prompt]

    def environment(self, inv: TargetInvocation) -> dict[str, str]:
        """The config's path and the offline switches."""
        return {"OPENCODE_CONFIG": str(self._config_path(inv)), **_OFFLINE_ENV}

    def __repr__(self) -> str:
        return f"OpencodeTarget({str(self.binary)!r})"
