"""Agent-loop scenarios for the hook tests (``agent_loop``): run one, read what happened.

:func:`run_loop` runs prompts through the harness's own loop against a scripted model and returns a
:class:`Loop`: the requests the model got, what the harness showed its user, and the inputs its hooks
logged (the scenario's ``hook_log``: every hook the adapter installs appends its input there, whatever
its event).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from pytest_toolharness import strategies as ths
from pytest_toolharness.specs import (
    CallRecorder,
    HookSpec,
    LoopRun,
    LoopScenario,
    RuleSpec,
    ToolBehavior,
    ToolSpec,
)

__all__ = ["WORDS", "Loop", "echo_tool", "hook", "run_loop", "text", "tool_use", "user_content"]

SCHEMA = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
WORDS = st.from_regex(r"[A-Z]{3,8}", fullmatch=True, alphabet=ths.utf8_characters())


def echo_tool(name: str = "Echo") -> ToolSpec:
    return ToolSpec(
        name=name,
        description="Echoes x.",
        input_schema=SCHEMA,
        behavior=ToolBehavior(kind="text", text="echoed"),
    )


def tool_use(n: int, name: str = "Echo") -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_loop_{n}", "name": name, "input": {"x": str(n)}}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def hook(event: str, outcome: str, **fields: Any) -> HookSpec:
    return HookSpec(event=event, outcome=outcome, **fields)  # type: ignore[arg-type]


@dataclass
class Loop:
    """A finished loop scenario: what the harness did, and the hook inputs it logged."""

    run: LoopRun
    scenario: LoopScenario

    @property
    def hook_inputs(self) -> list[dict[str, Any]]:
        log = self.scenario.hook_log
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]

    def inputs_of(self, event: str) -> list[dict[str, Any]]:
        return [i for i in self.hook_inputs if i.get("hook_event_name") == event]

    def model_saw(self) -> str:
        """Every request the model got, as one JSON text."""
        return json.dumps(self.run.requests)

    def describe(self) -> str:
        endings = [(p.stop_reason, p.user_messages) for p in self.run.prompts]
        events = [i.get("hook_event_name") for i in self.hook_inputs]
        return f"{len(self.run.requests)} request(s), endings {endings}, hook events {events}"


def run_loop(
    harness: Any,
    prompts: Sequence[str],
    turns: Sequence[Sequence[Mapping[str, Any]]],
    hooks: Sequence[HookSpec] = (),
    *,
    tools: Sequence[ToolSpec] = (),
    compact_after: int | None = None,
    mode: str = "default",
    rules: Sequence[RuleSpec] | None = None,
) -> Loop:
    """Run ``prompts`` against the scripted ``turns``; ``rules`` None allows every tool by a rule."""
    root = fresh_dir()
    scenario_tools = list(tools) or [echo_tool()]
    (root / "work").mkdir()
    (root / "session").mkdir()
    scenario = LoopScenario(
        prompts=list(prompts),
        turns=[list(t) for t in turns],
        tools=scenario_tools,
        recorder=CallRecorder(),
        cwd=root / "work",
        session_dir=root / "session",
        hook_log=root / "hooks.jsonl",
        rules=[RuleSpec(t.name, "allow") for t in scenario_tools] if rules is None else list(rules),
        mode=mode,
        hooks=list(hooks),
        compact_after=compact_after,
    )
    return Loop(asyncio.run(harness.run_loop(scenario)), scenario)


def user_content(request: Mapping[str, Any], index: int) -> list[dict[str, Any]]:
    message = request["messages"][index]
    assert message["role"] == "user"
    content = message["content"]
    return [text(content)] if isinstance(content, str) else list(content)
