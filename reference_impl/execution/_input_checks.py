"""Checking a tool_use's input: the tool's schema (pydantic model or JSON schema), then its own validator.

A batch checks each input once: the executor classifies a block with :func:`validate_tool_input` and
the pipeline reuses that check through :data:`PRECHECKED` for the very same tool and input object.
"""

from __future__ import annotations

import contextvars
import functools
import json
from collections.abc import Mapping
from typing import Any, cast

import jsonschema
from pydantic import ValidationError

from reference_impl._wire import wire_json
from reference_impl.tools import Tool, ToolContext

__all__ = ["PRECHECKED", "CheckedInput", "check_input", "validate_tool_input"]


def validate_tool_input(tool: Tool, tool_input: object) -> str | None:
    """Check ``tool_input`` against the tool's schema; the problem as text, or None when valid."""
    if not isinstance(tool_input, Mapping):
        return f"The input must be an object, not {type(tool_input).__name__}"
    if tool.input_model is not None:
        try:
            tool.input_model.model_validate(dict(tool_input))
        except ValidationError as exc:
            return "\n".join(
                f"The parameter `{'.'.join(str(p) for p in err['loc']) or '(root)'}` {err['msg'].lower()}"
                if err["type"] != "missing"
                else f"The required parameter `{'.'.join(str(p) for p in err['loc'])}` is missing"
                for err in exc.errors()
            )
        return None
    try:
        validator = _validator_for(wire_json(tool.input_json_schema or {"type": "object"}))
    except jsonschema.SchemaError as exc:
        return f"The tool's input schema is invalid: {exc.message}"
    errors = sorted(validator.iter_errors(dict(tool_input)), key=lambda e: list(e.path))
    if not errors:
        return None
    return "\n".join(_describe_schema_error(err) for err in errors)


@functools.lru_cache(maxsize=1024)
def _validator_for(schema_json: str) -> Any:
    """A checked validator per distinct schema: checking a schema against its meta-schema is slow."""
    schema = json.loads(schema_json)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def _describe_schema_error(err: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in err.absolute_path)
    if err.validator == "required" and isinstance(err.validator_value, list):
        missing = [
            name
            for name in err.validator_value
            if isinstance(err.instance, Mapping) and name not in err.instance
        ]
        prefix = f"{where}." if where else ""
        return "\n".join(f"The required parameter `{prefix}{name}` is missing" for name in missing)
    return f"The parameter `{where or '(root)'}`: {err.message}"


CheckedInput = tuple[Tool, object, str | None]

# The schema check the batch executor made when it classified the block that the current task
# runs: (tool, the input object, its problem). Set by new_batch_executor's ``run_one`` around one
# call, in that call's own task, so the classification and the pipeline validate an input once.
PRECHECKED: contextvars.ContextVar[CheckedInput | None] = contextvars.ContextVar("PRECHECKED", default=None)


def _schema_problem(tool: Tool, tool_input: object) -> str | None:
    known = PRECHECKED.get()
    # The very same tool and input object (a rewritten input is a new object, validated afresh).
    if known is not None and known[0] is tool and known[1] is tool_input:
        return known[2]
    return validate_tool_input(tool, tool_input)


def check_input(tool: Tool, tool_input: object, context: ToolContext) -> str | None:
    """Schema validation then the tool's own validation; the model-visible problem, or None."""
    problem = _schema_problem(tool, tool_input)
    if problem is not None:
        return f"InputValidationError: {tool.name} failed due to the following issue:\n{problem}"
    try:
        verdict = tool.validate_input(cast(Mapping[str, Any], tool_input), context)
    except Exception as exc:  # a tool's validator that crashes rejects (fail closed)
        return f"{tool.name} could not validate its input: {type(exc).__name__}: {exc}"
    if not verdict.ok:
        return verdict.message or f"{tool.name} rejected its input"
    return None
