"""Containment, not string prefixes: path rules, working directories and domain patterns (PERM-9, PERM-11).

A rule or a directory contains what lies *under* it, never what merely starts with the same
characters: ``/proj`` holds ``/proj/a`` but not ``/proj-other/a`` or ``/project/a``; ``*.example.com``
holds ``a.example.com`` but not ``evilexample.com`` or ``example.com.evil``. Each example draws a
container (a directory or a domain), spells it on the settings side one of several equivalent
ways, and draws a candidate from the whole neighbourhood: children at any depth, the container
itself, siblings that share its prefix, names that contain it, and spellings of each through
``..``, ``//``, ``.``, case, a trailing dot, a port or user info. The judge is the standard library:
:mod:`posixpath` normalises the path and :class:`pathlib.PurePosixPath` says what is under what; for
hosts, the label structure (a child ends with ``.`` + the domain).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    edit_tool,
    fetch_tool,
    host_answering,
    read_tool,
    run_calls,
    sources,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec, SettingsSpec

BASE_NAMES = ("proj", "p", "src.d")
"""Names of the containing directory; short and dotted ones, whose prefixes are easy to share."""

NEIGHBOURS = (
    "/f.txt",
    "/d/e/f.txt",
    "//f.txt",
    "/./f.txt",
    "/d/../f.txt",
    "-other/f.txt",
    "ect/f.txt",
    ".bak/f.txt",
    "2/f.txt",
    "/../{base}-other/f.txt",
    "/../{base}/f.txt",
    "/../f.txt",
)
"""What follows the container's own spelling in a candidate: children, siblings with its prefix,
and ``..`` walks that leave it or come back into it (``{base}`` is the container's name)."""

SETTING_SPELLINGS = ("", "/", "/.", "//", "/d/..")
"""Equivalent spellings of the container on the settings side (a trailing ``/``, ``.``, ``..``)."""


@dataclass(frozen=True)
class PathCase:
    """A container directory (``base`` under a fresh root; ``/`` when ``root``) and a candidate file."""

    base: str
    neighbour: str
    setting_spelling: str
    root: bool

    def container(self, top: Path) -> str:
        return "/" if self.root else f"{top}/{self.base}"

    def candidate(self, top: Path) -> str:
        return f"{top}/{self.base}" + self.neighbour.format(base=self.base)

    def inside(self, top: Path) -> bool:
        """Whether the candidate, normalised, is under the container (the standard library's verdict)."""
        normal = PurePosixPath(posixpath.normpath(self.candidate(top)))
        return normal.is_relative_to(self.container(top))


@st.composite
def path_cases(draw: st.DrawFn, *, allow_root: bool) -> PathCase:
    """A :class:`PathCase`; the root ``/`` as container only when ``allow_root``."""
    return PathCase(
        draw(st.sampled_from(BASE_NAMES)),
        draw(st.sampled_from(NEIGHBOURS)),
        draw(st.sampled_from(SETTING_SPELLINGS)),
        allow_root and draw(st.integers(0, 5)) == 0,
    )


def _spelled(container: str, spelling: str) -> str:
    return container if container == "/" else container + spelling


RULE_WAYS = ("Edit allow rule", "Edit deny rule", "Read deny rule")
"""The path rules that contain a directory's files (PERM-11)."""

DIRECTORY_WAYS = ("additionalDirectories", "working directory")
"""The working directories that contain a directory's files for acceptEdits (PERM-9)."""


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=40, deadline=None)
@given(case=path_cases(allow_root=False), way=st.sampled_from(RULE_WAYS), source=sources())
@example(case=PathCase("proj", "-other/f.txt", "", False), way="Edit allow rule", source="userSettings")
@example(case=PathCase("proj", "ect/f.txt", "/", False), way="Edit deny rule", source="userSettings")
def test_a_path_rule_covers_only_what_is_under_it(
    new_harness: Callable[[], Any], case: PathCase, way: str, source: str
) -> None:
    """PERM-11 property: a path rule ``Edit(//dir/**)`` covers a file iff the normalised path is under ``dir``.

    An allow rule lets an edit run unasked exactly when the file is under the directory, otherwise
    the host is asked (and says no); an ``Edit``/``Read`` deny rule blocks exactly those files. A
    sibling that shares the directory's name as a prefix (``/proj-other``, ``/project``) is not under
    it, whichever side is spelled with ``/``, ``.`` or ``..``.
    """
    _check_containment(new_harness, case, way, source)


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-9", "SHOULD")
@settings(max_examples=30, deadline=None)
@given(case=path_cases(allow_root=True), way=st.sampled_from(DIRECTORY_WAYS), source=sources())
@example(case=PathCase("proj", "-other/f.txt", "", False), way="additionalDirectories", source="userSettings")
@example(case=PathCase("proj", "ect/f.txt", "", False), way="working directory", source="userSettings")
@example(case=PathCase("proj", "/../f.txt", "", True), way="additionalDirectories", source="userSettings")
def test_accept_edits_covers_only_what_is_under_a_working_directory(
    new_harness: Callable[[], Any], case: PathCase, way: str, source: str
) -> None:
    """PERM-9 property: acceptEdits lets an edit run unasked iff the normalised path is under a working directory.

    The session's own working directory or an ``additionalDirectories`` entry (any source, any
    spelling, the root ``/`` included); a sibling sharing the directory's name as a prefix
    (``/proj-other``, ``/project``) is outside: the host is asked (and says no).
    """
    _check_containment(new_harness, case, way, source)


def _check_containment(new_harness: Callable[[], Any], case: PathCase, way: str, source: str) -> None:
    """Run one edit/read of ``case``'s candidate with ``case``'s container given ``way``; judge it."""
    top = fresh_dir()
    for name in (case.base, f"{case.base}-other", "work"):
        (top / name).mkdir(exist_ok=True)
    container = case.container(top)
    spelled = _spelled(container, case.setting_spelling)
    inside = case.inside(top)
    file_path = case.candidate(top)
    tool = read_tool() if way == "Read deny rule" else edit_tool()
    rules: list[RuleSpec] = []
    files: list[SettingsSpec] = []
    mode, cwd = "default", top / "work"
    if way == "Edit allow rule":
        rules = [RuleSpec(f"Edit(/{spelled.rstrip('/') or ''}/**)", "allow", source)]
    elif way in ("Edit deny rule", "Read deny rule"):
        rules = [
            RuleSpec(f"{tool.name}(/{spelled.rstrip('/') or ''}/**)", "deny", source),
            RuleSpec(tool.name, "allow", source),
        ]
    elif way == "additionalDirectories":
        mode = "acceptEdits"
        files = [SettingsSpec(source, {"permissions": {"additionalDirectories": [spelled]}})]
    else:
        mode, cwd = "acceptEdits", top / case.base
    # The root as the session's own working directory is not a layout anyone runs.
    assume(not (case.root and way == "working directory"))
    run = run_calls(
        new_harness(),
        [tool],
        [(tool.name, {"file_path": file_path})],
        rules=rules,
        mode=mode,
        host=host_answering("deny"),
        cwd=cwd,
        settings=files,
    )
    why = (
        f"{way} {spelled!r} ({source}), file {file_path!r} {'is' if inside else 'is not'} under {container!r}"
    )
    if way in ("Edit deny rule", "Read deny rule"):
        assert run.asked == [], f"{why}: nobody should be asked; {run.describe()}"
        assert run.ran() == (0 if inside else 1), f"{why}: {run.describe()}"
    elif inside:
        assert (run.ran(), run.asked) == (1, []), f"{why}: must run unasked; {run.describe()}"
    else:
        assert (run.ran(), len(run.asked)) == (0, 1), f"{why}: the host must be asked; {run.describe()}"


DOMAINS = ("example.com", "ex.co", "a-b.example")
"""Domains of the rules: two labels, short labels, a hyphen."""

HOST_FORMS = (
    "{d}",
    "www.{d}",
    "a.b.{d}",
    "evil{d}",
    "evil-{d}",
    "{d}.evil",
    "{d}evil.com",
    "x{first}.{rest}",
    "{D}",
    "WWW.{D}.",
    "{d}.",
)
"""Hosts around a domain ``d``: itself, children, names that end or start with its characters
without being children, and case / trailing-dot spellings (``D`` is the domain in capitals)."""

URL_FORMS = ("https://{h}/", "https://{h}:8443/x", "http://user@{h}/", "https://{h}/?q={d}")
"""Where the host sits in a URL: plain, with a port, after user info; the domain also in the query."""


def _normal(host: str) -> str:
    return host.lower().rstrip(".")


def _covered(host: str, pattern: str) -> bool:
    """Whether ``pattern`` (``d`` or ``*.d``) covers ``host``: a wildcard only covers strict children."""
    host, pattern = _normal(host), _normal(pattern)
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


@st.composite
def domain_cases(draw: st.DrawFn) -> tuple[str, str, str]:
    """(rule pattern, host, URL): a pattern spelled ``d``, ``*.d``, in capitals or with a trailing dot."""
    domain = draw(st.sampled_from(DOMAINS))
    first, rest = domain.split(".", 1)
    host = draw(st.sampled_from(HOST_FORMS)).format(d=domain, D=domain.upper(), first=first, rest=rest)
    pattern = draw(st.sampled_from(["{d}", "*.{d}", "{D}", "*.{D}", "{d}."])).format(
        d=domain, D=domain.upper()
    )
    url = draw(st.sampled_from(URL_FORMS)).format(h=host, d=domain)
    return pattern, host, url


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=60, deadline=None)
@given(case=domain_cases(), behavior=st.sampled_from(["allow", "deny"]), source=sources())
@example(
    case=("*.example.com", "evilexample.com", "https://evilexample.com/"),
    behavior="allow",
    source="userSettings",
)
@example(
    case=("*.example.com", "example.com.evil", "https://example.com.evil/"),
    behavior="allow",
    source="userSettings",
)
@example(case=("EX.CO.", "ex.co", "https://ex.co/"), behavior="deny", source="userSettings")
def test_a_domain_rule_covers_only_its_hosts(
    new_harness: Callable[[], Any], case: tuple[str, str, str], behavior: str, source: str
) -> None:
    """PERM-11 property: ``WebFetch(domain:p)`` covers a host iff it is ``p`` (``*.d``: a strict child of ``d``), normalised.

    Case and a trailing dot don't matter on either side; a port, user info or the domain in the
    query change nothing; ``evilexample.com`` and ``example.com.evil`` are not under ``*.example.com``.
    An allow rule (the host would say no) lets exactly the covered hosts run unasked; a deny rule
    beside a ``WebFetch`` allow blocks exactly them.
    """
    pattern, host, url = case
    covered = _covered(host, pattern)
    rules = [RuleSpec(f"WebFetch(domain:{pattern})", behavior, source)]  # type: ignore[arg-type]
    if behavior == "deny":
        rules.append(RuleSpec("WebFetch", "allow", source))
    run = run_calls(
        new_harness(), [fetch_tool()], [("WebFetch", {"url": url})], rules=rules, host=host_answering("deny")
    )
    why = f"WebFetch(domain:{pattern}) {behavior}, {url!r}: host {host!r} {'is' if covered else 'is not'} covered"
    if behavior == "deny":
        assert (run.ran(), run.asked) == (0 if covered else 1, []), f"{why}; {run.describe()}"
    elif covered:
        assert (run.ran(), run.asked) == (1, []), f"{why}: must run unasked; {run.describe()}"
    else:
        assert (run.ran(), len(run.asked)) == (0, 1), f"{why}: the host must be asked; {run.describe()}"
