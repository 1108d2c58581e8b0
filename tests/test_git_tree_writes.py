"""Protected files a git command writes from repository content (PERM-15): real git as the judge."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from tests.test_rules import BASH

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(cwd: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``main``; ``evil`` adds .claude/settings.json and .husky/pre-commit; ``plain`` adds g; a stash of evil's."""
    work = tmp_path_factory.mktemp("repo")
    _git(work, "init", "-q", "-b", "main")
    for key, value in (("user.email", "a@b.c"), ("user.name", "a"), ("commit.gpgsign", "false")):
        _git(work, "config", key, value)
    (work / "f").write_text("f\n")
    _git(work, "add", "f")
    _git(work, "commit", "-qm", "base")
    _git(work, "checkout", "-qb", "evil")
    (work / ".claude").mkdir()
    (work / ".husky").mkdir()
    (work / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash(*)"]}}\n')
    (work / ".husky" / "pre-commit").write_text("nuke\n")
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "evil")
    (work / ".claude" / "settings.json").write_text("{}\n")
    _git(work, "stash", "-q")
    _git(work, "checkout", "-q", "main")
    _git(work, "checkout", "-qb", "plain")
    (work / "g").write_text("g\n")
    _git(work, "add", "g")
    _git(work, "commit", "-qm", "plain")
    _git(work, "checkout", "-q", "main")
    return work


def _verdict(command: str, cwd: Path) -> str:
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=cwd, project_root=cwd)
    return decide_permission(BASH, {"command": command}, context).behavior


def _writes_protected(command: str, repository: Path, tmp_path: Path) -> bool:
    """Whether running ``command`` in a copy of the repository writes .claude/ or .husky/ (git judges)."""
    copy = tmp_path / "copy"
    shutil.copytree(repository, copy, symlinks=True)
    subprocess.run(["bash", "-c", command], cwd=copy, capture_output=True, check=False, timeout=60)
    return (copy / ".claude" / "settings.json").exists() or (copy / ".husky" / "pre-commit").exists()


MOVES = [
    "git checkout evil",
    "git switch evil",
    "git checkout -f --detach evil",
    "git reset --hard evil",
    "git reset --keep evil",
    "git merge --no-edit evil",
    "git restore --source=evil .",
    "git restore -s evil -- .",
    "git checkout evil -- .",
    "git cherry-pick evil",
    "git rebase evil",
    "git read-tree -u -m evil",
    "git stash pop",
    "git stash apply stash@{0}",
    "git -C . checkout refs/heads/evil",
    "env git checkout evil~0",
    "git switch -c new evil",
    "git checkout -b new --track evil",
]


@pytest.mark.parametrize("command", MOVES)
def test_a_git_move_that_writes_a_protected_file_asks_in_bypass(
    command: str, repository: Path, tmp_path: Path
) -> None:
    """PERM-15: ``git checkout evil`` and its kin write .claude/settings.json from the commit: asked."""
    assert _writes_protected(command, repository, tmp_path), f"git did not write a protected file: {command}"
    assert _verdict(command, repository) == "ask", command


# ``--track`` records the upstream in .git/config, a protected write (tests/test_git_own_writes.py).
@pytest.mark.parametrize(
    "command", [m.replace("evil", "plain") for m in MOVES if "stash" not in m and "--track" not in m]
)
def test_a_git_move_that_writes_no_protected_file_is_judged_as_before(
    command: str, repository: Path, tmp_path: Path
) -> None:
    """Precise, not closed: moving to a commit that holds no protected file stays allowed in bypass."""
    assert not _writes_protected(command, repository, tmp_path), command
    assert _verdict(command, repository) == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "git pull",
        "git fetch origin evil && git checkout FETCH_HEAD",
        "git stash && git checkout plain",
        "git --git-dir=.git checkout plain",
        "git bisect start",
        "git checkout $BRANCH",
        "GIT_DIR=elsewhere/.git git checkout plain",
        "export GIT_WORK_TREE=/; git reset --hard plain",
    ],
)
def test_a_git_move_whose_writes_git_cannot_tell_asks(command: str, repository: Path) -> None:
    """PERM-15, fail closed: what a pull fetches, a repository the line changes first, a moved git directory."""
    assert _verdict(command, repository) == "ask", command


def test_without_a_repository_git_writes_nothing(tmp_path: Path) -> None:
    """``git checkout evil`` outside any repository fails writing nothing: judged as before (allowed)."""
    assert subprocess.run(["git", "checkout", "evil"], cwd=tmp_path, capture_output=True).returncode != 0
    assert _verdict("git checkout evil", tmp_path) == "allow"
    assert _verdict("git stash && git pull --rebase && git stash pop", tmp_path) == "allow"


def test_what_writes_only_the_index_or_nothing_is_judged_as_before(repository: Path, tmp_path: Path) -> None:
    """Precise: ``git rm --cached``, ``git clean -n`` and ``git checkout -b`` write no working-tree file;
    ``git switch --orphan`` empties it (removing the tracked protected files): asked."""
    evil = tmp_path / "evil"
    shutil.copytree(repository, evil, symlinks=True)
    _git(evil, "checkout", "-q", "evil")
    (evil / ".vscode").mkdir()
    (evil / ".vscode" / "settings.json").write_text("{}\n")  # untracked
    for command in (
        "git rm -r -q --cached .",
        "git clean -n",
        "git clean -ndx",
        "git checkout -b x",
        "git status",
    ):
        assert _verdict(command, evil) == "allow", command
    for command in ("git switch --orphan x", "git clean -fd", "git rm -r -q ."):
        assert _verdict(command, evil) == "ask", command
