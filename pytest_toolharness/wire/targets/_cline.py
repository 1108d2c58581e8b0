"""Cline (npm ``cline``) as a target: ``cline --json PROMPT`` against the scripted Messages API, offline.

The profile writes Cline's own state into a data directory of the run (``--data-dir``), from the
scenario's roles (:mod:`pytest_toolharness.wire.targets._roles`):

- ``settings/providers.json``: the ``anthropic`` provider with ``baseUrl`` the scripted server's
  ``/v1`` (Cline's ``auth`` command refuses a base URL for it, its settings file takes one) and a
  dummy key;
- ``settings/cline_mcp_settings.json``: the suite's stdio MCP server (its tools are
  ``<server>__<tool>``), with a 60 s timeout (Cline's default of 3 s is shorter than the server's
  start on a loaded machine).

Cline approves every tool by itself in this mode (``--auto-approve``, its default) and takes no
allow / ask / deny rules with patterns, no command hooks in Claude Code's protocol, no tool search
and no permission modes of Claude Code's meaning: scenarios needing them are not run against it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_toolharness.wire.scenarios import ToolNames
from pytest_toolharness.wire.targets._command import TargetInvocation
from pytest_toolharness.wire.targets._roles import mcp_servers

__all__ = ["CLINE_BIN_ENV", "CLINE_MODEL", "CLINE_NAMES", "ClineTarget", "cline_files"]

#: An explicit path to the ``cline`` binary; it wins over ``PATH``.
CLINE_BIN_ENV = "TOOLHARNESS_CLINE_BIN"
#: The model asked for (the scripted server answers any).
CLINE_MODEL = "claude-sonnet-4-5"
#: Cline's names for the scenario roles.
CLINE_NAMES = ToolNames(
    read="read_files", shell="run_commands", tool_search=None, mcp_format="{server}__{tool}", write=None
)
_MCP_TIMEOUT_SECONDS = 60
# A fixed time: the file's bytes depend on the run only through the server's address.
_UPDATED_AT = "2026-01-01T00:00:00.000Z"


def cline_files(inv: TargetInvocation) -> dict[str, dict[str, Any]]:
    """Cline's settings files for ``inv``, by path relative to its data directory."""
    providers = {
        "version": 1,
        "lastUsedProvider": "anthropic",
        "modes": {},
        "providers": {
            "anthropic": {
                "settings": {
                    "provider": "anthropic",
                    "apiKey": "x",
                    "model": CLINE_MODEL,
                    "baseUrl": f"{inv.base_url}/v1",
                },
                "updatedAt": _UPDATED_AT,
                "tokenSource": "manual",
            }
        },
    }
    servers = {
        server.name: {
            "type": "stdio",
            "command": server.command,
            "args": list(server.args),
            "env": server.env,
            "timeout": _MCP_TIMEOUT_SECONDS,
        }
        for server in mcp_servers(inv.mcp_config_path)
    }
    return {
        "settings/providers.json": providers,
        "settings/cline_mcp_settings.json": {"mcpServers": servers},
    }


class ClineTarget:
    """``cline --json --data-dir D --config C -c WORKDIR PROMPT`` with its settings written for the run."""

    name = "cline"
    names = CLINE_NAMES

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def command(self, inv: TargetInvocation) -> list[str]:
        """The command line; writes Cline's settings into ``<workdir>/cline-data`` first."""
        data = inv.workdir / "cline-data"
        for relative, content in cline_files(inv).items():
            path = data / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(content, indent=1, sort_keys=True), encoding="utf-8")
        return [
            str(self.binary),
            "--json",
            "--data-dir",
            str(data),
            "--config",
            str(inv.workdir / "cline-config"),
            "-c",
            str(inv.workdir),
            inv.prompt,
        ]

    def environment(self, inv: TargetInvocation) -> dict[str, str]:
        """No automatic update."""
        return {"CLINE_NO_AUTO_UPDATE": "1"}

    def __repr__(self) -> str:
        return f"ClineTarget({str(self.binary)!r})"
