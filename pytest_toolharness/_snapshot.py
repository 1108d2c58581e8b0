"""Schema snapshots with syrupy: the exact wire bytes of each tool's schema, one file per tool (SNAP-1).

The bytes are those the anthropic SDK sends (``pytest_toolharness.wire.model_api._encoding.wire_bytes``: insertion order,
compact separators, ``ensure_ascii=False``), stored in binary mode as
``__snapshots__/<test module>/<test name>[<tool name>].json`` beside the test. On a mismatch the message
names the tool and each changed field, then shows both sides pretty-printed.

The ``tool_schema_snapshot`` fixture (declared by the entry point, :mod:`pytest_toolharness.plugin`)
calls :func:`tool_schema_snapshot` here.
"""

from __future__ import annotations

import difflib
import json
import re
import sysconfig
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

__all__ = [
    "ToolSchemaExtension",
    "schema_changes",
    "snapshot_file_name",
    "tool_param",
    "tool_schema_snapshot",
]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def tool_param(tool: Any) -> Mapping[str, Any]:
    """The ``ToolParam`` dict of ``tool``: the dict itself, or ``tool.to_param()``."""
    param = tool.to_param() if callable(getattr(tool, "to_param", None)) else tool
    if not isinstance(param, Mapping):
        raise TypeError(f"expected a ToolParam dict or an object with to_param(), got {type(tool).__name__}")
    name = param.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("the tool param has no non-empty 'name'")
    return param


def snapshot_file_name(tool_name: str) -> str:
    """The tool name made safe for a file name on every platform (``mcp__a__b`` stays as it is)."""
    return _UNSAFE.sub("_", tool_name)


def _render(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:199] + "…"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def schema_changes(old: Any, new: Any, path: str = "") -> Iterator[str]:
    """Describe how ``new`` differs from ``old``, one line per field (``field a.b changed: x -> y``)."""
    where = f"field {path}" if path else "the schema"
    if isinstance(old, dict) and isinstance(new, dict):
        found = False
        for key in old:
            if key not in new:
                found = True
                yield f"field {_join(path, key)} removed (was {_render(old[key])})"
        for key in new:
            if key not in old:
                found = True
                yield f"field {_join(path, key)} added: {_render(new[key])}"
        for key in old:
            if key in new:
                for change in schema_changes(old[key], new[key], _join(path, key)):
                    found = True
                    yield change
        common_old = [k for k in old if k in new]
        common_new = [k for k in new if k in old]
        if not found and common_old != common_new:
            yield f"{where}: key order changed ({', '.join(common_old)} -> {', '.join(common_new)})"
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            yield from schema_changes(a, b, f"{path}[{index}]")
    elif type(old) is not type(new) or old != new:
        yield f"{where} changed: {_render(old)} -> {_render(new)}"


def _decode(data: Any) -> Any:
    raw = bytes(data) if isinstance(data, bytes | bytearray | memoryview) else str(data).encode("utf-8")
    return json.loads(raw.decode("utf-8"))


class ToolSchemaExtension(SingleFileSnapshotExtension):
    """One binary ``.json`` file per tool holding its exact wire bytes, with a field-level diff."""

    _write_mode = WriteMode.BINARY
    # ``file_extension`` on syrupy 5+; ``_file_extension`` on older releases.
    file_extension = "json"
    _file_extension = "json"

    def serialize(self, data: Any, **kwargs: Any) -> bytes:
        """The bytes themselves (the fixture has already encoded the param)."""
        if not isinstance(data, bytes):
            raise TypeError(f"tool schema snapshots store bytes, got {type(data).__name__}")
        return data

    def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
        """Name the tool and each changed field, then show a diff of both sides pretty-printed."""
        try:
            new = _decode(serialized_data)
        except (ValueError, UnicodeDecodeError):
            yield from super().diff_lines(serialized_data, snapshot_data)
            return
        name = new.get("name") if isinstance(new, dict) else None
        if not snapshot_data:
            yield f"tool {name!r}: no snapshot yet; run pytest with --snapshot-update to create it"
            return
        try:
            old = _decode(snapshot_data)
        except (ValueError, UnicodeDecodeError):
            yield f"tool {name!r}: the stored snapshot is not valid UTF-8 JSON; regenerate it with --snapshot-update"
            return
        if isinstance(old, dict) and old.get("name") != name:
            yield f"tool {name!r}: renamed from {old.get('name')!r}"
        changes = list(schema_changes(old, new))
        if not changes:
            changes = ["same JSON value, different bytes (separators, escaping or number format changed)"]
        for change in changes:
            yield f"tool {name!r}: {change}"
        yield from difflib.unified_diff(
            json.dumps(old, indent=2, ensure_ascii=False).splitlines(),
            json.dumps(new, indent=2, ensure_ascii=False).splitlines(),
            "snapshot",
            "current",
            lineterm="",
        )


def _installed_dirs() -> list[Path]:
    paths = sysconfig.get_paths()
    return [Path(paths[key]).resolve() for key in ("purelib", "platlib") if key in paths]


def tool_schema_snapshot(
    snapshot: SnapshotAssertion, request: pytest.FixtureRequest
) -> Callable[[Any], None]:
    """The ``tool_schema_snapshot`` fixture's value for ``request``'s test (the fixture says what it does).

    A test installed in site-packages can't keep snapshots beside it: a usage error says so.
    """
    test_dir = Path(request.node.path).resolve().parent
    if any(test_dir == d or d in test_dir.parents for d in _installed_dirs()):
        raise pytest.UsageError(
            f"tool_schema_snapshot: {request.node.nodeid} is installed in site-packages; schema snapshots "
            "belong in your own project's tests, not in an installed package"
        )
    assertion = snapshot.use_extension(ToolSchemaExtension)
    used: dict[str, str] = {}

    def check(tool: Any) -> None:
        __tracebackhide__ = True
        param = tool_param(tool)
        tool_name = str(param["name"])
        file_name = snapshot_file_name(tool_name)
        if used.setdefault(file_name, tool_name) != tool_name:
            raise ValueError(
                f"tools {used[file_name]!r} and {tool_name!r} map to the same snapshot file name {file_name!r}"
            )
        # Imported here: the reference harness package pulls in the anthropic SDK, too slow for
        # every pytest start-up (the plugin loads in every run and every xdist worker).
        from pytest_toolharness.wire.model_api import wire_bytes

        data = wire_bytes(param)
        matched = assertion(name=file_name) == data
        if not matched:
            lines = assertion.get_assert_diff()
            raise AssertionError(
                f"schema of tool {tool_name!r} differs from its snapshot\n" + "\n".join(lines)
            )

    return check
