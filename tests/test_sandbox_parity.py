"""The same escape attempts through ``python -m reference_impl -p`` and ``claude -p``, sandbox on.

Each CLI runs one session against the scripted Messages API: the model calls Bash once per attempt
(writes outside the project, ``..``, ``/proc/self/root``, a symlink, the settings file, a skill, git's
hooks and config, ``.bashrc``, a denied read, direct and proxied connections, DNS, an unsandboxed
retry). Afterwards the files and the local servers say what got through. Both must block every
escape; the differences docs/sandbox.md lists are asserted too, so a change in either shows up.
Skips without bubblewrap or socat (both CLIs) or without the Claude Code binary (its half).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness.wire.model_api._server import ScriptedApiServer
from pytest_toolharness.wire.model_api._turns import AssistantTurn, ToolUseBlock, tool_use_id
from pytest_toolharness.wire.targets._claude_code import _OFFLINE_ENV, find_claude_binary

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None or shutil.which("socat") is None or shutil.which("curl") is None,
    reason="bubblewrap, socat and curl are needed to compare the sandboxes",
)


@dataclass
class Session:
    """One CLI's run: its root (``project/``, ``outside/``, ``secret/``), results by attempt, server hits."""

    root: Path
    results: dict[str, str]
    hits: list[str] = field(default_factory=list)

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def outside(self) -> Path:
        return self.root / "outside"


def _attempts(root: Path, ports: dict[str, int]) -> list[tuple[str, str, dict[str, Any]]]:
    out, secret, p1, p2 = root / "outside", root / "secret", ports["127.0.0.1"], ports["127.0.0.2"]
    return [
        ("inside", "echo ran > inside.txt && echo ok", {}),
        ("absolute", f"echo pwned > {out}/f1", {}),
        ("dot-dot", "echo pwned > ../outside/f2", {}),
        ("/proc/self/root", f"echo pwned > /proc/self/root{out}/f3", {}),
        ("symlink", f"ln -s {out} lnk; echo pwned > lnk/f4", {}),
        ("settings file", "echo '{}' > .claude/settings.local.json", {}),
        ("skill", "mkdir -p .claude/skills/evil && echo x > .claude/skills/evil/SKILL.md", {}),
        ("git hook", "echo evil > .git/hooks/pre-commit", {}),
        ("git config", "git config core.fsmonitor 'touch pwned'", {}),
        (".bashrc", "echo evil >> .bashrc", {}),
        ("new .envrc", "echo evil > .envrc", {}),
        ("denied read", f"cat {secret}/key", {}),
        ("direct connection", f"curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:{p1}/direct", {}),
        ("allowed host", f"curl -sS --max-time 5 http://localhost:{p1}/allowed", {}),
        ("other loopback address", f"curl -sS --max-time 5 http://127.0.0.2:{p2}/other", {}),
        ("DNS", f"{sys.executable} -c \"import socket; print(socket.getaddrinfo('example.com', 80))\"", {}),
        ("unsandboxed retry", f"echo pwned > {out}/f5", {"dangerouslyDisableSandbox": True}),
    ]


ESCAPED: dict[str, Callable[[Session], bool]] = {
    "absolute": lambda s: (s.outside / "f1").exists(),
    "dot-dot": lambda s: (s.outside / "f2").exists(),
    "/proc/self/root": lambda s: (s.outside / "f3").exists(),
    "symlink": lambda s: (s.outside / "f4").exists(),
    "settings file": lambda s: "sandbox" not in (s.project / ".claude/settings.local.json").read_text(),
    "skill": lambda s: (s.project / ".claude/skills/evil/SKILL.md").exists(),
    "git hook": lambda s: (s.project / ".git/hooks/pre-commit").exists(),
    "git config": lambda s: "fsmonitor" in (s.project / ".git/config").read_text(),
    ".bashrc": lambda s: "evil" in (s.project / ".bashrc").read_text(),
    "denied read": lambda s: "s3cr3t" in s.results["denied read"],
    "direct connection": lambda s: "/direct" in s.hits,
    "other loopback address": lambda s: "/other" in s.hits,
    "DNS": lambda s: "AddressFamily" in s.results["DNS"],
    "unsandboxed retry": lambda s: (s.outside / "f5").exists(),
}
"""For each escape attempt: did it get through (judged from outside)."""


class _Handler(BaseHTTPRequestHandler):
    hits: list[str]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "8")
        self.end_headers()
        self.wfile.write(b"reached\n")

    def log_message(self, *_args: Any) -> None:
        pass


def _text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return " ".join(str(b.get("text", "")) for b in content or [])


def _session(root: Path, argv: list[str], extra_env: dict[str, str]) -> Session:
    hits: list[str] = []
    handler = type("Handler", (_Handler,), {"hits": hits})
    servers = [ThreadingHTTPServer((address, 0), handler) for address in ("127.0.0.1", "127.0.0.2")]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    ports = {str(s.server_address[0]): int(s.server_address[1]) for s in servers}
    project = root / "project"
    project.mkdir(parents=True)
    (root / "outside").mkdir()
    (root / "secret").mkdir()
    (root / "secret/key").write_text("s3cr3t\n")
    (project / ".bashrc").write_text("# start-up\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".claude").mkdir()
    settings = {
        "sandbox": {
            "enabled": True,
            "failIfUnavailable": True,
            "autoAllowBashIfSandboxed": True,
            "filesystem": {"denyRead": [str(root / "secret")]},
            "network": {"allowedDomains": ["localhost"]},
        }
    }
    path = project / ".claude/settings.local.json"
    path.write_text(json.dumps(settings))
    attempts = _attempts(root, ports)
    script = [
        AssistantTurn([ToolUseBlock(tool_use_id(i + 1), "Bash", {"command": c, "description": n, **x})])
        for i, (n, c, x) in enumerate(attempts)
    ]
    home = root / "home"
    home.mkdir()
    try:
        with ScriptedApiServer([*script, AssistantTurn.text("done")]) as api:
            env = {
                "PATH": os.environ.get("PATH", ""),
                "HOME": str(home),
                "ANTHROPIC_BASE_URL": api.base_url,
                "ANTHROPIC_API_KEY": "x",
                **extra_env,
            }
            done = subprocess.run(
                [*argv, "-p", "go", "--output-format", "json", "--settings", str(path)],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0, done.stderr[-2000:]
            by_id = {
                b["tool_use_id"]: _text(b)
                for r in api.message_requests
                for m in (r.json or {}).get("messages", [])
                if m.get("role") == "user" and isinstance(m.get("content"), list)
                for b in m["content"]
                if b.get("type") == "tool_result"
            }
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
    results = {name: by_id.get(tool_use_id(i + 1), "") for i, (name, _c, _x) in enumerate(attempts)}
    return Session(root, results, hits)


@pytest.fixture(scope="module", params=["reference", "claude-code"])
def session(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Session:
    """One CLI's session over the attempts (module-scoped: one run per CLI)."""
    root = tmp_path_factory.mktemp(f"sandbox-{request.param}")
    if request.param == "reference":
        argv = [sys.executable, "-m", "reference_impl"]
        env = {"PYTHONPATH": os.environ.get("PYTHONPATH", str(Path(__file__).resolve().parent.parent))}
    else:
        binary = find_claude_binary()
        if binary is None:
            pytest.skip("the Claude Code binary is not installed (claude-agent-sdk wheel, or claude on PATH)")
        argv, env = [str(binary)], dict(_OFFLINE_ENV)
    ran = _session(root, argv, env)
    if "ok" not in ran.results["inside"]:
        pytest.skip(f"{request.param}'s sandbox does not start here: {ran.results['inside'][:300]}")
    return ran


@pytest.mark.parametrize("attempt", sorted(ESCAPED))
def test_both_sandboxes_block_the_attempt(session: Session, attempt: str) -> None:
    """Every escape attempt is blocked by both CLIs' sandboxes (judged by its effect, from outside)."""
    assert not ESCAPED[attempt](session), f"{attempt} got through: {session.results[attempt][:500]}"


def test_the_documented_differences(session: Session) -> None:
    """docs/sandbox.md's differences, as observed: a new ``.envrc`` and a proxied ``localhost``.

    The reference harness removes a protected file the command created (``.envrc`` is in PERM-15's
    list) and proxies an allowed ``localhost``; Claude Code keeps the new ``.envrc`` (not in its list)
    and puts ``localhost`` and the private ranges in ``NO_PROXY``, so an allowed ``localhost`` is
    unreachable from its sandbox.
    """
    reference = session.root.name.startswith("sandbox-reference")
    assert (session.project / ".envrc").exists() is not reference
    assert ("/allowed" in session.hits) is reference, session.results["allowed host"][:300]
