"""Running a line in a real bash for the unit tests that take bash as the judge of a reading."""

from __future__ import annotations

import subprocess

import pytest

__all__ = ["bash_run"]


def bash_run(line: str, tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """``line`` run by ``bash -c`` (no start-up files) in the session's scratch directory, its output kept."""
    return subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", line],
        capture_output=True,
        text=True,
        timeout=10,
        cwd=tmp_path_factory.getbasetemp(),
        env={"PATH": "/usr/bin:/bin"},
        check=False,
    )
