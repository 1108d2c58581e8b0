"""PERM-15, PERM-11: a path that names the process's own state means it in the process that opens it.

``/proc/self/cwd``, ``/proc/thread-self/cwd``, ``/dev/fd/N``, ``/proc/self/fd/N`` are resolved by the
kernel in the shell (or the program it runs), at that point of the line, never in the engine's
process: ``cd .git && echo x >> /proc/self/cwd/config`` writes ``.git/config``, and ``exec 3<.git;
echo x >> /dev/fd/3/config`` too. Read as the shell would (its directory is where the line moved
to) or asked about where the engine can't know (a descriptor, another process).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from reference_impl.permissions import rules_from_strings
from reference_impl.permissions._descriptors import shell_state
from reference_impl.permissions._paths import lexical_path
from tests.test_rules import BASH, READ, WRITE


def _bash(command: str, cwd: Path) -> str:
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=cwd)
    return decide_permission(BASH, {"command": command}, context).behavior


@pytest.mark.parametrize(
    "command",
    [
        "cd .git && echo pwn >> /proc/self/cwd/config",
        "cd .git && echo pwn >> /proc/thread-self/cwd/config",
        "cd .git; echo pwn >> //proc/./self/cwd/config",
        "cd .git && echo pwn >> /dev/fd/../cwd/config",
        "cd .claude && echo '{}' > /proc/self/cwd/settings.json",
        "cd .husky && cp /dev/null /proc/self/cwd/pre-commit",
        "cd .ssh && echo x >> /proc/self/cwd/config",
        "cd etc/profile.d && echo nuke > /proc/self/cwd/x.sh",
        "cd .git && python3 -c \"open('/proc/self/cwd/config', 'a')\"",
        "cd /proc/self/cwd/.git && echo pwn >> config",
        "exec 3<.git; echo pwn >> /dev/fd/3/config",
        "exec 3<.git; echo pwn >> /proc/self/fd/3/config",
        "exec 4<.git/hooks; chmod +x /dev/fd/4/pre-commit",
        "exec 3<.claude; echo '{}' > /dev/fd/3/settings.local.json",
        "exec 3<.git; cd /dev/fd/3 && echo pwn >> config",
        "echo pwn >> /proc/1/cwd/x",
        "cd sub && echo pwn >> /proc/self/cwd/../.git/config",
    ],
)
def test_a_write_through_the_shell_s_own_state_into_a_protected_directory_asks(
    command: str, tmp_path: Path
) -> None:
    for name in (".git/hooks", ".claude", ".husky", ".ssh", "etc/profile.d", "sub"):
        (tmp_path / name).mkdir(parents=True)
    assert _bash(command, tmp_path) == "ask", command


@pytest.mark.parametrize(
    "command",
    [
        "echo x > /dev/stderr",
        "echo x >> /proc/self/cwd/notes.txt",
        "cd sub && echo x > /proc/self/cwd/out.txt",
        "echo x 2>/dev/null >/dev/fd/1",
        "echo 1 > /proc/self/oom_score_adj",
        "ln -sf /etc/hosts hosts.txt",
    ],
)
def test_everyday_writes_through_the_shell_s_state_stay_allowed(command: str, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert _bash(command, tmp_path) == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "cd .git && echo pwn >> ../here/config",
        "cd .git && echo pwn >> {root}/here/config",
        "exec 3<.git; echo pwn > fds/3/config",
        "ln -s /proc/self/fd f; exec 3<.git; echo pwn > f/3/config",
        "ln -s /dev/fd f; exec 3<.git; echo pwn > f/3/config",
        "ln -s /proc f; exec 3<.git; echo pwn > f/self/fd/3/config",
        "ln -s /proc/self/cwd h; cd .git; echo pwn > $OLDPWD/h/config",
    ],
)
def test_a_link_made_beforehand_into_the_process_s_state_is_read_in_the_shell(
    command: str, tmp_path: Path
) -> None:
    """``here -> /proc/self/cwd``, ``fds -> /proc/self/fd``: the kernel follows them in the writer too."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "here").symlink_to("/proc/self/cwd")
    (tmp_path / "fds").symlink_to("/proc/self/fd")
    assert _bash(command.format(root=tmp_path), tmp_path) == "ask", command
    assert _bash("echo x >> here/notes.txt", tmp_path) == "allow"


def test_a_file_tool_writes_the_cwd_of_its_own_process(tmp_path: Path) -> None:
    """The Write tool's ``/proc/self/cwd`` is the call's working directory, not the engine's (pytest's)."""
    (tmp_path / ".git").mkdir()
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=tmp_path)
    for path in ("/proc/self/cwd/.git/config", "/dev/fd/3/config"):
        given = {"file_path": path, "content": "x"}
        assert decide_permission(WRITE, given, context).behavior == "ask", path


@pytest.mark.parametrize(
    "path", ["/dev/fd/5", "/proc/self/fd/5", "//dev/./stdout", "/proc/thread-self/../../fd/5"]
)
def test_a_file_tool_writing_a_descriptor_of_the_harness_asks(path: str, tmp_path: Path) -> None:
    """PERM-15: the Write tool's ``/dev/fd/5`` is whatever the harness's own process holds there: it can't be told."""
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=tmp_path)
    assert decide_permission(WRITE, {"file_path": path, "content": "x"}, context).behavior == "ask", path
    assert decide_permission(WRITE, {"file_path": "/dev/null", "content": "x"}, context).behavior == "allow"


@pytest.mark.parametrize("path", ["/proc/self/cwd/secret/x", "/proc/thread-self/cwd/secret/x", "/dev/fd/3/x"])
def test_a_denied_read_through_the_process_s_state_is_denied(path: str, tmp_path: Path) -> None:
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "x").write_text("key\n")
    rules = rules_from_strings(["Read(./secret/**)"], "deny", "userSettings")
    context = PermissionContext(
        mode="bypassPermissions", rules=tuple(rules), cwd=tmp_path, project_root=tmp_path
    )
    assert decide_permission(READ, {"file_path": path}, context).behavior == "deny", path


def test_shell_state_folds_as_the_kernel_walks() -> None:
    assert shell_state("/dev/fd/3/x") == ("descriptor", True, "x")
    assert shell_state("/dev/stdin") == ("descriptor", True, "")
    assert shell_state("/proc/7/task/8/cwd/a/b") == ("cwd", False, "a/b")
    assert shell_state("/proc/self/cwd/../y") == ("cwd", True, "../y")
    assert shell_state("/procx/self/cwd") is None
    assert lexical_path("/proc/self/root/etc/x", Path("/w")) == "/etc/x"
    assert lexical_path("/proc/self/cwd/../y", Path("/w/d")) == "/w/y"


@pytest.mark.parametrize(
    "command",
    [
        "git -C .git config --file config core.fsmonitor nuke",
        "git -C .git config -f /proc/self/cwd/config core.fsmonitor nuke",
        "git -C sub -C ../.git config --file=config core.fsmonitor nuke",
    ],
)
def test_git_config_file_is_opened_in_the_directory_git_moved_to(command: str, tmp_path: Path) -> None:
    """git(1) ``-C``: git changes directory first, so ``--file F`` (and its own ``/proc/self/cwd``) is under it."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    assert _bash(command, tmp_path) == "ask", command
    assert _bash("git -C sub config --file x.cfg a.b c", tmp_path) == "allow"
