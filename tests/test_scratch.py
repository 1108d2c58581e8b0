"""Scratch directories removed at exit (``pytest_toolharness/processes/_scratch.py``)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_toolharness.processes import _scratch


def _tree(root: Path, outside: Path) -> None:
    for i in range(80):
        session = root / f"session-{i}" / "cwd" / "deep"
        session.mkdir(parents=True)
        (session / "f.txt").write_text("x")
        (root / f"session-{i}" / "top.txt").write_text("y")
    (root / "loose.txt").write_text("z")
    (root / "session-0" / "link").symlink_to(outside, target_is_directory=True)


def test_remove_tree_removes_everything_and_follows_no_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    root = tmp_path / "root"
    _tree(root, outside)
    _scratch.remove_tree(root)
    assert not root.exists()
    assert (outside / "keep.txt").read_text() == "keep"


def test_remove_tree_of_a_missing_directory_does_nothing(tmp_path: Path) -> None:
    _scratch.remove_tree(tmp_path / "missing")
    assert list(tmp_path.iterdir()) == []


def test_a_deferred_root_is_left_to_whoever_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In an xdist worker the controller removes the run directory: the worker's exit leaves it."""

    monkeypatch.setattr(_scratch, "_deferred", [])
    run_dir = tmp_path / "run"
    inside, elsewhere = run_dir / "tmp-gw0" / "reference", tmp_path / "other"
    for directory in (inside, elsewhere):
        directory.mkdir(parents=True)
        (directory / "f.txt").write_text("x")
    _scratch.defer_removal_under(run_dir)
    _scratch._remove_unless_deferred(inside)
    _scratch._remove_unless_deferred(elsewhere)
    assert (inside / "f.txt").exists()
    assert not elsewhere.exists()


def test_a_tree_removed_at_exit_is_gone_without_an_error(tmp_path: Path) -> None:
    """At interpreter exit no thread may start: the removal still happens, and prints nothing."""
    tree = tmp_path / "scratch"
    for i in range(8):
        (tree / f"d{i}" / "e").mkdir(parents=True)
    code = (
        "import sys; from pathlib import Path; "
        "from pytest_toolharness.processes._scratch import remove_at_exit; "
        "remove_at_exit(Path(sys.argv[1]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tree)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
    assert not tree.exists()


def test_a_tree_removed_in_background_goes_after_the_call_returns(tmp_path: Path) -> None:
    """The detached removal returns at once and the tree is gone soon after, links not followed."""
    tree = tmp_path / "run"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept.txt").write_text("x")
    for i in range(50):
        (tree / f"d{i}" / "e").mkdir(parents=True)
        (tree / f"d{i}" / "e" / "f.txt").write_text("x")
    (tree / "link").symlink_to(outside)
    _scratch.remove_in_background(tree)
    deadline = time.monotonic() + 30
    while tree.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not tree.exists()
    assert (outside / "kept.txt").exists()


def test_without_a_shell_the_tree_is_removed_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``sh`` or ``rm`` to detach: the tree is removed before the call returns."""
    tree = tmp_path / "run"
    (tree / "d").mkdir(parents=True)
    monkeypatch.setattr(_scratch.shutil, "which", lambda name: None)
    _scratch.remove_in_background(tree)
    assert not tree.exists()
