"""Paths into a process's own state, folded as the kernel walks them, with the kernel as judge (PERM-15, PERM-17).

Two live processes, each with its own working directory and a directory open on descriptor 7,
open the composed paths (``/proc/<pid>/task/<tid>/cwd/m``, ``/../proc/self/root``,
``/dev/fd/../cwd``, ``//proc/./thread-self/fd/7/s/m``...). What the kernel opens is the truth:
:func:`shell_state` must name the link it goes through (working directory, root or descriptor),
whose process (its own, or the one its number names) and the rest of the path after it;
:func:`process_directory` must hold for every directory of a process's state the path reaches
itself; :func:`descriptor_of` for every spelling that reaches an open descriptor.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._descriptors import (
    UNKNOWN_DESCRIPTOR,
    descriptor_of,
    process_directory,
    shell_state,
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs Linux's /proc")

# A process that opens what it is sent: ``{own}``, ``{other}`` are its and the other's process ids.
_OPENER = r"""
import json, os, sys
os.dup2(os.open(sys.argv[1], os.O_RDONLY), 7)
other = sys.stdin.readline().strip()
for line in sys.stdin:
    path = json.loads(line).replace("{own}", str(os.getpid())).replace("{other}", other)
    try:
        found = os.stat(path)
        print(json.dumps([found.st_dev, found.st_ino]), flush=True)
    except OSError as error:
        print(json.dumps(error.__class__.__name__), flush=True)
"""


@dataclass
class _Opener:
    process: subprocess.Popen[str]
    cwd: Path
    held: Path  # the directory open on descriptor 7

    def opens(self, path: str) -> list[int] | str:
        """What the kernel opens for ``path`` in this process: (device, inode), or the error's name."""
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps(path) + "\n")
        self.process.stdin.flush()
        found: list[int] | str = json.loads(self.process.stdout.readline())
        return found


def _identity(path: Path | str) -> list[int] | str:
    try:
        found = os.stat(path)
    except OSError as error:
        return error.__class__.__name__
    return [found.st_dev, found.st_ino]


@pytest.fixture(scope="module")
def openers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[_Opener, _Opener]]:
    made = []
    for name in ("a", "b"):
        root = tmp_path_factory.mktemp(f"opener-{name}")
        for place in (root / "cwd", root / "held"):
            (place / "s").mkdir(parents=True)
            (place / "m").write_text(name, encoding="utf-8")
            (place / "s" / "m").write_text(name, encoding="utf-8")
        process = subprocess.Popen(
            [sys.executable, "-c", _OPENER, str(root / "held")],
            cwd=root / "cwd",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        made.append(_Opener(process, root / "cwd", root / "held"))
    first, second = made
    for one, other in ((first, second), (second, first)):
        assert one.process.stdin is not None
        one.process.stdin.write(f"{other.process.pid}\n")
        one.process.stdin.flush()
    yield first, second
    for opener in made:
        opener.process.kill()
        opener.process.communicate()


# Which process a path names: the opener itself (``self``, ``thread-self``, its own number) or the other.
_PROCESSES = {"self": "own", "thread-self": "own", "{own}": "own", "{other}": "other"}
# The rest after a link: nothing, the marker, through a subdirectory and back, out and in again.
_RESTS = ("", "m", "s/m", "s/../m", "s/./m", "./s//m", "nothing")


def _equivalents(previous: str, segment: str) -> list[list[str]]:
    """Spellings the kernel walks to the same place as ``segment`` after ``previous``: detours through ``..``."""
    if previous == "proc" and segment == "thread-self":
        # /proc/thread-self is /proc/<pid>/task/<tid>: two levels, so one ``..`` is the task directory.
        return [[segment], [segment, "..", "{own}"], ["self", "task", "..", "..", segment]]
    if previous == "proc" and segment == "self":
        # /proc/net is a link to ``self/net``: its parent is the process's own directory.
        return [[segment], [segment, "..", segment], ["thread-self", "..", ".."], ["net", ".."]]
    if previous in ("proc", "task"):
        return [[segment], [segment, "..", segment]]
    if previous == "dev":
        return [[segment], ["..", "dev", segment]]
    return [[segment]]


@st.composite
def _noise(draw: st.DrawFn, segments: list[str]) -> list[str]:
    """``segments`` with ``.``, empty segments (``//``) and detours through ``..`` spliced in."""
    out: list[str] = []
    for index, segment in enumerate(segments):
        out.extend(draw(st.lists(st.sampled_from((".", "")), max_size=2)))
        out.extend(draw(st.sampled_from(_equivalents(segments[index - 1] if index else "", segment))))
    return out


@st.composite
def _state_paths(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """(path, the process segment it names, the link it goes through, the rest after it), composed."""
    process = draw(st.sampled_from(sorted(_PROCESSES)))
    link = draw(st.sampled_from(("cwd", "root", "fd/7", "fd/9")))
    thread = draw(st.booleans()) and process in ("{own}", "{other}", "self")
    pid = process if process != "self" else "{own}"
    head = ["proc", process, *(["task", pid] if thread else [])]
    if link.startswith("fd/") and process in ("self", "thread-self") and not thread and draw(st.booleans()):
        head = ["dev"] if draw(st.booleans()) else ["dev", "fd", ".."]  # /dev/fd is /proc/self/fd
    rest = draw(st.sampled_from(("", "tmp", "etc") if link == "root" else _RESTS))
    climb = [".."] * draw(st.integers(0, 2))  # ``/../proc``: the root's parent is the root
    segments = climb + draw(_noise([*head, *link.split("/")])) + [s for s in rest.split("/") if rest]
    path = "/" + "/".join(segments)
    if draw(st.booleans()) and not rest:
        path += "/"
    return path, process, link, rest


def _base(opener: _Opener, link: str) -> Path | None:
    """Where ``link`` of ``opener`` leads: its directory, the root, the directory on descriptor 7; None: closed."""
    return {"cwd": opener.cwd, "root": Path("/"), "fd/7": opener.held}.get(link)


@settings(max_examples=300, deadline=None)
@given(drawn=_state_paths())
def test_shell_state_names_the_link_the_kernel_goes_through(
    openers: tuple[_Opener, _Opener], drawn: tuple[str, str, str, str]
) -> None:
    """PERM-15: for every composed spelling, the link :func:`shell_state` names, opened in the process it names, is what the kernel opens.

    Both openers open the path; each must find what the link's place (its own, or the other
    process's, as the spelling says) joined with the rest holds.
    """
    path, process, link, _rest = drawn
    state = shell_state(path.replace("{own}", "1").replace("{other}", "2"))
    assert state is not None, f"{path}: goes through a process's {link}"
    kind, own, after = state
    assert kind == ("descriptor" if link.startswith("fd/") else link), path
    assert own is (process in ("self", "thread-self")), path
    named = _PROCESSES[process]
    for index, opener in enumerate(openers):
        process = opener if named == "own" else openers[1 - index]
        base = _base(process, link)
        expected = "FileNotFoundError" if base is None else _identity(base / after if after else base)
        found = opener.opens(path)
        if base is None:
            assert isinstance(found, str), f"{path}: descriptor 9 is closed, yet it opened"
        else:
            assert found == expected, f"{path} in {opener.cwd}: the kernel opens {found}, not {base}/{after}"


# Directories of a process's state, as the kernel opens them for a process's own number.
_STATE_DIRECTORIES = ("/proc/{own}", "/proc/{own}/fd", "/proc/{own}/task", "/proc/{own}/task/{own}",
                      "/proc/{own}/task/{own}/fd", "/proc/{own}/cwd")  # fmt: skip


@st.composite
def _directory_paths(draw: st.DrawFn) -> str:
    """A spelling of a directory in /proc or /dev (or near one), composed of the segments that name process state."""
    process = draw(st.sampled_from(("self", "thread-self", "{own}")))
    tails = (
        [],
        ["fd"],
        ["task"],
        ["task", "{own}"],
        ["task", "{own}", "fd"],
        ["cwd"],
        ["fdinfo"],
        ["task", "{own}", "cwd"],
    )
    head = ["proc", process, *draw(st.sampled_from(tails))]
    if draw(st.booleans()) and head[2:] == ["fd"] and process == "self":
        head = ["dev", "fd"]
    climb = [".."] * draw(st.integers(0, 2))
    # Long detours too: a count of segments past the small integers Python keeps one object of.
    detour = ["proc", ".."] * draw(st.sampled_from((0, 0, 1, 130)))
    segments = climb + detour + draw(_noise(head))
    return "/" + "/".join(segments) + ("/" if draw(st.booleans()) else "")


@settings(max_examples=200, deadline=None)
@given(path=_directory_paths())
def test_a_directory_of_process_state_is_known_as_one(openers: tuple[_Opener, _Opener], path: str) -> None:
    """PERM-15: every spelling that opens a directory of the process's own state (its /proc directory, fd, task, a thread's, its cwd) is a process directory.

    A link to one, or a file copied into it, lands where the writing process's state says; the
    kernel (the opener's identities of its own state directories) judges which spellings reach one.
    """
    opener = openers[0]
    states = {str(opener.opens(d)) for d in _STATE_DIRECTORIES}
    if str(opener.opens(path)) in states:
        assert process_directory(path.replace("{own}", "1")), (
            f"{path} opens a directory of the process's state"
        )


@settings(max_examples=200, deadline=None)
@given(drawn=_state_paths(), relative=st.booleans(), depth=st.integers(0, 3))
# A random run of session 39: a relative climb to /proc/thread-self/../.. was folded lexically first
# (normpath dropped thread-self before the kernel's two levels), so descriptor 7 was read as a file.
@example(drawn=("/proc/thread-self/../../task/{own}/fd/7", "self", "fd/7", ""), relative=True, depth=0)
def test_a_spelling_that_opens_a_descriptor_is_a_descriptor(
    openers: tuple[_Opener, _Opener], drawn: tuple[str, str, str, str], relative: bool, depth: int
) -> None:
    """PERM-17: a spelling the kernel opens as descriptor 7 (absolute, or climbing from the working directory) is a descriptor, and a number named is that descriptor.

    ``descriptor_of`` gives 7 (or "may be one"), never None, for what the opener opens as the
    directory on its descriptor 7; where it names a number, the opener opens what it holds.
    """
    path, process, _link, rest = drawn
    if _PROCESSES[process] != "own":
        return
    opener = openers[0]
    spelled = path if not relative else "../" * (len(opener.cwd.parts) + depth) + path.lstrip("/")
    found = descriptor_of(spelled.replace("{own}", "1"))
    if not rest and opener.opens(spelled) == _identity(opener.held):
        assert found in (7, UNKNOWN_DESCRIPTOR), spelled
    if found is not None and found >= 0:
        # A number is a claim: the path opens what that descriptor holds (a file beneath it does not).
        assert opener.opens(spelled) == opener.opens(f"/proc/self/fd/{found}"), f"{spelled} is not {found}"


def _links_into_state() -> set[tuple[str, str]]:
    """Every link directly in /proc or /dev that leads back into one of them (the kernel's readlink)."""
    found = set()
    for top in ("proc", "dev"):
        for name in os.listdir(f"/{top}"):
            try:
                target = os.readlink(f"/{top}/{name}")
            except OSError:
                continue
            folded = os.path.normpath(target if target.startswith("/") else f"/{top}/{target}")
            if folded.startswith(("/proc/", "/dev/")) and not name.isdigit():
                found.add((top, name))
    return found


@pytest.mark.parametrize("order", ["digits and self first", "reversed", "as listed"])
def test_every_machine_link_is_read_whatever_order_the_directory_lists(
    order: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PERM-15: the links /proc and /dev hold into themselves (``/proc/net``, ``/proc/mounts``) are all folded, in any listing order."""
    from reference_impl.permissions import _descriptors

    real = os.listdir

    def listed(path: str) -> list[str]:
        names = real(path)
        if order == "reversed":
            return names[::-1]
        if order == "digits and self first":
            return sorted(
                names, key=lambda n: (not (n.isdigit() or n in ("self", "thread-self", "fd", "stdin")), n)
            )
        return names

    monkeypatch.setattr(os, "listdir", listed)
    _descriptors._machine_links.cache_clear()
    try:
        links = _descriptors._machine_links()
    finally:
        monkeypatch.undo()
        _descriptors._machine_links.cache_clear()
    expected = _links_into_state() - set(_descriptors._FIXED_LINKS) - {("proc", "self")}
    assert expected <= set(links), f"missed {sorted(expected - set(links))}"


def test_a_machine_without_proc_or_dev_listings_folds_what_it_can(monkeypatch: pytest.MonkeyPatch) -> None:
    """PERM-14: when /proc or /dev can't be listed (a container without them), reading their links never raises."""
    from reference_impl.permissions import _descriptors

    def unlisted(path: str) -> list[str]:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(os, "listdir", unlisted)
    _descriptors._machine_links.cache_clear()
    try:
        assert _descriptors._machine_links() == {}
    finally:
        monkeypatch.undo()
        _descriptors._machine_links.cache_clear()
