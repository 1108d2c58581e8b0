"""tool_schema_snapshot: one binary .json file per tool with the exact wire bytes (SNAP-1)."""

from __future__ import annotations

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

from pytest_toolharness._snapshot import schema_changes, snapshot_file_name
from reference_impl._wire import wire_bytes

TEST_FILE = """
DESCRIPTION = "Run a command — safely"

class Tool:
    def to_param(self):
        return {"name": "mcp__srv__do/it", "description": "x", "input_schema": {"type": "object"}}

def test_tools(tool_schema_snapshot):
    tool_schema_snapshot({
        "name": "Bash",
        "description": "Shell",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string", "description": DESCRIPTION}}},
    })
    tool_schema_snapshot(Tool())
"""

BASH = {
    "name": "Bash",
    "description": "Shell",
    "input_schema": {
        "type": "object",
        "properties": {"command": {"type": "string", "description": "Run a command — safely"}},
    },
}


def test_snapshots_hold_the_exact_wire_bytes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_schemas=TEST_FILE)
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    folder = pytester.path / "__snapshots__" / "test_schemas"
    assert sorted(p.name for p in folder.iterdir()) == [
        "test_tools[Bash].json",
        "test_tools[mcp__srv__do_it].json",
    ]
    stored = (folder / "test_tools[Bash].json").read_bytes()
    assert stored == wire_bytes(BASH)
    assert b'{"name":"Bash","description":"Shell"' in stored
    assert "—".encode() in stored
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_change_names_the_tool_and_the_field(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_schemas=TEST_FILE)
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    pytester.makepyfile(test_schemas=TEST_FILE.replace("— safely", "carefully"))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*schema of tool 'Bash' differs from its snapshot*",
            "*tool 'Bash': field input_schema.properties.command.description changed:"
            ' "Run a command — safely" -> "Run a command carefully"*',
            '*-*"description": "Run a command — safely"*',
            '*+*"description": "Run a command carefully"*',
        ]
    )


def test_missing_snapshot_and_unused_snapshot(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under xdist the inner run inherits the worker's environment, and syrupy skips its
    # unused-snapshot report on workers.
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_schemas=TEST_FILE)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*tool 'Bash': no snapshot yet; run pytest with --snapshot-update*"])
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    pytester.makepyfile(test_schemas=TEST_FILE.replace("    tool_schema_snapshot(Tool())\n", ""))
    unused = pytester.runpytest()
    unused.stdout.fnmatch_lines(["*1 snapshot unused*"])
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    folder = pytester.path / "__snapshots__" / "test_schemas"
    assert [p.name for p in folder.iterdir()] == ["test_tools[Bash].json"]


def test_field_changes_are_described() -> None:
    old = {"name": "T", "input_schema": {"a": 1, "b": [1, 2], "c": True}}
    new = {"name": "T", "input_schema": {"b": [1, 3], "a": 1, "d": None, "c": 1}}
    assert list(schema_changes(old, new)) == [
        "field input_schema.d added: null",
        "field input_schema.b[1] changed: 2 -> 3",
        "field input_schema.c changed: true -> 1",
    ]
    assert list(schema_changes({"a": 1, "b": 2}, {"b": 2, "a": 1})) == [
        "the schema: key order changed (a, b -> b, a)"
    ]


def test_file_names_are_sanitised() -> None:
    assert snapshot_file_name("mcp__server__tool-1.x") == "mcp__server__tool-1.x"
    assert snapshot_file_name('a/b\\c:d*e?"<>|') == "a_b_c_d_e_____"
