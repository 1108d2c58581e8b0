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


@pytest.mark.parametrize(
    "command",
    [
        "env -C sub git status",
        "env --chdir=sub git status",
        "sudo -D sub git status",
        "sh -c 'nice env -C sub git status'",
    ],
)
def test_git_a_wrapper_runs_in_another_directory_reads_that_repository(
    repository: Path, command: str
) -> None:
    """``env -C sub git status`` runs git in sub/, whose own repository's configuration names nuke."""
    (repository / "sub").mkdir()
    _git(repository / "sub", "init", "-q", ".")
    _git(repository / "sub", "config", "core.fsmonitor", "nuke")
    rules = (
        parse_rule("Bash(nuke:*)", "deny", "userSettings"),
        *(parse_rule(f"Bash({p}:*)", "allow", "userSettings") for p in ("git", "env", "sudo", "sh", "nice")),
    )
    context = PermissionContext(mode="default", rules=rules, cwd=repository)  # type: ignore[arg-type]
    assert decide_permission(BASH, {"command": command}, context).behavior != "allow", command


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


def _include(repository: Path, header: str, target: str) -> None:
    with (repository / ".git" / "config").open("a") as config:
        config.write(f"{header}\n\tpath = {target}\n")


@pytest.mark.parametrize(
    ("header", "line"),
    [
        ('[includeIf "onbranch:o"]', "git checkout -q o && git status"),
        (
            '[includeIf "hasconfig:remote.*.url:https://z.example/r"]',
            "git remote add z https://z.example/r && git status",
        ),
        ('[includeIf "gitdir:/nowhere/"]', "git status"),
        ('[includeIf "gitdir/i:/NOWHERE/"]', "git status"),
    ],
)
def test_an_include_is_judged_whatever_its_condition(repository: Path, header: str, line: str) -> None:
    """The line may meet the condition itself before git reads it (the red team's bypass): the
    included file's core.fsmonitor is judged even while the condition does not hold."""
    _git(repository, "commit", "-q", "--allow-empty", "-m", "i")
    _git(repository, "branch", "o")
    payload = repository.parent / f"{repository.name}-evil.cfg"
    payload.write_text("[core]\n\tfsmonitor = nuke x\n")
    _include(repository, header, str(payload))
    decision = _decide(line, repository, mode="bypassPermissions")
    assert decision.behavior == "ask", decision.reason.detail
    assert "core.fsmonitor" in (decision.reason.detail or "")


def test_includes_are_followed_recursively_relative_to_the_file_that_holds_them(
    repository: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A plain include of a file whose own conditional include (a relative path) names the program."""
    folder = tmp_path_factory.mktemp("included")
    (folder / "outer.cfg").write_text('[includeIf "onbranch:never"]\n\tpath = inner/hooks.cfg\n')
    (folder / "inner").mkdir()
    (folder / "inner" / "hooks.cfg").write_text("[alias]\n\tst = !nuke\n")
    _include(repository, "[include]", str(folder / "outer.cfg"))
    assert _decide("git st", repository).behavior == "ask"


def test_an_include_that_sets_the_hooks_path_has_its_hooks_judged(
    repository: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``core.hooksPath`` set in a file an unmet condition includes: its hooks run once the line meets it."""
    folder = tmp_path_factory.mktemp("hooks")
    hook = folder / "pre-commit"
    hook.write_text("#!/bin/sh\nnuke --all\n")
    hook.chmod(0o755)
    payload = folder / "hooks.cfg"
    payload.write_text(f"[core]\n\thooksPath = {folder}\n")
    _include(repository, '[includeIf "onbranch:o"]', str(payload))
    assert _decide("git checkout -q -b o && git commit -q --allow-empty -m x", repository).behavior == "ask"


@pytest.mark.parametrize("target", ["%(prefix)/etc/x.cfg", "~no-such-user-here/x.cfg"])
def test_an_include_the_engine_cannot_resolve_fails_closed(repository: Path, target: str) -> None:
    """An include path whose file only git knows (its install prefix, an unknown user's home) is unread: asked."""
    _include(repository, '[includeIf "onbranch:o"]', target)
    decision = _decide("git status", repository)
    assert decision.behavior == "ask"
    assert "could not be read" in (decision.reason.detail or "")


@pytest.mark.parametrize(
    ("write", "ordered"),
    [
        ("cp {evil} {target}", True),
        ("ln -s {evil} {target}", True),
        ("tee {target} < {evil}", True),
        ("dd if={evil} of={target}", True),
        ("cat {evil} > {target}", False),
        ("env cp {evil} {target}", False),
        ('cp {evil} "$T"', False),
    ],
)
def test_a_line_that_writes_an_included_file_before_git_asks(
    repository: Path, tmp_path_factory: pytest.TempPathFactory, write: str, ordered: bool
) -> None:
    """The included file is missing now (or benign): git reads what the line puts there, which the engine can't read.

    ``ordered``: a program's write after git is asked about too, as a protected write (the included
    file is git's configuration, PERM-15, s33); before git, each form asks (a redirection in any order:
    the reader does not place it; a run-time target may be any protected file; env's operand is
    read as a script of its own).
    """
    folder = tmp_path_factory.mktemp("included")
    evil, target = folder / "evil.cfg", folder / "included.cfg"
    evil.write_text("[core]\n\tfsmonitor = nuke\n")
    _include(repository, '[includeIf "onbranch:o"]', str(target))
    assert _decide("git status", repository, mode="bypassPermissions").behavior == "allow"
    line = write.format(evil=evil, target=target) + " && git status"
    assert _decide(line, repository, mode="bypassPermissions").behavior == "ask", line
    if not ordered:
        return
    # Written after git has read its configuration: still git's own configuration (PERM-15, s33), asked.
    after = "git status; " + write.format(evil=evil, target=target)
    decided = _decide(after, repository, mode="bypassPermissions")
    assert decided.behavior == "ask", (after, decided.reason.detail)
    assert "git reads as its own" in (decided.reason.detail or ""), decided


def test_a_checkout_before_git_asks_when_an_included_file_is_tracked(repository: Path) -> None:
    """An included file (or hooks directory) in the work tree is tracked content a checkout rewrites."""
    (repository / "team.cfg").write_text("[user]\n\tname = a\n")
    _include(repository, "[include]", "../team.cfg")
    assert _decide("git status", repository, mode="bypassPermissions").behavior == "allow"
    assert _decide("git checkout -q o && git status", repository, mode="bypassPermissions").behavior == "ask"
    assert _decide("git fetch -q && git status", repository, mode="bypassPermissions").behavior == "allow"


def test_a_checkout_before_git_asks_when_an_included_link_leads_into_the_work_tree(
    repository: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """An include outside the work tree that is a link to a tracked file is rewritten by a checkout too."""
    (repository / "team.cfg").write_text("[user]\n\tname = a\n")
    link = tmp_path_factory.mktemp("links") / "team.cfg"
    link.symlink_to(repository / "team.cfg")
    _include(repository, "[include]", str(link))
    assert _decide("git status", repository, mode="bypassPermissions").behavior == "allow"
    assert _decide("git checkout -q o && git status", repository, mode="bypassPermissions").behavior == "ask"


def test_a_submodules_conditional_include_is_judged(
    repository: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A submodule's own configuration's includes are followed too (``git status`` recurses into it)."""
    inner = tmp_path_factory.mktemp("inner")
    _git(inner, "init", "-q", ".")
    _git(inner, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "s")
    _git(repository, "-c", "protocol.file.allow=always", "submodule", "-q", "add", str(inner), "sm")
    payload = inner.parent / f"{inner.name}.cfg"
    payload.write_text("[core]\n\tfsmonitor = nuke\n")
    with (repository / ".git" / "modules" / "sm" / "config").open("a") as config:
        config.write(f'[includeIf "onbranch:o"]\n\tpath = {payload}\n')
    assert _decide("git status", repository).behavior == "ask"


def test_an_ordinary_include_keeps_git_allowed(
    repository: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Includes of plain settings (a work identity by gitdir, a missing local file) ask nothing."""
    folder = tmp_path_factory.mktemp("identity")
    (folder / "work.cfg").write_text("[user]\n\temail = me@work.example\n")
    _include(repository, f'[includeIf "gitdir:{folder}/"]', str(folder / "work.cfg"))
    _include(repository, "[include]", str(folder / "missing.cfg"))
    for line in ("git status", "git checkout -q -b x && git status", "git add -A && git commit -q -m x"):
        assert _decide(line, repository, mode="bypassPermissions").behavior == "allow", line
