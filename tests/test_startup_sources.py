"""Files that make code run later, by class: the harness's and programs' start-up files, what the shell start-up sources or puts on PATH (PERM-15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl.permissions._protected_paths import protected_reason


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.parametrize(
    "name",
    [
        ".claude.json",  # the harness's own user configuration (mcpServers)
        ".mavenrc",  # mvn sources it
        ".ipython/profile_default/startup/00.py",  # ipython runs it
        ".ipython/profile_work/ipython_config.py",
        "/etc/claude-code/managed-settings.json",
        "/etc/claude-code/managed-settings.d/10-x.json",
        "/etc/mavenrc",
    ],
)
def test_known_startup_files_of_programs_are_protected(home: Path, name: str) -> None:
    """PERM-15: start-up files of the harness and of programs that run their code."""
    assert protected_reason(name if name.startswith("/") else str(home / name), home) is not None


def test_a_file_a_startup_file_sources_is_protected(home: Path) -> None:
    """PERM-15: ``. "$HOME/.cargo/env"`` in ~/.bashrc makes ``~/.cargo/env`` start-up code."""
    target = home / ".cargo" / "env"
    assert protected_reason(str(target), home) is None
    (home / ".bashrc").write_text('echo hi\n. "$HOME/.cargo/env"\nsource ~/.config/mine.sh # x\n')
    assert protected_reason(str(target), home) is not None
    assert protected_reason(str(home / ".config" / "mine.sh"), home) is not None
    assert protected_reason(str(home / ".config" / "other.sh"), home) is None


def test_a_sourced_file_under_a_home_like_directory_is_protected(tmp_path: Path, home: Path) -> None:
    """PERM-15: a directory holding a .bashrc may be a HOME (``HOME=h bash -i``): what it sources is protected."""
    fake = tmp_path / "h"
    (fake / ".cargo").mkdir(parents=True)
    (fake / ".bashrc").write_text('. "$HOME/.cargo/env"\n')
    assert protected_reason("h/.cargo/env", tmp_path) is not None


def test_a_directory_on_the_startup_path_is_protected(home: Path) -> None:
    """PERM-15: a program written into a directory the start-up PATH holds shadows a real one."""
    (home / ".profile").write_text('if [ -d "$HOME/bin" ] ; then\n    PATH="$HOME/bin:$PATH"\nfi\n')
    (home / ".bashrc").write_text('export PATH="${HOME}/.cargo/bin:/opt/tool/bin:$PATH"\n')
    for name in ("bin/git", ".cargo/bin/ls", ".local/bin/python3"):
        assert protected_reason(str(home / name), home) is not None, name
    assert protected_reason(str(home / "bin" / "sub" / "notes.txt"), home) is None
    assert protected_reason(str(home / "project" / "main.py"), home) is None


def test_a_file_sourced_three_files_deep_is_protected(home: Path) -> None:
    """PERM-15: ~/.bashrc sources a, a sources b, b sources c: c is start-up code (the reading's whole depth)."""
    (home / ".bashrc").write_text(". ~/a.sh\n")
    (home / "a.sh").write_text(". ~/b.sh\n")
    (home / "b.sh").write_text("source ~/c.sh\n")
    assert protected_reason(str(home / "c.sh"), home) is not None
    assert protected_reason(str(home / "d.sh"), home) is None


def test_the_harness_configuration_directory_is_protected(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PERM-15: ``$CLAUDE_CONFIG_DIR`` moves the harness's configuration: what is in it is protected, its siblings not."""
    configured = tmp_path / "conf"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(configured))
    reason = protected_reason(str(configured / "settings.json"), home)
    assert reason is not None
    assert "CLAUDE_CONFIG_DIR" in reason
    assert protected_reason(str(tmp_path / "confx" / "settings.json"), home) is None


def test_a_home_directory_on_path_is_protected(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PERM-15: a program written into a directory of the home on PATH shadows another; one off PATH does not."""
    (home / "opt-tools").mkdir()
    monkeypatch.setenv("PATH", f"{home / 'opt-tools'}:/usr/bin:/bin")
    reason = protected_reason(str(home / "opt-tools" / "ls"), home)
    assert reason is not None
    assert "a directory of the home on PATH" in reason
    assert protected_reason(str(home / "tools" / "ls"), home) is None
