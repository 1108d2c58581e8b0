"""Tool → ToolParam through the session schema cache (CACHE-3, CACHE-4, SNAP-2)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest
from anthropic.types import ToolParam
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from reference_impl import Tool, ToolContext, ToolOutput, build_tool, mcp_tool
from reference_impl._wire import wire_bytes, wire_json
from reference_impl.request import ToolSchemaCache, input_schema_for_model, schema_cache_key, tool_to_param
from reference_impl.request import _schemas as _schema_cache
from reference_impl.tools import DescriptionContext

CONTEXT = DescriptionContext(model="claude-sonnet-4-5", cwd=Path("/tmp"))


async def _noop(_input: Any, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="ok")


class Inner(BaseModel):
    depth: int
    label: str = "x"


class ReadInput(BaseModel):
    """Read a file."""

    file_path: str = Field(description="Absolute path")
    title: str = Field(default="t", title="Custom")
    mode: Literal["text", "binary"] = "text"
    inner: Inner | None = None


def _read_tool(**options: Any) -> Tool:
    return build_tool("Read", "Reads a file.", _noop, input_model=ReadInput, **options)


def _mcp(schema: dict[str, Any] | None = None, description: str = "Search issues.") -> Tool:
    schema = schema or {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    return mcp_tool("github", "search", description, schema, _noop)


def test_field_order_and_optional_flags() -> None:
    tool = _read_tool(strict=True, eager_input_streaming=False)
    param = tool_to_param(
        tool, ToolSchemaCache(), description_context=CONTEXT, cache_control={"type": "ephemeral"}
    )
    assert list(param) == [
        "name",
        "description",
        "input_schema",
        "strict",
        "eager_input_streaming",
        "cache_control",
    ]
    assert param["eager_input_streaming"] is False
    plain = tool_to_param(_read_tool(), ToolSchemaCache(), description_context=CONTEXT, defer_loading=True)
    assert list(plain) == ["name", "description", "input_schema", "defer_loading"]
    assert plain["defer_loading"] is True


def test_defer_loading_false_is_left_out() -> None:
    param = tool_to_param(_read_tool(), ToolSchemaCache(), description_context=CONTEXT, defer_loading=False)
    assert "defer_loading" not in param
    assert "cache_control" not in param
    assert "strict" not in param


def test_deferred_tool_with_cache_control_is_refused() -> None:
    with pytest.raises(ValueError, match="'Read': a deferred tool can't carry cache_control"):
        tool_to_param(
            _read_tool(),
            ToolSchemaCache(),
            description_context=CONTEXT,
            defer_loading=True,
            cache_control={"type": "ephemeral"},
        )


def test_pydantic_titles_dropped_but_property_named_title_kept() -> None:
    schema = input_schema_for_model(ReadInput)
    assert "title" not in schema
    assert "title" in schema["properties"]
    assert "title" not in schema["properties"]["title"]  # the keyword goes, even an explicit one
    assert "title" not in schema["$defs"]["Inner"]
    assert all("title" not in prop for prop in schema["$defs"]["Inner"]["properties"].values())
    assert schema["properties"]["mode"]["enum"] == ["text", "binary"]
    assert list(schema["properties"]) == ["file_path", "title", "mode", "inner"]
    assert schema["description"] == "Read a file."


def test_title_in_data_positions_is_kept() -> None:
    class WithData(BaseModel):
        choice: dict[str, str] = Field(default={"title": "kept"}, examples=[{"title": "kept too"}])

    prop = input_schema_for_model(WithData)["properties"]["choice"]
    assert prop["default"] == {"title": "kept"}
    assert prop["examples"] == [{"title": "kept too"}]


def test_model_schema_is_memoised_and_copied() -> None:
    first = input_schema_for_model(ReadInput)
    first["properties"].clear()
    second = input_schema_for_model(ReadInput)
    assert second["properties"], "a caller's change leaked into the memoised schema"
    assert wire_json(second) == wire_json(input_schema_for_model(ReadInput))


def test_non_object_model_schema_is_refused() -> None:
    class Weird(BaseModel):
        x: int

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return {"type": "string"}

    with pytest.raises(TypeError, match="Weird: its JSON schema must have type 'object'"):
        input_schema_for_model(Weird)


def test_sent_schema_validates_what_the_model_accepts() -> None:
    param = tool_to_param(_read_tool(), ToolSchemaCache(), description_context=CONTEXT)
    good = ReadInput(file_path="/a", inner=Inner(depth=1)).model_dump()
    jsonschema.validate(good, dict(param["input_schema"]))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"mode": "text"}, dict(param["input_schema"]))


def test_overlays_never_touch_the_cached_base() -> None:
    """CACHE-3: overlays and caller mutations leave the base bytes as first rendered."""
    cache = ToolSchemaCache()
    tool = _read_tool()
    first = tool_to_param(tool, cache, description_context=CONTEXT)
    before = wire_bytes(first)
    deferred = tool_to_param(tool, cache, description_context=CONTEXT, defer_loading=True)
    deferred["name"] = "Changed"
    deferred["input_schema"]["properties"] = {}
    tool_to_param(tool, cache, description_context=CONTEXT, cache_control={"type": "ephemeral"})
    assert wire_bytes(tool_to_param(tool, cache, description_context=CONTEXT)) == before


def _counting_tool() -> Tool:
    counter = itertools.count()
    return build_tool("Clock", lambda _ctx: f"It is tick {next(counter)}.", _noop, input_model=Inner)


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=8))
def test_description_fixed_at_first_render(overlays: list[tuple[bool, bool]]) -> None:
    """CACHE-3: a tool whose description differs per call keeps its first bytes in a session.

    Whatever overlays later requests use, stripping them gives the first base back; a new
    ToolSchemaCache (a new session) renders the description afresh.
    """
    tool = _counting_tool()
    cache = ToolSchemaCache()
    base = wire_bytes(tool_to_param(tool, cache, description_context=CONTEXT))
    for defer, mark in overlays:
        param: dict[str, Any] = dict(
            tool_to_param(
                tool,
                cache,
                description_context=CONTEXT,
                defer_loading=defer,
                cache_control={"type": "ephemeral"} if mark and not defer else None,
            )
        )
        param.pop("defer_loading", None)
        param.pop("cache_control", None)
        assert wire_bytes(param) == base
    fresh = tool_to_param(tool, ToolSchemaCache(), description_context=CONTEXT)
    assert fresh["description"].startswith("It is tick")
    assert wire_bytes(fresh) != base


def test_clear_renders_afresh() -> None:
    tool = _counting_tool()
    cache = ToolSchemaCache()
    first = tool_to_param(tool, cache, description_context=CONTEXT)
    assert tool in cache
    assert len(cache) == 1
    cache.clear()
    assert tool not in cache
    assert tool_to_param(tool, cache, description_context=CONTEXT) != first


def test_raw_schema_key_includes_schema() -> None:
    """CACHE-4: an MCP tool whose schema changes gets a new base; the description alone doesn't."""
    cache = ToolSchemaCache()
    old = _mcp()
    tool_to_param(old, cache, description_context=CONTEXT)
    same_schema = _mcp(description="A different description.")
    assert schema_cache_key(same_schema) == schema_cache_key(old)
    assert tool_to_param(same_schema, cache, description_context=CONTEXT)["description"] == "Search issues."
    new_schema = _mcp(
        {"type": "object", "properties": {"q": {"type": "string"}, "page": {"type": "integer"}}},
        description="Search issues, paged.",
    )
    assert schema_cache_key(new_schema) != schema_cache_key(old)
    param = tool_to_param(new_schema, cache, description_context=CONTEXT)
    assert param["description"] == "Search issues, paged."
    assert "page" in param["input_schema"]["properties"]  # type: ignore[operator]
    assert schema_cache_key(_read_tool()) == "Read"  # pydantic tools: keyed by name


def test_unserialisable_raw_schema_is_named() -> None:
    tool = mcp_tool("s", "t", "d", {"type": "object", "enum": {1, 2}}, _noop)
    with pytest.raises(TypeError, match="tool 'mcp__s__t': input_json_schema is not JSON"):
        tool_to_param(tool, ToolSchemaCache(), description_context=CONTEXT)


def test_non_str_description_is_refused() -> None:
    tool = build_tool("Bad", lambda _ctx: 42, _noop, input_model=Inner)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="tool 'Bad': description must be a str, got int"):
        tool_to_param(tool, ToolSchemaCache(), description_context=CONTEXT)


def test_param_is_a_real_tool_param() -> None:
    param: ToolParam = tool_to_param(_mcp(), ToolSchemaCache(), description_context=CONTEXT)
    assert param["name"] == "mcp__github__search"
    assert param["input_schema"]["type"] == "object"


_SNAP_SCRIPT = textwrap.dedent(
    """
    import enum, hashlib, sys
    from typing import Literal
    from pydantic import BaseModel, Field
    from reference_impl import RequestBuilder
    from reference_impl import build_tool, mcp_tool, ToolOutput

    async def noop(_i, _c):
        return ToolOutput(content="ok")

    class Color(enum.Enum):
        RED = "red"
        GREEN = "green"
        BLUE = "blue"

    class Nested(BaseModel):
        zeta: int
        alpha: list[str] = Field(default_factory=list)

    class Input(BaseModel):
        b_field: Literal["x", "y", "z"] = "x"
        a_field: Color = Color.RED
        nested: Nested | None = None
        mapping: dict[str, int] = {"k2": 2, "k1": 1}

    built_in = [build_tool(n, f"{n} tool.", noop, input_model=Input) for n in ("Zed", "Alpha", "ToolSearch")]
    mcp = [
        mcp_tool(f"srv{i}", f"tool_{i}", f"Tool {i}.",
                 {"type": "object", "properties": {f"p{j}": {"type": "string"} for j in range(8)}}, noop)
        for i in range(6)
    ]
    builder = RequestBuilder(model="claude-sonnet-4-5", max_tokens=1024)
    built = builder.build(built_in + mcp, [{"role": "user", "content": "hi"}])
    from reference_impl._wire import wire_bytes
    sys.stdout.write(hashlib.sha256(wire_bytes(built.params)).hexdigest())
    """
)


def test_wire_bytes_independent_of_hash_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SNAP-2: the same tools give the same request bytes in processes with different hash seeds.

    Two child processes with fixed seeds, compared with this process (whose seed is pytest's).
    """
    root = Path(__file__).resolve().parent.parent
    # Started together: each process spends its time importing anthropic and pydantic.
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _SNAP_SCRIPT],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)},
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in ("0", "4242")
    ]
    exec(compile(_SNAP_SCRIPT, "<snap>", "exec", dont_inherit=True), {"__name__": "snap"})
    digests = {capsys.readouterr().out}
    for process in processes:
        out, err = process.communicate()
        assert process.returncode == 0, err
        digests.add(out)
    assert len(digests) == 1, digests
    assert len(digests.pop()) == 64


REUSE_CONTEXT = DescriptionContext(model="claude-sonnet-4-6", cwd=Path("/work"))


async def _ok_call(_input: Any, _context: Any) -> ToolOutput:
    return ToolOutput(content="ok")


def _raw_mcp_tool(properties: dict[str, Any]) -> Tool:
    return mcp_tool("srv", "t", "A tool.", {"type": "object", "properties": dict(properties)}, _ok_call)


def test_cache_key_computed_once_per_tool_object(monkeypatch: pytest.MonkeyPatch) -> None:
    """CACHE-4 still holds: a new Tool object with another schema gets its own key and base."""
    calls: list[str] = []
    original = _schema_cache.schema_cache_key

    def counting(tool: Tool) -> str:
        calls.append(tool.name)
        return original(tool)

    monkeypatch.setattr(_schema_cache, "schema_cache_key", counting)
    cache = ToolSchemaCache()
    tool = _raw_mcp_tool({"a": {"type": "string"}})
    first = [cache.base_json(tool, REUSE_CONTEXT) for _ in range(3)]
    assert len(calls) == 1
    assert first[0] is first[1] is first[2]
    changed = _raw_mcp_tool({"b": {"type": "integer"}})
    assert '"b"' in cache.base_json(changed, REUSE_CONTEXT)
    assert len(calls) == 2
    cache.clear()
    cache.base_json(tool, REUSE_CONTEXT)
    assert len(calls) == 3
