"""What reference_impl/permissions/_project_files.py reads a project tool's line for: each reading pinned (PERM-17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl.permissions._project_files import NOT_READ, line_directories, project_commands


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "setup.py").write_text("import os\nos.system('nuke')\n")
    (tmp_path / "tool.py").write_text("print(1)\n")
    (tmp_path / "t.py").write_text("def f():\n    '''\n    >>> 1\n    1\n    '''\n")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "Makefile").write_text("all:\n\techo sub\n")
    (tmp_path / "Makefile").write_text("all:\n\techo top\n")
    (tmp_path / "add").mkdir()
    (tmp_path / "add" / "package.json").write_text('{"name": "a", "scripts": {"install": "nuke"}}')
    return tmp_path


def test_pip_is_read_only_when_python_runs_it_as_a_module(project: Path) -> None:
    """``python3 tool.py pip install .`` runs tool.py with words, not pip: setup.py is not what it runs."""
    assert not any(
        "setup.py" in where
        for where, _ in project_commands(("python3", "tool.py", "pip", "install", "."), str(project))
    )
    assert any(
        "setup.py" in where
        for where, _ in project_commands(("python3", "-m", "pip", "install", "."), str(project))
    )


def test_doctest_of_a_module_reads_its_code(project: Path) -> None:
    """``python3 -m doctest t.py`` imports t.py (and what the working directory shadows)."""
    found = project_commands(("python3", "-m", "doctest", "t.py"), str(project))
    assert any(where.endswith("t.py (Python may load it)") or "t.py" in where for where, _ in found)


def test_a_script_in_a_language_the_engine_does_not_read_is_unread(project: Path) -> None:
    """``ruby t.rb``: its code is not read: the engine says so (an allow rule on ruby must not vouch for a deny)."""
    assert project_commands(("ruby", "t.rb"), str(project)) == [
        ("the code ruby runs, in a language the engine does not read", NOT_READ)
    ]


def test_make_reads_the_makefile_of_the_directory_its_attached_option_names(project: Path) -> None:
    """``make -Cx``: the value attached to ``-C`` (one letter) is the directory whose Makefile runs."""
    texts = [text for _, text in project_commands(("make", "-Cx"), str(project))]
    assert "echo sub" in texts
    assert "echo top" not in texts


def test_npm_cache_add_reads_the_spec_after_add(project: Path) -> None:
    """``npm cache add lodash``: the spec is ``lodash`` (a registry package), not the word ``add``."""
    assert project_commands(("npm", "cache", "add", "lodash"), str(project)) == []


@pytest.mark.parametrize(
    "commands",
    [[("env", "-C", "$D", "make")], [("cd", "-")], [("cd", "$D")], [("cd", "+1")]],
)
def test_a_directory_only_known_when_the_line_runs_is_unknown(
    project: Path, commands: list[tuple[str, ...]]
) -> None:
    """``env -C "$D"``, ``cd -``, ``cd +1``: where the line's tools run is not known (None: the engine asks)."""
    assert line_directories(commands, str(project)) is None
