"""Context changes between calls: EXEC-4."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import (
    allow_rules,
    execute,
    ok_tool,
    scenario_root,
    text_of,
    tool_use,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolBehavior

values = st.dictionaries(
    st.sampled_from(["mode", "branch", "depth"]), st.integers(0, 9) | st.text("abc", max_size=3), min_size=1
)


@requires("execution")
@pytest.mark.requirement("EXEC-4", "SHOULD")
@settings(max_examples=15, deadline=None)
@given(first=values, second=values, readers=st.integers(1, 3), safe_readers=st.booleans())
def test_context_change_of_a_serial_tool_applies_to_later_calls(
    new_harness: Callable[[], Any],
    toolharness_capabilities: frozenset[str],
    first: dict[str, Any],
    second: dict[str, Any],
    readers: int,
    safe_readers: bool,
) -> None:
    """EXEC-4: a context change returned by a call that is not concurrency safe is seen by every call after it.

    The batch is set(first), readers..., set(second), reader: each reader must see the value of the
    latest setter before it.
    """
    setter = ok_tool("Setter", ToolBehavior("set_state", value=first))
    setter_two = ok_tool("Resetter", ToolBehavior("set_state", value=second))
    reader = ok_tool(
        "Reader", ToolBehavior("read_state"), concurrency_safe=safe_readers, read_only=safe_readers
    )
    tools = [setter, setter_two, reader]
    blocks = [tool_use("toolu_set1", "Setter", {"n": 1})]
    blocks += [tool_use(f"toolu_read{i}", "Reader", {"n": i}) for i in range(readers)]
    blocks += [tool_use("toolu_set2", "Resetter", {"n": 2}), tool_use("toolu_last", "Reader", {"n": 9})]
    with scenario_root() as root:
        run = execute(new_harness(), root, tools, blocks, rules=allow_rules(tools, toolharness_capabilities))
    results = run.results_by_id()
    for i in range(readers):
        seen = text_of(results[f"toolu_read{i}"])
        assert json.loads(seen) == first, f"reader {i} after Setter saw {seen}, expected {first}"
    last = text_of(results["toolu_last"])
    assert json.loads(last) == second, f"the reader after Resetter saw {last}, expected {second}"
