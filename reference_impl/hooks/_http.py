"""Http hooks: the hook input POSTed as JSON to a URL, the answer read like a command's stdout (HOOK-8).

The request runs in a worker thread (``urllib``, no extra dependency) under the hook's timeout.
Nothing here raises for a misbehaving endpoint: a refused connection, a timeout or a non-2xx answer
comes back as an :class:`HttpHookResult` describing it; :mod:`reference_impl.hooks._runner` makes it a
non-blocking error.
"""

from __future__ import annotations

import asyncio
import os
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reference_impl._wire import wire_bytes
from reference_impl.hooks._command import DEFAULT_HOOK_TIMEOUT, MAX_HOOK_OUTPUT_BYTES
from reference_impl.hooks._model import HttpHook

__all__ = ["HttpHookResult", "expand_header", "run_http_hook"]

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True, slots=True)
class HttpHookResult:
    """What one http hook call did: a status and body, or an ``error`` (``timed_out`` for a timeout)."""

    url: str
    status: int | None
    body: str
    error: str | None = None
    timed_out: bool = False


def expand_header(value: str, allowed: tuple[str, ...], env: Mapping[str, str]) -> str:
    """``$VAR`` and ``${VAR}`` replaced by the variable when ``allowed`` names it, else by nothing."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env.get(name, "") if name in allowed else ""

    return _VARIABLE.sub(one, value)


def _post(url: str, data: bytes, headers: dict[str, str], timeout: float) -> tuple[int, str]:
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read(MAX_HOOK_OUTPUT_BYTES)
            return int(response.status), body.decode("utf-8", errors="replace")
    except urllib.error.HTTPError as exc:
        body = exc.read(MAX_HOOK_OUTPUT_BYTES) if exc.fp is not None else b""
        return int(exc.code), body.decode("utf-8", errors="replace")


async def run_http_hook(
    hook: HttpHook,
    input_json: Mapping[str, Any],
    *,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> HttpHookResult:
    """POST ``input_json`` to ``hook.url`` and return the answer; never raises for what the endpoint does."""
    limit = (
        timeout if timeout is not None else hook.timeout if hook.timeout is not None else DEFAULT_HOOK_TIMEOUT
    )
    environ = os.environ if env is None else env
    headers = {"Content-Type": "application/json"}
    headers.update(
        {name: expand_header(value, hook.allowed_env_vars, environ) for name, value in hook.headers.items()}
    )
    try:
        data = wire_bytes(input_json)
    except (TypeError, ValueError) as exc:
        return HttpHookResult(hook.url, None, "", error=f"hook input is not JSON-serializable: {exc}")
    try:
        status, body = await asyncio.wait_for(asyncio.to_thread(_post, hook.url, data, headers, limit), limit)
    except TimeoutError:
        return HttpHookResult(hook.url, None, "", error=f"hook timed out after {limit:g}s", timed_out=True)
    except (OSError, ValueError) as exc:
        # urllib wraps a socket timeout in URLError(reason=TimeoutError); report it as a timeout.
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            return HttpHookResult(
                hook.url, None, "", error=f"hook timed out after {limit:g}s", timed_out=True
            )
        return HttpHookResult(hook.url, None, "", error=f"http hook request failed: {reason}")
    return HttpHookResult(hook.url, status, body)
