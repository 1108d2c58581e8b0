"""``project_hooks.json`` is what the tools' own documentation on this machine says (PERM-17)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reference_impl.permissions import _project_hooks
from reference_impl.permissions._grammar_mining import mine_project_hooks
from reference_impl.permissions._project_hooks import (
    HOOKS_FILE,
    cargo_runs_project_code,
    npm_command,
    npm_hooks,
)


@pytest.mark.parametrize("tool", ["npm", "pip", "cargo"])
def test_the_committed_catalogue_is_what_the_documentation_says(tool: str) -> None:
    """Mined again from npm's docs, pip's usage lines and cargo's manual pages, each tool's part is unchanged."""
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    mined = mine_project_hooks()[tool]
    if not mined or (tool == "cargo" and not mined["documented"]):
        pytest.skip(f"{tool}'s documentation is not on this machine")
    assert mined == json.loads(HOOKS_FILE.read_text(encoding="utf-8"))[tool]


@pytest.mark.parametrize(
    ("word", "script", "runs"),
    [
        ("i", None, "postinstall"),
        ("isntall", None, "prepare"),
        ("pack", None, "prepack"),
        ("rb", None, "install"),
        ("restart", None, "poststart"),
        ("rum", "build", "prebuild"),
        ("un", None, "dependencies"),
        ("installTest", None, "preinstall"),
    ],
)
def test_an_npm_command_runs_the_scripts_its_documentation_lists(
    word: str, script: str | None, runs: str
) -> None:
    """npm's aliases, abbreviations and camelCase are npm's commands, with their documented scripts."""
    command = npm_command(word)
    assert command is not None
    hooks = npm_hooks(command, script)
    assert hooks is not None, (word, command)
    assert runs in hooks.scripts, (word, command, hooks)


def test_a_cargo_configuration_the_engine_cannot_open_is_a_reason_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A configuration cargo would read but the engine can't open names itself as the reason to ask.

    As root every file opens, so the failure is the module's ``open`` refusing (a file whose
    permissions change between the check and the read, a file on a failing disk).
    """
    (tmp_path / ".cargo").mkdir()
    (tmp_path / ".cargo" / "config.toml").write_text("[term]\nverbose = true\n")
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "home"))

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError("permission denied")

    monkeypatch.setattr(_project_hooks, "open", refuse, raising=False)
    assert (
        cargo_runs_project_code("metadata", str(tmp_path))
        == f"{tmp_path}/.cargo/config.toml could not be read"
    )
