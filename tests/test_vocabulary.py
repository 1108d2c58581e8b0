"""Claude Code's vocabulary is spelled once per package, and the plugin's copy is the harness's.

The plugin (:mod:`pytest_toolharness.specs._vocabulary`, which the strategies and the conformance suite
import) must not import ``reference_impl``, so it keeps its own copy of the settings sources and
their precedence, the permission modes, the hook events and MCP naming. This module holds that copy
to the harness's (``reference_impl.permissions._decisions`` / ``._settings``, ``reference_impl.hooks._model``,
``reference_impl.tools._names``), to the users' documentation, and to the shared design documents.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import get_args, get_type_hints

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import _strategies_permissions
from pytest_toolharness import strategies as ths
from pytest_toolharness._strategies import rules as _rules
from pytest_toolharness.specs import HookSpec
from pytest_toolharness.specs import _vocabulary as vocabulary
from reference_impl.hooks import _model as _hooks
from reference_impl.permissions import _decisions, _rule_syntax, _settings
from reference_impl.tools import _names

ROOT = Path(__file__).resolve().parent.parent

NO_REFERENCE = (
    "import sys; import {module}; "
    "loaded = sorted(m for m in sys.modules if m == 'reference_impl' or m.startswith('reference_impl.')); "
    "assert not loaded, loaded"
)


@pytest.mark.parametrize("module", ["pytest_toolharness.strategies", "pytest_toolharness.plugin"])
def test_importing_does_not_load_the_reference_harness(module: str) -> None:
    """Checking another harness must not import ``reference_impl`` (nor the anthropic SDK it pulls in)."""
    proc = subprocess.run(
        [sys.executable, "-c", NO_REFERENCE.format(module=module)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_the_check_would_see_a_reference_import(tmp_path: Path) -> None:
    """The subprocess check fails for a module that does import ``reference_impl`` (a stub here)."""
    (tmp_path / "reference_impl").mkdir()
    (tmp_path / "reference_impl" / "__init__.py").write_text("")
    (tmp_path / "uses_reference.py").write_text("import reference_impl\n")
    proc = subprocess.run(
        [sys.executable, "-c", NO_REFERENCE.format(module="uses_reference")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    assert "AssertionError: ['reference_impl']" in proc.stderr


# Settings sources and their precedence


def test_setting_sources_match_the_reference() -> None:
    assert vocabulary.SETTING_SOURCES == _decisions.SETTING_SOURCES
    assert get_args(vocabulary.SettingSource) == get_args(_decisions.SettingSource)
    assert vocabulary.SETTINGS_PRECEDENCE == _decisions.SETTINGS_PRECEDENCE
    assert vocabulary.SETTINGS_FILES == _decisions.SETTINGS_FILES
    assert set(vocabulary.SETTINGS_FILES) < set(vocabulary.SETTINGS_PRECEDENCE)


def test_the_precedence_orders_the_settings_files() -> None:
    """Five distinct files, each a rule source, the user's lowest and the managed policy highest."""
    precedence = vocabulary.SETTINGS_PRECEDENCE
    assert len(set(precedence)) == len(precedence) == 5
    assert set(precedence) <= set(vocabulary.SETTING_SOURCES)
    assert (precedence[0], precedence[-1]) == ("userSettings", "policySettings")


# Permission modes


def test_permission_modes_match_the_reference() -> None:
    assert vocabulary.PERMISSION_MODES == _settings.PERMISSION_MODES
    assert get_args(vocabulary.PermissionMode) == get_args(_settings.PermissionMode)
    assert len(set(vocabulary.PERMISSION_MODES)) == len(vocabulary.PERMISSION_MODES)


def test_the_claude_code_tools_match_the_reference() -> None:
    """The built-in tool names a rule may name are those the harness's rule syntax knows."""
    assert sorted(vocabulary.CLAUDE_CODE_TOOLS) == sorted(_rule_syntax.TOOL_TARGETS)
    assert len(set(vocabulary.CLAUDE_CODE_TOOLS)) == len(vocabulary.CLAUDE_CODE_TOOLS)


def test_the_contentless_tools_match_the_reference() -> None:
    """The built-in tools no content rule can match are those the harness's rule syntax gives no target."""
    no_target = sorted(name for name, kind in _rule_syntax.TOOL_TARGETS.items() if kind is None)
    assert list(vocabulary.CONTENTLESS_TOOLS) == no_target


# Hook events


def test_hook_events_match_the_reference() -> None:
    assert vocabulary.TOOL_HOOK_EVENTS == _hooks.TOOL_HOOK_EVENTS
    assert get_args(vocabulary.HookEvent) == get_args(_hooks.HookEvent)
    assert vocabulary.TOOL_MATCHER_EVENTS == _hooks.TOOL_MATCHER_EVENTS
    assert vocabulary.ALL_HOOK_EVENTS == _hooks.ALL_HOOK_EVENTS
    assert vocabulary.LIFECYCLE_EVENTS == _hooks.LIFECYCLE_EVENTS
    assert set(vocabulary.LIFECYCLE_EVENTS) == set(vocabulary.ALL_HOOK_EVENTS) - set(
        vocabulary.TOOL_MATCHER_EVENTS
    )
    assert len(set(vocabulary.ALL_HOOK_EVENTS)) == len(vocabulary.ALL_HOOK_EVENTS)
    assert (
        set(vocabulary.TOOL_HOOK_EVENTS)
        <= set(vocabulary.TOOL_MATCHER_EVENTS)
        <= set(vocabulary.ALL_HOOK_EVENTS)
    )


def test_the_adapter_contract_scripts_exactly_the_tool_and_lifecycle_events() -> None:
    """:class:`HookSpec` spells its events as a Literal: the vocabulary's tool, then lifecycle events."""
    events = get_args(get_type_hints(HookSpec)["event"])
    assert events == (*vocabulary.TOOL_HOOK_EVENTS, *vocabulary.LIFECYCLE_EVENTS)


# The strategies and the suite take these from the vocabulary, not from a copy of their own


def test_the_strategies_and_the_suite_use_the_vocabulary() -> None:
    assert _rules.SETTING_SOURCES is vocabulary.SETTING_SOURCES
    assert ths.PERMISSION_MODES is vocabulary.PERMISSION_MODES
    assert ths.HOOK_EVENTS is vocabulary.TOOL_HOOK_EVENTS
    assert tuple(ths.OUTCOMES_BY_EVENT) == vocabulary.TOOL_HOOK_EVENTS
    assert set(ths.LIFECYCLE_OUTCOMES_BY_EVENT) <= set(vocabulary.LIFECYCLE_EVENTS)
    assert _strategies_permissions.MODES is vocabulary.PERMISSION_MODES
    assert _strategies_permissions.SOURCES is vocabulary.SETTING_SOURCES


@given(ths.hook_settings())
def test_hook_settings_name_only_known_events(settings: dict[str, object]) -> None:
    assert set(settings) <= set(vocabulary.ALL_HOOK_EVENTS)


def _backticked(line: str) -> list[str]:
    return re.findall(r"`([^`]+)`", line)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("| `settings_sources()` |", vocabulary.SETTING_SOURCES),
        ("| `permission_modes(", vocabulary.PERMISSION_MODES),
    ],
)
def test_the_strategies_documentation_lists_the_vocabulary(row: str, expected: tuple[str, ...]) -> None:
    """``docs/strategies.md`` lists the sources and modes the strategies draw, in their order."""
    lines = [
        line for line in (ROOT / "docs" / "strategies.md").read_text().splitlines() if line.startswith(row)
    ]
    assert len(lines) == 1, row
    assert tuple(_backticked(lines[0].split("|")[2])) == expected


# MCP names


@given(st.text(), st.text())
def test_mcp_names_match_the_reference(server: str, tool: str) -> None:
    """Both copies normalise and build ``mcp__<server>__<tool>`` names alike (every character outside
    ``[A-Za-z0-9_-]`` becomes ``_``)."""
    assert vocabulary.MCP_PREFIX == _names.MCP_PREFIX
    assert vocabulary.normalize_name_for_mcp(tool) == _names.normalize_name_for_mcp(tool)
    name = vocabulary.mcp_tool_name(server, tool)
    assert name == _names.mcp_tool_name(server, tool)
    assert len(name) == len("mcp____") + len(server) + len(tool)


@given(st.one_of(st.text(), st.text().map(lambda s: "mcp__" + s)))
def test_mcp_name_parsing_matches_the_reference(name: str) -> None:
    """Both copies split ``mcp__server[__tool]`` alike, and refuse the same non-MCP names."""
    ours, theirs = vocabulary.parse_mcp_name(name), _names.parse_mcp_name(name)
    assert (ours is None) == (theirs is None)
    if ours is not None and theirs is not None:
        assert (ours.server, ours.tool) == (theirs.server, theirs.tool)


# The shared design documents (../shared/design), where they name these facts


def _design(shared_dir: Path, name: str) -> str:
    path = shared_dir / "design" / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return path.read_text()


def _requirement(text: str, requirement_id: str) -> str:
    """The text of one requirement bullet (``- HOOK-7 SHOULD ...`` and its indented continuation)."""
    match = re.search(rf"^- {re.escape(requirement_id)} .*(?:\n  .*)*", text, re.MULTILINE)
    assert match is not None, f"{requirement_id} is not in the requirements"
    return match.group(0)


def test_the_design_documents_name_the_same_hook_events(shared_dir: Path) -> None:
    requirements = _design(shared_dir, "REQUIREMENTS.md")
    observed = _design(shared_dir, "CLAUDE-CODE-OBSERVED.md")
    for event in vocabulary.TOOL_HOOK_EVENTS:
        assert re.search(rf"\b{event}\b", requirements + observed), event
    # HOOK-7 lists the lifecycle events: its capitalised words, less asides and the header.
    lifecycle = re.sub(r"\([^)]*\)|`[^`]*`", "", _requirement(requirements, "HOOK-7"))
    named = {word for word in re.findall(r"\b[A-Z][A-Za-z]+\b", lifecycle) if not word.isupper()}
    assert named, "HOOK-7 names no event"
    assert named <= set(vocabulary.ALL_HOOK_EVENTS), sorted(named - set(vocabulary.ALL_HOOK_EVENTS))


def test_the_design_documents_name_the_same_permission_modes(shared_dir: Path) -> None:
    requirements = _design(shared_dir, "REQUIREMENTS.md")
    observed = _design(shared_dir, "CLAUDE-CODE-OBSERVED.md")
    modes_line = next(line for line in observed.splitlines() if line.startswith("- Modes:"))
    modes = _backticked(modes_line)
    assert modes, modes_line
    assert set(modes) <= set(vocabulary.PERMISSION_MODES), modes
    for mode in vocabulary.PERMISSION_MODES:
        if mode != mode.lower():  # the camelCase ones can't be ordinary English words
            assert re.search(rf"\b{mode}\b", requirements), mode


def test_the_design_documents_spell_mcp_names_alike(shared_dir: Path) -> None:
    observed = _design(shared_dir, "CLAUDE-CODE-OBSERVED.md")
    assert f"{vocabulary.MCP_PREFIX}<server>__<tool>" in observed
