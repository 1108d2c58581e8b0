"""Protected files a program writes by convention, with no path on its line (PERM-15)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from tests.test_rules import BASH


def _verdict(command: str, cwd: Path) -> str:
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=cwd, project_root=cwd)
    return decide_permission(BASH, {"command": command}, context).behavior


@pytest.mark.parametrize(
    "command",
    [
        "git maintenance register",
        "git maintenance start --scheduler=crontab",
        "git maintenance unregister",
        "git -C sub maintenance stop",
        "git lfs install",
        "git-lfs install --local",
        "scalar register",
        "git flow init -d",
        "pre-commit install",
        "uvx pre-commit install -t pre-push",
        "npx husky",
        "pnpm exec husky init",
        "gh auth setup-git",
        "git submodule add https://example.com/x.git vendor/x",
        "git submodule init",
        "git maintenance $ACTION",
    ],
)
def test_a_program_writing_git_configuration_or_hooks_by_convention_asks(
    command: str, tmp_path: Path
) -> None:
    """PERM-15: ``git maintenance register`` writes ~/.gitconfig, ``pre-commit install`` .git/hooks/pre-commit,
    ``husky`` core.hooksPath in .git/config...: no path on the line, asked in bypassPermissions."""
    assert _verdict(command, tmp_path) == "ask", command


@pytest.mark.parametrize(
    "command",
    [
        "git maintenance run",
        "pre-commit run -a",
        "npx prettier --check .",
        "gh pr list",
        "git lfs ls-files",
        "git submodule status",
    ],
)
def test_their_other_subcommands_are_judged_as_before(command: str, tmp_path: Path) -> None:
    assert _verdict(command, tmp_path) == "allow", command


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_maintenance_register_really_writes_the_global_configuration(tmp_path: Path) -> None:
    """The judge: with HOME isolated, ``git maintenance register`` adds maintenance.repo to $HOME/.gitconfig."""
    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    repository = tmp_path / "repo"
    repository.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repository, env=env, check=True)
    subprocess.run(["git", "maintenance", "register"], cwd=repository, env=env, check=True)
    assert str(repository) in (tmp_path / ".gitconfig").read_text()
    assert _verdict("git maintenance register", repository) == "ask"
