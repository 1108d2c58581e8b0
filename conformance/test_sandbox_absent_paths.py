"""Denied and protected paths that are not there before a sandboxed command are not there after it (SBX-1, SBX-2).

A path that does not exist can't be mounted read-only without making it in the user's tree, so a
harness must stop the command from creating it some other way (Claude Code removes what the command
planted). Each example draws what stands on the way to the path before the command (missing
directories, which the command may make as a symlink to a directory of its own, a file the command
replaces by a directory, a symlink to a directory that is not there yet, the path itself such a
symlink) and the command goes round it; afterwards nothing may be found
at the path, while the same command unsandboxed leaves the file there. The clean-up itself must not
write outside the writable area: a command that turns a directory on the way into a symlink to an
outside directory holding a file of the path's name must not get that file removed on its behalf.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance._controls import require_control
from conformance._sandbox_runs import allowing_host, layout, run, sandbox_off, skip_without
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat")]

PROTECTIONS = (
    "denyWrite, relative",
    "denyWrite, absolute",
    "Edit deny rule, relative",
    "Write deny rule, absolute",
)
"""How the path is denied: ``sandbox.filesystem.denyWrite`` or an edit tool's deny rule naming it."""

OBSTACLES = (
    "missing directories",
    "missing directories, made through a symlink",
    "a file in the way",
    "a dangling symlink in the way",
    "a dangling symlink",
)
"""What stands on the way to the denied path before the command."""

WRITERS: dict[str, Callable[[str], str]] = {
    "redirection": lambda path: f'echo pwned > "{path}"',
    "a child interpreter": lambda path: (
        f'{sys.executable} -c \'import sys; open(sys.argv[1], "w").write("pwned")\' "{path}"'
    ),
}
"""Programs that create ``path`` (a variable's value: the path is put together when the command runs)."""


@dataclass(frozen=True)
class Absent:
    """One drawn example: the denied path (relative to the working directory) and what is in its way."""

    protection: str
    parts: tuple[str, ...]
    """The path's components; every one but the last is a directory once the command has run."""
    obstacle: str
    at: int
    """Which directory of ``parts`` the obstacle is (missing directories: the first one missing)."""
    writer: str


@st.composite
def absents(draw: st.DrawFn) -> Absent:
    depth = draw(st.integers(1, 2))
    obstacle = draw(st.sampled_from(OBSTACLES))
    return Absent(
        protection=draw(st.sampled_from(PROTECTIONS)),
        parts=(*("gen", "out")[:depth], "secret.txt"),
        obstacle=obstacle,
        at=draw(st.integers(0, depth - 1)),
        writer=draw(st.sampled_from(sorted(WRITERS))),
    )


def _prepare(work: Path, case: Absent) -> str:
    """Make the layout's obstacle under ``work``; the shell lines that go round it (relative paths)."""
    directories = case.parts[:-1]
    path = "/".join(case.parts)
    if case.obstacle == "missing directories":
        (work.joinpath(*directories[: case.at])).mkdir(parents=True, exist_ok=True)
        return f"mkdir -p {shlex.quote('/'.join(directories))}"
    if case.obstacle == "missing directories, made through a symlink":
        # The first missing directory becomes a symlink to one the command makes beside it.
        (work.joinpath(*directories[: case.at])).mkdir(parents=True, exist_ok=True)
        link = "/".join(directories[: case.at + 1])
        rest = "/".join(directories[case.at + 1 :])
        made = shlex.quote(f"store/{rest}".rstrip("/"))
        return f'mkdir -p {made} && ln -s "$PWD/store" {shlex.quote(link)}'
    if case.obstacle == "a dangling symlink":
        work.joinpath(*directories).mkdir(parents=True)
        (work / path).symlink_to(work / "store" / case.parts[-1])
        return "mkdir -p store"
    (work.joinpath(*directories[: case.at])).mkdir(parents=True, exist_ok=True)
    blocker = "/".join(directories[: case.at + 1])
    if case.obstacle == "a file in the way":
        (work / blocker).write_text("a file\n")
        return f"rm -f {shlex.quote(blocker)} && mkdir -p {shlex.quote('/'.join(directories))}"
    # A symlink to a directory inside the working directory that the command makes.
    (work / blocker).symlink_to(work / "store")
    rest = "/".join(directories[case.at + 1 :])
    return f"mkdir -p {shlex.quote(f'store/{rest}'.rstrip('/'))}"


def _denied(work: Path, protection: str, parts: tuple[str, ...]) -> dict[str, Any]:
    relative, absolute = "./" + "/".join(parts), f"{work}/" + "/".join(parts)
    return {
        "denyWrite, relative": sandbox_settings(sandbox={"filesystem": {"denyWrite": [relative]}}),
        "denyWrite, absolute": sandbox_settings(sandbox={"filesystem": {"denyWrite": [absolute]}}),
        "Edit deny rule, relative": sandbox_settings(deny=[f"Edit({relative})"]),
        "Write deny rule, absolute": sandbox_settings(deny=[f"Write(/{absolute})"]),
    }[protection]


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=absents())
@example(
    case=Absent("denyWrite, relative", ("gen", "out", "secret.txt"), "missing directories", 0, "redirection")
)
@example(
    case=Absent("Write deny rule, absolute", ("gen", "secret.txt"), "missing directories", 0, "redirection")
)
@example(
    case=Absent(
        "denyWrite, absolute",
        ("gen", "secret.txt"),
        "missing directories, made through a symlink",
        0,
        "redirection",
    )
)
@example(
    case=Absent("denyWrite, absolute", ("gen", "out", "secret.txt"), "a file in the way", 1, "redirection")
)
@example(
    case=Absent("Edit deny rule, relative", ("gen", "secret.txt"), "a dangling symlink", 0, "redirection")
)
def test_a_denied_path_the_command_creates_is_not_left_behind(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, case: Absent
) -> None:
    """SBX-1 property: a path ``denyWrite`` or an edit tool's deny rule names, absent before a sandboxed command, is absent after it.

    Whatever stood on its way (directories not there yet, made as such or as a symlink to a directory
    the command makes; a file the command replaces by a directory; a symlink to a directory the
    command then makes; the path a symlink to a file not there yet), nothing is found at the path
    after the command; unsandboxed, the same command leaves the file there.
    """
    path = "/".join(case.parts)
    for on in (True, False):
        place = layout(tmp_path_factory.mktemp("absent"))
        around = _prepare(place.work, case)
        denied = _denied(place.work, case.protection, case.parts)
        # The path is put together when the command runs, so only the sandbox can stop the write.
        command = f"P=$(printf '%s' {shlex.quote(path)}); {around}; {WRITERS[case.writer]('$P')}; true"
        outcome = run(
            new_harness(), command, place.work, denied if on else sandbox_off(denied), host=allowing_host()
        )
        assert outcome.ran, f"the command did not run: {outcome.output}"
        there = os.path.exists(place.work / path)
        if on:
            assert not there, (
                f"{case.protection} {path!r} ({case.obstacle}): the sandboxed {case.writer} left it behind:"
                f" {outcome.output!r}"
            )
        else:
            require_control(there, f"unsandboxed, {command!r} did not create {path!r}: {outcome.output!r}")


PROTECTED_PLANTS = {
    ".claude": "skills/evil/SKILL.md",
    ".git": "hooks/pre-commit",
}
"""A protected directory of SBX-2 and the file a command plants in it."""


@pytest.mark.requirement("SBX-2", "MUST")
@pytest.mark.parametrize("name", sorted(PROTECTED_PLANTS))
def test_a_protected_directory_that_is_a_dangling_symlink_gets_nothing_planted(
    new_harness: Callable[[], Any], tmp_path: Path, name: str
) -> None:
    """SBX-2: ``.claude`` or ``.git`` a symlink to a directory not made yet: a skill or hook planted through it does not stay.

    The command makes the symlink's target (inside the working directory, so writable) and writes
    the skill or hook through the symlink; afterwards nothing is found there. Unsandboxed it is.
    """
    plant = f"{name}/{PROTECTED_PLANTS[name]}"
    for base, on in ((tmp_path / "on", True), (tmp_path / "off", False)):
        place = layout(base)
        (place.work / name).symlink_to(place.work / "kept")
        command = f"mkdir -p kept/{os.path.dirname(PROTECTED_PLANTS[name])} && echo evil > {plant}; true"
        with_settings = sandbox_settings() if on else sandbox_off(sandbox_settings())
        # The settings file is the user's (outside the working directory), not in ``.claude``.
        outcome = run(
            new_harness(), command, place.work, with_settings, host=allowing_host(), source="userSettings"
        )
        assert outcome.ran, outcome.output
        there = (place.work / plant).exists()
        if on:
            assert not there, (
                f"{plant} planted through the dangling {name} symlink stayed: {outcome.output!r}"
            )
        else:
            require_control(there, f"unsandboxed, {command!r} planted nothing: {outcome.output!r}")


@dataclass(frozen=True)
class Swap:
    """One drawn example: the denied path, which directory on its way the command swaps, and for where."""

    protection: str
    parts: tuple[str, ...]
    at: int
    """Which directory of ``parts`` becomes a symlink to the outside directory."""
    outside: str
    """The outside directory's name, beside the working directory (sorting before or after it)."""


@st.composite
def swaps(draw: st.DrawFn) -> Swap:
    depth = draw(st.integers(1, 2))
    return Swap(
        protection=draw(st.sampled_from(PROTECTIONS)),
        parts=(*("gen", "out")[:depth], "secret.txt"),
        at=draw(st.integers(0, depth - 1)),
        outside=draw(st.sampled_from(["aside", "zone"])),
    )


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=swaps())
@example(case=Swap("denyWrite, relative", ("gen", "secret.txt"), 0, "zone"))
@example(case=Swap("Write deny rule, absolute", ("gen", "out", "secret.txt"), 1, "aside"))
def test_the_clean_up_after_a_command_writes_nothing_outside(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, case: Swap
) -> None:
    """SBX-1 property: a sandboxed command can't have a file outside the writable area removed for it.

    The denied path is absent, its directories there; the command replaces one of them by a symlink
    to a directory outside the writable area that holds a file at the rest of the path, so the denied
    path now names that file. After the command the outside file is still there, unchanged.
    """
    place = layout(tmp_path_factory.mktemp("swap"))
    directories = case.parts[:-1]
    place.work.joinpath(*directories).mkdir(parents=True)
    outside = place.root / case.outside
    rest = case.parts[case.at + 1 :]
    victim = outside.joinpath(*rest)
    victim.parent.mkdir(parents=True, exist_ok=True)
    victim.write_text("the user's own\n")
    swapped = "/".join(directories[: case.at + 1])
    command = (
        f"rm -rf {shlex.quote(swapped)} && ln -s {shlex.quote(str(outside))} {shlex.quote(swapped)}; true"
    )
    outcome = run(
        new_harness(),
        command,
        place.work,
        _denied(place.work, case.protection, case.parts),
        host=allowing_host(),
    )
    assert outcome.ran, outcome.output
    require_control(
        (place.work / swapped).is_symlink(),
        f"the command did not swap {swapped} for a symlink: {outcome.output!r}",
    )
    assert victim.exists(), f"{victim}, outside the writable area, was removed: {outcome.output!r}"
    assert victim.read_text() == "the user's own\n", (
        f"{victim}, outside the writable area, was changed after a command swapped {swapped} for a symlink"
        f" to {outside} ({case.protection} {'/'.join(case.parts)!r}): {outcome.output!r}"
    )
