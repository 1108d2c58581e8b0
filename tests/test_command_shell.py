"""The Bash tool runs a command in the shell its permission engine reads it as: bash (PERM-17)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from reference_impl import PermissionContext, SandboxedShell
from reference_impl.sandbox import SandboxSettings, sandbox_problem


@pytest.mark.parametrize("enabled", [False, True], ids=["unsandboxed", "sandboxed"])
def test_the_command_runs_in_the_shell_it_was_judged_as(tmp_path: Path, enabled: bool) -> None:
    """``$'...'`` is quoting to bash (one ``echo``); ``/bin/sh`` (dash) would run the ``touch`` hidden in it."""
    if enabled and sandbox_problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    (tmp_path / "tmp").mkdir()
    shell = SandboxedShell(
        SandboxSettings(enabled=enabled), PermissionContext(cwd=tmp_path), temp_dir=tmp_path / "tmp"
    )
    done = asyncio.run(
        shell.run({"command": "echo $'\\';touch M;#'"}, cwd=tmp_path, timeout=60, abort=asyncio.Event())
    )
    assert not (tmp_path / "M").exists(), done.output
    assert "';touch M;#" in done.output
