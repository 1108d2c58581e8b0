"""The engine reads what git's configuration and hooks name where a git command runs (PERM-17)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, PermissionDecision, decide_permission, parse_rule
from tests.test_rules import BASH

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repository: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=repository, env=env, check=True, capture_output=True)


def _decide(command: str, cwd: Path, mode: str = "default") -> PermissionDecision:
    rules = (
        parse_rule("Bash(nuke:*)", "deny", "userSettings"),
        parse_rule("Bash(git:*)", "allow", "userSettings"),
    )
    context = PermissionContext(mode=mode, rules=rules, cwd=cwd)  # type: ignore[arg-type]
    return decide_permission(BASH, {"command": command}, context)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q", ".")
    return tmp_path


def test_a_changed_configuration_is_read_again(repository: Path) -> None:
    """The answer is cached per directory, keyed by the files git read: a new key is seen at once."""
    assert _decide("git status", repository).behavior == "allow"
    _git(repository, "config", "core.fsmonitor", "nuke")
    decision = _decide("git status", repository)
    assert decision.behavior == "ask"
    assert "core.fsmonitor" in (decision.reason.detail or "")
    assert _decide("git status", repository, mode="dontAsk").behavior == "deny"
    _git(repository, "config", "--unset", "core.fsmonitor")
    assert _decide("git status", repository).behavior == "allow"


def test_a_new_hook_is_seen(repository: Path) -> None:
    """Adding an executable hook changes the hooks directory: read again."""
    assert _decide("git commit -q -m x", repository).behavior == "allow"
    hook = repository / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nnuke --all\n")
    hook.chmod(0o755)
    assert _decide("git commit -q -m x", repository).behavior == "ask"


def test_an_unreadable_configuration_fails_closed(repository: Path) -> None:
    """A configuration git itself rejects is not an empty one: the call is asked about."""
    (repository / ".git" / "config").write_text("[core\nbroken")
    decision = _decide("git status", repository)
    assert decision.behavior == "ask"
    assert "could not be read" in (decision.reason.detail or "")


def test_git_in_a_directory_only_known_at_run_time_asks(repository: Path) -> None:
    """``cd "$d" && git status`` and ``git -C "$d"``: that repository's configuration can't be read."""
    for command in ('cd "$d" && git status', 'git -C "$d" status', "git -C $(mktemp -d) status"):
        assert _decide(command, repository).behavior != "allow", command


def test_a_workspace_program_the_engine_does_not_read_asks_but_the_users_own_configuration_is_trusted(
    repository: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program only the repository's configuration names is like that program on the line (asked beside a
    deny rule); one the user's global configuration names (a credential helper) is trusted as read."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    (home / ".gitconfig").write_text(
        "[credential]\n\thelper = some-helper --store\n[core]\n\tpager = delta\n"
    )
    assert _decide("git status", repository).behavior == "allow"
    _git(repository, "config", "diff.tool", "mytool")
    _git(repository, "config", "difftool.mytool.cmd", "mytool $LOCAL $REMOTE")
    assert _decide("git status", repository).behavior == "ask"
