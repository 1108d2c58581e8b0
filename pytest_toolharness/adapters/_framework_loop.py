"""The ``agent_loop`` capability for a framework adapter: a loop scenario's script, tools and requests.

A framework runs its own loop against a :class:`~pytest_toolharness.wire.ScriptedEndpoint` scripted with
the scenario's turns (each a list of ``text`` and ``tool_use`` blocks; past the script the model answers
``"Done."``); its tools run the specs' behaviours as in ``execute()``, recorded by the scenario's recorder.
The requests it sent are read as the Messages API's (``messages``, ``tools``) for the checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolharness.adapters._openai_answers import messages_view, requests_of
from pytest_toolharness.specs import ExecutionScenario, LoopScenario
from pytest_toolharness.wire import AssistantTurn, ScriptedEndpoint, TextBlock, ThinkingBlock, ToolUseBlock
from pytest_toolharness.wire.model_api import ContentBlock

__all__ = ["loop_endpoint", "loop_requests", "loop_tools_scenario"]


def _block(block: Mapping[str, Any]) -> ContentBlock:
    if block.get("type") == "tool_use":
        return ToolUseBlock(str(block["id"]), str(block["name"]), dict(block.get("input") or {}))
    if block.get("type") == "thinking":
        return ThinkingBlock(str(block.get("thinking", "")), str(block.get("signature", "")))
    return TextBlock(str(block.get("text", "")))


def _turn(blocks: Sequence[Mapping[str, Any]]) -> AssistantTurn:
    return AssistantTurn(tuple(_block(b) for b in blocks))


def loop_endpoint(scenario: LoopScenario) -> ScriptedEndpoint:
    """An endpoint that answers the loop's requests with the scenario's turns, in order."""
    return ScriptedEndpoint([_turn(blocks) for blocks in scenario.turns])


def loop_tools_scenario(scenario: LoopScenario) -> ExecutionScenario:
    """The execution scenario a loop's tool calls run their behaviours in (its tools, recorder, directories)."""
    return ExecutionScenario(
        tools=list(scenario.tools),
        tool_uses=[],
        recorder=scenario.recorder,
        cwd=scenario.cwd,
        session_dir=scenario.session_dir,
    )


def loop_requests(endpoint: ScriptedEndpoint, path: str) -> list[dict[str, Any]]:
    """The requests the framework sent to ``path`` with tools, read as the Messages API's."""
    return [messages_view(request) for request in requests_of(endpoint, path) if request.json.get("tools")]
