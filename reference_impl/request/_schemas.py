"""Tool → ``ToolParam`` through a session cache of the base schema (000 §5.1; CACHE-3, CACHE-4).

Claude Code's ``toolToAPISchema()`` renders a tool's *base* (name, description, input schema,
``strict``, ``eager_input_streaming``) once per session and keeps it; ``defer_loading`` and
``cache_control`` are per-request overlays laid over a copy, so the deferral state of one request
never leaks into the bytes of another. A description computed by a callable is therefore fixed at
its first rendering for the whole session: a tool whose prompt mentions the date or the tool list
does not break the prompt cache on every turn.

The cache key is the tool's name, plus the wire JSON of its input schema for tools defined by a
raw JSON schema (MCP tools), exactly as Claude Code keys it: an MCP server that changes a tool's
schema gets a fresh base, while a pydantic-modelled built-in is keyed by name alone.

Pydantic schemas are generated once per model class (``model_json_schema``) with pydantic's
automatic ``title`` keywords removed: Claude Code's zod schemas have none, they cost tokens on every
request and they say nothing the property name doesn't. Only ``title`` *keywords* go; a property
that happens to be called ``title`` stays. Key order is pydantic's (deterministic per class).
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Mapping
from typing import Any, cast

from anthropic.types import CacheControlEphemeralParam, ToolParam
from pydantic import BaseModel

from reference_impl._wire import wire_json
from reference_impl.tools import DescriptionContext, Tool

__all__ = ["ToolSchemaCache", "input_schema_for_model", "schema_cache_key", "tool_to_param"]

# Keywords whose value is one schema, a list of schemas, or a name → schema mapping. Everything
# else (default, enum, const, examples, ...) is data and is never rewritten.
_SCHEMA_VALUED = frozenset(
    {
        "additionalItems",
        "additionalProperties",
        "contains",
        "else",
        "if",
        "items",
        "not",
        "propertyNames",
        "then",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAPS = frozenset({"$defs", "definitions", "dependentSchemas", "patternProperties", "properties"})


def _drop_titles(schema: Any) -> Any:
    """A copy of ``schema`` without ``title`` keywords at any schema position."""
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            result[key] = {name: _drop_titles(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            result[key] = [_drop_titles(sub) for sub in value]
        elif key in _SCHEMA_VALUED:
            result[key] = (
                [_drop_titles(sub) for sub in value] if isinstance(value, list) else _drop_titles(value)
            )
        else:
            result[key] = value
    return result


_MODEL_SCHEMAS: dict[type[BaseModel], str] = {}
_MODEL_SCHEMAS_LOCK = threading.Lock()


def input_schema_for_model(model: type[BaseModel]) -> dict[str, Any]:
    """The input schema of a pydantic model as sent on the wire (memoised per class).

    A fresh dict each call, so a caller can't alter the memoised schema. Raises
    :class:`TypeError` naming the model when its schema is not a JSON object schema.
    """
    return cast(dict[str, Any], json.loads(_model_schema_json(model)))


def _model_schema_json(model: type[BaseModel]) -> str:
    text = _MODEL_SCHEMAS.get(model)
    if text is None:
        schema = _drop_titles(model.model_json_schema(mode="validation"))
        if schema.get("type") != "object":
            raise TypeError(f"input model {model.__qualname__}: its JSON schema must have type 'object'")
        text = wire_json(schema)
        with _MODEL_SCHEMAS_LOCK:
            text = _MODEL_SCHEMAS.setdefault(model, text)
    return text


def schema_cache_key(tool: Tool) -> str:
    """The session cache key: the name, plus the schema's wire JSON for raw-schema tools (CACHE-4)."""
    if tool.input_json_schema is not None:
        return f"{tool.name}:{_schema_json(tool)}"
    return tool.name


def _schema_json(tool: Tool) -> str:
    try:
        return wire_json(tool.input_json_schema)
    except (TypeError, ValueError) as error:
        raise TypeError(f"tool {tool.name!r}: input_json_schema is not JSON for the wire: {error}") from None


def _render_base(tool: Tool, context: DescriptionContext) -> str:
    description = tool.render_description(context)
    if not isinstance(description, str):
        raise TypeError(f"tool {tool.name!r}: description must be a str, got {type(description).__name__}")
    schema = _model_schema_json(tool.input_model) if tool.input_model is not None else _schema_json(tool)
    # Field order is part of the bytes: name, description, input_schema, then the optional flags.
    # Joined from wire JSON pieces, exactly the wire_json of that object, without decoding the
    # schema's JSON and encoding it again (the first request of a 10,000-tool pool renders them all).
    parts = ['{"name":', wire_json(tool.name), ',"description":', wire_json(description)]
    parts += [',"input_schema":', schema]
    if tool.strict:
        parts.append(',"strict":true')
    if tool.eager_input_streaming is not None:
        parts += [',"eager_input_streaming":', wire_json(tool.eager_input_streaming)]
    parts.append("}")
    return "".join(parts)


class ToolSchemaCache:
    """A session's rendered tool bases, keyed by :func:`schema_cache_key` (CACHE-3).

    The first rendering of a key wins for the life of the session (or until :meth:`clear`); bases
    are stored as wire JSON so that nothing a caller does to a returned ``ToolParam`` can change
    them, and every request re-sends the same bytes.

    Two memos keep a request over a large pool cheap (a pool of 10,000 MCP tools is sent on every
    turn): each tool object's cache key (a raw schema's wire JSON, computed once per ``Tool``
    object; tools are frozen, their schemas are treated as immutable), and each base's parsed form
    for :func:`tool_to_param`'s ``share_nested``.
    """

    def __init__(self) -> None:
        self._bases: dict[str, str] = {}
        # Weak: pools are often rebuilt from new Tool objects, which must not pile up here.
        self._keys: weakref.WeakKeyDictionary[Tool, str] = weakref.WeakKeyDictionary()
        self._parsed: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def _key(self, tool: Tool) -> str:
        key = self._keys.get(tool)
        if key is None:
            key = schema_cache_key(tool)
            with self._lock:
                self._keys[tool] = key
        return key

    def base_json(self, tool: Tool, context: DescriptionContext) -> str:
        """The wire JSON of ``tool``'s base, rendering it on first use."""
        key = self._key(tool)
        cached = self._bases.get(key)
        if cached is not None:
            return cached
        rendered = _render_base(tool, context)
        with self._lock:
            return self._bases.setdefault(key, rendered)

    def base_param(self, tool: Tool, context: DescriptionContext) -> Mapping[str, Any]:
        """``tool``'s base as parsed from :meth:`base_json`: one object per base, shared, never to be changed."""
        text = self.base_json(tool, context)
        parsed = self._parsed.get(text)
        if parsed is None:
            with self._lock:
                parsed = self._parsed.setdefault(text, cast(dict[str, Any], json.loads(text)))
        return parsed

    def __contains__(self, tool: object) -> bool:
        return isinstance(tool, Tool) and schema_cache_key(tool) in self._bases

    def __len__(self) -> int:
        return len(self._bases)

    def clear(self) -> None:
        """Forget every base (a new session, or ``/clear``): the next request renders afresh."""
        with self._lock:
            self._bases.clear()
            self._parsed.clear()
            self._keys.clear()


def tool_to_param(
    tool: Tool,
    cache: ToolSchemaCache,
    *,
    description_context: DescriptionContext,
    defer_loading: bool = False,
    cache_control: CacheControlEphemeralParam | Mapping[str, Any] | None = None,
    share_nested: bool = False,
) -> ToolParam:
    """``tool`` as an ``anthropic.types.ToolParam``: the cached base plus this request's overlays.

    ``defer_loading`` is added only when true, then ``cache_control`` when given. A deferred tool
    can't carry ``cache_control`` (the API refuses it): asking for both is a :class:`ValueError`.

    The param is a new object; by default so is everything in it. With ``share_nested`` only the
    top level is new and the values in it (``input_schema``) are the session cache's own objects,
    shared with every other request: cheap for large pools (as Claude Code spreads its cached base),
    but the caller must not change them in place.
    """
    if defer_loading and cache_control is not None:
        raise ValueError(f"tool {tool.name!r}: a deferred tool can't carry cache_control")
    if share_nested:
        param = dict(cache.base_param(tool, description_context))
    else:
        param = cast(dict[str, Any], json.loads(cache.base_json(tool, description_context)))
    if defer_loading:
        param["defer_loading"] = True
    if cache_control is not None:
        param["cache_control"] = dict(cache_control)
    return cast(ToolParam, param)
