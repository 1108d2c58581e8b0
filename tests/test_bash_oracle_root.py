"""The bash oracle's programs, built once by a run's controller and used by its workers."""

from __future__ import annotations

import os
import shutil
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_toolharness._strategies import bash_oracle

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None or shutil.which("bash") is None, reason="needs bash and bubblewrap"
)


@pytest.fixture
def fresh_oracle(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No shared root named, and the process's sandbox built anew (and again after the test)."""
    monkeypatch.delenv(bash_oracle.SHARED_ORACLE_VARIABLE, raising=False)
    bash_oracle._sandbox.cache_clear()
    yield
    bash_oracle._sandbox.cache_clear()


@needs_bwrap
def test_a_prebuilt_root_appears_whole_and_is_named_to_children(tmp_path: Path, fresh_oracle: None) -> None:
    root = tmp_path / "oracle"
    thread = bash_oracle.prebuild_bash_oracle(root)
    assert thread is not None
    assert os.environ[bash_oracle.SHARED_ORACLE_VARIABLE] == str(root)
    thread.join(60)
    shims = root / "shims"
    assert {"ls", "rm", "sudo", "curl", "npm"} <= set(os.listdir(shims))
    assert os.access(shims / "rm", os.X_OK)
    assert [entry.name for entry in tmp_path.iterdir()] == ["oracle"], "the partial build was left behind"


@needs_bwrap
def test_the_sandbox_uses_the_shared_root_and_records_through_it(tmp_path: Path, fresh_oracle: None) -> None:
    root = tmp_path / "oracle"
    thread = bash_oracle.prebuild_bash_oracle(root)
    assert thread is not None
    thread.join(60)
    sandbox = bash_oracle.bash_sandbox()
    assert sandbox is not None, bash_oracle.bash_sandbox_problem()
    assert sandbox.root == root
    assert sandbox.executed("ls -l && rm -f x; echo hi") == [("ls", "-l"), ("rm", "-f", "x")]


@needs_bwrap
def test_a_root_not_built_yet_means_a_build_of_ones_own(
    tmp_path: Path, fresh_oracle: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(bash_oracle.SHARED_ORACLE_VARIABLE, str(tmp_path / "still-building"))
    sandbox = bash_oracle.bash_sandbox()
    assert sandbox is not None, bash_oracle.bash_sandbox_problem()
    try:
        assert sandbox.root != tmp_path / "still-building"
        assert (sandbox.root / "shims" / "rm").exists()
        assert sandbox.executed("rm x") == [("rm", "x")]
    finally:
        shutil.rmtree(sandbox.root)


def test_without_bubblewrap_nothing_is_built(
    tmp_path: Path, fresh_oracle: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bash, no bwrap
    assert bash_oracle.prebuild_bash_oracle(tmp_path / "oracle") is None
    assert bash_oracle.SHARED_ORACLE_VARIABLE not in os.environ
    assert list(tmp_path.iterdir()) == []


@needs_bwrap
def test_a_run_with_workers_builds_it_once_and_forgets_it_at_its_end(
    tmp_path: Path, fresh_oracle: None
) -> None:
    """The controller's cleanup waits for the build, then stops naming the root to later processes."""
    from pytest_toolharness._isolation import _share_bash_oracle

    cleanups: list[Callable[[], None]] = []
    option = types.SimpleNamespace(tx=["popen"], collectonly=False)
    config = types.SimpleNamespace(option=option, add_cleanup=cleanups.append)
    _share_bash_oracle(config, tmp_path)  # type: ignore[arg-type]
    assert os.environ[bash_oracle.SHARED_ORACLE_VARIABLE] == str(tmp_path / "bash-oracle")
    assert len(cleanups) == 1
    cleanups[0]()
    assert (tmp_path / "bash-oracle" / "shims" / "rm").exists(), "the cleanup did not wait for the build"
    assert bash_oracle.SHARED_ORACLE_VARIABLE not in os.environ


def test_without_workers_or_when_only_collecting_nothing_is_built(tmp_path: Path, fresh_oracle: None) -> None:
    from pytest_toolharness._isolation import _share_bash_oracle

    for option in (
        types.SimpleNamespace(tx=[], collectonly=False),
        types.SimpleNamespace(tx=["popen"], collectonly=True),
    ):
        cleanups: list[Callable[[], None]] = []
        _share_bash_oracle(types.SimpleNamespace(option=option, add_cleanup=cleanups.append), tmp_path)  # type: ignore[arg-type]
        assert (cleanups, list(tmp_path.iterdir())) == ([], [])
        assert bash_oracle.SHARED_ORACLE_VARIABLE not in os.environ
