"""PERM-15: ``git config`` writing git's configuration is a protected write; reading it is not."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from tests.test_rules import BASH

_WRITES = [
    "git config core.hooksPath /tmp/hooks",
    "git config --local core.fsmonitor 'touch x'",
    "git config --unset core.pager",
    "git config --add alias.x '!touch x'",
    "git -C sub config core.pager 'touch x'",
    "git config --global core.editor 'touch x'",
    'git config core.sshCommand "$CMD"',
    "git config set core.pager less",
]
_READS = [
    "git config user.name",
    "git config --get user.name",
    "git config --list",
    "git config get user.name",
]


def _decide(command: str, cwd: Path) -> str:
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=cwd)
    return decide_permission(BASH, {"command": command}, context).behavior


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "init", "-q", str(tmp_path / "sub")], check=True)
    return tmp_path


@pytest.mark.parametrize("command", _WRITES)
def test_git_config_that_writes_is_asked_in_bypass_mode(command: str, repository: Path) -> None:
    """git's configuration makes git run code later (hooksPath, fsmonitor, aliases, pager): never auto-allowed."""
    assert _decide(command, repository) == "ask"


@pytest.mark.parametrize("command", _READS)
def test_git_config_that_only_reads_runs_in_bypass_mode(command: str, repository: Path) -> None:
    """Reading the configuration writes nothing: no new question."""
    assert _decide(command, repository) == "allow"
