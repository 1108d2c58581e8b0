"""A program started because the option that would name another is absent is judged too (PERM-17).

scp's ``-S`` names the program that reaches the host: without it, ssh. install's ``--strip-program``:
without it, strip (with ``-s``). tar's ``-I``: without it, ``-a`` picks the compressor by the suffix;
``--lzip``, ``-Z`` filter through lzip and compress (tar --help says so, installed here or not). git
maintenance's ``--scheduler``: crontab or systemctl. The help viewer of ``git help``/``npm help``: man.
Real programs judge where they run here: a marker program of the helper's name on PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from reference_impl.permissions._programs import default_programs
from tests.test_rules import BASH


def _decide(line: str, helper: str, allow: str, cwd: Path) -> str:
    rules = (
        parse_rule(f"Bash({helper}:*)", "deny", "userSettings"),
        parse_rule(allow, "allow", "userSettings"),
    )
    context = PermissionContext(rules=rules, cwd=cwd, project_root=cwd)
    return decide_permission(BASH, {"command": line}, context).behavior


@pytest.mark.parametrize(
    ("line", "helper", "allow"),
    [
        ("install -s f f3", "strip", "Bash(install:*)"),
        ("install --strip f f3", "strip", "Bash(install:*)"),
        ("tar caf a.tar.zst f", "zstd", "Bash(tar caf:*)"),
        ("tar -c --auto-compress -f a.tar.xz f", "xz", "Bash(tar:*)"),
        ("tar -cZf a.tar.Z f", "compress", "Bash(tar:*)"),
        ("tar -c --lzip -f a.tar.lz f", "lzip", "Bash(tar:*)"),
    ],
)
def test_the_default_helper_really_runs_and_is_judged(
    line: str, helper: str, allow: str, tmp_path: Path
) -> None:
    """For real: a program of the helper's name first on PATH runs; the engine never allows the line."""
    if shutil.which(line.split()[0]) is None:
        pytest.skip(f"{line.split()[0]} is not installed")
    bin_dir, work = tmp_path / "bin", tmp_path / "work"
    bin_dir.mkdir()
    work.mkdir()
    (work / "f").write_text("x\n")
    marker = tmp_path / "ran"
    (bin_dir / helper).write_text(f"#!/bin/sh\ntouch {marker}\ncat >/dev/null\n")
    (bin_dir / helper).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, timeout=30, check=False)
    assert marker.exists(), f"{line!r} did not start {helper} for real"
    assert _decide(line, helper, allow, work) in ("deny", "ask"), line


@pytest.mark.parametrize(
    ("line", "helper", "allow"),
    [
        ("scp f example.invalid:x", "ssh", "Bash(scp:*)"),
        ("scp -r d user@host:x", "ssh", "Bash(scp:*)"),
        ("sftp host", "ssh", "Bash(sftp:*)"),
        ("rsync -a d host:x", "ssh", "Bash(rsync:*)"),
        ("git maintenance start", "crontab", "Bash(git:*)"),
        ("git maintenance start --scheduler=systemd-timer", "systemctl", "Bash(git:*)"),
        ("npm version patch", "git", "Bash(npm version:*)"),
        ("git log --help", "man", "Bash(git:*)"),
        ("git help log", "man", "Bash(git:*)"),
        ("npm help install", "man", "Bash(npm:*)"),
        ("man ls", "less", "Bash(man:*)"),
    ],
)
def test_a_default_helper_is_never_allowed_past_its_deny(
    line: str, helper: str, allow: str, tmp_path: Path
) -> None:
    assert _decide(line, helper, allow, tmp_path) in ("deny", "ask"), line


@pytest.mark.parametrize(
    ("line", "helper", "allow"),
    [
        ("scp a b", "ssh", "Bash(scp:*)"),
        ("rsync -a d e", "ssh", "Bash(rsync:*)"),
        ("install -m 755 f f3", "strip", "Bash(install:*)"),
        ("tar czf a.tgz f", "zstd", "Bash(tar:*)"),
        ("tar cf a.tar f", "gzip", "Bash(tar:*)"),
        ("npm version patch --no-git-tag-version", "git", "Bash(npm:*)"),
        ("npm install lodash", "git", "Bash(npm:*)"),
        ("git log -5", "man", "Bash(git:*)"),
        ("man -k ls", "less", "Bash(man:*)"),
    ],
)
def test_everyday_lines_start_no_default_helper(line: str, helper: str, allow: str, tmp_path: Path) -> None:
    assert _decide(line, helper, allow, tmp_path) == "allow", line


def test_an_option_naming_the_program_leaves_no_default() -> None:
    assert default_programs("install", ["-s", "--strip-program=x", "f", "d"]) == ([], [])
    assert default_programs("scp", ["-S", "x", "f", "h:x"]) == ([], [])
    assert default_programs("tar", ["-c", "-a", "-I", "p", "-f", "a.tar.zst", "f"]) == ([], [])
