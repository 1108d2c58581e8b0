"""Schema bytes: SNAP-1 (each tool's bytes can be pinned; a change names the tool), SNAP-2 (determinism).

The suite can't commit snapshot files into the project under test, so SNAP-1 checks what pinning
relies on: the same tool definitions give the same bytes, request after request and session after
session; a change to one tool changes that tool's bytes and no other's; and the schema snapshot
extension's diff of the two byte strings names the tool and the field. SNAP-2 renders the same
definitions in fresh interpreter processes under different ``PYTHONHASHSEED`` values.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_pool import (
    bare_names_clash,
    builtin_names,
    builtin_spec,
    descriptions,
    input_schemas,
    mcp_spec,
    mcp_tool_parts,
    server_names,
    tool_bytes,
)
from pytest_toolharness import ToolSchemaExtension
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolSpec

pools = st.tuples(
    st.lists(
        st.builds(
            lambda n, d, s, defer: builtin_spec(n, description=d, input_schema=s, should_defer=defer),
            builtin_names(),
            descriptions(),
            input_schemas(),
            st.booleans(),
        ),
        min_size=1,
        max_size=4,
        unique_by=lambda s: s.name,
    ),
    st.lists(
        st.builds(
            lambda srv, t, d, s, load: mcp_spec(srv, t, description=d, input_schema=s, always_load=load),
            server_names(),
            mcp_tool_parts(),
            descriptions(),
            input_schemas(),
            st.booleans(),
        ),
        max_size=4,
        unique_by=lambda s: s.name,
    ),
)


def _copied(specs: list[ToolSpec]) -> list[ToolSpec]:
    # Equal definitions built as new objects: bytes may depend on the definition, never on identity.
    return [replace(s, input_schema=copy.deepcopy(dict(s.input_schema))) for s in specs]


@requires("schemas")
@pytest.mark.requirement("SNAP-1", "MUST")
@settings(max_examples=20, deadline=None)
@given(pool=pools)
# Two servers' tools of one name (a framework that names MCP tools by their own name alone clashes), in every run.
@example(
    pool=(
        [builtin_spec("Slack", description="slack.", input_schema={"type": "object", "properties": {}})],
        [
            mcp_spec(
                "slack", "slack", description="slack.", input_schema={"type": "object", "properties": {}}
            ),
            mcp_spec(
                "send", "slack", description="slack.", input_schema={"type": "object", "properties": {}}
            ),
        ],
    )
)
def test_same_definitions_same_bytes(
    new_harness: Callable[[], Any], pool: tuple[list[ToolSpec], list[ToolSpec]]
) -> None:
    """SNAP-1: every tool's bytes are the same in every request of a session and in a new session."""
    builtins, mcps = pool
    harness = new_harness()
    first = tool_bytes(harness.render_tools(builtins, mcps))
    again = tool_bytes(harness.render_tools(_copied(builtins), _copied(mcps)))
    other = tool_bytes(new_harness().render_tools(_copied(builtins), _copied(mcps)))
    for label, seen in (("a later request of the session", again), ("a new session", other)):
        assert seen.keys() == first.keys(), (
            f"{label} sends tools {sorted(seen)}, the first sent {sorted(first)}"
        )
        for name, data in first.items():
            assert seen[name] == data, (
                f"tool {name!r}: {label} sends {seen[name]!r}, the first request sent {data!r}"
            )


@requires("schemas")
@pytest.mark.requirement("SNAP-1", "MUST")
@settings(max_examples=20, deadline=None)
@given(pool=pools, data=st.data())
def test_a_change_changes_that_tool_only_and_is_named(
    new_harness: Callable[[], Any], pool: tuple[list[ToolSpec], list[ToolSpec]], data: st.DataObject
) -> None:
    """SNAP-1: changing one tool's description or schema changes that tool's bytes only; the diff names it."""
    builtins, mcps = pool
    assume(not bare_names_clash(builtins + mcps))
    target = data.draw(st.sampled_from(builtins + mcps), label="changed tool")
    field = data.draw(st.sampled_from(["description", "input_schema"]), label="changed field")
    if field == "description":
        value: Any = data.draw(
            descriptions().filter(lambda d: d != target.description), label="new description"
        )
    else:
        value = data.draw(input_schemas().filter(lambda s: s != target.input_schema), label="new schema")

    def change(specs: list[ToolSpec]) -> list[ToolSpec]:
        return [replace(s, **{field: value}) if s.name == target.name else s for s in specs]

    old = tool_bytes(new_harness().render_tools(builtins, mcps))
    new = tool_bytes(new_harness().render_tools(change(builtins), change(mcps)))
    assert new.keys() == old.keys(), f"changing {target.name!r} changed which tools are sent"
    differing = sorted(name for name in old if old[name] != new[name])
    assert differing == [target.name], (
        f"changing the {field} of {target.name!r} changed the bytes of {differing}, expected exactly "
        f"[{target.name!r}]"
    )
    lines = list(ToolSchemaExtension().diff_lines(new[target.name], old[target.name]))
    named = [line for line in lines if line.startswith(f"tool {target.name!r}:")]
    assert named, f"the snapshot diff does not name {target.name!r}: {lines}"
    assert any(f"field {field}" in line for line in named), (
        f"the snapshot diff of {target.name!r} does not name the changed field {field!r}: {named}"
    )


# -- SNAP-2 -------------------------------------------------------------------------------------

_CHILD = r"""
import json, sys
from pathlib import Path
from pytest_toolharness.adapters import resolve_factory
from pytest_toolharness.specs import ToolSpec

job = json.loads(sys.argv[1])
factory = resolve_factory(job["spec"], tuple(Path(d) for d in job["search_dirs"]))
adapter = factory()
harness = adapter.new_harness() if callable(getattr(adapter, "new_harness", None)) else adapter
builtin = [ToolSpec(**{**f, "aliases": tuple(f["aliases"])}) for f in job["builtin"]]
mcp = [ToolSpec(**{**f, "aliases": tuple(f["aliases"])}) for f in job["mcp"]]
tools = harness.render_tools(builtin, mcp)
out = [json.dumps(t, ensure_ascii=False, separators=(",", ":")) for t in tools]
sys.stdout.write(json.dumps(out))
"""


def _hash_prone_schema(seed: int) -> dict[str, Any]:
    # Many keys, enums and required lists in a deliberate non-sorted order: a harness that passes
    # anything through a set or sorts by hash shows it here under another PYTHONHASHSEED.
    names = [
        f"{w}_{seed}" for w in ("zeta", "alpha", "mu", "beta", "omega", "kappa", "delta", "pi", "eta", "chi")
    ]
    properties: dict[str, Any] = {}
    for i, name in enumerate(names):
        properties[name] = {
            "type": "string",
            "enum": [f"v{(i * 7 + j * 3) % 11}" for j in range(5)],
            "description": f"Feld {name} – ünïcödé ✓ {i}",
        }
    properties["nested"] = {
        "type": "object",
        "properties": {n: {"type": "integer"} for n in reversed(names)},
        "required": names[::3],
    }
    return {"type": "object", "properties": properties, "required": names[::2], "additionalProperties": False}


def _snapshot_pool() -> tuple[list[ToolSpec], list[ToolSpec]]:
    builtins = [
        builtin_spec("Zebra", description="Zebra tool – 日本語 🚀", input_schema=_hash_prone_schema(1)),
        builtin_spec("alpha", description="lower-case name", input_schema=_hash_prone_schema(2)),
        builtin_spec(
            "Mid", description="deferred built-in", input_schema=_hash_prone_schema(3), should_defer=True
        ),
    ]
    mcps = [
        mcp_spec("srv", "b_tool", description="MCP b", input_schema=_hash_prone_schema(4)),
        mcp_spec(
            "srv",
            "a_tool",
            description="MCP a, always loaded",
            input_schema=_hash_prone_schema(5),
            always_load=True,
        ),
    ]
    return builtins, mcps


def _another_hash_seed() -> str:
    """A PYTHONHASHSEED other than this process's (one fresh process: its imports cost seconds)."""
    mine = os.environ.get("PYTHONHASHSEED", "random")
    # Unset or "random", this process's seed was drawn at random: a fixed one differs from it.
    return str((int(mine) + 1) % 2**32) if mine.isdigit() else "2718281"


def _fields(spec: ToolSpec) -> dict[str, Any]:
    fields = asdict(spec)
    fields.pop("behavior")
    fields["aliases"] = list(spec.aliases)
    return fields


@pytest.mark.toolharness_heavy
@requires("schemas")
@pytest.mark.requirement("SNAP-2", "MUST")
def test_bytes_identical_across_processes_and_hash_seeds(
    new_harness: Callable[[], Any], toolharness_adapter_spec: str | None, pytestconfig: pytest.Config
) -> None:
    """SNAP-2: the same tool definitions render to the same bytes in a fresh process under another PYTHONHASHSEED."""
    if toolharness_adapter_spec is None:
        pytest.skip(
            "not checked: the adapter comes from a conftest hook, which a fresh process can't rebuild"
        )
    config = pytestconfig
    builtins, mcps = _snapshot_pool()
    here = [
        json.dumps(t, ensure_ascii=False, separators=(",", ":"))
        for t in new_harness().render_tools(builtins, mcps)
    ]
    job = json.dumps(
        {
            "spec": toolharness_adapter_spec,
            "search_dirs": [str(config.invocation_params.dir), str(config.rootpath)],
            "builtin": [_fields(s) for s in builtins],
            "mcp": [_fields(s) for s in mcps],
        }
    )
    children = {
        seed: subprocess.Popen(
            [sys.executable, "-c", _CHILD, job],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=str(config.rootpath),
        )
        for seed in (_another_hash_seed(),)
    }
    outputs = {seed: child.communicate(timeout=120) for seed, child in children.items()}
    for seed, (stdout, stderr) in outputs.items():
        assert children[seed].returncode == 0, (
            f"rendering in a fresh process (PYTHONHASHSEED={seed}) failed:\n{stderr}"
        )
        there = json.loads(stdout)
        assert len(there) == len(here), (
            f"PYTHONHASHSEED={seed}: a fresh process sent {len(there)} tools, this process {len(here)}"
        )
        for mine, theirs in zip(here, there, strict=True):
            name = json.loads(mine).get("name")
            assert mine == theirs, (
                f"tool {name!r}: bytes differ in a fresh process with PYTHONHASHSEED={seed}:\n"
                f"this process: {mine}\nthat process: {theirs}"
            )
