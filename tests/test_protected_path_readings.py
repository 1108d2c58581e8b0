"""What reference_impl/permissions/_protected_paths.py reads a line for: each reading pinned (PERM-15).

In bypassPermissions a line asks only when it may write a protected path; these pin where it must
ask (a tree holding one under a directory the line changes beneath) and where it must not (an
ordinary directory, code that moves somewhere ordinary).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from reference_impl.permissions import _protected_paths
from tests.test_rules import BASH


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    return tmp_path


def _verdict(line: str, cwd: Path) -> tuple[str, str]:
    decision = decide_permission(
        BASH,
        {"command": line},
        PermissionContext(mode="bypassPermissions", rules=(), cwd=cwd, project_root=cwd),
    )
    return decision.behavior, str(decision.reason.detail)


@pytest.mark.parametrize(
    "line",
    [
        "chmod -R a+w src",
        "rm -rf src",
        "find src -name '*.py' -delete",
        'python3 -c \'import os; os.chdir("src"); open("b.py", "w")\'',
        "cp -r src /tmp/elsewhere",
        "tar -cf /tmp/t.tar .",
        "chmod a+w .",
    ],
)
def test_a_line_changing_only_ordinary_files_runs_unasked(project: Path, line: str) -> None:
    """Controls: an ordinary directory changed beneath, code moving into one, a tree only read."""
    assert _verdict(line, project)[0] == "allow", line


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("chmod -R a+w .", ".git"),
        ("rm -r src", "hard links"),
        ("chmod -R a+w src", "git directory"),
        ("chmod -R a+w src", "settings"),
    ],
    ids=["the project", "a hard link", "a git directory by git's test", "a link into .git"],
)
def test_a_tree_holding_a_protected_path_asks(project: Path, line: str, why: str) -> None:
    """Beneath the directory: a protected name, a file with another name, a git directory not named .git, a link."""
    if why == "hard links":
        os.link(project / "src" / "a.py", project / "elsewhere.py")
    elif why == "git directory":
        subprocess.run(["git", "init", "-q", "--bare", "src/meta"], cwd=project, check=True)
    elif why == "settings":
        (project / "src" / "settings").symlink_to(project / ".git" / "config")
    behavior, reason = _verdict(line, project)
    assert behavior == "ask", reason
    assert why in reason, reason


def test_a_tree_too_large_to_walk_asks(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the walk's bound the engine can't tell no entry is protected: it asks."""
    monkeypatch.setattr(_protected_paths, "_MOST_WALKED", 0)
    behavior, reason = _verdict("chmod -R a+w src", project)
    assert (behavior, "too many" in reason) == ("ask", True), reason


def test_a_home_path_is_judged_where_the_home_is(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``~/x`` is the home's ``x``: a home that is a process's state directory leads anywhere."""
    monkeypatch.setenv("HOME", "/dev/fd")
    assert _protected_paths.protected_reason("~/3/x", project) is not None


@pytest.mark.parametrize(
    ("line", "behavior"),
    [
        # A file an unread program names by a bare word that is a link, or another name, of a protected one.
        ("ed -s src/a.py <<< 'w cfg'", "ask"),
        ("sqlite3 :memory: '.output lk' 'select 1;'", "ask"),
        ("ed -s src/a.py <<< 'w out.txt'", "allow"),
        # git -c core.hooksPath runs the hooks of a directory the engine does not read; /dev/null holds none.
        ("git -c core.hooksPath=hooks commit -q --allow-empty -m x", "ask"),
        ("git -c core.hookspath=/dev/null status", "allow"),
        # Perl modules that write files an archive or an argument names.
        ("perl -MArchive::Tar -e 'Archive::Tar->new(\"e.tar\")->extract'", "ask"),
        ('perl -e \'use IO::Uncompress::Gunzip qw(gunzip); gunzip "a.gz" => "b"\'', "ask"),
        ("perl -MData::Dumper -e 'print Dumper(1)'", "allow"),
        # Names a renamer makes: util-linux's by substitution, perl's by code.
        ("rename.ul i .i idea", "ask"),
        ("rename.ul -n i .i idea", "allow"),
        ("rename 's/^/./' idea", "ask"),
    ],
)
def test_what_programs_write_beyond_their_named_paths_is_judged(
    line: str, behavior: str, project: Path
) -> None:
    """PERM-15: the red team of session 38's mechanisms, each a reading pinned: asks where it may write a protected file."""
    (project / "cfg").hardlink_to(project / ".git" / "config")
    (project / "lk").symlink_to(".git/config")
    (project / "hooks").mkdir()
    (project / "idea").write_text("x")
    assert _verdict(line, project)[0] == behavior, _verdict(line, project)
