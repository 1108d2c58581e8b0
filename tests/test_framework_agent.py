"""``toolharness_agent``: the framework adapters check the user's own agent, not only the defaults (issue 11).

A host project names its factory with the ini key; the factory builds the agent from the suite's tools with
the project's own error handling, and the PAIR-2 verdict changes with it. Skipped without the extra.
"""

from __future__ import annotations

import json

import pytest

from tests._fake_suite import make_suite

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

SUITE = """
import asyncio
import tempfile
from pathlib import Path

from pytest_toolharness.adapters import CallRecorder, ExecutionScenario, ToolBehavior, ToolSpec

@requires("execution")
@pytest.mark.requirement("PAIR-2", "MUST")
def test_a_raising_tool_still_gets_a_result(new_harness):
    tools = [
        ToolSpec("Alpha", behavior=ToolBehavior("text", text="a done")),
        ToolSpec("Boom", behavior=ToolBehavior("raise", message="disk on fire")),
    ]
    uses = [
        {"type": "tool_use", "id": "toolu_a", "name": "Alpha", "input": {}},
        {"type": "tool_use", "id": "toolu_b", "name": "Boom", "input": {}},
    ]
    with tempfile.TemporaryDirectory() as tmp:
        scenario = ExecutionScenario(
            tools=tools, tool_uses=uses, recorder=CallRecorder(), cwd=Path(tmp), session_dir=Path(tmp)
        )
        result = asyncio.run(new_harness().execute(scenario))
    by_id = {b["tool_use_id"]: b for b in result.user_content}
    assert sorted(by_id) == ["toolu_a", "toolu_b"], f"tool_use blocks without a result: {result.user_content}"
    assert by_id["toolu_b"]["is_error"] is True
    assert "disk on fire" in str(by_id["toolu_b"]["content"])
"""

# The user's own agents: the framework's documented way to report a tool's exception to the model.
AGENTS = {
    "pydantic_ai": """
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.capabilities import AbstractCapability

class ReportToolErrors(AbstractCapability):
    async def on_tool_execute_error(self, ctx, *, call, tool_def, args, error):
        raise ModelRetry(f"{call.tool_name} failed: {error}")

def make_agent(model, tools):
    with open("made.txt", "a") as made:
        made.write(",".join(sorted(t.name for t in tools)) + "\\n")
    return Agent(model, tools=tools, capabilities=[ReportToolErrors()])
""",
    "langgraph": """
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

def make_agent(model, tools):
    with open("made.txt", "a") as made:
        made.write(",".join(sorted(t.name for t in tools)) + "\\n")
    bound = model.bind_tools(tools)

    async def call_model(state):
        return {"messages": [await bound.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode(tools, handle_tool_errors=lambda exc: f"Error: {exc}"))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
    graph.add_edge("tools", "model")
    return graph.compile()
""",
}


def _pair_2(pytester: pytest.Pytester, suite: str, framework: str, report: str) -> dict[str, str]:
    pytester.runpytest(
        "--toolharness-conformance",
        "-o",
        suite,
        f"--toolharness-adapter=pytest_toolharness.adapters.{framework}:make_adapter",
        f"--toolharness-report={report}",
        "--toolharness-isolation=none",
        "suite",
    )
    document = json.loads((pytester.path / report).read_text())
    return {r["id"]: r for r in document["requirements"]}["PAIR-2"]


@pytest.mark.parametrize("framework", ["pydantic_ai", "langgraph"])
def test_the_suite_checks_the_users_agent(pytester: pytest.Pytester, framework: str) -> None:
    """PAIR-2 fails with the framework's default error handling and passes with the user's agent."""
    pytest.importorskip(f"pytest_toolharness.adapters.{framework}")
    suite = make_suite(pytester, SUITE)
    default = _pair_2(pytester, suite, framework, "default.json")
    assert default["status"] == "failed"
    assert "tool_use blocks without a result" in default["reason"]

    pytester.makepyfile(useragent=AGENTS[framework])
    pytester.makeini("[pytest]\ntoolharness_agent = useragent:make_agent\n")
    mine = _pair_2(pytester, suite, framework, "mine.json")
    assert mine["status"] == "passed", mine
    # The factory was given the suite's tools (not an agent of its own making).
    assert (pytester.path / "made.txt").read_text().splitlines() == ["Alpha,Boom"]
