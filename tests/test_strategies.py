"""The public Hypothesis strategies generate well-formed data (issue 4 item 4)."""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from pytest_toolharness import strategies as ths
from pytest_toolharness._strategies.schemas import indices
from pytest_toolharness.specs import HookSpec, RuleSpec, ToolSpec
from reference_impl import hooks_from_settings
from reference_impl.hooks import compile_matcher
from reference_impl.permissions import SETTING_SOURCES
from reference_impl.tools import mcp_tool_name, parse_mcp_name

MCP_NAME = re.compile(r"^mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+$")
API_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TOOL_USE_ID = re.compile(r"^toolu_[A-Za-z0-9]+$")

try:  # written by another helper; the parse tests skip until it exists
    from reference_impl import RuleSyntaxError, parse_rule
except ImportError:  # pragma: no cover - depends on the tree's state
    parse_rule = None  # type: ignore[assignment]
    RuleSyntaxError = ValueError  # type: ignore[assignment,misc]

needs_rule_parser = pytest.mark.skipif(
    parse_rule is None, reason="reference_impl.permissions._rule_syntax.parse_rule not written yet"
)


def validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema)


# --- JSON schemas -----------------------------------------------------------------------------


@settings(max_examples=40)
@given(data=st.data())
def test_generated_schemas_are_valid_and_instances_satisfy_them(data: st.DataObject) -> None:
    """json_schemas gives valid JSON Schema; instances_of only yields instances that satisfy it (PAIR-2 inputs)."""
    schema = data.draw(ths.json_schemas())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert set(schema.get("required", [])) <= set(schema["properties"])
    instance = data.draw(ths.instances_of(schema))
    assert validator(schema).is_valid(instance)
    json.dumps(instance)  # wire-safe: plain JSON values only


@settings(max_examples=40)
@given(data=st.data())
def test_invalid_instances_violate_their_schema(data: st.DataObject) -> None:
    """invalid_instances_of never yields an instance that satisfies the schema (schema-invalid tool input, PAIR-2)."""
    schema = data.draw(ths.json_schemas())
    instance = data.draw(ths.invalid_instances_of(schema))
    assert not validator(schema).is_valid(instance)


CLOSED = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "minLength": 1},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "count": {"type": "integer", "minimum": 0},
    },
    "required": ["command"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("kind", "keyword"),
    [
        ("wrong_root_type", "type"),
        ("missing_required", "required"),
        ("wrong_property_type", "type"),
        ("extra_property", "additionalProperties"),
        ("enum_violation", "enum"),
    ],
)
@settings(max_examples=20)
@given(data=st.data())
def test_each_invalid_kind_breaks_the_schema_that_way(kind: str, keyword: str, data: st.DataObject) -> None:
    """Each kind of invalid instance fails with the JSON Schema keyword that kind is about."""
    instance = data.draw(ths.invalid_instances_of(CLOSED, kinds=[kind]))  # type: ignore[list-item]
    errors = list(validator(CLOSED).iter_errors(instance))
    assert errors
    assert keyword in {e.validator for e in errors}


HANDWRITTEN: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {"x": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "required": ["x"],
    },
    {"type": "object", "properties": {"k": {"const": "v"}, "n": {"type": ["integer", "null"]}}},
    {
        "type": "object",
        "properties": {"p": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}},
        "required": ["p"],
    },
    {
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": "^[a-z]{3}-[0-9]{2}$"}},
        "required": ["id"],
    },
    {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True, "minItems": 2}
        },
        "required": ["tags"],
    },
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"a": {"type": "object", "properties": {"b": {"type": "boolean"}}, "required": ["b"]}},
        "required": ["a"],
    },
    {"type": "object", "required": ["free"], "additionalProperties": {"type": "integer"}},
]


@pytest.mark.parametrize("schema", HANDWRITTEN)
@settings(max_examples=25)
@given(data=st.data())
def test_instances_of_handles_the_keywords_real_tool_schemas_use(
    schema: dict[str, Any], data: st.DataObject
) -> None:
    """anyOf, const, type lists, exclusive bounds, patterns, uniqueItems, draft-07 and nested required all hold."""
    instance = data.draw(ths.instances_of(schema))
    checker = jsonschema.validators.validator_for(schema)(schema)
    assert checker.is_valid(instance), instance


@pytest.mark.parametrize(
    ("schema", "needle"),
    [
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}}, "$ref"),
        ({"type": "object", "allOf": [{"type": "object"}]}, "allOf"),
        ({"type": "integer", "multipleOf": 3}, "multipleOf"),
        ({"type": "wat"}, "not a valid JSON schema"),
        ("not a schema", "must be a mapping"),
    ],
)
def test_unsupported_or_broken_schemas_are_refused_by_name(schema: Any, needle: str) -> None:
    """A schema the generator can't honour is refused with an error naming the keyword, never guessed at."""
    with pytest.raises(InvalidArgument, match=re.escape(needle)):
        ths.instances_of(schema)


def test_a_schema_that_accepts_everything_cant_be_broken() -> None:
    with pytest.raises(InvalidArgument, match="no way to break"):
        ths.invalid_instances_of({"type": "object", "properties": {}}, kinds=["missing_required"])


# --- tools and pools --------------------------------------------------------------------------


@settings(max_examples=20)
@given(ths.tool_pools(max_builtin=6, max_mcp=8))
def test_pool_names_are_unique_and_well_formed(pool: tuple[list[ToolSpec], list[ToolSpec]]) -> None:
    """Tool names in a pool are unique and valid API names; MCP names are mcp__<server>__<tool> (PAIR-6)."""
    builtin, mcp = pool
    names = [s.name for s in builtin + mcp]
    assert len(names) == len(set(names))
    for spec in builtin:
        assert not spec.is_mcp
        assert API_TOOL_NAME.match(spec.name)
        assert not spec.name.startswith("mcp__")
        jsonschema.Draft202012Validator.check_schema(dict(spec.input_schema))
    for spec in mcp:
        assert spec.is_mcp
        assert MCP_NAME.match(spec.name), spec.name
        assert API_TOOL_NAME.match(spec.name)
        assert spec.name == mcp_tool_name(spec.mcp_server or "", spec.mcp_tool or "")
        parsed = parse_mcp_name(spec.name)
        assert parsed is not None
        assert parsed.tool is not None
        assert "__" not in parsed.server


@settings(max_examples=10)
@given(ths.tool_pools(min_mcp=1, max_mcp=5, clashes=True))
def test_pools_with_clashes_repeat_a_name(pool: tuple[list[ToolSpec], list[ToolSpec]]) -> None:
    """clashes=True puts two MCP specs with one harness name in the pool (CACHE-2 clash handling)."""
    _builtin, mcp = pool
    names = [s.name for s in mcp]
    assert len(names) > len(set(names))


@settings(max_examples=30)
@given(ths.mcp_tool_specs(server="Docs Search"))
def test_mcp_specs_for_a_given_server_are_normalised(spec: ToolSpec) -> None:
    assert spec.mcp_server == "Docs Search"
    assert spec.name.startswith("mcp__Docs_Search__")
    assert MCP_NAME.match(spec.name)


@settings(max_examples=30)
@given(ths.builtin_tool_specs(roles=["shell", "read", "edit", "web_fetch"]))
def test_role_specs_declare_the_field_rules_match(spec: ToolSpec) -> None:
    """Shell, read, edit and web-fetch specs require the input field their permission rules match."""
    assert spec.permission_field in spec.input_schema["properties"]
    assert spec.permission_field in spec.input_schema["required"]
    assert spec.shell == (spec.permission_kind == "shell")
    assert spec.name in {"Bash", "Read", "Edit", "Write", "WebFetch"}


@settings(max_examples=40)
@given(ths.tool_behaviors())
def test_default_behaviors_finish_on_their_own(behavior: Any) -> None:
    assert behavior.kind in ths.DEFAULT_BEHAVIOR_KINDS
    assert behavior.kind not in ("hang", "wait_abort")
    if behavior.kind == "text":
        assert behavior.output_text()


@settings(max_examples=10)
@given(ths.tool_behaviors(kinds=["text"], min_chars=50_001, max_chars=60_000))
def test_text_behaviors_can_exceed_the_result_limit(behavior: Any) -> None:
    """Large outputs exist for RESULT-1: every drawn text is past the 50,000-character default."""
    assert len(behavior.output_text()) > 50_000


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidArgument, match="kinds"):
        ths.tool_behaviors(kinds=["explode"])  # type: ignore[list-item]
    with pytest.raises(InvalidArgument, match="server"):
        ths.mcp_tool_specs(server="")
    with pytest.raises(InvalidArgument, match="max_mcp"):
        ths.tool_pools(max_mcp=1, clashes=True)
    with pytest.raises(InvalidArgument, match="modes"):
        ths.permission_modes(["yolo"])
    with pytest.raises(InvalidArgument, match="allowed_prefix"):
        ths.compound_commands("npm test && rm")


# --- rules, commands, paths, settings ---------------------------------------------------------


@needs_rule_parser
@settings(max_examples=150)
@given(ths.permission_rules())
def test_every_generated_rule_parses(rule: RuleSpec) -> None:
    """Every rule text in every syntax is accepted by the rule parser (PERM-4 inputs)."""
    assert parse_rule is not None
    parsed = parse_rule(rule.text, rule.behavior, rule.source)  # type: ignore[arg-type]
    assert parsed.text == rule.text


@needs_rule_parser
@settings(max_examples=100)
@given(ths.malformed_rules())
def test_every_malformed_rule_is_refused(text: str) -> None:
    """A malformed rule is refused with an error naming it, never read as something wider (PERM-12)."""
    assert parse_rule is not None
    with pytest.raises(RuleSyntaxError):
        parse_rule(text, "allow", "projectSettings")


@settings(max_examples=60)
@given(data=st.data(), kind=st.sampled_from(ths.RULE_KINDS))
def test_every_rule_kind_can_be_drawn_alone(data: st.DataObject, kind: str) -> None:
    """Each syntax is reachable on its own, so a test can target one (e.g. only mcp__server__*)."""
    text = data.draw(ths.rule_texts(kinds=[kind]))  # type: ignore[list-item]
    shapes = {
        "bash_prefix_colon": r"^Bash\(.+:\*\)$",
        "bash_prefix_space": r"^Bash\(.+ \*\)$",
        "read_absolute": r"^Read\(//.+\)$",
        "read_home": r"^Read\(~/.+\)$",
        "web_fetch_domain": r"^WebFetch\(domain:.+\)$",
        "mcp_server_wildcard": r"^mcp__[A-Za-z0-9_-]+__\*$",
        "mcp_tool": MCP_NAME.pattern,
    }
    if kind in shapes:
        assert re.match(shapes[kind], text), text


@settings(max_examples=40)
@given(ths.permission_rules(tool_names=["Read", "mcp__docs__search", "mcp__docs__fetch"]))
def test_rules_for_a_pool_name_its_tools(rule: RuleSpec) -> None:
    assert rule.behavior in ("allow", "ask", "deny")
    assert rule.source in SETTING_SOURCES
    if rule.text.startswith("mcp__"):
        assert rule.text.startswith("mcp__docs")


@settings(max_examples=80)
@given(data=st.data(), prefix=st.sampled_from(["npm test", "git status", "ls", "rm", "python -m pytest"]))
def test_compound_commands_join_the_allowed_prefix_to_something_else(
    data: st.DataObject, prefix: str
) -> None:
    """A bypass attempt contains the allowed prefix and a shell operator joining another command (PERM-11)."""
    command = data.draw(ths.compound_commands(prefix))
    assert prefix in command
    assert any(op in command for op in ("&&", "||", ";", "|", "&", "\n", "$(", "`", "<("))
    other = command.replace(prefix, "", 1)
    assert re.search(r"[a-z]", other)  # there is a second command, not just arguments


@settings(max_examples=80)
@given(
    data=st.data(),
    path=st.sampled_from(
        [".env", "src/app.py", "./a/../secrets/key.pem", "/etc/passwd", "~/x/y", "//abs/x", "..", "."]
    ),
)
def test_path_variants_normalise_to_the_same_path(data: st.DataObject, path: str) -> None:
    """Every variant is another spelling of the same path (PERM-11 path normalisation)."""
    variant = data.draw(ths.path_variants(path))
    assert posixpath.normpath(variant) == posixpath.normpath(path)
    if path.startswith("~"):
        assert variant.startswith("~/")


@settings(max_examples=30)
@given(ths.settings_json())
def test_settings_json_is_valid_settings(settings_dict: dict[str, Any]) -> None:
    """Generated settings are JSON, every rule parses and the hooks load (PERM-12, HOOK-1 inputs)."""
    json.dumps(settings_dict)
    permissions = settings_dict.get("permissions", {})
    assert set(permissions) <= {"allow", "deny", "ask", "defaultMode", "additionalDirectories"}
    if "defaultMode" in permissions:
        assert permissions["defaultMode"] in ths.PERMISSION_MODES
    if parse_rule is not None:
        for behavior in ("allow", "deny", "ask"):
            for text in permissions.get(behavior, []):
                parse_rule(text, behavior, "projectSettings")
    hooks_from_settings(settings_dict, name="generated settings.json")


# --- hooks ------------------------------------------------------------------------------------

NAMES = st.one_of(ths.tool_names(), ths.mcp_tool_specs().map(lambda s: s.name))


@settings(max_examples=50)
@given(data=st.data(), name=NAMES)
def test_hook_matchers_select_exactly_as_asked(data: st.DataObject, name: str) -> None:
    """Matching matchers select the tool and the others don't, with Claude Code's matcher rules (HOOK-1)."""
    assert compile_matcher(data.draw(ths.hook_matchers(name)))(name)
    assert not compile_matcher(data.draw(ths.hook_matchers(name, matching=False)))(name)


@settings(max_examples=80)
@given(ths.hook_specs(tool_name="Bash"))
def test_hook_specs_fit_their_event(spec: HookSpec) -> None:
    """Outcomes fit the event; only failure outcomes print non-JSON; hangs only when asked (HOOK-3)."""
    assert spec.outcome in ths.OUTCOMES_BY_EVENT[spec.event]
    assert spec.outcome != "hang"
    assert spec.matcher is None or compile_matcher(spec.matcher)("Bash")
    output = spec.output_json()
    if spec.outcome in ("exit1", "exit2", "garbage", "plain_text", "crash"):
        assert output is None
    else:
        assert isinstance(output, dict)
        json.dumps(output)


def test_hook_outcomes_that_fit_no_event_are_refused() -> None:
    with pytest.raises(InvalidArgument, match="applies"):
        ths.hook_specs(event="PermissionRequest", outcomes=["block"])
    with pytest.raises(InvalidArgument, match="applies"):
        ths.lifecycle_hook_specs(event="SessionStart", outcomes=["block"])
    with pytest.raises(InvalidArgument, match="event must be"):
        ths.lifecycle_hook_specs(event="PreToolUse")
    with pytest.raises(InvalidArgument, match="event must be"):
        ths.hook_stacks(event="Nonsense")
    with pytest.raises(InvalidArgument, match="min_size"):
        ths.hook_stacks(event="Stop", min_size=3, max_size=2)
    with pytest.raises(InvalidArgument, match="broken"):
        ths.hook_stacks(event="Stop", outcomes=["none"], broken=True)


@settings(max_examples=60)
@given(ths.lifecycle_hook_specs())
def test_lifecycle_hook_specs_fit_their_event(spec: HookSpec) -> None:
    """Lifecycle outcomes fit the event; no matcher; SessionStart never stops (Claude Code ignores it)."""
    assert spec.outcome in ths.LIFECYCLE_OUTCOMES_BY_EVENT[spec.event]
    assert spec.matcher is None
    assert not (spec.event == "SessionStart" and spec.outcome == "stop")
    output = spec.output_json()
    if spec.outcome in ("exit1", "exit2", "garbage", "plain_text", "crash"):
        assert output is None
    else:
        assert isinstance(output, dict)


@settings(max_examples=80)
@given(
    data=st.data(),
    event=st.sampled_from([*ths.OUTCOMES_BY_EVENT, *ths.LIFECYCLE_OUTCOMES_BY_EVENT]),
    broken=st.sampled_from([None, True, False]),
)
def test_hook_stacks_are_several_marked_hooks_with_the_broken_ones_asked_for(
    data: st.DataObject, event: str, broken: bool | None
) -> None:
    """A stack has 2..3 hooks of one event, distinct marks, and exactly one broken hook when asked for."""
    stack = data.draw(ths.hook_stacks(event=event, broken=broken, tool_name="Bash"))
    assert 2 <= len(stack) <= 3
    assert {h.event for h in stack} == {event}
    table = {**ths.OUTCOMES_BY_EVENT, **ths.LIFECYCLE_OUTCOMES_BY_EVENT}
    assert all(h.outcome in table[event] and h.outcome != "hang" for h in stack)
    assert len({h.reason for h in stack}) == len({h.context for h in stack}) == len(stack)
    broken_count = sum(h.outcome in ths.BROKEN_OUTCOMES for h in stack)
    if broken is True:
        assert broken_count == 1
    elif broken is False:
        assert broken_count == 0


# --- messages ---------------------------------------------------------------------------------

POOLS = ths.tool_pools(min_builtin=1, max_builtin=4, max_mcp=4)


@settings(max_examples=20)
@given(data=st.data(), pool=POOLS)
def test_batches_plant_exactly_the_faults_they_report(
    data: st.DataObject, pool: tuple[list[ToolSpec], list[ToolSpec]]
) -> None:
    """Ids are unique; a valid block names a known tool with valid input; faults are what they say (PAIR-2)."""
    tools = pool[0] + pool[1]
    by_name = {t.name: t for t in tools}
    batch = data.draw(ths.tool_use_batches(tools))
    assert len(batch.ids) == len(set(batch.ids))
    assert len(batch.faults) == len(batch.tool_uses)
    for block, fault in zip(batch.tool_uses, batch.faults, strict=True):
        assert block["type"] == "tool_use"
        assert TOOL_USE_ID.match(block["id"])
        assert isinstance(block["input"], dict)
        if fault == "unknown_tool":
            assert block["name"] not in by_name
        else:
            ok = validator(dict(by_name[block["name"]].input_schema)).is_valid(block["input"])
            assert ok == (fault is None)
    assert batch.abort_after_starts is None or 0 <= batch.abort_after_starts <= len(batch.tool_uses)


@settings(max_examples=8)
@given(data=st.data(), pool=POOLS)
def test_batches_without_faults_are_all_valid(
    data: st.DataObject, pool: tuple[list[ToolSpec], list[ToolSpec]]
) -> None:
    batch = data.draw(ths.tool_use_batches(pool[0] + pool[1], faults=False))
    assert batch.faults == (None,) * len(batch.tool_uses)
    assert batch.abort_after_starts is None


def check_history(history: list[dict[str, Any]], tools: list[ToolSpec]) -> None:
    deferred = {t.name for t in tools if (t.is_mcp or t.should_defer) and not t.always_load}
    messages = [e for e in history if not ths.is_compact_boundary(e)]
    assert [m["role"] for m in messages] == ["user", "assistant"] * (len(messages) // 2) + ["user"]
    seen_ids: list[str] = []
    referenced: set[str] = set()
    for entry in history:
        if ths.is_compact_boundary(entry):
            assert entry["discovered_tools"] == sorted(referenced)
            continue
        content = entry["content"]
        if entry["role"] == "user" and isinstance(content, list):
            for block in content:
                if block["type"] == "tool_result":
                    referenced.update(
                        b["tool_name"]
                        for b in block["content"]
                        if isinstance(block["content"], list) and b["type"] == "tool_reference"
                    )
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        uses = [b for b in message["content"] if b["type"] == "tool_use"]
        seen_ids.extend(b["id"] for b in uses)
        following = messages[i + 1]["content"]
        results = [b for b in following if isinstance(following, list) and b["type"] == "tool_result"]
        # Exactly one result per tool_use, in order, before any other block (PAIR-1).
        assert [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
        if isinstance(following, list):
            assert following[: len(results)] == results
        for result in results:
            if isinstance(result["content"], list):
                for block in result["content"]:
                    if block["type"] == "tool_reference":
                        assert block["tool_name"] in deferred
                    else:
                        assert block["text"]
    assert len(seen_ids) == len(set(seen_ids))


@settings(max_examples=25)
@given(data=st.data(), pool=POOLS)
def test_histories_pair_every_tool_use_with_one_result(
    data: st.DataObject, pool: tuple[list[ToolSpec], list[ToolSpec]]
) -> None:
    """Histories alternate roles, answer every tool_use once in order, and boundaries carry the discovered set (PAIR-1, PAIR-6, DEFER-7)."""
    tools = pool[0] + pool[1]
    check_history(data.draw(ths.message_histories(tools)), tools)


def test_histories_reach_search_and_compaction() -> None:
    """The interesting shapes are actually generated: tool_reference results and compact boundaries."""
    tools = [ToolSpec("Read"), ToolSpec("mcp__docs__search", mcp_server="docs", mcp_tool="search")]
    strategy = ths.message_histories(tools, max_turns=4)
    found: dict[str, bool] = {"boundary": False, "reference": False}

    @settings(max_examples=60, database=None)
    @given(strategy)
    def look(history: list[dict[str, Any]]) -> None:
        check_history(history, tools)
        text = json.dumps(history)
        found["boundary"] |= '"compact_boundary"' in text and '"mcp__docs__search"]' in text
        found["reference"] |= '"tool_reference"' in text

    look()
    assert found == {"boundary": True, "reference": True}


@settings(max_examples=10)
@given(ths.message_histories([], with_compaction=False))
def test_histories_without_tools_are_text_only(history: list[dict[str, Any]]) -> None:
    assert all(not ths.is_compact_boundary(e) for e in history)
    assert all(
        isinstance(m["content"], str) or all(b["type"] == "text" for b in m["content"]) for m in history
    )


@given(size=st.integers(1, 20), data=st.data())
def test_indices_are_in_range_and_lists_of_them_distinct(size: int, data: st.DataObject) -> None:
    """``indices(n)`` draws an index below n; with ``max_count`` a non-empty list of distinct ones."""
    assert 0 <= data.draw(indices(size)) < size
    many = data.draw(indices(size, max_count=3))
    assert 1 <= len(many) <= min(3, size)
    assert len(set(many)) == len(many)
    assert all(0 <= i < size for i in many)
    assert indices(size) is indices(size), "built once per size"


def test_indices_of_nothing_is_a_clear_error() -> None:
    with pytest.raises(InvalidArgument, match="size >= 1"):
        indices(0)
