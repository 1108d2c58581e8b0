"""JSON schemas for tool inputs, the realistic words they are written in, and strategy caching.

We write our own generator because hypothesis-jsonschema does not work with current Hypothesis.
:func:`json_schemas` draws object schemas as tools declare them; values that do or don't satisfy a
schema are :mod:`pytest_toolharness._strategies.instances`. :func:`cached_strategy` and
:func:`indices` keep strategies drawn inside composites from being rebuilt on every draw.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from pytest_toolharness._strategies.text import utf8_characters

__all__ = [
    "UNICODE_WORDS",
    "VERBS",
    "WORDS",
    "cached_strategy",
    "descriptions",
    "indices",
    "json_schemas",
    "json_values",
    "property_names",
    "words",
]

# Realistic vocabulary, written for this project (not copied from any corpus).
WORDS: tuple[str, ...] = (
    "file",
    "path",
    "search",
    "repository",
    "issue",
    "query",
    "page",
    "user",
    "channel",
    "message",
    "calendar",
    "event",
    "database",
    "table",
    "record",
    "image",
    "document",
    "weather",
    "forecast",
    "price",
    "stock",
    "commit",
    "branch",
    "pull",
    "request",
    "comment",
    "ticket",
    "project",
    "note",
    "memory",
    "graph",
    "node",
    "entity",
    "url",
    "browser",
    "screenshot",
    "map",
    "route",
    "place",
    "summary",
    "email",
    "thread",
    "workspace",
    "folder",
    "schema",
    "log",
    "metric",
    "alert",
    "deploy",
    "build",
    "container",
    "cluster",
    "secret",
    "invoice",
    "customer",
    "payment",
    "order",
    "product",
    "playlist",
    "track",
    "video",
    "transcript",
    "recipe",
    "paper",
    "citation",
    "package",
    "version",
    "dependency",
    "label",
    "status",
    "limit",
    "offset",
    "cursor",
    "owner",
    "title",
    "body",
    "content",
)
VERBS: tuple[str, ...] = (
    "get",
    "list",
    "create",
    "update",
    "delete",
    "search",
    "read",
    "write",
    "run",
    "fetch",
    "send",
    "query",
    "find",
    "add",
    "remove",
    "move",
    "open",
    "close",
    "merge",
    "validate",
    "convert",
    "summarize",
    "analyze",
    "export",
    "import",
)
# Non-ASCII words so that descriptions exercise UTF-8 encoding and code-point lengths.
UNICODE_WORDS: tuple[str, ...] = (
    "café",
    "données",
    "Größe",
    "日本語",
    "検索",
    "поиск",
    "naïve",
    "🚀",
    "résumé",
)


_P = ParamSpec("_P")
_T = TypeVar("_T")


def cached_strategy(build: Callable[_P, _T]) -> Callable[_P, _T]:
    """Build a strategy once per distinct (hashable) arguments, on first use, never at import.

    Strategies drawn inside composites would otherwise be rebuilt, and re-validated by
    Hypothesis, on every draw, which makes a pool of tools slow enough to fail health checks.
    """
    return cast(Callable[_P, _T], functools.lru_cache(maxsize=None)(build))


@cached_strategy
def indices(size: int, *, max_count: int = 0) -> st.SearchStrategy[Any]:
    """An index into a sequence of ``size`` items known only while drawing (built once per size).

    ``seq[draw(indices(len(seq)))]`` draws an item as ``sampled_from(seq)`` does, shrinking toward
    the first, without building and validating a strategy on every draw. With ``max_count``: a
    list of 1 to ``max_count`` distinct indices instead.
    """
    if size < 1:
        raise InvalidArgument(f"indices needs size >= 1, got {size}")
    one = st.integers(0, size - 1)
    if max_count:
        return st.lists(one, min_size=1, max_size=min(max_count, size), unique=True)
    return one


@cached_strategy
def words(*, unicode: bool = False) -> st.SearchStrategy[str]:
    """One realistic English word (or, with ``unicode=True``, sometimes a non-ASCII one)."""
    if unicode:
        return st.sampled_from(WORDS + UNICODE_WORDS)
    return st.sampled_from(WORDS)


@cached_strategy
def descriptions(*, min_words: int = 1, max_words: int = 12, unicode: bool = True) -> st.SearchStrategy[str]:
    """A sentence of realistic words, capitalised and ending in a full stop (never empty)."""
    if not 1 <= min_words <= max_words:
        raise InvalidArgument(f"descriptions needs 1 <= min_words <= max_words, got {min_words}, {max_words}")
    return st.lists(words(unicode=unicode), min_size=min_words, max_size=max_words).map(
        lambda ws: " ".join(ws)[:1].upper() + " ".join(ws)[1:] + "."
    )


@cached_strategy
def property_names() -> st.SearchStrategy[str]:
    """A property name as tool schemas spell them: ``file_path``, ``maxResults``, ``owner``."""
    snake = st.lists(words(), min_size=1, max_size=3).map("_".join)
    camel = st.lists(words(), min_size=2, max_size=3).map(
        lambda ws: ws[0] + "".join(w.title() for w in ws[1:])
    )
    return st.one_of(snake, camel)


@cached_strategy
def json_values(*, max_leaves: int = 6) -> st.SearchStrategy[Any]:
    """Any JSON value (finite numbers, no surrogates), kept small."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**31), 2**31),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(utf8_characters(), max_size=10),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.text(utf8_characters(), max_size=6), inner, max_size=3),
        ),
        max_leaves=max_leaves,
    )


# ---------------------------------------------------------------------------------------------
# Schema generation


@cached_strategy
def json_schemas(
    *,
    max_properties: int = 6,
    max_depth: int = 2,
    with_descriptions: bool = True,
    additional_properties: bool | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """Object schemas as tools declare them.

    Properties are strings (with length bounds), integers and numbers (with ranges), booleans,
    arrays, string enums and nested objects (down to ``max_depth``); ``required`` lists a subset of
    them; descriptions are realistic text, sometimes non-ASCII. ``additional_properties`` None lets
    the strategy choose whether to write ``"additionalProperties": false``; True never writes it,
    False always does.
    """
    if max_properties < 0 or max_depth < 0:
        raise InvalidArgument(f"json_schemas needs non-negative limits, got {max_properties=}, {max_depth=}")
    return _object_schemas(max_properties, max_depth, with_descriptions, additional_properties)


@cached_strategy
@st.composite
def _object_schemas(
    draw: st.DrawFn, max_properties: int, depth: int, with_descriptions: bool, additional: bool | None
) -> dict[str, Any]:
    names = draw(st.lists(property_names(), max_size=max_properties, unique=True))
    properties: dict[str, Any] = {}
    for name in names:
        properties[name] = draw(_property_schemas(depth, with_descriptions, additional))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = [name for name in names if draw(st.booleans())]
    if required:  # draft 4 requires a non-empty list, so leave the key out instead
        schema["required"] = required
    closed = draw(st.booleans()) if additional is None else not additional
    if closed:
        schema["additionalProperties"] = False
    return schema


@cached_strategy
@st.composite
def _property_schemas(
    draw: st.DrawFn, depth: int, with_descriptions: bool, additional: bool | None
) -> dict[str, Any]:
    kinds = ["string", "integer", "number", "boolean", "array", "enum"] + (["object"] if depth > 0 else [])
    kind = draw(st.sampled_from(kinds))
    schema: dict[str, Any]
    if kind == "object":
        schema = draw(_object_schemas(3, depth - 1, with_descriptions, additional))
    elif kind == "array":
        schema = {"type": "array", "items": draw(_scalar_schemas())}
        if draw(st.booleans()):
            low = draw(st.integers(0, 2))
            schema["minItems"] = low
            schema["maxItems"] = low + draw(st.integers(0, 4))
    elif kind == "enum":
        schema = {"type": "string", "enum": draw(st.lists(words(), min_size=1, max_size=5, unique=True))}
    else:
        schema = draw(_scalar_schemas(kind))
    if with_descriptions and draw(st.booleans()):
        schema["description"] = draw(descriptions())
    return schema


@cached_strategy
@st.composite
def _scalar_schemas(draw: st.DrawFn, kind: str | None = None) -> dict[str, Any]:
    kind = kind or draw(st.sampled_from(["string", "integer", "number", "boolean"]))
    schema: dict[str, Any] = {"type": kind}
    if kind == "string" and draw(st.booleans()):
        low = draw(st.integers(0, 3))
        schema["minLength"] = low
        schema["maxLength"] = low + draw(st.integers(0, 30))
    elif kind in ("integer", "number") and draw(st.booleans()):
        low = draw(st.integers(-100, 100))
        schema["minimum"] = low
        if draw(st.booleans()):
            schema["maximum"] = low + draw(st.integers(0, 1000))
    return schema
