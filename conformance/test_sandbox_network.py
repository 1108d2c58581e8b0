"""The shell sandbox's network and its place in the permission flow (SBX-3..SBX-6).

The servers are real sockets on loopback (HTTP on 127.0.0.1 and 127.0.0.2, UDP for DNS) and record
what reached them. A sandboxed command reaches them only through the harness's proxy, and only for
an allowed host; each blocked attempt also runs with the sandbox off, where it gets through.
"""

from __future__ import annotations

import shlex
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from conformance._sandbox_runs import (
    ON,
    HttpRequest,
    allowing_host,
    denying_host,
    dns_query,
    http_server,
    layout,
    run,
    sandbox_off,
    skip_without,
    udp_server,
)
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat", "curl")]

LOCALHOST = sandbox_settings(sandbox={"network": {"allowedDomains": ["localhost"]}})


def _curl(url: str, *options: str) -> str:
    return f"curl -sS --max-time 20 {' '.join(options)} {url}"


@pytest.mark.requirement("SBX-3", "MUST")
@pytest.mark.parametrize(
    ("how", "allowed"),
    [
        ("sandbox.network.allowedDomains", LOCALHOST),
        ("WebFetch(domain:...) allow rule", sandbox_settings(allow=["WebFetch(domain:localhost)"])),
    ],
)
@pytest.mark.parametrize("tunnel", [False, True], ids=["http", "connect"])
def test_allowed_hosts_are_reached_through_the_proxy(
    new_harness: Callable[[], Any], tmp_path: Path, how: str, allowed: dict[str, Any], tunnel: bool
) -> None:
    """SBX-3: an allowed host is reached through the proxy, by plain HTTP and by a CONNECT tunnel."""
    place = layout(tmp_path)
    host = "localhost"
    with http_server() as (port, hits):
        outcome = run(
            new_harness(),
            _curl(f"http://{host}:{port}/allowed", *(["-p"] if tunnel else [])),
            place.work,
            allowed,
            host=allowing_host(),
        )
    assert "/allowed" in hits, f"{how}: the allowed host was not reached: {outcome.output}"


# (the allowedDomains entry, the server's address, the URL's host): an IPv6 literal as URLs write it,
# and an IPv4 address written as an IPv4-mapped IPv6 literal, which reaches that IPv4 address.
_ADDRESS_SPELLINGS = [("[::1]", "::1", "[::1]"), ("127.0.0.1", "127.0.0.1", "[::ffff:127.0.0.1]")]


@pytest.mark.requirement("SBX-3", "MUST")
@pytest.mark.parametrize(("entry", "address", "url_host"), _ADDRESS_SPELLINGS)
@pytest.mark.parametrize("tunnel", [False, True], ids=["http", "connect"])
def test_an_allowed_address_is_reached_however_a_url_writes_it(
    new_harness: Callable[[], Any], tmp_path: Path, entry: str, address: str, url_host: str, tunnel: bool
) -> None:
    """SBX-3: an address ``allowedDomains`` names is reached through the proxy in a URL's spellings.

    An IPv6 literal in brackets (a URL's only way to write it, ``[::1]:PORT``), and an IPv4 address
    as an IPv4-mapped IPv6 literal, by plain HTTP and by a CONNECT tunnel. Control: with another
    entry in its place the same request never arrives.
    """
    for allowed in (True, False):
        with_settings = sandbox_settings(
            sandbox={"network": {"allowedDomains": [entry if allowed else "example.org"]}}
        )
        with http_server(address) as (port, hits):
            outcome = run(
                new_harness(),
                _curl(f"http://{url_host}:{port}/allowed", *(["-p"] if tunnel else [])),
                layout(tmp_path / str(allowed)).work,
                with_settings,
                host=allowing_host(),
            )
            arrived = "/allowed" in hits
        assert outcome.ran, outcome.output
        assert arrived == allowed, (
            f"allowedDomains {[entry if allowed else 'example.org']}: {url_host} "
            f"{'was not' if allowed else 'was'} reached: {outcome.output}"
        )


@dataclass(frozen=True)
class SentRequest:
    """A request a sandboxed ``curl`` sends to an allowed host, plain or through a CONNECT tunnel."""

    request: HttpRequest
    tunnel: bool
    close_delimited: bool = False
    """Whether the server's answer has no length, so that only the connection's end ends it."""

    def command(self, port: int, body_file: Path) -> str:
        """``curl`` sending the request to ``localhost:port`` through the proxy (the body from a file)."""
        # --path-as-is: curl would otherwise remove the dot segments of a path (``/.`` is ``/``).
        options = [
            "-X",
            self.request.method,
            "--path-as-is",
            "--data-binary",
            f"@{body_file}",
            "-H",
            "Expect:",
        ]
        for name, value in self.request.headers:
            options += ["-H", f"{name}: {value}"]
        if self.tunnel:
            options.append("-p")
        url = f"http://localhost:{port}{self.request.target}"
        return _curl(shlex.quote(url), *map(shlex.quote, options))


# Methods of plain requests: the common ones and registered extension methods, some sorting before
# CONNECT (WebDAV's ACL and BIND), which a proxy must forward like any other.
_METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "ACL", "BIND", "PROPFIND", "MKCOL")
_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-._~", min_size=1, max_size=10)


@st.composite
def sent_requests(draw: st.DrawFn) -> SentRequest:
    """A :class:`SentRequest` to an allowed host, plain or through a tunnel.

    A path of words with a query or none, ``X-`` headers (one of them up to 16 KiB long, as cookies
    and tokens are), a body with blank lines in it.
    """
    path = "/" + "/".join(draw(st.lists(_WORD, min_size=1, max_size=3)))
    query = draw(st.lists(st.tuples(_WORD, _WORD), max_size=3))
    target = path + ("?" + "&".join(f"{k}={v}" for k, v in query) if query else "")
    names = draw(st.lists(_WORD, max_size=3, unique=True))
    headers = [(f"X-{name}", draw(_WORD)) for name in names]
    if draw(st.booleans()):
        headers.append(("X-Long", "v" * draw(st.integers(1, 16 * 1024))))
    body = draw(st.sampled_from([b"", b"line\r\n\r\nafter a blank line\n", b"x" * 500]))
    request = HttpRequest(draw(st.sampled_from(_METHODS)), target, tuple(headers), body)
    return SentRequest(request, tunnel=draw(st.booleans()), close_delimited=draw(st.booleans()))


@pytest.mark.requirement("SBX-3", "MUST")
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sent=sent_requests())
@example(
    sent=SentRequest(
        HttpRequest("ACL", "/p?q=1&r=2", (("X-a", "1"), ("X-Long", "v" * 4000)), b"line\r\n\r\nafter\n"),
        tunnel=False,
    )
)
@example(sent=SentRequest(HttpRequest("POST", "/form?x=y", (("X-b", "2"),), b"a=1\r\n\r\nb=2"), tunnel=False))
@example(sent=SentRequest(HttpRequest("GET", "/end", (), b""), tunnel=True, close_delimited=True))
def test_a_request_to_an_allowed_host_arrives_as_sent(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, sent: SentRequest
) -> None:
    """SBX-3 property: a request to an allowed host arrives as the command sent it, through the proxy.

    Composed: any method (extension methods sorting before ``CONNECT`` too) x a path with a query or
    none x headers, one up to 16 KiB long x a body with blank lines in it x plain HTTP or a CONNECT
    tunnel x an answer with a length or ended by the server's close. The server receives the same
    method, path and query, every header with its value, and the body byte for byte, and the command
    gets the whole answer and ends: letting a host through means letting the exchange through whole.
    """
    place = layout(tmp_path_factory.mktemp("as-sent"))
    sent_request = sent.request
    body_file = place.work / "body"
    body_file.write_bytes(sent_request.body)
    with http_server(close_delimited=sent.close_delimited) as (port, hits):
        outcome = run(
            new_harness(), sent.command(port, body_file), place.work, LOCALHOST, host=allowing_host()
        )
        arrived = hits.arrived()
    how = f"{sent_request.method} {sent_request.target} ({'CONNECT' if sent.tunnel else 'plain'}): {outcome.output[-2000:]}"
    assert [(r.method, r.target) for r in arrived] == [(sent_request.method, sent_request.target)], (
        f"arrived {arrived}: {how}"
    )
    received = {name.lower(): value for name, value in arrived[0].headers}
    for name, value in sent_request.headers:
        assert received.get(name.lower()) == value, (
            f"header {name} arrived as {received.get(name.lower())!r}: {how}"
        )
    assert arrived[0].body == sent_request.body, f"the body arrived as {arrived[0].body!r}: {how}"
    assert not outcome.is_error, f"the command failed: {how}"
    assert "reached" in outcome.output, f"the answer did not come back: {how}"


@pytest.mark.requirement("SBX-3", "MUST")
@pytest.mark.parametrize(
    "refusing",
    [
        sandbox_settings(sandbox={"network": {"allowedDomains": ["example.org"]}}),
        sandbox_settings(
            sandbox={"network": {"allowedDomains": ["localhost"], "deniedDomains": ["localhost"]}}
        ),
    ],
    ids=["not-allowed", "denied"],
)
@pytest.mark.parametrize("tunnel", [False, True], ids=["http", "connect"])
def test_a_refused_host_is_answered_forbidden(
    new_harness: Callable[[], Any], tmp_path: Path, refusing: dict[str, Any], tunnel: bool
) -> None:
    """SBX-3: the proxy refuses a host outside the policy with an answer, ``403 Forbidden``.

    By plain HTTP and to a CONNECT, for a host no entry allows and for one ``deniedDomains`` denies:
    never a dropped connection or a hang, so the command, and the model reading its output, learn
    that the network policy stopped it.
    """
    write_out = "status=%{http_code} connect=%{http_connect}\\n"
    with http_server() as (port, hits):
        outcome = run(
            new_harness(),
            _curl(
                f"http://localhost:{port}/x", "-o /dev/null", f"-w '{write_out}'", *(["-p"] if tunnel else [])
            ),
            layout(tmp_path).work,
            refusing,
            host=allowing_host(),
        )
        assert "/x" not in hits
    expected = "connect=403" if tunnel else "status=403"
    assert expected in outcome.output, f"the refusal was not a 403 answer: {outcome.output}"


# name -> (server address, command for the port, settings); each must not reach the server sandboxed.
_BLOCKED: dict[str, tuple[str, Callable[[int], str], dict[str, Any]]] = {
    "direct, bypassing the proxy": (
        "127.0.0.1",
        lambda port: _curl(f"http://127.0.0.1:{port}/x", "--noproxy '*'"),
        LOCALHOST,
    ),
    "direct from a child process": (
        "127.0.0.1",
        lambda port: (
            f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5).sendall("
            f"b'GET /x HTTP/1.0\\\\r\\\\n\\\\r\\\\n')\""
        ),
        LOCALHOST,
    ),
    "another loopback address, through the proxy": (
        "127.0.0.2",
        lambda port: _curl(f"http://127.0.0.2:{port}/x"),
        LOCALHOST,
    ),
    "another loopback address, CONNECT": (
        "127.0.0.2",
        lambda port: _curl(f"http://127.0.0.2:{port}/x", "-p"),
        LOCALHOST,
    ),
    "the allowed host's address instead of its name": (
        "127.0.0.1",
        lambda port: _curl(f"http://127.0.0.1:{port}/x"),
        LOCALHOST,
    ),
    "an allowed domain that a WebFetch deny rule denies": (
        "127.0.0.1",
        lambda port: _curl(f"http://localhost:{port}/x"),
        {**LOCALHOST, "permissions": {"deny": ["WebFetch(domain:localhost)"]}},
    ),
    "an IPv4-mapped IPv6 spelling of an address no entry allows": (
        "127.0.0.1",
        lambda port: _curl(f"http://[::ffff:127.0.0.1]:{port}/x"),
        LOCALHOST,
    ),
    "an allowed domain in deniedDomains": (
        "127.0.0.1",
        lambda port: _curl(f"http://localhost:{port}/x"),
        sandbox_settings(
            sandbox={
                "network": {"allowedDomains": ["*.localhost", "localhost"], "deniedDomains": ["localhost"]}
            }
        ),
    ),
}


@pytest.mark.requirement("SBX-3", "MUST")
@pytest.mark.parametrize("name", sorted(_BLOCKED))
def test_connections_outside_the_policy_never_arrive(
    new_harness: Callable[[], Any], tmp_path: Path, name: str
) -> None:
    """SBX-3: a connection the policy doesn't allow never reaches the server; unsandboxed it does.

    Direct connections (another port than the proxy's, from the shell or a child), other loopback
    addresses, the allowed host's IP (also as an IPv6 literal, which a proxy must not let through
    because it can't read it), and allowed names that a deny rule or ``deniedDomains`` denies.
    """
    address, command, with_settings = _BLOCKED[name]
    with http_server(address) as (port, hits):
        on = run(
            new_harness(), command(port), layout(tmp_path / "on").work, with_settings, host=allowing_host()
        )
        assert on.ran, on.output
        assert "/x" not in hits, f"{name}: the sandboxed command reached the server: {on.output}"
        # Unsandboxed the proxy variables are not set, so the same command connects directly.
        off = run(
            new_harness(),
            command(port),
            layout(tmp_path / "off").work,
            sandbox_off(with_settings),
            host=allowing_host(),
        )
        assert "/x" in hits, f"{name}: the attempt fails even without the sandbox: {off.output}"


@pytest.mark.requirement("SBX-3", "MUST")
def test_dns_queries_do_not_leave_the_sandbox(new_harness: Callable[[], Any], tmp_path: Path) -> None:
    """SBX-3: a DNS query to a resolver on the host's loopback never arrives from inside the sandbox."""
    query = dns_query("exfiltrate.example.com")
    with udp_server() as (port, received):
        command = (
            f'{sys.executable} -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)'
            f".sendto(bytes.fromhex('{query.hex()}'), ('127.0.0.1', {port}))\""
        )
        on = run(new_harness(), command, layout(tmp_path / "on").work, LOCALHOST, host=allowing_host())
        assert on.ran, on.output
        assert query not in received(), "the sandboxed command's DNS query reached the resolver"
        run(
            new_harness(),
            command,
            layout(tmp_path / "off").work,
            sandbox_off(LOCALHOST),
            host=allowing_host(),
        )
        assert query in received(), "the query does not arrive even without the sandbox"


# SBX-4 observes where a command ran by a direct connection: it arrives only from outside the sandbox.
def _direct(port: int, tag: str) -> str:
    return _curl(f"http://127.0.0.1:{port}/{tag}", "--noproxy '*'")


@pytest.mark.requirement("SBX-4", "MUST")
@pytest.mark.parametrize("way", ["dangerouslyDisableSandbox", "excludedCommands"])
@pytest.mark.parametrize("answer", ["allow", "deny", "nobody"])
def test_leaving_the_sandbox_is_a_permission_decision(
    new_harness: Callable[[], Any], tmp_path: Path, way: str, answer: str
) -> None:
    """SBX-4: a command that asks to run unsandboxed, or is excluded, is asked about like any other call.

    Allowed by the host it runs outside the sandbox (its direct connection arrives, and the harness
    says it was not sandboxed); denied, or with nobody to ask, it does not run at all.
    """
    with_settings = (
        sandbox_settings(sandbox={"excludedCommands": ["curl"]}) if way == "excludedCommands" else dict(ON)
    )
    host = {"allow": allowing_host(), "deny": denying_host(), "nobody": None}[answer]
    with http_server() as (port, hits):
        outcome = run(
            new_harness(),
            _direct(port, "out"),
            layout(tmp_path).work,
            with_settings,
            host=host,
            disable_sandbox=way == "dangerouslyDisableSandbox",
        )
    if host is not None:
        assert len(host.asked) == 1, f"{way}: leaving the sandbox was not asked about"
    if answer == "allow":
        assert outcome.ran, outcome.output
        assert outcome.sandboxed is False
        assert "/out" in hits, "the allowed unsandboxed command did not run outside the sandbox"
    else:
        assert not outcome.ran, f"{way}: ran unsandboxed without permission: {outcome.output}"
        assert outcome.decision == "deny"
        assert "/out" not in hits


@pytest.mark.requirement("SBX-4", "MUST")
@pytest.mark.parametrize("way", ["dangerouslyDisableSandbox", "excludedCommands"])
def test_without_unsandboxed_commands_nothing_leaves(
    new_harness: Callable[[], Any], tmp_path: Path, way: str
) -> None:
    """SBX-4: with ``allowUnsandboxedCommands: false`` the same command runs sandboxed, even when allowed."""
    extra: dict[str, Any] = {"allowUnsandboxedCommands": False}
    if way == "excludedCommands":
        extra["excludedCommands"] = ["curl"]
    with http_server() as (port, hits):
        outcome = run(
            new_harness(),
            _direct(port, "out"),
            layout(tmp_path).work,
            sandbox_settings(sandbox=extra),
            host=allowing_host(),
            disable_sandbox=way == "dangerouslyDisableSandbox",
        )
    assert outcome.ran, outcome.output
    assert outcome.sandboxed is True
    assert "/out" not in hits, (
        f"{way}: the command left the sandbox although allowUnsandboxedCommands is false"
    )


# Spellings of an excludedCommands entry that cover ``curl ...`` (beside entries for other programs),
# and lists that cover nothing of it.
EXCLUDING_CURL = st.lists(st.sampled_from(["git", "npm:*", "docker run"]), max_size=2).flatmap(
    lambda others: st.sampled_from(["curl", "curl:*", "curl -sS", "curl -sS --max-time 20"]).flatmap(
        lambda entry: st.permutations([*others, entry])
    )
)
NOT_EXCLUDING_CURL = st.lists(
    st.sampled_from(["git", "npm:*", "cur", "curl -X", "wget"]), min_size=1, max_size=3
)


@pytest.mark.requirement("SBX-4", "MUST")
@pytest.mark.parametrize("way", ["dangerouslyDisableSandbox", "excludedCommands", "neither"])
@pytest.mark.parametrize("auto_allow", [True, None], ids=["autoAllow", "autoAllow-unset"])
@settings(max_examples=4, deadline=None)
@given(
    allow_unsandboxed=st.sampled_from([None, True, False]),
    answer=st.sampled_from(["allow", "deny", "nobody"]),
    excluded=st.data(),
)
@example(allow_unsandboxed=None, answer="nobody", excluded=None)
def test_how_this_call_runs_decides_auto_allow(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    way: str,
    auto_allow: bool | None,
    allow_unsandboxed: bool | None,
    answer: str,
    excluded: Any,
) -> None:
    """SBX-4 (with SBX-6): auto-allow follows how THIS call will run, never only ``sandbox.enabled``.

    Composed: the call's own state (``dangerouslyDisableSandbox``, a command an excludedCommands
    entry covers in any spelling, or neither, with entries for other programs) x
    ``autoAllowBashIfSandboxed`` x ``allowUnsandboxedCommands`` x the host's answer. Property: a call
    that will run unsandboxed goes through the ordinary decision (asked; runs, outside the sandbox,
    only when allowed); a call that will run sandboxed is auto-allowed when auto-allow is on.
    """
    entries = (
        excluded.draw(EXCLUDING_CURL if way == "excludedCommands" else NOT_EXCLUDING_CURL)
        if excluded is not None
        else (["curl"] if way == "excludedCommands" else [])
    )
    sandbox: dict[str, Any] = {"excludedCommands": entries} if entries else {}
    if auto_allow is not None:
        sandbox["autoAllowBashIfSandboxed"] = auto_allow
    if allow_unsandboxed is not None:
        sandbox["allowUnsandboxedCommands"] = allow_unsandboxed
    unsandboxed = way != "neither" and allow_unsandboxed is not False
    host = {"allow": allowing_host(), "deny": denying_host(), "nobody": None}[answer]
    with http_server() as (port, hits):
        outcome = run(
            new_harness(),
            _direct(port, "out"),
            layout(tmp_path_factory.mktemp("sbx4")).work,
            sandbox_settings(sandbox=sandbox),
            host=host,
            disable_sandbox=way == "dangerouslyDisableSandbox",
        )
    why = f"{way}, sandbox settings {sandbox}, host {answer}"
    if auto_allow and not unsandboxed:
        assert outcome.ran, f"{why}: a sandboxed call must be auto-allowed: {outcome.output}"
        assert outcome.sandboxed is True, f"{why}: it must run sandboxed: {outcome.output}"
        assert host is None or not host.asked, f"{why}: an auto-allowed sandboxed call was asked about"
        assert "/out" not in hits, f"{why}: the sandboxed call's direct connection arrived"
        return
    if host is not None:
        assert len(host.asked) == 1, f"{why}: the call was not asked about (the ordinary decision)"
    if answer != "allow":
        assert not outcome.ran, f"{why}: ran without permission: {outcome.output}"
        assert "/out" not in hits
        return
    assert outcome.ran, outcome.output
    assert outcome.sandboxed is (not unsandboxed), f"{why}: sandboxed={outcome.sandboxed}"
    assert ("/out" in hits) == unsandboxed, (
        f"{why}: its direct connection {'did not arrive' if unsandboxed else 'arrived'}"
    )


@pytest.mark.requirement("SBX-4", "MUST")
def test_an_unsandboxed_retry_is_not_automatic(new_harness: Callable[[], Any], tmp_path: Path) -> None:
    """SBX-4: a command that failed in the sandbox, retried with ``dangerouslyDisableSandbox``, needs permission.

    The sandboxed attempt runs and fails to connect; the retry, with nobody to ask, is denied and
    never runs.
    """
    work = layout(tmp_path).work
    harness = new_harness()
    with http_server() as (port, hits):
        first = run(harness, _direct(port, "first"), work, dict(ON), host=allowing_host())
        retry = run(harness, _direct(port, "retry"), work, dict(ON), host=None, disable_sandbox=True)
    assert first.ran
    assert first.sandboxed is True
    assert "/first" not in hits
    assert not retry.ran, retry.output
    assert "/retry" not in hits


@pytest.mark.requirement("SBX-5", "MUST")
@pytest.mark.parametrize(("key", "program"), [("bwrapPath", "bubblewrap"), ("socatPath", "socat")])
def test_failing_if_unavailable_refuses_shell_commands(
    new_harness: Callable[[], Any], tmp_path: Path, key: str, program: str
) -> None:
    """SBX-5: with ``failIfUnavailable`` and the sandbox unable to start, no shell command runs; the result says why."""
    place = layout(tmp_path)
    # The program's path counts only in managed settings (Claude Code's rule).
    broken = {"sandbox": {key: str(tmp_path / "not-installed")}}
    with_settings = sandbox_settings(sandbox={"failIfUnavailable": True})
    outcome = run(
        new_harness(), "echo ran > marker", place.work, with_settings, host=allowing_host(), managed=broken
    )
    assert not outcome.ran
    assert not (place.work / "marker").exists()
    assert outcome.is_error
    assert "sandbox" in outcome.output.lower(), outcome.output
    assert program in outcome.output, f"the refusal does not name what is missing: {outcome.output}"


@pytest.mark.requirement("SBX-5", "MUST")
@pytest.mark.parametrize("key", ["bwrapPath", "socatPath"])
def test_an_unavailable_sandbox_is_never_claimed(
    new_harness: Callable[[], Any], tmp_path: Path, key: str
) -> None:
    """SBX-5: without ``failIfUnavailable``, an unavailable sandbox is said and never claimed.

    Even with auto-allow on, the command needs permission like an unsandboxed one (nobody to ask: it
    doesn't run); allowed, it
    runs, the harness says it was not sandboxed and that the sandbox was unavailable, and its write
    outside the working directory indeed lands.
    """
    broken = {"sandbox": {key: str(tmp_path / "not-installed")}}
    auto = sandbox_settings(sandbox={"autoAllowBashIfSandboxed": True})
    unasked = run(
        new_harness(), "echo ran > marker", layout(tmp_path / "a").work, auto, host=None, managed=broken
    )
    assert not unasked.ran, "with the sandbox unavailable a command was auto-allowed as if sandboxed"
    place = layout(tmp_path / "b")
    host = allowing_host()
    outcome = run(new_harness(), f"echo ran > {place.outside}/f", place.work, auto, host=host, managed=broken)
    assert len(host.asked) == 1
    assert outcome.ran, outcome.output
    assert outcome.sandboxed is False
    assert "sandbox" in outcome.output.lower(), (
        f"the result does not say the sandbox was unavailable: {outcome.output!r}"
    )
    assert (place.outside / "f").exists()


@pytest.mark.requirement("SBX-6", "SHOULD")
@pytest.mark.parametrize("auto", [None, True, False])
def test_sandboxed_commands_run_unasked_with_auto_allow(
    new_harness: Callable[[], Any], tmp_path: Path, auto: bool | None
) -> None:
    """SBX-6: ``autoAllowBashIfSandboxed`` runs a sandboxed command nobody could be asked about.

    Off by default (Claude Code's default), the same command with nobody to ask is denied.
    """
    extra = {} if auto is None else {"autoAllowBashIfSandboxed": auto}
    place = layout(tmp_path)
    outcome = run(new_harness(), "echo ran > marker", place.work, sandbox_settings(sandbox=extra), host=None)
    if not auto:
        assert not outcome.ran, "without autoAllowBashIfSandboxed an unasked command ran"
    else:
        assert outcome.ran, outcome.output
        assert outcome.sandboxed is True
        assert outcome.decision == "allow"
        assert (place.work / "marker").exists()


@pytest.mark.requirement("SBX-6", "SHOULD")
@pytest.mark.parametrize("behavior", ["deny", "ask"])
def test_rules_still_apply_to_sandboxed_commands(
    new_harness: Callable[[], Any], tmp_path: Path, behavior: str
) -> None:
    """SBX-6: a deny or ask rule holds over auto-allow: denied, or asked (and the host's no holds)."""
    place = layout(tmp_path)
    host = denying_host()
    outcome = run(
        new_harness(),
        "echo ran > marker",
        place.work,
        sandbox_settings(sandbox={"autoAllowBashIfSandboxed": True}, **{behavior: ["Bash(echo:*)"]}),
        host=host,
    )
    assert not outcome.ran, f"a {behavior} rule was overridden by auto-allow"
    assert not (place.work / "marker").exists()
    assert len(host.asked) == (1 if behavior == "ask" else 0)


HOST_FAMILIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "localhost": (
        ("localhost", "LOCALHOST", "localhost.", "LocalHost."),
        ("localhost", "LOCALHOST", "LocalHost"),
    ),
    "127.0.0.1": (("127.0.0.1",), ("127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1")),
}
"""Per host as allowed: (its spellings on the settings side, its spellings in a command's URL). The
proxy must compare normalised names (case, trailing dot) and addresses (the numeric IPv4 forms). A
URL's trailing dot is left out: this machine's resolver can't resolve ``localhost.``, so a blocked
connection would prove nothing."""


@dataclass(frozen=True)
class LayeredDenial:
    """``localhost`` allowed by one source and denied by another, beside other lists of either.

    ``entries`` are (layer, key, value): the layer is ``settings`` (the session's) or ``managed``;
    the key is ``network.allowedDomains``, ``network.deniedDomains``, ``permissions.allow`` or
    ``permissions.deny``. The first entry allows, the second denies.
    """

    entries: tuple[tuple[str, str, str], ...]
    url_host: str
    """How the command's URL spells the host."""
    client: str = "urllib"
    """What sends the request: ``curl`` (which rewrites numeric IPv4 forms itself before the proxy
    sees them) or Python's ``urllib`` (which sends the host as spelled)."""

    def command(self, port: int) -> str:
        """The command that fetches ``/reached`` from the host on ``port`` through the proxy."""
        url = f"http://{self.url_host}:{port}/reached"
        if self.client == "curl":
            return _curl(url)
        return f"{sys.executable} -c \"import urllib.request as u; print(u.urlopen('{url}', timeout=20).status)\""

    def layers(self, *, with_denial: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
        """(settings, managed settings), with or without the denying entry (the control)."""
        layers: dict[str, dict[str, Any]] = {"settings": {}, "managed": {}}
        for index, (layer, key, value) in enumerate(self.entries):
            if index == 1 and not with_denial:
                continue
            section, name = key.split(".")
            lists = (
                layers[layer].setdefault("sandbox", {}).setdefault("network", {})
                if section == "network"
                else layers[layer].setdefault("permissions", {})
            )
            lists.setdefault(name, []).append(value)
        own = layers["settings"]
        return sandbox_settings(sandbox=own.get("sandbox", {}), **own.get("permissions", {})), layers[
            "managed"
        ]


@st.composite
def layered_denials(draw: st.DrawFn) -> LayeredDenial:
    """A :class:`LayeredDenial`: allowance and denial each in a drawn source and form.

    The host is a name or an IPv4 address, spelled any way on either side (case, trailing dot,
    numeric forms); either source may carry an unrelated list
    of its own, so a harness that replaces one source's list by the other's loses the denial.
    """
    layer = st.sampled_from(["settings", "managed"])
    allow_key = draw(st.sampled_from(["network.allowedDomains", "permissions.allow"]))
    deny_key = draw(st.sampled_from(["network.deniedDomains", "permissions.deny"]))
    host = draw(st.sampled_from(sorted(HOST_FAMILIES)))
    denied = draw(st.sampled_from(HOST_FAMILIES[host][0]))
    entries = [
        (draw(layer), allow_key, host if allow_key.startswith("network") else f"WebFetch(domain:{host})"),
        (draw(layer), deny_key, denied if deny_key.startswith("network") else f"WebFetch(domain:{denied})"),
    ]
    for other in ("settings", "managed"):
        if draw(st.booleans()):
            key = draw(st.sampled_from(["network.allowedDomains", "network.deniedDomains"]))
            entries.append((other, key, "example.org"))
    url_host = draw(st.sampled_from(HOST_FAMILIES[host][1]))
    return LayeredDenial(tuple(entries), url_host, draw(st.sampled_from(["curl", "urllib"])))


@pytest.mark.requirement("SBX-3", "MUST")
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=layered_denials())
@example(
    case=LayeredDenial(
        (
            ("settings", "network.allowedDomains", "localhost"),
            ("settings", "network.deniedDomains", "localhost"),
            ("managed", "network.deniedDomains", "example.org"),
        ),
        "localhost",
    )
)
@example(
    case=LayeredDenial(
        (
            ("settings", "network.allowedDomains", "localhost"),
            ("settings", "network.deniedDomains", "LocalHost."),
        ),
        "LOCALHOST",
    )
)
@example(
    case=LayeredDenial(
        (
            ("settings", "network.allowedDomains", "127.0.0.1"),
            ("managed", "permissions.deny", "WebFetch(domain:127.0.0.1)"),
        ),
        "2130706433",
    )
)
def test_a_denial_from_any_source_in_any_spelling_holds(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, case: LayeredDenial
) -> None:
    """SBX-3 property: a host denied by any source, spelled any way, is never reached, whatever allows it elsewhere.

    The denial (``deniedDomains`` or a ``WebFetch`` deny rule) and the allowance sit in the session's
    or the managed settings, beside other lists of either source; the name is compared after
    normalisation (case, trailing dot, numeric IPv4 forms) on both sides. Control: without the denial the host is reached.
    """
    for with_denial in (True, False):
        with_settings, managed = case.layers(with_denial=with_denial)
        place = layout(tmp_path_factory.mktemp("denial"))
        with http_server() as (port, hits):
            outcome = run(
                new_harness(),
                case.command(port),
                place.work,
                with_settings,
                host=allowing_host(),
                managed=managed,
            )
        assert outcome.ran, outcome.output
        how = f"{case.entries}, URL host {case.url_host!r} ({case.client}): settings {with_settings}, managed {managed}: {outcome.output}"
        if with_denial:
            assert "/reached" not in hits, f"the denied host was reached: {how}"
        else:
            assert "/reached" in hits, f"control: without the denial the allowed host was not reached: {how}"


_ALLOWANCES = ("allowedDomains", "WebFetch rule")


@pytest.mark.requirement("SBX-3", "MUST")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lock=st.sampled_from([None, "session", "managed"]),
    allowance=st.sampled_from(_ALLOWANCES),
    allowed_by_managed=st.booleans(),
    source=st.sampled_from(["userSettings", "projectSettings", "localSettings"]),
)
@example(lock="session", allowance="allowedDomains", allowed_by_managed=False, source="localSettings")
@example(lock="session", allowance="allowedDomains", allowed_by_managed=False, source="projectSettings")
@example(lock="session", allowance="WebFetch rule", allowed_by_managed=False, source="userSettings")
@example(lock="managed", allowance="WebFetch rule", allowed_by_managed=False, source="localSettings")
@example(lock="managed", allowance="allowedDomains", allowed_by_managed=False, source="userSettings")
@example(lock="managed", allowance="allowedDomains", allowed_by_managed=False, source="localSettings")
@example(lock="managed", allowance="allowedDomains", allowed_by_managed=True, source="projectSettings")
def test_only_managed_settings_can_limit_the_network_to_managed_domains(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    lock: str | None,
    allowance: str,
    allowed_by_managed: bool,
    source: Literal["userSettings", "projectSettings", "localSettings"],
) -> None:
    """SBX-3 (PERM-4): ``allowManagedDomainsOnly`` counts only from managed settings.

    The host is allowed by ``allowedDomains`` or a ``WebFetch(domain:...)`` allow rule, in the
    session's or the managed settings; the lock is nowhere, in the session's settings (ignored: a
    cloned repository's file can't throw the user's allowances away) or in the managed settings
    (then only managed allowances count). The session's settings are the user's, the project's or the
    local file. The host is reached iff no managed lock stands or a managed allowance names it.
    """
    allowing: dict[str, Any] = (
        {"sandbox": {"network": {"allowedDomains": ["localhost"]}}}
        if allowance == "allowedDomains"
        else {"permissions": {"allow": ["WebFetch(domain:localhost)"]}}
    )
    session, managed = sandbox_settings(), {}
    if allowed_by_managed:
        managed = allowing
    else:
        session = {**session, **allowing, "sandbox": {**session["sandbox"], **allowing.get("sandbox", {})}}
    if lock is not None:
        holder = session if lock == "session" else managed
        holder.setdefault("sandbox", {}).setdefault("network", {})["allowManagedDomainsOnly"] = True
    place = layout(tmp_path_factory.mktemp("managed-domains"))
    with http_server() as (port, hits):
        outcome = run(
            new_harness(),
            _curl(f"http://localhost:{port}/reached"),
            place.work,
            session,
            host=allowing_host(),
            managed=managed or None,
            source=source,
        )
    assert outcome.ran, outcome.output
    expected = lock != "managed" or allowed_by_managed
    how = f"lock in {lock} settings, {allowance} in {'managed' if allowed_by_managed else 'session'} settings: session {session}, managed {managed}: {outcome.output}"
    assert ("/reached" in hits) == expected, f"the host must {'' if expected else 'not '}be reached: {how}"


def _resolves(host: str) -> bool:
    """Whether this machine resolves ``host`` (as the harness's proxy must, to connect)."""
    try:
        return bool(socket.getaddrinfo(host, 80, proto=socket.IPPROTO_TCP))
    except (OSError, UnicodeError):
        return False


def _spec_allows(host: str, pattern: str) -> bool:
    """The documented meaning of an ``allowedDomains`` entry, compared without case and a final dot.

    A name, or ``*.`` and every subdomain below it (label by label, not the name itself).
    """
    host, pattern = host.lower().rstrip("."), pattern.lower().rstrip(".")
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


@st.composite
def _domain_patterns(draw: st.DrawFn, host: str) -> str:
    """Patterns built from ``host``'s own letters.

    The name, a wildcard over it, over a suffix that ends mid-label (``*.calhost`` for ``localhost``),
    over a parent or child name, in other cases and with a final dot.
    """
    cut = draw(st.integers(0, len(host) - 1))
    base = draw(st.sampled_from([host, host[cut:], f"x.{host}", f"{host}.x"]))
    pattern = draw(st.sampled_from([base, f"*.{base}"]))
    if draw(st.booleans()):
        pattern = "".join(c.upper() if draw(st.booleans()) else c for c in pattern)
    return pattern + ("." if draw(st.integers(0, 4)) == 0 else "")


@pytest.mark.requirement("SBX-3", "MUST")
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pattern=_domain_patterns("localhost"), request=st.sampled_from(["localhost", "LocalHost", "localhost."])
)
@example(pattern="*.localhost", request="localhost")
@example(pattern="*.calhost", request="localhost")
@example(pattern="ocalhost", request="localhost")
def test_a_domain_pattern_allows_only_the_names_it_covers(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, pattern: str, request: str
) -> None:
    """SBX-3: an ``allowedDomains`` pattern lets through exactly the names it covers, at label boundaries.

    Patterns are drawn from the requested name's own letters: the name itself, ``*.`` over it (its
    subdomains, not the name), over a suffix cut mid-label (``*.calhost`` covers no ``localhost``),
    over a parent or a child name, in mixed case, with a final dot; a name without ``*.`` cut
    mid-label (``ocalhost``) covers no longer name. A covered name reaches the local server through
    the proxy; any other never arrives.
    """
    place = layout(tmp_path_factory.mktemp("pattern"))
    with_settings = sandbox_settings(sandbox={"network": {"allowedDomains": [pattern]}})
    with http_server() as (port, hits):
        outcome = run(
            new_harness(),
            _curl(f"http://{request}:{port}/p"),
            place.work,
            with_settings,
            host=allowing_host(),
        )
    arrived = "/p" in hits
    expected = _spec_allows(request, pattern)
    # A name this machine can't resolve (``localhost.`` on some) can't arrive however it is allowed:
    # that is the machine's, not the harness's, so only the other direction is judged then.
    assume(not expected or arrived or _resolves(request))
    assert arrived == expected, (
        f"allowedDomains {[pattern]!r}: a request to {request!r} {'arrived' if arrived else 'did not arrive'}"
        f" (it {'is' if expected else 'is not'} covered): {outcome.output}"
    )


_NOT_DOMAIN_ALLOWANCES = (
    "Read(domain:localhost)",
    "Grep(domain:localhost)",
    "Bash(domain:localhost)",
    "WebSearch(domain:localhost)",
    "WebFetch",
)
"""Rules that name ``localhost`` after ``domain:`` but are not ``WebFetch(domain:...)`` rules (tools
before and after ``WebFetch`` in any ordering), and the whole ``WebFetch`` tool without a domain."""

_BEHAVIOURS = {"WebSearch(domain:localhost)": ("allow",), "WebFetch(domain:localhost)": ("ask",)}
"""The behaviours drawn for a rule where not both of allow and ask fit: a ``WebSearch`` rule with
content can never match, which a harness may refuse in a deny or ask list (fail closed); the
``WebFetch(domain:...)`` rule asks (allowing, it would open the host)."""


@st.composite
def _other_rules(draw: st.DrawFn) -> tuple[tuple[str, str, str], ...]:
    """(layer, behaviour, rule) triples: rules naming ``localhost`` that open no host.

    Rules of :data:`_NOT_DOMAIN_ALLOWANCES` allowing or asking, and ``WebFetch(domain:localhost)``
    asking, each in the session's or the managed settings.
    """
    rules = draw(
        st.lists(
            st.sampled_from([*_NOT_DOMAIN_ALLOWANCES, "WebFetch(domain:localhost)"]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    return tuple(
        (
            draw(st.sampled_from(["settings", "managed"])),
            draw(st.sampled_from(_BEHAVIOURS.get(rule, ("allow", "ask")))),
            rule,
        )
        for rule in rules
    )


@pytest.mark.requirement("SBX-3", "MUST")
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rules=_other_rules(), allowed=st.booleans())
@example(
    rules=(
        ("settings", "allow", "Read(domain:localhost)"),
        ("managed", "allow", "WebSearch(domain:localhost)"),
        ("settings", "allow", "WebFetch"),
    ),
    allowed=False,
)
@example(
    rules=(
        ("managed", "ask", "WebFetch(domain:localhost)"),
        ("settings", "ask", "WebFetch"),
        ("settings", "allow", "Bash(domain:localhost)"),
    ),
    allowed=True,
)
def test_only_webfetch_domain_allow_rules_open_a_host(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    rules: tuple[tuple[str, str, str], ...],
    allowed: bool,
) -> None:
    """SBX-3 property: beside ``allowedDomains``, only a ``WebFetch(domain:...)`` allow rule lets a host through.

    Composed: ``localhost`` in ``allowedDomains`` or not, x rules in the session's or the managed
    settings that name it without being ``WebFetch(domain:...)`` allow rules: other tools' rules
    with a ``domain:`` content (allowing or asking), the whole ``WebFetch`` tool, and an ask rule
    ``WebFetch(domain:localhost)`` (an ask is no denial). The command runs, and the host is reached
    exactly when ``allowedDomains`` names it.
    """
    layers: dict[str, dict[str, list[str]]] = {"settings": {}, "managed": {}}
    for layer, behavior, rule in rules:
        layers[layer].setdefault(behavior, []).append(rule)
    network = {"network": {"allowedDomains": ["localhost"]}} if allowed else {}
    with_settings = sandbox_settings(sandbox=network, **layers["settings"])
    managed = {"permissions": layers["managed"]} if layers["managed"] else {}
    place = layout(tmp_path_factory.mktemp("other-rules"))
    with http_server() as (port, hits):
        outcome = run(
            new_harness(),
            _curl(f"http://localhost:{port}/reached"),
            place.work,
            with_settings,
            host=allowing_host(),
            managed=managed,
        )
    how = f"settings {with_settings}, managed {managed}: {outcome.output}"
    assert outcome.ran, f"the command did not run: {how}"
    assert ("/reached" in hits) == allowed, (
        f"localhost {'was' if '/reached' in hits else 'was not'} reached; allowedDomains"
        f" {'names' if allowed else 'does not name'} it: {how}"
    )
