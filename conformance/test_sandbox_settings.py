"""Sandbox settings as files give them: every documented key, of its type or not (PERM-12, SBX).

A ``sandbox`` key of the wrong type, an unknown key or a malformed domain pattern is refused with an
error naming the key; every documented key with a value of its type loads, at the edges of its range;
and the keys that choose what confines a command (``bwrapPath``) or lock the network to the
administrator's domains (``allowManagedDomainsOnly``, in ``test_sandbox_network.py``) count from the
managed settings only, whichever other file sets them. The switches (``enabled``, ``failIfUnavailable``,
``autoAllowBashIfSandboxed``), set by several files at once, merge as documented: a higher-precedence
file's value wins.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance._sandbox_runs import (
    FileSource,
    allowing_host,
    layout,
    run,
    run_files,
    sandbox_layers,
    skip_without,
)
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat")]

Source = Literal["userSettings", "projectSettings", "localSettings"]
SOURCES: tuple[Source, ...] = ("userSettings", "projectSettings", "localSettings")
"""The settings files a user or a repository writes (every one but the managed settings)."""

SANDBOX_KEY_TYPES: dict[str, str] = {
    "enabled": "bool",
    "autoAllowBashIfSandboxed": "bool",
    "allowUnsandboxedCommands": "bool",
    "excludedCommands": "list",
    "filesystem.allowWrite": "list",
    "filesystem.denyWrite": "list",
    "filesystem.denyRead": "list",
    "network.allowedDomains": "domains",
    "network.deniedDomains": "domains",
    "network.allowUnixSockets": "list",
    "network.allowLocalBinding": "bool",
    "network.httpProxyPort": "port",
    "network.socksProxyPort": "port",
    "network.allowAllUnixSockets": "bool",
    "filesystem.allowRead": "list",
    "ripgrep": "object",
}
"""Claude Code's documented ``sandbox`` keys (its settings reference) and the JSON type each takes."""

_NOT_LISTS = ("/", "//", "..", 1, True, [1], [["/"]], {"0": "/"}, [""], ["  "], ["/tmp", None])

# Values of the wrong type for each: a string where a list or a boolean belongs ("/" as a list is
# every path; "false" as a boolean is true in a careless reading), a list holding a non-string or an
# empty string, a port out of range (one past each end) or given as a string or a boolean, an object
# where a list or a scalar belongs, and domain patterns that are no host: a port, a scheme, a
# wildcard not followed by a dot, a label that starts with a hyphen.
WRONG_VALUES: dict[str, tuple[Any, ...]] = {
    "bool": ("true", "false", 1, 0, [], {"on": True}),
    "list": _NOT_LISTS,
    "domains": (
        *_NOT_LISTS,
        ["example.com:443"],
        ["http://example.com"],
        ["*example.com"],
        ["-x.example"],
        ["example.com", "a..b"],
        ["*"],
    ),
    "port": ("8080", 0, 65536, -1, True, 1.5, [8080]),
    "object": ("rg", 1, True, ["rg"]),
}

# Values of each type at its edges: both booleans, the smallest and the largest port, empty lists and
# strings with blanks around them, every form a domain pattern takes (a wildcard, IPv4 and bracketed
# IPv6 literals, upper case, a trailing dot, a Unicode name).
VALID_VALUES: dict[str, tuple[Any, ...]] = {
    "bool": (True, False),
    "list": ([], ["/tmp/sandbox-settings-valid"], [" ./build ", "~/cache"]),
    "domains": (
        [],
        ["example.com"],
        ["*.example.com", "127.0.0.1", "[::1]"],
        ["Bücher.EXAMPLE.", "localhost"],
    ),
    "port": (1, 65535, 3128),
    "object": ({},),
}


Entry = tuple[str, Any, bool]
"""A ``sandbox`` setting as placed: its dotted key, its value, and whether the managed file holds it."""


def _files(entries: list[Entry]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the session's settings, the managed ones) holding every entry; the session's turn the sandbox on."""
    session: dict[str, Any] = {"enabled": True}
    managed: dict[str, Any] = {}
    for key, value, in_managed in entries:
        section, _, name = key.rpartition(".")
        target = managed if in_managed else session
        holder = target.setdefault(section, {}) if section else target
        holder[name] = value
    return {"sandbox": session}, ({"sandbox": managed} if managed else {})


def sandbox_setting(values: dict[str, tuple[Any, ...]]) -> st.SearchStrategy[tuple[str, Any]]:
    """(a documented dotted key, one of ``values`` for its type): WRONG_VALUES or VALID_VALUES."""
    return st.sampled_from(sorted(SANDBOX_KEY_TYPES)).flatmap(
        lambda key: st.tuples(st.just(key), st.sampled_from(values[SANDBOX_KEY_TYPES[key]]))
    )


@st.composite
def sandbox_files(draw: st.DrawFn, marked_values: dict[str, tuple[Any, ...]]) -> tuple[Entry, list[Entry]]:
    """(the marked entry, every entry): a setting of ``marked_values`` among 0-3 valid ones.

    The others are other documented keys with values of their type, in the same file or the other
    one, and sometimes the marked key itself with a valid value in the other file: a file holds
    several keys, and one key is set by two files, as real settings are.
    """
    key, value = draw(sandbox_setting(marked_values))
    marked = (key, value, draw(st.booleans()))
    others = draw(
        st.lists(
            st.tuples(sandbox_setting(VALID_VALUES), st.booleans()).map(lambda p: (*p[0], p[1])),
            max_size=3,
            unique_by=lambda entry: (entry[0], entry[2]),
        )
    )
    # Never the marked key in its own file again (the file would hold one of the two values).
    others = [e for e in others if (e[0], e[2]) != (key, marked[2]) and e[0] != "enabled"]
    entries = [*others, marked] if draw(st.booleans()) else [marked, *others]
    return marked, entries


def _alone(key: str, value: Any, in_managed: bool) -> tuple[Entry, list[Entry]]:
    """A pinned example: the one setting, alone in its file."""
    return (key, value, in_managed), [(key, value, in_managed)]


@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=sandbox_files(WRONG_VALUES), source=st.sampled_from(SOURCES))
@example(drawn=_alone("filesystem.allowWrite", "/", False), source="localSettings")
@example(drawn=_alone("enabled", "true", False), source="localSettings")
@example(drawn=_alone("network.httpProxyPort", 0, False), source="projectSettings")
@example(drawn=_alone("network.socksProxyPort", 65536, True), source="localSettings")
@example(drawn=_alone("filesystem.denyRead", [""], False), source="userSettings")
@example(drawn=_alone("network.allowedDomains", ["-x.example"], False), source="localSettings")
@example(
    drawn=(
        ("filesystem.allowWrite", "/", False),
        [
            ("filesystem.allowWrite", ["/tmp/sandbox-settings-valid"], True),
            ("filesystem.allowWrite", "/", False),
        ],
    ),
    source="projectSettings",
)
def test_a_malformed_sandbox_setting_is_refused_by_name(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    drawn: tuple[Entry, list[Entry]],
    source: Source,
) -> None:
    """PERM-12: a ``sandbox`` key of the wrong type is refused with an error naming the key.

    The key is drawn from Claude Code's documented ones and given a value of another JSON type (or a
    port one past its range, a list with an empty string, a domain pattern that is no host), in the
    user's, the project's or the local settings (with the sandbox on) or the managed ones, among 0-3
    valid keys in either file (the same key valid in the other file, too). A settings
    file read carelessly would widen the sandbox (``"/"`` as ``allowWrite`` grants every path;
    ``"true"`` as ``enabled``, unchecked, may leave it off), and one a harness quietly ignores is not
    what its user wrote: the harness refuses it, naming the key. The command writes a file outside
    the working directory, which also must not land.
    """
    (key, value, in_managed), entries = drawn
    place = layout(tmp_path_factory.mktemp("malformed"))
    name = key.rpartition(".")[2]
    with_settings, managed = _files(entries)
    target = place.outside / "written.txt"
    try:
        outcome = run(
            new_harness(),
            f"echo x > {target}",
            place.work,
            with_settings,
            host=allowing_host(),
            managed=managed,
            source=source,
        )
    except Exception as error:
        message = str(error)
        assert name in message, (
            f"sandbox.{key} = {value!r} was refused, but the error does not name it: {message!r}"
        )
        return
    where = "managed" if in_managed else source
    wrote = " and the command wrote outside the working directory" if target.exists() else ""
    raise AssertionError(
        f"sandbox.{key} = {value!r} ({where} settings) was accepted{wrote}, beside {entries}: {outcome.output}"
    )


@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=sandbox_files(VALID_VALUES), source=st.sampled_from(SOURCES))
@example(drawn=_alone("network.httpProxyPort", 1, False), source="localSettings")
@example(drawn=_alone("network.socksProxyPort", 65535, True), source="localSettings")
@example(
    drawn=_alone("network.allowedDomains", ["*.example.com", "127.0.0.1", "[::1]"], False),
    source="projectSettings",
)
@example(drawn=_alone("filesystem.allowRead", ["/tmp/sandbox-settings-valid"], False), source="userSettings")
@example(drawn=_alone("ripgrep", {}, True), source="localSettings")
def test_every_documented_sandbox_setting_of_its_type_loads(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    drawn: tuple[Entry, list[Entry]],
    source: Source,
) -> None:
    """PERM-12 (the other side): a documented ``sandbox`` key with a value of its type is no error.

    Refusing is for what is malformed: a harness that refuses the smallest or the largest port, an
    empty list, a bracketed IPv6 literal or a key it should know (each in any settings file) refuses
    a user's correct settings, and its user turns the sandbox off to get work done. The key comes
    among 0-3 other valid keys, in either file, and sometimes set by both files.
    """
    (key, value, in_managed), entries = drawn
    place = layout(tmp_path_factory.mktemp("valid"))
    with_settings, managed = _files(entries)
    try:
        outcome = run(
            new_harness(),
            "true",
            place.work,
            with_settings,
            host=allowing_host(),
            managed=managed,
            source=source,
        )
    except Exception as error:
        where = "managed" if in_managed else source
        raise AssertionError(
            f"sandbox.{key} = {value!r} ({where} settings) beside {entries} was refused: {error}"
        ) from error
    assert outcome.ran, f"sandbox.{key} = {value!r}: the command did not run: {outcome.output}"


# Misspellings a person makes of real keys: another case, snake case, a plural or singular too many.
_MISSPELT: tuple[tuple[str, str], ...] = (
    ("", "Enabled"),
    ("", "excluded_commands"),
    ("", "excludeCommands"),
    ("filesystem", "denyReads"),
    ("filesystem", "AllowWrite"),
    ("filesystem", "deny_write"),
    ("network", "allowedDomain"),
    ("network", "denieddomains"),
    ("network", "allowed-domains"),
)


@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    unknown=st.lists(st.sampled_from(_MISSPELT), min_size=1, max_size=2, unique=True),
    source=st.sampled_from(SOURCES),
)
@example(unknown=[("filesystem", "denyReads")], source="localSettings")
@example(unknown=[("", "Enabled"), ("network", "allowedDomain")], source="projectSettings")
def test_an_unknown_sandbox_key_is_refused_by_name(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    unknown: list[tuple[str, str]],
    source: Source,
) -> None:
    """PERM-12: a key the harness does not know, at any level of ``sandbox``, is refused by name.

    A misspelt ``denyReads: ["secrets"]`` ignored is a denial the user believes in and does not
    have. One or two such keys (at the top, in ``filesystem``, in ``network``) with a list value:
    the error names one of them.
    """
    sandbox: dict[str, Any] = {"enabled": True}
    for section, name in unknown:
        holder = sandbox.setdefault(section, {}) if section else sandbox
        holder[name] = ["/tmp/sandbox-settings-unknown"]
    place = layout(tmp_path_factory.mktemp("unknown"))
    try:
        outcome = run(
            new_harness(), "true", place.work, {"sandbox": sandbox}, host=allowing_host(), source=source
        )
    except Exception as error:
        message = str(error)
        assert any(name in message for _section, name in unknown), (
            f"sandbox keys {unknown} were refused, but the error names none: {message!r}"
        )
        return
    raise AssertionError(f"unknown sandbox keys {unknown} ({source}) were accepted: {outcome.output}")


@pytest.mark.requirement("PERM-12", "MUST")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=st.sampled_from(SOURCES))
def test_only_managed_settings_choose_the_program_that_confines_commands(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, source: Source
) -> None:
    """PERM-12 (SBX-1): ``sandbox.bwrapPath`` counts only from the managed settings.

    A repository's (or the user's) settings naming the program that is to confine the command could
    name one that confines nothing. Set in the user's, project's or local settings, it is ignored or
    refused: the named program never runs.
    """
    place = layout(tmp_path_factory.mktemp("bwrap-path"))
    marker = place.outside / "fake-bwrap-ran"
    fake = place.outside / "fake-bwrap"
    fake.write_text(f'#!/bin/sh\ntouch "{marker}"\nexec bwrap "$@"\n')
    fake.chmod(0o755)
    with contextlib.suppress(Exception):  # refused: the program was not used either
        run(
            new_harness(),
            "true",
            place.work,
            sandbox_settings(sandbox={"bwrapPath": str(fake)}),
            host=allowing_host(),
            source=source,
        )
    assert not marker.exists(), f"the bwrapPath of the {source} settings was run"


SWITCHES = ("enabled", "failIfUnavailable", "autoAllowBashIfSandboxed")


@st.composite
def switches_everywhere(
    draw: st.DrawFn,
) -> tuple[dict[str, bool | None], bool, list[tuple[FileSource, dict[str, Any]]]]:
    """(what the switches merge to, whether the sandbox can start, the files that set them).

    ``enabled`` is always set, the others set or left out; each set one is written in 1-4 of the
    five settings files with conflicting values (``sandbox_layers``), in any order.
    """
    values: dict[str, bool | None] = {"enabled": draw(st.booleans())}
    for key in SWITCHES[1:]:
        values[key] = draw(st.sampled_from([None, True, False]))
    unavailable = draw(st.booleans())
    managed = {"bwrapPath": "/nonexistent/bwrap"} if unavailable else None
    layers = draw(sandbox_layers(values, managed=managed))
    return values, unavailable, [(source, {"sandbox": sandbox}) for source, sandbox in layers]


@pytest.mark.requirement("SBX-1", "MUST")
@pytest.mark.requirement("SBX-5", "MUST")
@pytest.mark.requirement("SBX-6", "SHOULD")
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=switches_everywhere())
@example(
    drawn=(
        {"enabled": True, "failIfUnavailable": None, "autoAllowBashIfSandboxed": None},
        False,
        [
            ("policySettings", {"sandbox": {"enabled": True}}),
            ("projectSettings", {"sandbox": {"enabled": False}}),
        ],
    )
)
@example(
    drawn=(
        {"enabled": True, "failIfUnavailable": True, "autoAllowBashIfSandboxed": False},
        True,
        [
            ("localSettings", {"sandbox": {"failIfUnavailable": False, "autoAllowBashIfSandboxed": True}}),
            (
                "policySettings",
                {
                    "sandbox": {
                        "enabled": True,
                        "failIfUnavailable": True,
                        "autoAllowBashIfSandboxed": False,
                        "bwrapPath": "/nonexistent/bwrap",
                    }
                },
            ),
            ("userSettings", {"sandbox": {"enabled": False}}),
        ],
    )
)
def test_the_sandbox_switches_follow_the_settings_precedence(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    drawn: tuple[dict[str, bool | None], bool, list[tuple[FileSource, dict[str, Any]]]],
) -> None:
    """SBX-1, SBX-5, SBX-6: ``enabled``, ``failIfUnavailable`` and ``autoAllowBashIfSandboxed`` as the files merge them.

    Each switch is written in several of the user's, the project's, the local, the ``--settings``
    and the managed files at once, with its value in the highest-precedence file and the opposite in
    every lower one, loaded in any order; sometimes the sandbox can't start (managed ``bwrapPath`` to
    nothing). The documented rule: a later file's value wins, the managed one over all, so a
    repository's ``enabled: false`` does not turn off the administrator's sandbox, nor its
    ``failIfUnavailable: false`` let commands run unconfined. A write outside the working
    directory, allowed by the host: with the sandbox on and able to start it runs and fails
    (SBX-1), asked about unless auto-allow is on (SBX-6); on, unable to start and told to fail, it
    does not run (SBX-5); otherwise it runs unsandboxed and the write lands.
    """
    values, unavailable, files = drawn
    place = layout(tmp_path_factory.mktemp("switches"))
    target = place.outside / "written.txt"
    host = allowing_host()
    outcome = run_files(new_harness(), f"echo x > {target}", place.work, files, host=host)
    said = f"{values} (sandbox {'un' if unavailable else ''}available), files {files}: {outcome.output!r}"
    if values["enabled"] and unavailable and values["failIfUnavailable"]:
        assert not outcome.ran, f"ran though the sandbox can't start and failIfUnavailable holds: {said}"
        assert not target.exists(), f"wrote outside though nothing may run: {said}"
        return
    assert outcome.ran, f"the host allows the call, yet it did not run: {said}"
    sandboxed = values["enabled"] is True and not unavailable
    assert outcome.sandboxed is sandboxed, f"{'not ' if sandboxed else ''}sandboxed as expected: {said}"
    assert target.exists() != sandboxed, (
        f"the write outside {'landed' if target.exists() else 'failed'}: {said}"
    )
    auto = sandboxed and values["autoAllowBashIfSandboxed"] is True
    assert len(host.asked) == (0 if auto else 1), f"asked {len(host.asked)} times: {said}"
