"""``agent_loop`` for the reference harness: a :class:`LoopScenario` through ``AgentSession``.

The scripted model is the wire package's :class:`~pytest_toolharness.wire.ScriptedApiServer` on
127.0.0.1; the session talks to it with the real ``anthropic`` client. The scenario's hooks are
installed as the harness's own hooks: in-process callbacks, or real command hooks (a subprocess,
from :func:`~pytest_toolharness.adapters.hook_command`) when the spec says so. Every hook first
appends the input it got to the scenario's ``hook_log``, whatever its event and its source (http,
async and plugin hooks too).
"""

from __future__ import annotations

import functools
import json
import ssl
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from pytest_toolharness.adapters import hook_command, runs_as_command
from pytest_toolharness.adapters.reference._hook_sources import SourcedHooks, hook_condition, is_sourced
from pytest_toolharness.adapters.reference._permission_context import rules_of
from pytest_toolharness.adapters.reference._tools import specs_to_tools
from pytest_toolharness.specs import (
    HookSpec,
    HostSpec,
    LoopPromptResult,
    LoopRun,
    LoopScenario,
)
from pytest_toolharness.wire.model_api import (
    AssistantTurn,
    ContentBlock,
    ScriptedApiServer,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)
from reference_impl import (
    AgentSession,
    CommandHook,
    HookContext,
    HookMatcher,
    Hooks,
    LoopResult,
    PermissionContext,
    RequestBuilder,
)

__all__ = ["SUMMARY", "run_loop_scenario"]

SUMMARY = "scripted summary"
"""The summary a scenario's ``compact_after`` compaction uses."""

_MODEL = "claude-sonnet-4-6"


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The client's TLS settings, made once: loading the CA certificates costs ~50 ms of CPU a client.

    The scripted server is plain HTTP, so they are never used; they are the defaults all the same.
    """
    return ssl.create_default_context()


def _turn(blocks: Sequence[Mapping[str, Any]]) -> AssistantTurn:
    converted: list[ContentBlock] = []
    for block in blocks:
        if block.get("type") == "tool_use":
            converted.append(
                ToolUseBlock(str(block["id"]), str(block["name"]), dict(block.get("input") or {}))
            )
        elif block.get("type") == "thinking":
            converted.append(ThinkingBlock(str(block.get("thinking", "")), str(block.get("signature", ""))))
        else:
            converted.append(TextBlock(str(block.get("text", ""))))
    return AssistantTurn(converted)


def _record(log: Path, hook_input: Mapping[str, Any]) -> None:
    with log.open("a", encoding="utf-8") as out:
        out.write(json.dumps(dict(hook_input)) + "\n")


def _callback(spec: HookSpec, log: Path) -> Any:
    async def callback(
        hook_input: dict[str, Any], _tool_use_id: str | None, _context: HookContext
    ) -> dict[str, Any]:
        _record(log, hook_input)
        if spec.outcome == "crash":
            raise RuntimeError("scripted hook crash")
        output = spec.output_for(hook_input)
        return output if output is not None else cast(dict[str, Any], "not a dict")

    return callback


def _loop_hooks(specs: Sequence[HookSpec], workdir: Path, log: Path) -> Hooks:
    events: dict[str, list[HookMatcher]] = {}
    for index, spec in enumerate(specs):
        entry: Any
        if runs_as_command(spec):
            command = hook_command(spec, workdir / "loop-hooks", index, log=log)
            entry = CommandHook(command=command, timeout=spec.timeout, condition=hook_condition(spec))
        else:
            entry = _callback(spec, log)
        events.setdefault(spec.event, []).append(
            HookMatcher(matcher=spec.matcher, hooks=[entry], timeout=spec.timeout)
        )
    return Hooks(events, source="conformance loop scenario")


def _user_messages(result: LoopResult) -> list[str]:
    messages = list(result.system_messages)
    if result.prompt_block_reason:
        messages.append(result.prompt_block_reason)
    if result.hook_stop_reason:
        messages.append(result.hook_stop_reason)
    return messages


async def run_loop_scenario(
    scenario: LoopScenario, workdir: Path, host_callback: Callable[[HostSpec], Any]
) -> LoopRun:
    """Run ``scenario`` in a fresh :class:`AgentSession` whose client talks to a scripted server."""
    import anthropic

    turns = [_turn(blocks) for blocks in scenario.turns]
    builtin = [s for s in scenario.tools if not s.is_mcp]
    mcp = [s for s in scenario.tools if s.is_mcp]
    rules = rules_of(scenario.rules)
    context = PermissionContext(
        mode=cast(Any, scenario.mode), rules=rules, cwd=scenario.cwd, can_prompt=scenario.host is not None
    )
    scenario.hook_log.parent.mkdir(parents=True, exist_ok=True)
    # http, async and plugin hooks (HOOK-8) are installed as the execute() path installs them, logging too.
    sourced = SourcedHooks(scenario.hooks, workdir, log=scenario.hook_log)
    plain = [spec for spec in scenario.hooks if not is_sourced(spec)]
    hooks = _loop_hooks(plain, workdir, scenario.hook_log).merged(sourced.hooks)
    with ScriptedApiServer(turns) as server:
        client = anthropic.AsyncAnthropic(
            base_url=server.base_url,
            api_key="x",
            max_retries=0,
            http_client=anthropic.DefaultAsyncHttpxClient(verify=tls_context()),
        )
        session = AgentSession(
            client=client,
            builder=RequestBuilder(model=_MODEL, max_tokens=1024, cwd=scenario.cwd),
            session_dir=scenario.session_dir,
            tools=specs_to_tools(builtin, scenario.recorder),
            mcp_tools=specs_to_tools(mcp, scenario.recorder),
            permission_context=context,
            hooks=hooks,
            can_use_tool=host_callback(scenario.host) if scenario.host is not None else None,
            max_turns=scenario.max_turns,
            transcript_path=str(scenario.session_dir / "transcript.jsonl"),
        )
        prompts: list[LoopPromptResult] = []
        try:
            for index, prompt in enumerate(scenario.prompts):
                result = await session.run(prompt)
                prompts.append(LoopPromptResult(result.stop_reason, _user_messages(result)))
                if scenario.compact_after == index:
                    await session.compact(SUMMARY)
            ended = list(await session.end("other"))
        finally:
            await sourced.close(session.hooks)
            await client.close()
        requests = [dict(r.json) for r in server.message_requests if r.tools]
    return LoopRun(requests=requests, prompts=prompts, ended=ended)
