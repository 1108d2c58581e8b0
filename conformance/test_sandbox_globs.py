"""Glob patterns in the sandbox's filesystem settings are enforced (SBX-1).

``sandbox.filesystem.denyRead`` and ``denyWrite`` take glob patterns (``./*.key``, ``**/.env``,
``secrets/**``): a file a pattern matches can't be read, or can't be changed, from inside the
sandbox, and a file a ``denyWrite`` pattern would match can't be left behind by the command. Each
draw runs the same command with the sandbox off, so the test proves the read or write works when
nothing stops it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from conformance._controls import require_control
from conformance._path_globs import gitignore_matches, globs_and_paths
from conformance._sandbox_runs import ON, allowing_host, layout, run, sandbox_off, skip_without
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat")]

SECRET = "s3cr3t-value"


@dataclass(frozen=True)
class Placement:
    """Where the guarded file sits (relative to the working directory) and a pattern that names it."""

    directory: str
    name: str
    pattern: str

    @property
    def path(self) -> str:
        return f"{self.directory}/{self.name}" if self.directory else self.name


def _pattern(directory: str, name: str, form: str, absolute: Path) -> str:
    stem, dot, suffix = name.partition(".")
    where = f"{directory}/" if directory else ""
    return {
        "star suffix, this directory": f"./{where}*{dot}{suffix}",
        "star suffix, any depth": f"**/*{dot}{suffix}",
        "bare name, any depth (gitignore)": f"**/{name}",
        "question mark": f"./{where}{stem[:-1]}?{dot}{suffix}",
        "character class": f"./{where}[{stem[0]}]{stem[1:]}{dot}{suffix}",
        "directory's contents": f"./{directory}/**" if directory else f"./*{dot}{suffix}",
        "absolute": f"{absolute}/{where}*{dot}{suffix}",
    }[form]


FORMS = (
    "star suffix, this directory",
    "star suffix, any depth",
    "bare name, any depth (gitignore)",
    "question mark",
    "character class",
    "directory's contents",
    "absolute",
)


@st.composite
def placements(draw: Callable[..., Any], work: Path) -> Placement:
    """A file name, a directory (none, one or two levels) and one of the pattern forms naming it."""
    directory = draw(st.sampled_from(["", "keys", "config/private", ".hidden"]))
    name = draw(st.sampled_from(["server.key", "id.pem", "prod.env", "token.json"]))
    form = draw(st.sampled_from(FORMS))
    return Placement(directory, name, _pattern(directory, name, form, work))


def _place(work: Path, placement: Placement) -> Path:
    target = work / placement.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"{SECRET}\n")
    return target


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_deny_read_globs_hide_what_they_match(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """SBX-1: a file matched by a ``denyRead`` glob can't be read inside the sandbox, however it is reached.

    The read goes through a path assembled at run time and through a second glob of the shell's
    own, so only the sandbox can stop it; unsandboxed the same command prints the secret.
    """
    place = layout(tmp_path_factory.mktemp("globs"))
    placement = data.draw(placements(place.work), label="placement")
    _place(place.work, placement)
    name = placement.path
    command = f'f="{name}"; cat "$f"; cat ./{name.rpartition("/")[0] or "."}/*'
    denied = sandbox_settings(sandbox={"filesystem": {"denyRead": [placement.pattern]}})
    on = run(new_harness(), command, place.work, denied, host=allowing_host())
    assert on.ran, on.output
    assert SECRET not in on.output, f"denyRead {placement.pattern!r} let {name!r} be read: {on.output!r}"
    off = run(new_harness(), command, place.work, dict(sandbox_off(ON)), host=allowing_host())
    assert SECRET in off.output, f"control: unsandboxed the file was not read: {off.output!r}"


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), how=st.sampled_from(["overwrite", "append", "replace by mv", "delete", "create"]))
def test_deny_write_globs_keep_what_they_match(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    data: st.DataObject,
    how: str,
) -> None:
    """SBX-1: a file matched by a ``denyWrite`` glob is unchanged after a sandboxed command, and one created to match is gone.

    Changing an existing match fails inside the sandbox; a new file the pattern matches, which
    can't be a mount before it exists, is removed after the command (and the result says so).
    Unsandboxed the same command changes the file.
    """
    place = layout(tmp_path_factory.mktemp("globs"))
    placement = data.draw(placements(place.work), label="placement")
    target = place.work / placement.path
    if how == "create":
        target.parent.mkdir(parents=True, exist_ok=True)
    else:
        _place(place.work, placement)
    name = placement.path
    command = {
        "overwrite": f"echo pwned > '{name}'",
        "append": f"echo pwned >> '{name}'",
        "replace by mv": f"echo pwned > new.tmp && mv -f new.tmp '{name}'",
        "delete": f"rm -f '{name}'",
        "create": f"echo pwned > '{name}'",
    }[how]

    def changed() -> bool:
        if how == "create":
            return target.exists()
        return not target.exists() or target.read_text() != f"{SECRET}\n"

    denied = sandbox_settings(sandbox={"filesystem": {"denyWrite": [placement.pattern]}})
    on = run(new_harness(), command, place.work, denied, host=allowing_host())
    assert not changed(), f"denyWrite {placement.pattern!r}: {how} of {name!r} got through: {on.output!r}"
    if how == "create":
        target.unlink(missing_ok=True)
    else:
        _place(place.work, placement)
    run(new_harness(), command, place.work, dict(sandbox_off(ON)), host=allowing_host())
    assert changed(), f"control: unsandboxed, {how} of {name!r} did nothing"


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=globs_and_paths())
@example(case=("[[:digit:]]*", "0a"))
@example(case=("a**/**", "a"))
def test_read_deny_rule_globs_hide_what_git_matches(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, case: tuple[str, str]
) -> None:
    """SBX-1: a file a ``Read(//DIR/GLOB)`` deny rule matches, as git matches it, can't be read inside the sandbox.

    The glob is composed of gitignore's pieces (:mod:`conformance._path_globs`) and the file is one git
    says the glob matches; the command builds its path at run time, so only the sandbox can stop it.
    Unsandboxed the same command prints the secret.
    """
    glob, path = case
    place = layout(tmp_path_factory.mktemp("globs"))
    data = place.outside / "data"
    (data / path).parent.mkdir(parents=True, exist_ok=True)
    (data / path).write_text(f"{SECRET}\n")
    assume(gitignore_matches(data, glob, path))
    command = f"cat \"$(printf '%s/%s' {shlex.quote(str(data))} {shlex.quote(path)})\""
    denied = sandbox_settings(deny=[f"Read(/{data}/{glob})"])
    try:
        on = run(new_harness(), command, place.work, denied, host=allowing_host())
    except Exception as error:  # a harness may refuse a rule it can't enforce, naming it
        refused = str(error)
        assert glob in refused, f"Read(/{data}/{glob}) refused without naming it: {refused}"
        return
    assert SECRET not in on.output, (
        f"Read(/{data}/{glob}) deny let {path!r} be read in the sandbox: {on.output!r}"
    )
    off = run(new_harness(), command, place.work, dict(sandbox_off(denied)), host=allowing_host())
    require_control(SECRET in off.output, f"unsandboxed, {path!r} was not read: {off.output!r}")
