"""``project_hooks.json`` is what the tools' own documentation on this machine says (PERM-17)."""

from __future__ import annotations

import json
import shutil

import pytest

from reference_impl.permissions._grammar_mining import mine_project_hooks
from reference_impl.permissions._project_hooks import HOOKS_FILE, npm_command, npm_hooks


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
