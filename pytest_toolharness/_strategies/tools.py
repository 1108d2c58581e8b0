"""Tools: names, behaviours, built-in and MCP tool specs, and pools of them."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias, get_args

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from pytest_toolharness._strategies.schemas import (
    VERBS,
    WORDS,
    cached_strategy,
    descriptions,
    json_schemas,
    json_values,
    property_names,
)
from pytest_toolharness._strategies.text import utf8_characters
from pytest_toolharness.specs import (
    BehaviorKind,
    ToolBehavior,
    ToolSpec,
    mcp_tool_name,
    normalize_name_for_mcp,
)

__all__ = [
    "BEHAVIOR_KINDS",
    "BUILTIN_TOOL_NAMES",
    "DEFAULT_BEHAVIOR_KINDS",
    "TOOL_ROLES",
    "ToolRole",
    "builtin_tool_specs",
    "mcp_server_names",
    "mcp_tool_specs",
    "tool_behaviors",
    "tool_names",
    "tool_pools",
    "tool_specs",
]

BUILTIN_TOOL_NAMES: tuple[str, ...] = (
    "Bash",
    "Edit",
    "Glob",
    "Grep",
    "NotebookEdit",
    "Read",
    "Task",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
)
"""Claude Code's familiar built-in tool names."""

# Server names as people write them in MCP configs: dashes, dots, spaces and capitals included.
_SERVER_NAMES: tuple[str, ...] = (
    "github",
    "linear-server",
    "web-search",
    "filesystem",
    "memory",
    "Docs Search",
    "acme.tickets",
    "slack",
    "notes_app",
    "maps",
    "postgres",
    "browser-tools",
    "Weather API",
    "calendar",
)
_FILLS: tuple[str, ...] = ("x", "ab", "é", "日本", "🚀", "line\n")

BEHAVIOR_KINDS: tuple[BehaviorKind, ...] = get_args(BehaviorKind)
"""Every scripted behaviour kind."""
DEFAULT_BEHAVIOR_KINDS: tuple[BehaviorKind, ...] = ("text", "empty", "image", "json", "raise", "sleep")
"""The kinds :func:`tool_behaviors` draws by default: the ones that finish on their own."""

ToolRole: TypeAlias = Literal["generic", "shell", "read", "edit", "web_fetch"]
TOOL_ROLES: tuple[ToolRole, ...] = ("generic", "shell", "read", "edit", "web_fetch")
"""What a built-in spec is for: which input field permission rules match, and its flags."""


def _camel(parts: Sequence[str]) -> str:
    return "".join(p[:1].upper() + p[1:] for p in parts)


@cached_strategy
def tool_names() -> st.SearchStrategy[str]:
    """Built-in style tool names: ``Read``, ``WebFetch``, or made-up CamelCase like ``IssueSearch``."""
    made_up = st.lists(st.sampled_from(WORDS + VERBS), min_size=1, max_size=3).map(_camel)
    return st.one_of(st.sampled_from(BUILTIN_TOOL_NAMES), made_up)


@cached_strategy
def mcp_server_names() -> st.SearchStrategy[str]:
    """MCP server names as configured (``github``, ``Docs Search``, ``acme.tickets``).

    Raw names may hold spaces and dots; harnesses normalise them (``Docs_Search``). The normalised
    form never contains ``__``, so ``mcp__<server>__<tool>`` splits back unambiguously.
    """
    joined = st.tuples(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), st.sampled_from(["-", "_", ".", " "])
    ).map(lambda pair: pair[1].join(pair[0]))
    return st.one_of(st.sampled_from(_SERVER_NAMES), joined)


@cached_strategy
def _mcp_raw_tool_names() -> st.SearchStrategy[str]:
    parts = st.tuples(st.sampled_from(VERBS), st.sampled_from(WORDS))
    return st.one_of(
        parts.map("_".join),
        parts.map("-".join),
        parts.map(lambda p: p[0] + p[1].title()),
        parts.map(lambda p: f"{p[1]}.{p[0]}"),  # dotted names normalise to underscores
    )


def tool_behaviors(
    *,
    kinds: Sequence[BehaviorKind] = DEFAULT_BEHAVIOR_KINDS,
    min_chars: int = 1,
    max_chars: int = 2_000,
    oversized: bool = False,
    max_sleep: float = 0.05,
) -> st.SearchStrategy[ToolBehavior]:
    """Scripted behaviours of the given ``kinds``.

    ``text`` behaviours return literal text or ``min_chars..max_chars`` characters of a fill
    (multi-byte fills included); with ``oversized=True`` they are sometimes 50,001 to 60,000
    characters long, past the default result limit (RESULT-1). ``sleep`` waits up to
    ``max_sleep`` seconds. ``hang`` and ``wait_abort`` never finish on their own, so they are only
    drawn when named in ``kinds``.
    """
    unknown = sorted(set(kinds) - set(BEHAVIOR_KINDS))
    if unknown or not kinds:
        raise InvalidArgument(f"kinds must be a non-empty subset of {BEHAVIOR_KINDS}, got {list(kinds)}")
    if not 0 <= min_chars <= max_chars:
        raise InvalidArgument(
            f"tool_behaviors needs 0 <= min_chars <= max_chars, got {min_chars}, {max_chars}"
        )
    if max_sleep < 0:
        raise InvalidArgument(f"max_sleep must be >= 0, got {max_sleep}")
    sizes = st.integers(min_chars, max_chars)
    if oversized:
        sizes = st.one_of(sizes, st.integers(50_001, 60_000))
    literal_low, literal_high = max(min_chars, 1), min(max_chars, 200)
    literal = (
        st.text(utf8_characters(), min_size=literal_low, max_size=literal_high).map(
            lambda t: ToolBehavior("text", text=t)
        )
        if literal_low <= literal_high
        else st.nothing()
    )
    # chars=0 would mean "ok", not zero characters: empty output is the "empty" kind.
    filled = st.builds(
        lambda n, f: ToolBehavior("text", chars=n, fill=f), sizes.filter(bool), st.sampled_from(_FILLS)
    )
    by_kind: dict[str, st.SearchStrategy[ToolBehavior]] = {
        "text": st.one_of(literal, filled),
        "empty": st.just(ToolBehavior("empty")),
        "image": st.builds(lambda t: ToolBehavior("image", text=t), descriptions(max_words=4)),
        "json": st.builds(
            lambda v: ToolBehavior("json", value=v),
            st.dictionaries(property_names(), json_values(), max_size=4),
        ),
        "raise": st.builds(lambda m: ToolBehavior("raise", message=m), descriptions(max_words=8)),
        "sleep": st.builds(
            lambda s: ToolBehavior("sleep", seconds=s),
            st.floats(0, max_sleep, allow_nan=False, allow_infinity=False),
        ),
        "hang": st.just(ToolBehavior("hang")),
        "wait_abort": st.just(ToolBehavior("wait_abort")),
    }
    # Sorted so the draw order never depends on the caller's sequence type.
    return st.one_of([by_kind[kind] for kind in sorted(set(kinds), key=BEHAVIOR_KINDS.index)])


def _role_schema(role: ToolRole, field: str) -> dict[str, Any]:
    properties: dict[str, Any] = {field: {"type": "string", "description": f"The {field.replace('_', ' ')}."}}
    if role == "edit":
        properties["old_string"] = {"type": "string"}
        properties["new_string"] = {"type": "string"}
        return {"type": "object", "properties": properties, "required": [field, "old_string", "new_string"]}
    if role == "shell":
        properties["timeout"] = {"type": "integer", "minimum": 1, "maximum": 600_000}
    return {"type": "object", "properties": properties, "required": [field]}


_ROLE_FIELDS: dict[str, tuple[str, str]] = {
    "shell": ("shell", "command"),
    "read": ("read", "file_path"),
    "edit": ("edit", "file_path"),
    "web_fetch": ("web_fetch", "url"),
}


@cached_strategy
def _search_hints() -> st.SearchStrategy[str | None]:
    return st.one_of(st.none(), st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join))


@cached_strategy
def _tool_schemas() -> st.SearchStrategy[dict[str, Any]]:
    # Smaller than json_schemas()'s default: a pool holds many tools and must stay quick to draw.
    return json_schemas(max_properties=4, max_depth=1)


_RESULT_LIMITS: tuple[int | None, ...] = (50_000, None, 1_000, 100_000)


# Built-in names whose meaning Claude Code fixes: a made-up generic tool never takes one of them.
_ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "shell": ("Bash",),
    "read": ("Read",),
    "edit": ("Edit", "Write"),
    "web_fetch": ("WebFetch",),
}
_RESERVED = frozenset(n for names in _ROLE_NAMES.values() for n in names) | {"NotebookEdit"}


@cached_strategy
def _default_names(role: str) -> st.SearchStrategy[str]:
    if role in _ROLE_NAMES:
        return st.sampled_from(_ROLE_NAMES[role])
    return tool_names().filter(lambda n: n not in _RESERVED)


@st.composite
def _builtin_specs(
    draw: st.DrawFn,
    names: st.SearchStrategy[str] | None,
    behaviors: st.SearchStrategy[ToolBehavior],
    roles: Sequence[ToolRole],
    with_aliases: bool,
) -> ToolSpec:
    role = draw(st.sampled_from(list(roles)))
    name = draw(names if names is not None else _default_names(role))
    common: dict[str, Any] = {
        "name": name,
        "description": draw(descriptions()),
        "should_defer": draw(st.booleans()),
        "always_load": draw(st.booleans()),
        "search_hint": draw(_search_hints()),
        "requires_user_interaction": draw(st.booleans()) and role == "generic",
        "max_result_size_chars": draw(st.sampled_from(_RESULT_LIMITS)),
        "behavior": draw(behaviors),
    }
    if with_aliases and draw(st.booleans()):
        common["aliases"] = (f"Legacy{name}",)
    if role == "generic":
        declares_nothing = draw(st.integers(0, 9)) == 0
        return ToolSpec(
            input_schema=draw(_tool_schemas()),
            concurrency_safe=draw(st.booleans()) and not declares_nothing,
            read_only=draw(st.booleans()) and not declares_nothing,
            declares_nothing=declares_nothing,
            **common,
        )
    kind, field = _ROLE_FIELDS[role]
    reads = role in ("read", "web_fetch")
    return ToolSpec(
        input_schema=_role_schema(role, field),
        concurrency_safe=reads,
        read_only=reads,
        shell=role == "shell",
        permission_kind=kind,  # type: ignore[arg-type]  # values of _ROLE_FIELDS are PermissionTargetKind
        permission_field=field,
        **common,
    )


def builtin_tool_specs(
    *,
    names: st.SearchStrategy[str] | None = None,
    behaviors: st.SearchStrategy[ToolBehavior] | None = None,
    roles: Sequence[ToolRole] = TOOL_ROLES,
    with_aliases: bool = False,
) -> st.SearchStrategy[ToolSpec]:
    """Built-in tool specs.

    ``roles`` picks the shape: ``generic`` (a generated input schema, random flags, sometimes
    declaring nothing at all, CONC-3), ``shell`` (a ``command`` field that ``Bash(...)`` rules
    match), ``read`` / ``edit`` (``file_path``), ``web_fetch`` (``url``). Unless ``names`` is
    given, each role keeps Claude Code's name (``Bash``, ``Read``, ``Edit`` or ``Write``,
    ``WebFetch``) and generic tools get other names. With ``with_aliases``
    some specs carry a deprecated alias ``Legacy<Name>`` (EXEC-3).
    """
    unknown = sorted(set(roles) - set(TOOL_ROLES))
    if unknown or not roles:
        raise InvalidArgument(f"roles must be a non-empty subset of {TOOL_ROLES}, got {list(roles)}")
    return _builtin_specs(
        names,
        behaviors if behaviors is not None else tool_behaviors(),
        sorted(set(roles), key=TOOL_ROLES.index),
        with_aliases,
    )


def _check_server(server: str | None) -> None:
    if server is None:
        return
    if not isinstance(server, str) or not server.strip():
        raise InvalidArgument(f"server must be a non-empty string, got {server!r}")
    if "__" in normalize_name_for_mcp(server):
        raise InvalidArgument(
            f"server {server!r} normalises to a name containing '__', which can't be split back"
        )


@st.composite
def _mcp_specs(
    draw: st.DrawFn, servers: st.SearchStrategy[str], behaviors: st.SearchStrategy[ToolBehavior]
) -> ToolSpec:
    server = draw(servers)
    tool = draw(_mcp_raw_tool_names())
    read_only = draw(st.booleans())
    return ToolSpec(
        name=mcp_tool_name(server, tool),
        description=draw(descriptions()),
        input_schema=draw(_tool_schemas()),
        should_defer=draw(st.booleans()),
        always_load=draw(st.integers(0, 4)) == 0,
        mcp_server=server,
        mcp_tool=tool,
        search_hint=draw(_search_hints()),
        concurrency_safe=read_only,  # an MCP readOnlyHint makes the tool concurrency safe
        read_only=read_only,
        max_result_size_chars=draw(st.sampled_from(_RESULT_LIMITS)),
        behavior=draw(behaviors),
    )


def mcp_tool_specs(
    server: str | None = None, *, behaviors: st.SearchStrategy[ToolBehavior] | None = None
) -> st.SearchStrategy[ToolSpec]:
    """MCP tool specs; all from ``server`` when given, else from :func:`mcp_server_names`.

    ``name`` is ``mcp__<server>__<tool>`` normalised with Claude Code's rule
    (:func:`pytest_toolharness.specs._vocabulary.mcp_tool_name`); raw server and tool names keep their spelling
    in ``mcp_server`` and ``mcp_tool``. About one in five is ``always_load``.
    """
    _check_server(server)
    servers = st.just(server) if server is not None else mcp_server_names()
    return _mcp_specs(servers, behaviors if behaviors is not None else tool_behaviors())


def tool_specs(
    *,
    kind: Literal["any", "builtin", "mcp"] = "any",
    behaviors: st.SearchStrategy[ToolBehavior] | None = None,
) -> st.SearchStrategy[ToolSpec]:
    """Tool specs: built-in, MCP, or either."""
    if kind not in ("any", "builtin", "mcp"):
        raise InvalidArgument(f"kind must be 'any', 'builtin' or 'mcp', got {kind!r}")
    options = []
    if kind in ("any", "builtin"):
        options.append(builtin_tool_specs(behaviors=behaviors))
    if kind in ("any", "mcp"):
        options.append(mcp_tool_specs(behaviors=behaviors))
    return st.one_of(options)


def _respell(server: str) -> str:
    """Another raw spelling of ``server`` with the same normalised name (a clash in the pool)."""
    for old, new in (("_", "."), (".", " "), (" ", "_")):
        if old in server:
            return server.replace(old, new, 1)
    return server


@st.composite
def _pools(
    draw: st.DrawFn,
    builtin_lists: st.SearchStrategy[list[ToolSpec]],
    min_mcp: int,
    max_mcp: int,
    clashes: bool,
    behaviors: st.SearchStrategy[ToolBehavior],
) -> tuple[list[ToolSpec], list[ToolSpec]]:
    builtin = draw(builtin_lists)
    servers = draw(st.lists(mcp_server_names(), min_size=1, max_size=3, unique_by=normalize_name_for_mcp))
    size_low = max(min_mcp, 1) if clashes else min_mcp
    mcp = draw(
        st.lists(
            _mcp_specs(st.sampled_from(servers), behaviors),
            min_size=size_low,
            max_size=max_mcp - 1 if clashes else max_mcp,
            unique_by=lambda s: s.name,
        )
    )
    if clashes:
        # Same normalised name, different raw spelling when the name allows it (a second config scope).
        original = draw(st.sampled_from(mcp))
        twin = dataclasses.replace(
            original,
            mcp_server=_respell(original.mcp_server or ""),
            description=draw(descriptions()),
        )
        mcp.insert(draw(st.integers(0, len(mcp))), twin)
    return builtin, mcp


def tool_pools(
    *,
    min_builtin: int = 0,
    max_builtin: int = 6,
    min_mcp: int = 0,
    max_mcp: int = 10,
    clashes: bool = False,
    behaviors: st.SearchStrategy[ToolBehavior] | None = None,
) -> st.SearchStrategy[tuple[list[ToolSpec], list[ToolSpec]]]:
    """``(builtin, mcp)`` lists of tool specs, as a harness receives them (unsorted).

    Names are unique across both lists, unless ``clashes=True``: then the MCP list holds at least
    one pair of specs with the same harness name, from raw server names that differ in spelling
    but normalise to the same name (``notes_app`` and ``notes.app``), or from the same server
    configured twice. MCP tools come from one to three servers.
    """
    if not (0 <= min_builtin <= max_builtin and 0 <= min_mcp <= max_mcp):
        raise InvalidArgument(
            f"tool_pools needs 0 <= min <= max, got builtin {min_builtin}..{max_builtin}, mcp {min_mcp}..{max_mcp}"
        )
    if clashes and max_mcp < 2:
        raise InvalidArgument(f"clashes=True needs max_mcp >= 2, got {max_mcp}")
    behaviors = behaviors if behaviors is not None else tool_behaviors()
    builtin_lists = st.lists(
        builtin_tool_specs(behaviors=behaviors),
        min_size=min_builtin,
        max_size=max_builtin,
        unique_by=lambda s: s.name,
    )
    return _pools(
        builtin_lists,
        min_mcp,
        max_mcp,
        clashes,
        behaviors if behaviors is not None else tool_behaviors(),
    )
