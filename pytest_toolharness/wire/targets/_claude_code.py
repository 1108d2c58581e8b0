"""The Claude Code CLI as a target: ``claude -p`` against the scripted Messages API, offline.

The binary is the one the ``claude-agent-sdk`` wheel ships (``claude_agent_sdk/_bundled/claude``),
or ``claude`` on ``PATH``, or whatever ``TOOLHARNESS_CLAUDE_BIN`` names (that wins). It runs with a
fresh ``HOME`` per run and ``ANTHROPIC_BASE_URL`` pointing at the scripted server on 127.0.0.1
(:func:`pytest_toolharness.wire.targets._command.base_environment`), telemetry and non-essential traffic off,
so it never reaches anything else. Rules, modes and hooks come from the suite's ``settings.json``
(``--settings``); the suite's tools from its MCP server (``--mcp-config`` with
``--strict-mcp-config``, so no other MCP server is started).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from pytest_toolharness.wire.targets._command import TargetInvocation

__all__ = ["CLAUDE_BIN_ENV", "ClaudeCodeTarget", "claude_version", "find_claude_binary"]

#: An explicit path to the ``claude`` binary; it wins over the wheel's and ``PATH``'s.
CLAUDE_BIN_ENV = "TOOLHARNESS_CLAUDE_BIN"

# Everything a run must not do when it has no network: updates, telemetry, error reports, surveys.
_OFFLINE_ENV = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    # The suite's MCP server imports the mcp package (about 1.5 s); the default may be shorter.
    "MCP_TIMEOUT": "30000",
}


def _bundled_binary() -> Path | None:
    # find_spec, not import: the wheel's __init__ pulls in anyio and more just to locate a file.
    spec = importlib.util.find_spec("claude_agent_sdk")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "_bundled" / "claude"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_claude_binary() -> Path | None:
    """The Claude Code binary to run, or None when there is none.

    Order: ``$TOOLHARNESS_CLAUDE_BIN`` (an error when it names nothing runnable: an explicit choice
    must not silently fall back), the ``claude-agent-sdk`` wheel's bundled binary, ``claude`` on PATH.
    """
    explicit = os.environ.get(CLAUDE_BIN_ENV)
    if explicit:
        path = Path(explicit)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise FileNotFoundError(f"{CLAUDE_BIN_ENV}={explicit} is not an executable file")
        return path
    bundled = _bundled_binary()
    if bundled is not None:
        return bundled
    on_path = shutil.which("claude")
    return Path(on_path) if on_path else None


def claude_version(binary: Path) -> str:
    """``claude --version`` (e.g. ``2.1.332 (Claude Code)``), run offline with a throwaway HOME."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as home:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, **_OFFLINE_ENV}
        done = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, env=env, timeout=30, check=False
        )
    return done.stdout.strip()


class ClaudeCodeTarget:
    """The Claude Code CLI in print mode, pointed at the scripted server and the suite's MCP server.

    ``binary`` defaults to :func:`find_claude_binary`; building the target without one is an error
    naming how to get it. ``model`` is passed with ``--model`` when given (the scripted server
    answers any model).
    """

    name = "claude-code"

    def __init__(self, binary: Path | None = None, *, model: str | None = None) -> None:
        found = binary or find_claude_binary()
        if found is None:
            raise FileNotFoundError(
                "no Claude Code binary: install claude-agent-sdk (it bundles one), put `claude` on PATH, "
                f"or set {CLAUDE_BIN_ENV}"
            )
        self.binary = found
        self.model = model

    def command(self, inv: TargetInvocation) -> list[str]:
        """``claude -p PROMPT --output-format json --settings S --mcp-config M --strict-mcp-config``.

        ``--mcp-config`` takes several values, so a flag follows it, never a positional word.
        Permission mode and rules come from the settings file (``permissions.defaultMode``).
        """
        argv = [
            str(self.binary),
            "-p",
            inv.prompt,
            "--output-format",
            "json",
            "--settings",
            str(inv.settings_path),
            "--mcp-config",
            str(inv.mcp_config_path),
            "--strict-mcp-config",
        ]
        for plugin in inv.plugin_dirs:
            argv += ["--plugin-dir", str(plugin)]
        if self.model:
            argv += ["--model", self.model]
        return argv

    def environment(self, inv: TargetInvocation) -> dict[str, str]:
        """Offline switches on top of the base environment (fresh HOME, scripted base URL)."""
        # The base environment already points ANTHROPIC_BASE_URL at the loopback server; refuse
        # anything else rather than let the CLI talk to a real endpoint.
        if not inv.base_url.startswith(("http://127.0.0.1:", "http://localhost:", "http://[::1]:")):
            raise ValueError(f"claude-code runs only against a loopback server, not {inv.base_url!r}")
        return dict(_OFFLINE_ENV)

    def __repr__(self) -> str:
        return f"ClaudeCodeTarget({str(self.binary)!r})"
