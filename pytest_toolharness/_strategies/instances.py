"""Instances that do or don't satisfy a JSON schema.

It covers the subset of JSON Schema that tool input schemas use in practice (``type``,
``properties``, ``required``, ``additionalProperties``, ``items``, ``enum``, ``const``, ``anyOf``,
``oneOf``, length, size and range bounds, ``pattern``). A schema with a validation keyword outside
that subset is refused with an error naming the keyword and where it is, rather than producing
data that might not fit. Every generated instance is checked with :mod:`jsonschema` as a last
guard, so ``instances_of`` never yields an invalid instance and ``invalid_instances_of`` never a
valid one.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

import jsonschema
import jsonschema.validators
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from pytest_toolharness._strategies.schemas import WORDS, cached_strategy, json_values
from pytest_toolharness._strategies.text import utf8_characters

__all__ = [
    "INVALID_INSTANCE_KINDS",
    "InvalidInstanceKind",
    "can_break",
    "instances_of",
    "invalid_instances_of",
    "schema_validator",
]

InvalidInstanceKind: TypeAlias = Literal[
    "wrong_root_type", "missing_required", "wrong_property_type", "extra_property", "enum_violation"
]
INVALID_INSTANCE_KINDS: tuple[InvalidInstanceKind, ...] = (
    "wrong_root_type",
    "missing_required",
    "wrong_property_type",
    "extra_property",
    "enum_violation",
)
"""How :func:`invalid_instances_of` can break an instance."""

# Keywords that never make an instance invalid (annotations), and containers we don't look into.
_IGNORED = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$schema",
        "$id",
        "$comment",
        "format",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$defs",
        "definitions",
        "markdownDescription",
    }
)
_SUPPORTED = frozenset(
    {
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "anyOf",
        "oneOf",
    }
)
_JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


# ---------------------------------------------------------------------------------------------
# Instances


def schema_validator(schema: Mapping[str, Any]) -> jsonschema.protocols.Validator:
    """A :mod:`jsonschema` validator for ``schema`` (its declared draft, else 2020-12); refuses invalid schemas."""
    if not isinstance(schema, Mapping):
        raise InvalidArgument(f"a JSON schema must be a mapping, got {type(schema).__name__}")
    try:
        key = json.dumps(schema, sort_keys=True, default=_plain)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"a JSON schema must hold only JSON values: {exc}") from None
    return _cached_validator(key)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not a JSON value")


@functools.lru_cache(maxsize=512)
def _cached_validator(key: str) -> jsonschema.protocols.Validator:
    # Checking a schema against its meta-schema is slow, and strategies meet the same schemas often.
    # Checking against the meta-schema costs ~5 ms a schema, too slow for one pool per example;
    # _check_structure catches what the generator relies on.
    schema = json.loads(key)
    _check_structure(schema, "#")
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


def _check_structure(schema: Any, where: str) -> None:
    """Refuse what isn't JSON Schema in the keywords the generator reads (types, lists, sub-schemas)."""
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise InvalidArgument(f"not a valid JSON schema: {where} must be an object or a boolean")
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else None
    if declared is not None and (names is None or not names or any(t not in _JSON_TYPES for t in names)):
        raise InvalidArgument(f"not a valid JSON schema: unknown type {declared!r} at {where}")
    for key in ("enum", "required", "anyOf", "oneOf"):
        if key in schema and (not isinstance(schema[key], list) or (key != "required" and not schema[key])):
            raise InvalidArgument(f"not a valid JSON schema: {where}/{key} must be a non-empty list")
    if not all(isinstance(n, str) for n in schema.get("required", [])):
        raise InvalidArgument(f"not a valid JSON schema: {where}/required must list property names")
    for key in ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"):
        value = schema.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise InvalidArgument(f"not a valid JSON schema: {where}/{key} must be a number")
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise InvalidArgument(f"not a valid JSON schema: {where}/properties must be an object")
    for name, sub in properties.items():
        _check_structure(sub, f"{where}/properties/{name}")
    for key in ("items", "additionalProperties"):
        if key in schema:
            _check_structure(schema[key], f"{where}/{key}")
    for key in ("anyOf", "oneOf"):
        for i, sub in enumerate(schema.get(key, [])):
            _check_structure(sub, f"{where}/{key}/{i}")


def instances_of(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Values that satisfy ``schema`` (checked with :mod:`jsonschema`).

    Raises :class:`~hypothesis.errors.InvalidArgument` at once for a schema that is not valid JSON
    Schema or uses a validation keyword this generator does not implement (``$ref``, ``allOf``,
    ``not``, ``patternProperties``, ``multipleOf``...), naming the keyword and its location.
    """
    validator = schema_validator(schema)
    return _strategy_for(schema, "#").filter(validator.is_valid)


def _check_keywords(schema: Mapping[str, Any], where: str) -> None:
    unknown = sorted(k for k in schema if k not in _SUPPORTED and k not in _IGNORED)
    if unknown:
        raise InvalidArgument(
            f"instances_of does not support the JSON Schema keyword(s) {', '.join(unknown)} at {where}"
        )


def _types_of(schema: Mapping[str, Any]) -> list[str] | None:
    declared = schema.get("type")
    if declared is None:
        return None
    return [declared] if isinstance(declared, str) else list(declared)


def _strategy_for(schema: Any, where: str) -> st.SearchStrategy[Any]:
    if schema is True or schema == {}:
        return json_values()
    if schema is False:
        raise InvalidArgument(f"the schema at {where} is false: no value satisfies it")
    if not isinstance(schema, Mapping):
        raise InvalidArgument(
            f"the schema at {where} must be an object or a boolean, got {type(schema).__name__}"
        )
    _check_keywords(schema, where)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            # The sibling keywords still apply; the final jsonschema filter enforces them (and oneOf's
            # "exactly one"), which rejects only the rare value two branches both accept.
            return st.one_of(
                [_strategy_for(branch, f"{where}/{key}/{i}") for i, branch in enumerate(schema[key])]
            )
    types = _types_of(schema)
    if types is None:
        types = ["object"] if "properties" in schema or "required" in schema else list(_JSON_TYPES)
    return st.one_of([_typed(schema, t, where) for t in types])


def _typed(schema: Mapping[str, Any], kind: str, where: str) -> st.SearchStrategy[Any]:
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        low, high = _bounds(schema, integer=True)
        return st.integers(low, high)
    if kind == "number":
        low, high = _bounds(schema, integer=False)
        floats = st.floats(low, high, allow_nan=False, allow_infinity=False)
        int_low = None if low is None else math.ceil(low)
        int_high = None if high is None else math.floor(high)
        if int_low is not None and int_high is not None and int_low > int_high:
            return floats  # no integer fits between the bounds
        return st.one_of(st.integers(int_low, int_high), floats)
    if kind == "string":
        return _strings(schema)
    if kind == "array":
        items = _strategy_for(schema.get("items", True), f"{where}/items")
        low = int(schema.get("minItems", 0))
        high = int(schema.get("maxItems", low + 4))
        if schema.get("uniqueItems"):
            return st.lists(items, min_size=low, max_size=high, unique_by=_canonical)
        return st.lists(items, min_size=low, max_size=high)
    if kind == "object":
        return _objects(schema, where)
    raise InvalidArgument(f"unknown JSON type {kind!r} at {where}")


def _bounds(schema: Mapping[str, Any], *, integer: bool) -> tuple[Any, Any]:
    low: Any = schema.get("minimum")
    high: Any = schema.get("maximum")
    ex_low, ex_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    # Draft 4 spells exclusivity as booleans beside minimum/maximum; later drafts as numbers.
    if ex_low is True and low is not None:
        ex_low = low
    if ex_high is True and high is not None:
        ex_high = high
    if isinstance(ex_low, int | float) and not isinstance(ex_low, bool):
        low = ex_low if low is None else max(low, ex_low)
        low = math.floor(low) + 1 if integer else math.nextafter(low, math.inf)
    if isinstance(ex_high, int | float) and not isinstance(ex_high, bool):
        high = ex_high if high is None else min(high, ex_high)
        high = math.ceil(high) - 1 if integer else math.nextafter(high, -math.inf)
    if integer:
        low = None if low is None else math.ceil(low)
        high = None if high is None else math.floor(high)
    return low, high


def _strings(schema: Mapping[str, Any]) -> st.SearchStrategy[str]:
    low = int(schema.get("minLength", 0))
    high = int(schema.get("maxLength", max(low, 20)))
    if "pattern" in schema:
        # JSON Schema patterns are searched, not anchored: a string containing a match is valid.
        return st.from_regex(schema["pattern"], alphabet=utf8_characters()).filter(
            lambda s: low <= len(s) <= high
        )
    return st.text(utf8_characters(), min_size=low, max_size=high)


def _objects(schema: Mapping[str, Any], where: str) -> st.SearchStrategy[dict[str, Any]]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    required: list[str] = list(schema.get("required", []))
    fixed: dict[str, st.SearchStrategy[Any]] = {}
    for name in required:
        if name in properties:
            fixed[name] = _strategy_for(properties[name], f"{where}/properties/{name}")
        elif extra is False:
            raise InvalidArgument(f"{where} requires {name!r} but forbids properties it doesn't declare")
        else:
            fixed[name] = _strategy_for(extra, f"{where}/additionalProperties")
    optional = {
        name: _strategy_for(sub, f"{where}/properties/{name}")
        for name, sub in properties.items()
        if name not in fixed
    }
    return st.fixed_dictionaries(fixed, optional=optional)


def _canonical(value: Any) -> Any:
    """A hashable key under which JSON Schema's equality (``1 == 1.0``, ``true != 1``) is ``==``."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("num", float(value))
    if isinstance(value, list):
        return ("list", tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, _canonical(v)) for k, v in value.items())))
    return (type(value).__name__, value)


# ---------------------------------------------------------------------------------------------
# Invalid instances


@cached_strategy
def _values_of_type(kind: str) -> st.SearchStrategy[Any]:
    # Values that can never be mistaken for another JSON type: "number" uses non-integral floats
    # because jsonschema counts 1.0 as an integer.
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(-1000, 1000)
    if kind == "number":
        return st.integers(-1000, 1000).map(lambda i: i + 0.5)
    if kind == "string":
        return st.text(utf8_characters(), max_size=8)
    if kind == "array":
        return st.lists(st.integers(0, 9), max_size=3)
    return st.dictionaries(st.sampled_from(WORDS), st.integers(0, 9), max_size=2)


def _wrong_types(schema: Mapping[str, Any]) -> list[str]:
    """JSON types that ``schema``'s ``type`` rejects outright ([] when it has no ``type``)."""
    types = _types_of(schema)
    if types is None or "enum" in schema or "const" in schema or "anyOf" in schema or "oneOf" in schema:
        return []
    allowed = set(types) | ({"integer"} if "number" in types else set())
    return [t for t in _JSON_TYPES if t not in allowed]


def _mutations(schema: Mapping[str, Any], kinds: Sequence[str]) -> list[st.SearchStrategy[Any]]:
    validator = schema_validator(schema)
    valid = _strategy_for(schema, "#").filter(validator.is_valid)
    properties: Mapping[str, Any] = (
        schema.get("properties", {}) if isinstance(schema.get("properties"), Mapping) else {}
    )
    is_object = _types_of(schema) == ["object"]
    found: list[st.SearchStrategy[Any]] = []
    wrong_root = _wrong_types(schema)
    if "wrong_root_type" in kinds and wrong_root:
        found.append(st.sampled_from(wrong_root).flatmap(_values_of_type))
    if not is_object:
        return found
    required = [name for name in schema.get("required", []) if isinstance(name, str)]
    if "missing_required" in kinds and required:
        found.append(st.tuples(valid, st.sampled_from(required)).map(lambda pair: _without(pair[0], pair[1])))
    typed = sorted(name for name, sub in properties.items() if isinstance(sub, Mapping) and _wrong_types(sub))
    if "wrong_property_type" in kinds and typed:

        def set_wrong(name: str) -> st.SearchStrategy[Any]:
            wrong = st.sampled_from(_wrong_types(properties[name])).flatmap(_values_of_type)
            return st.tuples(valid, wrong).map(lambda pair: _with(pair[0], name, pair[1]))

        found.append(st.sampled_from(typed).flatmap(set_wrong))
    if "extra_property" in kinds and schema.get("additionalProperties") is False:
        extra_names = st.sampled_from([f"unexpected_{w}" for w in WORDS]).filter(
            lambda n: n not in properties
        )
        found.append(st.tuples(valid, extra_names, json_values()).map(lambda t: _with(t[0], t[1], t[2])))
    enums = sorted(name for name, sub in properties.items() if isinstance(sub, Mapping) and "enum" in sub)
    if "enum_violation" in kinds and enums:

        def off_enum(name: str) -> st.SearchStrategy[Any]:
            allowed = properties[name]["enum"]
            outside = (
                st.text(utf8_characters(), min_size=1, max_size=12)
                .map(lambda s: "not_" + s)
                .filter(lambda s: s not in allowed)
            )
            return st.tuples(valid, outside).map(lambda pair: _with(pair[0], name, pair[1]))

        found.append(st.sampled_from(enums).flatmap(off_enum))
    return found


def _without(instance: dict[str, Any], name: str) -> dict[str, Any]:
    return {k: v for k, v in instance.items() if k != name}


def _with(instance: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    return {**instance, name: value}


def can_break(
    schema: Mapping[str, Any], kinds: Sequence[InvalidInstanceKind] = INVALID_INSTANCE_KINDS
) -> bool:
    """Whether :func:`invalid_instances_of` can break ``schema`` in one of ``kinds``."""
    return bool(_mutations(schema, kinds))


def invalid_instances_of(
    schema: Mapping[str, Any], *, kinds: Sequence[InvalidInstanceKind] = INVALID_INSTANCE_KINDS
) -> st.SearchStrategy[Any]:
    """Values that violate ``schema`` in one of the ways named by ``kinds``.

    ``wrong_root_type`` replaces the whole value with one of a type the schema rejects;
    ``missing_required`` drops a required property; ``wrong_property_type`` gives a property a
    value of a type its schema rejects; ``extra_property`` adds an undeclared property where
    ``additionalProperties`` is false; ``enum_violation`` sets an enum property to a value outside
    it. Tool inputs must stay objects on the wire, so leave out ``wrong_root_type`` for them.
    Raises :class:`~hypothesis.errors.InvalidArgument` when no kind applies to the schema.
    """
    unknown = sorted(set(kinds) - set(INVALID_INSTANCE_KINDS))
    if unknown or not kinds:
        raise InvalidArgument(
            f"kinds must be a non-empty subset of {INVALID_INSTANCE_KINDS}, got {list(kinds)}"
        )
    found = _mutations(schema, kinds)
    if not found:
        raise InvalidArgument(f"no way to break this schema with kinds {list(kinds)}: {dict(schema)!r}")
    validator = schema_validator(schema)
    is_invalid: Callable[[Any], bool] = lambda value: not validator.is_valid(value)  # noqa: E731
    return st.one_of(found).filter(is_invalid)
