"""Turning the suite's :class:`ToolSpec` into reference-harness :class:`~reference_impl.Tool` objects."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from pytest_toolharness.specs import (
    STATE_KEY,
    CallRecorder,
    ScriptedErrorResult,
    StateChange,
    ToolSpec,
)
from reference_impl import Tool, ToolContext, ToolOutput, ToolState, build_tool, mcp_tool
from reference_impl.tools import UNLIMITED, PermissionTarget, ToolCall, ToolPermissionCheck, ValidationResult

__all__ = ["spec_to_tool", "specs_to_tools"]


def spec_to_tool(spec: ToolSpec, recorder: CallRecorder | None = None) -> Tool:
    """Build the reference harness's tool for ``spec``; its calls are recorded in ``recorder``."""
    active_recorder = recorder if recorder is not None else CallRecorder()

    async def call(tool_input: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        value = await spec.behavior.run(
            context.tool_use_id, spec.name, tool_input, context.abort, active_recorder, context.state.values
        )
        if isinstance(value, StateChange):
            change = value.value

            def modify(state: ToolState) -> ToolState:
                return state.with_value(STATE_KEY, change)

            return ToolOutput(content=value.text, context_modifier=modify)
        if isinstance(value, ScriptedErrorResult):
            return ToolOutput(
                content=value.text if value.blocks is None else [dict(b) for b in value.blocks], is_error=True
            )
        return ToolOutput(content=value)

    if spec.is_mcp:
        return _mcp_spec_to_tool(spec, call)
    options: dict[str, Any] = (
        {}
        if spec.declares_nothing
        else {
            "should_defer": spec.should_defer,
            "always_load": spec.always_load,
            "search_hint": spec.search_hint,
            "is_shell": spec.shell,
            "requires_user_interaction": spec.requires_user_interaction,
            "max_result_size_chars": UNLIMITED
            if spec.max_result_size_chars is None
            else spec.max_result_size_chars,
            "aliases": spec.aliases,
            **_behaviour_options(spec),
        }
    )
    return build_tool(spec.name, spec.description, call, input_json_schema=dict(spec.input_schema), **options)


def _mcp_spec_to_tool(spec: ToolSpec, call: ToolCall) -> Tool:
    """An MCP spec as the reference harness's MCP client wraps a listed tool (its ``_meta`` and annotations)."""
    meta: dict[str, Any] = {}
    if not spec.declares_nothing:
        if spec.always_load:
            meta["anthropic/alwaysLoad"] = True
        if spec.search_hint is not None:
            meta["anthropic/searchHint"] = spec.search_hint
        if spec.max_result_size_chars is not None:
            meta["anthropic/maxResultSizeChars"] = spec.max_result_size_chars
    annotations = spec.mcp_annotations
    if annotations is None and spec.read_only and not spec.declares_nothing:
        annotations = {"readOnlyHint": True}
    tool = mcp_tool(
        spec.mcp_server or "",
        spec.mcp_tool or spec.name,
        spec.description,
        spec.input_schema,
        call,
        meta=meta,
        annotations=annotations,
    )
    if spec.max_result_size_chars is None and not spec.declares_nothing:
        tool = tool.with_changes(max_result_size_chars=UNLIMITED)
    return tool.with_changes(**_behaviour_options(spec))


def specs_to_tools(specs: Sequence[ToolSpec], recorder: CallRecorder | None = None) -> list[Tool]:
    """Build every spec's tool."""
    return [spec_to_tool(spec, recorder) for spec in specs]


def _raises(_input: Mapping[str, Any]) -> bool:
    raise RuntimeError("scripted: this tool's classification predicate fails")


def _safety_predicate(spec: ToolSpec) -> Callable[[Mapping[str, Any]], bool]:
    """The spec's is_concurrency_safe: broken, decided by one input key, or the same for every call."""
    if spec.classification_raises:
        return _raises
    key = spec.concurrency_safe_when
    if key is not None:
        return lambda tool_input: key in tool_input
    return lambda _input: spec.concurrency_safe


def _behaviour_options(spec: ToolSpec) -> dict[str, Any]:
    if spec.declares_nothing:
        return {}
    options: dict[str, Any] = {
        "is_concurrency_safe": _safety_predicate(spec),
        "is_read_only": _raises if spec.classification_raises else lambda _input: spec.read_only,
    }
    if spec.permission_kind is not None:
        kind, field_name = spec.permission_kind, spec.permission_field

        def target(tool_input: Mapping[str, Any]) -> PermissionTarget | None:
            value = tool_input.get(field_name) if field_name else None
            return PermissionTarget(kind, value) if isinstance(value, str) else None

        options["permission_target"] = target
    if spec.rejects_when is not None or spec.validation_raises_when is not None:
        rejected, raising = spec.rejects_when, spec.validation_raises_when

        def validate(tool_input: Mapping[str, Any], _context: ToolContext) -> ValidationResult:
            if raising is not None and raising in tool_input:
                raise RuntimeError(f"scripted: {spec.name}'s input validation is broken")
            if rejected is not None and rejected in tool_input:
                return ValidationResult.invalid(spec.rejection_message())
            return ValidationResult.valid()

        options["validate_input"] = validate
    if spec.content_check != "passthrough" or spec.safety_check_when is not None:
        safety_key = spec.safety_check_when

        def check(tool_input: Mapping[str, Any], _context: ToolContext) -> ToolPermissionCheck:
            if safety_key is not None and safety_key in tool_input:
                return ToolPermissionCheck(
                    "ask", message=f"{spec.name}: {safety_key} needs a person", safety_check=True
                )
            if spec.content_check == "raises":
                raise RuntimeError(f"{spec.name}'s permission check is broken")
            if spec.content_check == "invalid":
                # An answer outside allow / ask / deny / passthrough, as a buggy tool might give.
                return ToolPermissionCheck(cast(Any, "maybe"), message=f"{spec.name} is not sure")
            return ToolPermissionCheck(spec.content_check, message=f"{spec.name} content check")

        options["check_permissions"] = check
    return options
