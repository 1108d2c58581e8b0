"""``..`` after a symbolic link, as the kernel resolves it where a program changes directory (PERM-17).

With ``l -> evil/sub``, ``chdir("l/..")`` lands in ``evil``: the kernel follows the link before it
climbs. Bash's own ``cd l/..`` folds the text (``..`` drops ``l``) and stays in the project, but
``cd -P``, ``git -C``, ``env -C``, ``make -C`` and every program's own chdir climb from the link's
target, where another repository's configuration and another Makefile run a denied program.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, PermissionDecision, decide_permission, parse_rule
from reference_impl.permissions._paths import cd_directories, chdir_directory
from tests.test_rules import BASH

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

_ALLOW = ("Bash(git:*)", "Bash(make:*)", "Bash(env:*)", "Bash(cd:*)", "Bash(npm:*)")


def _decide(command: str, cwd: Path) -> PermissionDecision:
    rules = (parse_rule("Bash(nuke:*)", "deny", "userSettings"),)
    rules += tuple(parse_rule(text, "allow", "userSettings") for text in _ALLOW)
    context = PermissionContext(mode="default", rules=rules, cwd=cwd)  # type: ignore[arg-type]
    return decide_permission(BASH, {"command": command}, context)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a harmless Makefile, and ``l``, a link to ``evil/sub``, whose parent runs nuke."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    root = tmp_path / "proj"
    (root / "evil" / "sub").mkdir(parents=True)
    (root / "l").symlink_to("evil/sub")
    (root / "Makefile").write_text("all:\n\t@echo ok\n")
    (root / "evil" / "Makefile").write_text("all:\n\tnuke\n")
    subprocess.run(["git", "init", "-q", "."], cwd=root, env=env, check=True)
    subprocess.run(["git", "init", "-q", "evil"], cwd=root, env=env, check=True)
    subprocess.run(["git", "-C", "evil", "config", "core.fsmonitor", "nuke"], cwd=root, env=env, check=True)
    return root


@pytest.mark.parametrize(
    "line",
    [
        "cd -P l/.. && git status",
        "cd -LP l/.. && git status",
        "git -C l/.. status",
        "git -C l -C .. status",
        "cd l && git -C .. status",  # bash's PWD is the link, git's chdir("..") is the kernel's
        "cd -P l && cd .. && git status",  # after cd -P, bash's PWD is evil/sub itself
        "env -C l/.. make -s",
        "env --chdir=l/.. make -s",
        "make -C l/.. -s",
        "make --directory=l/.. -s",
        "cd l && make -C .. -s",
    ],
)
def test_a_climb_through_a_link_is_where_the_kernel_lands(project: Path, line: str) -> None:
    assert _decide(line, project).behavior != "allow", line


@pytest.mark.parametrize(
    "line",
    ["cd l/.. && git status", "cd l && cd .. && make -s", "git -C evil/sub/.. -C .. status", "make -s"],
)
def test_bash_s_own_cd_folds_the_text_and_stays(project: Path, line: str) -> None:
    """Logical ``cd`` (bash's default) really comes back to the project: no needless question."""
    assert _decide(line, project).behavior == "allow", line


def test_the_kernel_s_and_bash_s_landings(tmp_path: Path) -> None:
    (tmp_path / "evil" / "sub").mkdir(parents=True)
    (tmp_path / "l").symlink_to("evil/sub")
    here = str(tmp_path)
    assert chdir_directory(here, "l/..") == os.path.realpath(tmp_path / "evil")
    assert chdir_directory(here, "evil/sub/..") == f"{here}/evil"
    assert chdir_directory(here, "l") == f"{here}/l"  # no climb: the link's own name
    assert cd_directories(here, "l/..", physical=False) == [here]
    assert cd_directories(here, "l", physical=True) == [os.path.realpath(tmp_path / "evil" / "sub")]
    assert cd_directories(f"{here}/l", "..", physical=False) == [here]
