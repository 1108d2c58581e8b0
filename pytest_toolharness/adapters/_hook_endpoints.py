"""Hook sources besides a settings file's command hooks, for adapters (HOOK-8, capability ``hook_sources``).

A :class:`~pytest_toolharness.adapters.HookSpec` with ``hook_type="http"`` is answered by a real HTTP
endpoint on 127.0.0.1 (:class:`HookEndpoint`); one with ``from_plugin=True`` is installed through a
plugin directory whose ``hooks/hooks.json`` names its program through ``${CLAUDE_PLUGIN_ROOT}``
(:func:`write_plugin`). An adapter points its harness at the endpoint's URL or loads the plugin the way
its harness loads plugins.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

from pytest_toolharness.adapters._hook_programs import hook_program
from pytest_toolharness.processes import HOOK_PYTHON, ServingThread
from pytest_toolharness.specs import HookSpec

__all__ = ["HookEndpoint", "write_plugin"]


Answer: TypeAlias = Callable[[Mapping[str, Any]], tuple[int, bytes]]
"""How an endpoint answers one hook input: an HTTP status and a body."""


class HookEndpoint:
    """A real HTTP endpoint on 127.0.0.1 that answers an http hook as ``spec`` says (HOOK-8).

    Every POST body (the hook input) is kept in :attr:`received`, its headers in :attr:`headers`, and,
    with ``log``, appended to that file as one JSON line (a loop scenario's hook log).
    The answer for a spec: ``exit1`` and ``crash`` are a 500, ``garbage`` a 200 whose body is not
    JSON, ``hang`` never answers within the hook's timeout, ``exit2`` a 200 with ``decision: "block"``
    and the reason (an http hook has no exit status), anything else a 200 with
    :meth:`HookSpec.output_for` of the input. ``spec`` may instead be a function answering each input
    itself (``delay`` seconds late). Use it as a context manager, or :meth:`start` and :meth:`close`.
    """

    def __init__(self, spec: HookSpec | Answer, *, delay: float = 0.0, log: Path | None = None) -> None:
        import http.server

        endpoint = self
        self.spec = spec
        self.delay = delay
        self.log = log
        self.received: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                hook_input = json.loads(self.rfile.read(length) or b"{}")
                endpoint.received.append(hook_input)
                if endpoint.log is not None:
                    with endpoint.log.open("a", encoding="utf-8") as out:
                        out.write(json.dumps(hook_input) + "\n")
                endpoint.headers.append(dict(self.headers.items()))
                status, body = endpoint.answer(hook_input, dict(self.headers.items()))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._serving = ServingThread(self._server, "HookEndpoint")

    @property
    def url(self) -> str:
        """The URL to configure as the hook's ``url``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/hook"

    def answer(
        self, hook_input: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> tuple[int, bytes]:
        """The status and body this endpoint answers ``hook_input`` (sent with ``headers``) with."""
        spec = self.spec
        if not isinstance(spec, HookSpec):
            time.sleep(self.delay)
            return spec(hook_input)
        if spec.outcome in ("exit1", "crash"):
            return 500, spec.reason.encode()
        if spec.outcome == "garbage":
            return 200, b"}{ not json at all"
        if spec.outcome == "plain_text":
            return 200, spec.context.encode()
        if spec.outcome == "hang":
            time.sleep(spec.timeout + 5)
            return 200, b"{}"
        if spec.outcome == "echo_headers":
            # Header names are case-insensitive (urllib sends "X-team", for one).
            sent = {name.lower(): value for name, value in (headers or {}).items()}
            received = {name: sent.get(name.lower()) for name, _ in spec.headers}
            reason = json.dumps(received, sort_keys=True)
            output = {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
            return 200, json.dumps({"hookSpecificOutput": output}).encode()
        if spec.outcome == "exit2":
            return 200, json.dumps({"decision": "block", "reason": spec.reason}).encode()
        return 200, json.dumps(spec.output_for(hook_input) or {}).encode()

    def start(self) -> HookEndpoint:
        """Serve in a daemon thread."""
        self._serving.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port."""
        self._serving.stop()
        self._server.server_close()

    def __enter__(self) -> HookEndpoint:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.close()


def write_plugin(specs: Sequence[HookSpec], root: Path, *, log: Path | None = None) -> Path:
    """Write a Claude Code plugin at ``root`` whose ``hooks/hooks.json`` installs ``specs``; returns ``root``.

    Each spec's program (:func:`~pytest_toolharness.adapters.hook_program`, logging to ``log`` when
    given) is a file in ``root/hooks/``, and its command names it as
    ``${CLAUDE_PLUGIN_ROOT}/hooks/<file>``, so the harness must expand the plugin root for the hook to
    run at all. Async specs get ``"async": true``, a spec's ``if_rule`` is the handler's ``"if"``, and its
    ``on_failure`` (when not the default) its ``"onFailure"``.
    """
    hooks_dir = root / "hooks"
    hooks_dir.mkdir(parents=True, exist_ok=True)
    events: dict[str, list[dict[str, Any]]] = {}
    for index, spec in enumerate(specs):
        script = hooks_dir / f"hook_{index}_{spec.event}_{spec.outcome}.py"
        script.write_text(hook_program(spec, log=log), encoding="utf-8")
        command = f'{HOOK_PYTHON} "${{CLAUDE_PLUGIN_ROOT}}/hooks/{script.name}"'
        hook: dict[str, Any] = {"type": "command", "command": command, "timeout": spec.timeout}
        if spec.run_async:
            hook["async"] = True
        if spec.if_rule is not None:
            hook["if"] = spec.if_rule
        if spec.on_failure != "continue":
            hook["onFailure"] = spec.on_failure
        entry: dict[str, Any] = {"hooks": [hook]}
        if spec.matcher is not None:
            entry["matcher"] = spec.matcher
        events.setdefault(spec.event, []).append(entry)
    document = {"description": "hooks installed by the conformance suite", "hooks": events}
    (hooks_dir / "hooks.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
    return root
