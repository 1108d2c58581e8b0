"""A script an interpreter looks up in PATH is the file that runs, not ``./name`` (PERM-17).

``source name``/``. name`` search PATH before the working directory (bash's ``sourcepath``), ``perl
-S name`` searches PATH: a PATH directory's file of that name runs, whatever ``./name`` holds. Real
bash and perl are the judge: each line is run and must run the denied program.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from tests.test_rules import BASH

_LINES = [
    ("source setup.sh", "nuke\n"),
    (". setup.sh", "nuke\n"),
    ("builtin source setup.sh", "nuke\n"),
    ("perl -S setup.pl", 'system("nuke");\n'),
    ("perl -wS setup.pl", 'system("nuke");\n'),
]


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> tuple[Path, Path]:
    work, bin_dir = tmp_path / "work", tmp_path / "bin"
    work.mkdir()
    bin_dir.mkdir()
    (work / "setup.sh").write_text("echo benign\n")
    (work / "setup.pl").write_text("print 1;\n")
    for name in ("setup.sh", "setup.pl"):
        (bin_dir / name).write_text(script)
        (bin_dir / name).chmod(0o755)
    marker = tmp_path / "ran"
    (bin_dir / "nuke").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (bin_dir / "nuke").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return work, marker


def _decide(line: str, work: Path, mode: str = "default") -> str:
    rules = (
        parse_rule("Bash(nuke:*)", "deny", "userSettings"),
        parse_rule(f"Bash({line})", "allow", "userSettings"),
    )
    context = PermissionContext(mode=mode, rules=rules, cwd=work, project_root=work)
    return decide_permission(BASH, {"command": line}, context).behavior


@pytest.mark.parametrize(("line", "script"), _LINES)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_a_script_found_in_path_is_read(
    line: str, script: str, mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The PATH directory's script runs the denied program: never allowed, whatever ./name holds."""
    if shutil.which("perl") is None and "perl" in line:
        pytest.skip("perl is not installed")
    work, marker = _project(tmp_path, monkeypatch, script)
    subprocess.run(["bash", "-c", line], cwd=work, capture_output=True, timeout=30, check=False)
    assert marker.exists(), f"{line!r} did not run the PATH script for real"
    assert _decide(line, work, mode) in ("ask", "deny"), line


@pytest.mark.parametrize(
    "line",
    ["export PATH=../bin:$PATH; source other.sh", "cp setup.sh ../bin/other.sh; source other.sh"],
)
def test_a_path_the_line_changes_or_writes_is_not_trusted(
    line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, _ = _project(tmp_path, monkeypatch, "echo benign\n")
    assert _decide(line, work, "bypassPermissions") == "ask", line


@pytest.mark.parametrize("line", ["source setup.sh", ". setup.sh", "perl -S setup.pl", "source ./setup.sh"])
def test_a_harmless_path_script_stays_allowed(
    line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, _ = _project(tmp_path, monkeypatch, "echo benign\n")
    assert _decide(line, work) == "allow", line
