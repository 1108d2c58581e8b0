"""Target profiles: the built-ins, the entry-point group, and scenarios in a profile's own tool names."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_toolharness.wire.checks import _evidence as evidence
from pytest_toolharness.wire.scenarios._core import CLAUDE_CODE_NAMES, ToolNames
from pytest_toolharness.wire.scenarios._tool_calls import (
    DeferIds,
    PairingIds,
    deferred_scenario,
    pairing_scenario,
)
from pytest_toolharness.wire.targets._command import ReferenceTarget, TargetError, TargetOutcome
from pytest_toolharness.wire.targets._profiles import (
    ENTRY_POINT_GROUP,
    PROFILE_CAPABILITIES,
    ClaudeCodeProfile,
    ReferenceProfile,
    TargetProfile,
    load_profiles,
    profile_named,
)
from pytest_toolharness.wire.targets._wire_adapter import WireHarness, WireRun, target_names

REPO = Path(__file__).resolve().parents[1]


def test_builtins_are_profiles_with_known_capabilities() -> None:
    for name in ("reference", "claude-code"):
        profile = profile_named(name)
        assert isinstance(profile, TargetProfile)
        assert profile.name == name
        assert set(profile.capabilities) <= set(PROFILE_CAPABILITIES)
        assert "core" in profile.claims
    assert profile_named(" reference ") is not None
    assert profile_named("no-such-cli") is None
    assert isinstance(ReferenceProfile().target(), ReferenceTarget)
    assert ReferenceProfile().baseline() is None
    baseline = ClaudeCodeProfile().baseline()
    assert baseline is not None
    assert baseline.is_file()


def test_pyproject_declares_the_builtins_in_the_group() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert f'[project.entry-points."{ENTRY_POINT_GROUP}"]' in text
    assert 'claude-code = "pytest_toolharness.wire.targets._profiles:ClaudeCodeProfile"' in text
    assert 'reference = "pytest_toolharness.wire.targets._profiles:ReferenceProfile"' in text


PLUGIN = textwrap.dedent(
    """
    from pathlib import Path
    from pytest_toolharness.wire.scenarios._core import ToolNames
    from pytest_toolharness.wire.targets._command import CommandTarget


    class MyCliProfile:
        name = "my-cli"
        description = "a CLI from another package"
        claims = ("core",)
        capabilities = frozenset({"mcp", "read_tool"})
        names = ToolNames(read="read", shell=None, tool_search=None, mcp_format="{server}_{tool}")

        def find_binary(self):
            return None

        def target(self):
            return CommandTarget("my-cli -p {prompt}")

        def baseline(self):
            return None


    def profile():
        return MyCliProfile()


    def broken():
        return object()
    """
)


@pytest.fixture
def installed_plugin(tmp_path: Path) -> Iterator[Path]:
    """A real distribution on sys.path declaring two target profiles in the entry-point group."""
    (tmp_path / "my_cli_profile.py").write_text(PLUGIN, encoding="utf-8")
    info = tmp_path / "my_cli_profile-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: my-cli-profile\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nmy-cli = my_cli_profile:profile\nbroken = my_cli_profile:broken\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("my_cli_profile", None)


@pytest.mark.usefixtures("installed_plugin")
def test_a_package_adds_a_profile_through_the_entry_point_group() -> None:
    assert {"reference", "claude-code", "my-cli", "broken"} <= set(load_profiles())
    profile = profile_named("my-cli")
    assert profile is not None
    assert profile.names.mcp("echo") == "suite_echo"
    assert target_names(profile.target()) == CLAUDE_CODE_NAMES  # a plain CommandTarget has no names
    with pytest.raises(TargetError, match=r"'broken' .* is not a target profile"):
        profile_named("broken")


def test_scenarios_call_the_tools_by_the_profiles_names() -> None:
    names = ToolNames(read="read", shell="bash", tool_search="tool_search", mcp_format="{server}_{tool}")
    first = pairing_scenario(names).steps[0]
    assert not callable(first)
    called = {block.id: block.name for block in first.tool_uses}
    assert called[PairingIds.OK] == "suite_echo"
    assert called[PairingIds.INVALID] == "read"
    assert called[PairingIds.DENIED] == "bash"
    assert called[PairingIds.UNKNOWN] == "suite_no_such_tool"
    search = deferred_scenario(names).steps[0]
    assert not callable(search)
    assert search.tool_uses[0].id == DeferIds.SEARCH
    assert search.tool_uses[0].name == "tool_search"
    assert search.tool_uses[0].input["query"] == "select:suite_big"
    # Claude Code's names stay the default.
    default = pairing_scenario().steps[0]
    assert not callable(default)
    assert {b.name for b in default.tool_uses} >= {"Read", "Bash", "mcp__suite__echo"}


def test_a_harness_and_its_runs_carry_the_targets_names(tmp_path: Path) -> None:
    class Named(ReferenceTarget):
        names = ToolNames(read="read", shell="bash")

    harness = WireHarness(Named(), tmp_path, 5.0)
    assert harness.names.read == "read"
    # The proofs ask for the target's own tool names: a run offering only "Read" did not offer "read".
    assert "no read tool" in (evidence.PAIRING_PROOFS[PairingIds.INVALID](_empty_run(harness.names)) or "")


def _empty_run(names: ToolNames) -> WireRun:
    outcome = TargetOutcome(exit_code=0, stdout="", stderr="", timed_out=False, duration=0.0)
    return WireRun("pairing", "t", "http://127.0.0.1:1", 1.0, [], outcome, [], names=names)
