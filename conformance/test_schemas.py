"""Tool schemas on the wire and the cache-break key: CACHE-1, CACHE-3, CACHE-4."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, ClassVar

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from conformance._strategies_execution import pick_sorted
from conformance._strategies_pool import (
    HarnessFactory,
    bare_names_clash,
    builtin_names,
    builtin_spec,
    descriptions,
    encode,
    input_schemas,
    mcp_spec,
    mcp_tool_parts,
    server_names,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolSpec

_OVERLAYS = ("defer_loading", "cache_control")


def base_bytes(tool: Mapping[str, Any]) -> bytes:
    """A rendered tool's bytes without the per-request overlays (``defer_loading``, ``cache_control``)."""
    return encode({k: v for k, v in tool.items() if k not in _OVERLAYS})


def rendered(tools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The rendered tool called ``name`` (it must be there exactly once)."""
    found = [t for t in tools if t.get("name") == name]
    assert len(found) == 1, (
        f"tool {name!r} is rendered {len(found)} times; tools: {[t.get('name') for t in tools]}"
    )
    return found[0]


loaded_builtins = st.lists(
    st.builds(
        lambda n, d, s: builtin_spec(n, description=d, input_schema=s),
        builtin_names(),
        descriptions(),
        input_schemas(),
    ),
    min_size=1,
    max_size=4,
    unique_by=lambda s: s.name,
)
deferred_mcps = st.lists(
    st.builds(
        lambda srv, t, d, s: mcp_spec(srv, t, description=d, input_schema=s),
        server_names(),
        mcp_tool_parts(),
        descriptions(),
        input_schemas(),
    ),
    max_size=4,
    unique_by=lambda s: s.name,
)


# -- CACHE-1 ------------------------------------------------------------------------------------


@requires("cache_key")
@pytest.mark.requirement("CACHE-1", "MUST")
@settings(max_examples=20, deadline=None)
@given(builtins=loaded_builtins, before=deferred_mcps, after=deferred_mcps)
def test_deferred_tools_do_not_move_the_cache_key(
    new_harness: Callable[[], Any], builtins: list[ToolSpec], before: list[ToolSpec], after: list[ToolSpec]
) -> None:
    """CACHE-1: adding, removing or changing deferred MCP tools mid-session leaves the cache key unchanged."""
    harness = new_harness()
    key_before = harness.cache_key(builtins, before)
    key_after = harness.cache_key(builtins, after)
    assert key_before == key_after, (
        f"the cache key changed when only deferred MCP tools changed from {[s.name for s in before]} to "
        f"{[s.name for s in after]}"
    )


@requires("cache_key")
@pytest.mark.requirement("CACHE-1", "MUST")
@settings(max_examples=20, deadline=None)
@given(builtins=loaded_builtins, mcps=deferred_mcps, data=st.data())
def test_changing_a_deferred_tool_keeps_the_cache_key(
    new_harness: Callable[[], Any], builtins: list[ToolSpec], mcps: list[ToolSpec], data: st.DataObject
) -> None:
    """CACHE-1: a deferred built-in (should_defer) or MCP tool that changes its description or schema keeps the key."""
    deferred_builtin = builtin_spec(
        data.draw(
            builtin_names().filter(lambda n: n not in {b.name for b in builtins}), label="deferred built-in"
        ),
        should_defer=True,
        description=data.draw(descriptions(), label="its description"),
    )
    changed = replace(
        deferred_builtin,
        description=data.draw(descriptions(), label="its new description"),
        input_schema=data.draw(input_schemas(), label="its new schema"),
    )
    changed_mcps = [
        replace(s, description=data.draw(descriptions(), label=f"new description of {s.name}")) for s in mcps
    ]
    harness = new_harness()
    one = harness.cache_key([*builtins, deferred_builtin], mcps)
    two = harness.cache_key([*builtins, changed], changed_mcps)
    assert one == two, (
        f"the cache key changed when only deferred tools ({deferred_builtin.name!r} and "
        f"{[s.name for s in mcps]}) changed their descriptions or schemas"
    )


@requires("cache_key")
@pytest.mark.requirement("CACHE-1", "MUST")
@settings(max_examples=20, deadline=None)
@given(builtins=loaded_builtins, mcps=deferred_mcps, data=st.data())
def test_every_change_to_a_loaded_tool_moves_the_cache_key(
    new_harness: Callable[[], Any], builtins: list[ToolSpec], mcps: list[ToolSpec], data: st.DataObject
) -> None:
    """CACHE-1: a changed description or schema of a loaded tool gives a different key (fresh sessions each)."""
    target = data.draw(st.sampled_from(builtins), label="changed loaded tool")
    what = data.draw(st.sampled_from(["description", "input_schema"]), label="what changes")
    if what == "description":
        new_value: Any = data.draw(
            descriptions().filter(lambda d: d != target.description), label="new description"
        )
    else:
        new_value = data.draw(input_schemas().filter(lambda s: s != target.input_schema), label="new schema")
    changed = [replace(s, **{what: new_value}) if s.name == target.name else s for s in builtins]
    one = new_harness().cache_key(builtins, mcps)
    two = new_harness().cache_key(changed, mcps)
    assert one != two, f"the cache key did not change when loaded tool {target.name!r} changed its {what}"


@requires("cache_key")
@pytest.mark.requirement("CACHE-1", "MUST")
@settings(max_examples=20, deadline=None)
@given(builtins=loaded_builtins, mcps=deferred_mcps, data=st.data())
def test_adding_or_removing_a_loaded_tool_moves_the_cache_key(
    new_harness: Callable[[], Any], builtins: list[ToolSpec], mcps: list[ToolSpec], data: st.DataObject
) -> None:
    """CACHE-1: adding or removing a loaded tool (built-in, or MCP with always_load) changes the key mid-session."""
    names = {s.name for s in builtins + mcps}
    extra: ToolSpec = data.draw(
        st.one_of(
            builtin_names().map(builtin_spec),
            st.builds(lambda s, t: mcp_spec(s, t, always_load=True), server_names(), mcp_tool_parts()),
        ).filter(lambda s: s.name not in names),
        label="loaded tool added, then removed",
    )
    harness = new_harness()
    without = harness.cache_key(builtins, mcps)
    with_extra = (
        harness.cache_key(builtins, [*mcps, extra])
        if extra.is_mcp
        else harness.cache_key([*builtins, extra], mcps)
    )
    assert without != with_extra, f"adding loaded tool {extra.name!r} left the cache key unchanged"
    again = harness.cache_key(builtins, mcps)
    assert again != with_extra, f"removing loaded tool {extra.name!r} left the cache key unchanged"


# -- CACHE-3 ------------------------------------------------------------------------------------


@requires("schemas")
@pytest.mark.requirement("CACHE-3", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    builtins=loaded_builtins,
    mcps=deferred_mcps,
    data=st.data(),
)
def test_first_rendering_is_fixed_for_the_session(
    new_harness: Callable[[], Any], builtins: list[ToolSpec], mcps: list[ToolSpec], data: st.DataObject
) -> None:
    """CACHE-3: a tool's first bytes are kept for the session, whatever its description becomes.

    Re-rendered in the same session with a changed description, every tool keeps its first base
    bytes; a new session renders the new description.
    """
    target = data.draw(st.sampled_from(builtins + mcps), label="tool whose description changes")
    new_description = data.draw(
        descriptions().filter(lambda d: d != target.description), label="new description"
    )
    changed_b = [replace(s, description=new_description) if s.name == target.name else s for s in builtins]
    changed_m = [replace(s, description=new_description) if s.name == target.name else s for s in mcps]
    harness = new_harness()
    first = harness.render_tools(builtins, mcps)
    second = harness.render_tools(changed_b, changed_m)
    for tool in first:
        name = tool["name"]
        assert base_bytes(rendered(second, name)) == base_bytes(tool), (
            f"tool {name!r}: its base schema bytes changed within the session (description of {target.name!r} "
            f"was changed to {new_description!r}): {base_bytes(tool)!r} became {base_bytes(rendered(second, name))!r}"
        )
    fresh = rendered(new_harness().render_tools(changed_b, changed_m), target.name)
    assert fresh.get("description") == new_description, (
        f"a new session sent {target.name!r} with description {fresh.get('description')!r}, "
        f"not its current one {new_description!r}"
    )


@requires("schemas")
@pytest.mark.requirement("CACHE-3", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    server=server_names(),
    tool=mcp_tool_parts(),
    description=descriptions(),
    schema=input_schemas(),
    flips=st.lists(st.booleans(), min_size=2, max_size=5),
)
def test_deferral_overlay_never_alters_the_base(
    new_harness: Callable[[], Any],
    server: str,
    tool: str,
    description: str,
    schema: dict[str, Any],
    flips: list[bool],
) -> None:
    """CACHE-3: a tool sent deferred in one request and loaded in another has the same base bytes in both.

    The tool asks to be deferred (``should_defer``) and flips ``always_load``: deferred by every rule
    (Claude Code's, every MCP tool; a framework's, the tools its user marks) unless loaded. Whether
    it really is sent deferred is the harness's own rule (its ``is_deferred`` when it has one).
    """
    harness = new_harness()
    keeper = builtin_spec("Keeper")
    seen: list[tuple[bool, bytes]] = []
    for always_load in flips:
        spec = mcp_spec(
            server,
            tool,
            description=description,
            input_schema=schema,
            should_defer=True,
            always_load=always_load,
        )
        sent = rendered(harness.render_tools([keeper], [spec]), spec.name)
        rule = getattr(harness, "is_deferred", None)
        expected = bool(rule(spec)) if callable(rule) else bool(sent.get("defer_loading"))
        assert bool(sent.get("defer_loading")) is expected, (
            f"{spec.name!r} (should_defer, always_load={always_load}) is deferred by the harness's own rule "
            f"({expected}), yet sent with defer_loading={sent.get('defer_loading')!r}"
        )
        seen.append((always_load, base_bytes(sent)))
    bases = {b for _, b in seen}
    assert len(bases) == 1, (
        f"the base bytes of {server}/{tool} differ between deferred and loaded requests of one session: {seen}"
    )


@requires("schemas")
@pytest.mark.requirement("CACHE-3", "MUST")
@settings(max_examples=20, deadline=None)
@given(builtins=loaded_builtins, first_mcps=deferred_mcps, later_mcps=deferred_mcps)
def test_other_tools_never_alter_a_tools_bytes(
    new_harness: Callable[[], Any],
    builtins: list[ToolSpec],
    first_mcps: list[ToolSpec],
    later_mcps: list[ToolSpec],
) -> None:
    """CACHE-3: the loaded tools' bytes stay the same while MCP tools come and go in the session."""
    assume(not bare_names_clash(builtins + first_mcps) and not bare_names_clash(builtins + later_mcps))
    harness = new_harness()
    first = {t["name"]: encode(t) for t in harness.render_tools(builtins, first_mcps)}
    later = {t["name"]: encode(t) for t in harness.render_tools(builtins, later_mcps)}
    for spec in builtins:
        assert first[spec.name] == later[spec.name], (
            f"tool {spec.name!r} changed bytes when the MCP tools changed from {[s.name for s in first_mcps]} "
            f"to {[s.name for s in later_mcps]}: {first[spec.name]!r} became {later[spec.name]!r}"
        )


# -- CACHE-4 ------------------------------------------------------------------------------------


@requires("schemas")
@pytest.mark.requirement("CACHE-4", "SHOULD")
@settings(max_examples=20, deadline=None)
@given(
    server=server_names(),
    tool=mcp_tool_parts(),
    schemas=st.lists(input_schemas(), min_size=2, max_size=4),
    always_load=st.booleans(),
)
def test_changed_raw_schema_is_sent(
    new_harness: Callable[[], Any], server: str, tool: str, schemas: list[dict[str, Any]], always_load: bool
) -> None:
    """CACHE-4: in one session, an MCP tool whose raw input schema changes is sent with its new schema."""
    harness = new_harness()
    keeper = builtin_spec("Keeper")
    for schema in schemas:
        spec = mcp_spec(server, tool, input_schema=schema, always_load=always_load)
        sent = rendered(harness.render_tools([keeper], [spec]), spec.name)
        assert sent.get("input_schema") == schema, (
            f"{spec.name!r}: its input schema changed to {encode(schema).decode()} in this session, but the "
            f"harness still sends {encode(sent.get('input_schema')).decode()}"
        )


# -- one session, step by step (CACHE-1, CACHE-3) -----------------------------------------------


def _bind() -> Any:
    @pytest.fixture(autouse=True)
    def bind_factory(self: Any, new_harness: Callable[[], Any]) -> None:
        HarnessFactory.factory = new_harness

    return bind_factory


_mcp_specs = st.builds(
    lambda srv, t, d, s: mcp_spec(srv, t, description=d, input_schema=s),
    server_names(),
    mcp_tool_parts(),
    descriptions(),
    input_schemas(),
)


class SessionMachine(RuleBasedStateMachine):
    """A session whose MCP tools connect, drop and change while loaded tools come and go.

    ``CHECK`` names the requirement a subclass checks: ``CACHE-1`` (the cache key is a function of
    the loaded tools alone) or ``CACHE-3`` (every tool keeps its first base bytes for the session,
    also when its description changes later).
    """

    CHECK: ClassVar[str] = ""

    def __init__(self) -> None:
        super().__init__()
        self.harness = HarnessFactory.new()
        self.builtin: dict[str, ToolSpec] = {}
        self.mcp: dict[str, ToolSpec] = {}
        self.first_bytes: dict[tuple[str, bytes], bytes] = {}
        self.known: dict[str, ToolSpec] = {}  # every built-in seen, to re-add it unchanged
        self.keys: dict[frozenset[str], str] = {}
        self.steps: list[str] = []

    def _specs(self) -> tuple[list[ToolSpec], list[ToolSpec]]:
        return list(self.builtin.values()), list(self.mcp.values())

    def _where(self) -> str:
        return "; steps: " + ", ".join(self.steps[-12:])

    @initialize(builtins=loaded_builtins)
    def start(self, builtins: list[ToolSpec]) -> None:
        self.builtin = {s.name: s for s in builtins}
        self.known = dict(self.builtin)
        self.steps.append(f"start with {sorted(self.builtin)}")

    @rule(spec=_mcp_specs)
    def connect(self, spec: ToolSpec) -> None:
        self.mcp.setdefault(spec.name, spec)
        self.steps.append(f"connect {spec.name}")

    @precondition(lambda self: bool(self.mcp))
    @rule(data=st.data())
    def drop(self, data: st.DataObject) -> None:
        name = pick_sorted(data, self.mcp, "dropped MCP tool")
        del self.mcp[name]
        self.steps.append(f"drop {name}")

    @precondition(lambda self: bool(self.mcp))
    @rule(data=st.data(), description=descriptions())
    def change_mcp(self, data: st.DataObject, description: str) -> None:
        name = pick_sorted(data, self.mcp, "changed MCP tool")
        self.mcp[name] = replace(self.mcp[name], description=description)
        self.steps.append(f"change description of {name}")

    @precondition(lambda self: self.CHECK == "CACHE-3")
    @rule(data=st.data(), description=descriptions())
    def change_builtin(self, data: st.DataObject, description: str) -> None:
        name = pick_sorted(data, self.builtin, "changed built-in")
        self.builtin[name] = replace(self.builtin[name], description=description)
        self.steps.append(f"change description of {name}")

    @precondition(lambda self: self.CHECK == "CACHE-1")
    @rule(name=builtin_names())
    def add_builtin(self, name: str) -> None:
        # A built-in comes back exactly as it was: only the set of loaded tools changes here.
        self.builtin.setdefault(name, self.known.setdefault(name, builtin_spec(name)))
        self.steps.append(f"add {name}")

    @precondition(lambda self: self.CHECK == "CACHE-1" and len(self.builtin) > 1)
    @rule(data=st.data())
    def remove_builtin(self, data: st.DataObject) -> None:
        name = pick_sorted(data, self.builtin, "removed built-in")
        del self.builtin[name]
        self.steps.append(f"remove {name}")

    @precondition(lambda self: self.CHECK == "CACHE-3")
    @rule()
    def render(self) -> None:
        self.steps.append("render")
        for tool in self.harness.render_tools(*self._specs()):
            name = str(tool["name"])
            data = base_bytes(tool)
            # Keyed by the schema too: an MCP tool that reconnects with a new schema is new (CACHE-4).
            first = self.first_bytes.setdefault((name, encode(tool.get("input_schema"))), data)
            assert data == first, (
                f"CACHE-3: tool {name!r} was first sent as {first!r} in this session, now as {data!r}"
                + self._where()
            )

    @precondition(lambda self: self.CHECK == "CACHE-1")
    @rule()
    def key(self) -> None:
        self.steps.append("cache_key")
        key = self.harness.cache_key(*self._specs())
        loaded = frozenset(self.builtin)
        earlier = self.keys.setdefault(loaded, key)
        assert key == earlier, (
            f"CACHE-1: the loaded tools are {sorted(loaded)} as before, only deferred tools changed, "
            f"but the cache key changed" + self._where()
        )
        clashes = sorted(sorted(other) for other, k in self.keys.items() if k == key and other != loaded)
        assert not clashes, (
            f"CACHE-1: the loaded tools {sorted(loaded)} give the same cache key as {clashes}" + self._where()
        )


@settings(max_examples=15, stateful_step_count=15, deadline=None)
class KeyMachine(SessionMachine):
    CHECK = "CACHE-1"


@settings(max_examples=15, stateful_step_count=15, deadline=None)
class BytesMachine(SessionMachine):
    CHECK = "CACHE-3"


@requires("cache_key")
@pytest.mark.requirement("CACHE-1", "MUST")
class TestCacheKeyInSession(KeyMachine.TestCase):  # type: ignore[valid-type,misc]
    """CACHE-1: in a session, the cache key depends on the loaded tools only, never on deferred ones."""

    bind_factory = _bind()


@requires("schemas")
@pytest.mark.requirement("CACHE-3", "MUST")
class TestBaseBytesInSession(BytesMachine.TestCase):  # type: ignore[valid-type,misc]
    """CACHE-3: in a session, every tool is sent with its first base bytes, whatever changes later."""

    bind_factory = _bind()
