"""The sandbox proxy's tunnels end with their command (SBX-3).

A sandboxed command's one way out is the harness's proxy; a tunnel through it joins the command to
a server outside. When the command ends, the Bash call must return, whatever the server on the
far side does: a server that never answers and never closes must not hold the call open.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance._sandbox_runs import allowing_host, layout, run, skip_without
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat")]

# Opens a CONNECT tunnel through the proxy the sandbox names, prints the proxy's answer, and exits
# with the tunnel open: the far side has sent nothing and will close nothing.
_TUNNEL_AND_LEAVE = """
import os, socket, sys, urllib.parse
proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
tunnel = socket.create_connection((proxy.hostname, proxy.port), 10)
tunnel.sendall(b"CONNECT localhost:%s HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n" % sys.argv[1].encode())
print(tunnel.recv(200).decode().splitlines()[0])
"""


@pytest.mark.requirement("SBX-3", "MUST")
@pytest.mark.parametrize("leaves", ["exits", "closes"])
def test_a_call_returns_when_its_command_ends_whatever_the_tunnel_holds(
    new_harness: Callable[[], Any], tmp_path: Path, leaves: str
) -> None:
    """SBX-3: a Bash call returns once its command ended, though a tunnel it opened leads to a silent server.

    The command opens a CONNECT tunnel to an allowed host whose server accepts and then neither
    sends nor closes, and ends (leaving the socket to its exit, or closing it first). The proxy's
    side of the tunnel must end with the command, or the call never returns (the suite's per-test
    time limit reports it as hung).
    """
    place = layout(tmp_path)
    script = place.work / "tunnel.py"
    script.write_text(_TUNNEL_AND_LEAVE + ("tunnel.close()\n" if leaves == "closes" else ""))
    with socket.socket() as silent:
        # Never accepted: the kernel completes the proxy's connection and holds it open.
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        outcome = run(
            new_harness(),
            f"{sys.executable} tunnel.py {port}",
            place.work,
            sandbox_settings(sandbox={"network": {"allowedDomains": ["localhost"]}}),
            host=allowing_host(),
        )
    assert outcome.ran, outcome.output
    assert "200" in outcome.output, f"the tunnel was not established: {outcome.output}"
