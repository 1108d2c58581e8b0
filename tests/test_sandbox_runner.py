"""The sandbox's runner and shell: the clean-up's report, why the sandbox can't start, unreadable lines.

What no requirement states but the modules promise (``reference_impl.sandbox._runner``,
``reference_impl.sandbox._shell``): the clean-up reports only what it changed, the reason the sandbox
is unavailable says where the missing program was looked for, and a line the shell reader can't read
is never taken for an excluded command. The sandbox's own behaviour is held by ``conformance/test_sandbox_*``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reference_impl import PermissionContext
from reference_impl.sandbox import SandboxSettings, sandbox_problem
from reference_impl.sandbox import _shell as shell_module
from reference_impl.sandbox._runner import MountPlan, scrub, tools_for
from reference_impl.sandbox._shell import SandboxedShell


def _program(path: Path) -> str:
    """An executable that does nothing and succeeds (a stand-in for bubblewrap or socat)."""
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return str(path)


def _plan(links: tuple[tuple[str, str], ...]) -> MountPlan:
    return MountPlan(writable=(), read_only=(), hidden_dirs=(), hidden_files=(), links=links)


def test_the_clean_up_reports_only_the_protected_symlinks_it_put_back(tmp_path: Path) -> None:
    """A protected symlink the command left alone is neither touched nor reported; a replaced one is put back."""
    target = str(tmp_path / "dotfiles" / "profile-of-the-user")
    kept, replaced = tmp_path / ".profile", tmp_path / ".bashrc"
    kept.symlink_to(target)
    replaced.write_text("echo planted\n")
    removed = scrub(_plan(((str(kept), target), (str(replaced), target))))
    assert removed == (str(replaced),)
    assert os.readlink(kept) == target
    assert os.readlink(replaced) == target


def test_the_reason_the_sandbox_is_unavailable_says_where_socat_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A configured ``socatPath`` that is not a program is named; with none, the reason says PATH."""
    bwrap = _program(tmp_path / "bwrap")
    configured = str(tmp_path / "no" / "socat")
    problem = sandbox_problem(bwrap, configured)
    assert problem is not None
    assert f"socat is not installed ({configured})" in problem
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    problem = sandbox_problem(bwrap, None)
    assert problem is not None
    assert "socat is not installed (PATH)" in problem


def test_asking_for_the_programs_of_an_unavailable_sandbox_raises_naming_why(tmp_path: Path) -> None:
    """``tools_for`` without socat raises RuntimeError with the reason, never hands out a program."""
    with pytest.raises(RuntimeError, match=r"the sandbox is unavailable: socat is not installed"):
        tools_for(_program(tmp_path / "bwrap"), str(tmp_path / "no-socat"))


def test_a_line_the_reader_fails_on_is_no_excluded_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When reading the line raises, it stays in the sandbox even if it looks like an excluded command."""
    settings = SandboxSettings(
        enabled=True,
        excluded_commands=("echo",),
        bwrap_path=_program(tmp_path / "bwrap"),
        socat_path=_program(tmp_path / "socat"),
    )

    def plan() -> str:
        shell = SandboxedShell(settings, PermissionContext(cwd=tmp_path), temp_dir=tmp_path)
        return shell.plan({"command": "echo hi"}).how

    assert plan() == "unsandboxed"  # read, the line is the excluded command

    def unreadable(command: str) -> None:
        raise RecursionError(f"too deep: {command}")

    monkeypatch.setattr(shell_module, "split_command", unreadable)
    assert plan() == "sandboxed"
