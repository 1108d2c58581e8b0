"""The strategies' own copy of Claude Code's names, and that they don't load the reference harness."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_toolharness import _vocabulary as _naming
from reference_impl.permissions import _decisions
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


def test_setting_sources_match_the_reference() -> None:
    assert _naming.SETTING_SOURCES == _decisions.SETTING_SOURCES
    assert get_args(_naming.SettingSource) == get_args(_decisions.SettingSource)


@given(st.text(), st.text())
def test_mcp_names_match_the_reference(server: str, tool: str) -> None:
    """Both copies normalise and build ``mcp__<server>__<tool>`` names alike (every character outside
    ``[A-Za-z0-9_-]`` becomes ``_``)."""
    assert _naming.normalize_name_for_mcp(tool) == _names.normalize_name_for_mcp(tool)
    name = _naming.mcp_tool_name(server, tool)
    assert name == _names.mcp_tool_name(server, tool)
    assert len(name) == len("mcp____") + len(server) + len(tool)


@given(st.one_of(st.text(), st.text().map(lambda s: "mcp__" + s)))
def test_mcp_name_parsing_matches_the_reference(name: str) -> None:
    """Both copies split ``mcp__server[__tool]`` alike, and refuse the same non-MCP names."""
    ours, theirs = _naming.parse_mcp_name(name), _names.parse_mcp_name(name)
    assert (ours is None) == (theirs is None)
    if ours is not None and theirs is not None:
        assert (ours.server, ours.tool) == (theirs.server, theirs.tool)
