"""The smolagents adapter: the suite's scripted tools run by a real ``smolagents.ToolCallingAgent``.

The agent's model is smolagents' own ``OpenAIServerModel`` (Chat Completions) on an ``openai.OpenAI``
client whose transport is a :class:`~pytest_toolharness.wire.ScriptedEndpoint`, as ``api_base=...`` points
it at any OpenAI-compatible server: smolagents' tool calling, its parallel tool threads, its error handling
and the way it writes tool calls and observations into the next request run as in production.

Each :class:`~pytest_toolharness.adapters.ToolSpec` becomes a ``smolagents.Tool`` whose ``inputs`` are the
spec's JSON-schema properties, a property the schema does not require being ``nullable`` (what smolagents'
MCP tools do); a property without a type smolagents knows is ``any``. smolagents hands a tool its
arguments only, so the call's id is the scenario's next call of that name and input. A tool's own
validation (``rejects_when``) raises, smolagents' only way for a tool to refuse. The user's agent:
``toolharness_agent = "package.module:factory"``, called as ``factory(model, tools)`` and returning a
``ToolCallingAgent``.

An MCP tool gets the name smolagents' own MCP path gives it (``ToolCollection.from_mcp``: mcpadapt's
``SmolAgentsAdapter`` names a tool by its MCP name, sanitized into a Python identifier), not the suite's
``mcp__<server>__<tool>``, which smolagents refuses (:func:`smolagents_name`). The adapter translates
both ways: the scripted model calls the tools by smolagents' names, and ``render_tools`` names each
tool by its spec's name again, so the schema checks judge the bytes smolagents sends for the tool they
asked for; a request (``render_request``, the agent loop's) is as smolagents sent it.

smolagents runs synchronously (a batch in a ``ThreadPoolExecutor``): the agent runs in a thread of its
own and each call's scripted behaviour runs on the scenario's event loop. An abort calls
``agent.interrupt()``, smolagents' own stop, which takes effect before the next step; the session then
resumes as a smolagents user resumes one, ``agent.run(task, reset=False)``.
"""

from __future__ import annotations

import ast
import asyncio
import concurrent.futures
import contextlib
import importlib.util
import json
import keyword
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from smolagents import LogLevel, OpenAIServerModel, Tool, ToolCallingAgent
from smolagents.memory import ActionStep, TaskStep, ToolCall
from smolagents.monitoring import Timing
from smolagents.tools import AUTHORIZED_TYPES

from pytest_toolharness.adapters import (
    ExecutionResult,
    ExecutionScenario,
    LoopPromptResult,
    LoopRun,
    LoopScenario,
    ToolSpec,
    WireRequest,
)
from pytest_toolharness.adapters._framework_loop import loop_endpoint, loop_requests, loop_tools_scenario
from pytest_toolharness.adapters._openai_answers import (
    CHAT_COMPLETIONS,
    endpoint_answer,
    first_request,
    messages_view,
    sent_tools,
)
from pytest_toolharness.adapters.framework import (
    PROMPT,
    Transcript,
    TranscriptSession,
    agent_factory,
    framework_turn,
    run_behavior,
    text_of_result,
)
from pytest_toolharness.wire import AssistantTurn, RecordedRequest, ScriptedEndpoint

__all__ = [
    "DEFAULT_MODEL",
    "MAX_STEPS",
    "SmolagentsAdapter",
    "SmolagentsHarness",
    "make_adapter",
    "make_tool",
    "smolagents_name",
]

AgentFactory = Callable[[OpenAIServerModel, list[Tool]], ToolCallingAgent]

DEFAULT_MODEL = "gpt-5.1"
MAX_STEPS = 2
"""The default agent's steps: the scripted tool-call turn, and the step whose request carries its results."""
END_BOUND = 5.0
"""Seconds a session's threads get to end after it (a model request in flight, a cancelled call's step)."""


def _model(endpoint: ScriptedEndpoint) -> OpenAIServerModel:
    return OpenAIServerModel(
        DEFAULT_MODEL,
        api_base=f"{endpoint.base_url}/v1",
        api_key="scripted",
        client_kwargs={"http_client": endpoint.client(), "max_retries": 0},
    )


def _inputs(schema: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A JSON schema's properties as smolagents ``inputs``: unrequired ones ``nullable``, unknown types ``any``."""
    required = set(schema.get("required") or ())
    inputs: dict[str, dict[str, Any]] = {}
    for name, prop in (schema.get("properties") or {}).items():
        entry = dict(prop) if isinstance(prop, Mapping) else {}
        kind = entry.get("type")
        known = kind in AUTHORIZED_TYPES if isinstance(kind, str) else isinstance(kind, list) and kind != []
        if not known or (isinstance(kind, list) and not set(kind) <= set(AUTHORIZED_TYPES)):
            entry["type"] = "any"
        entry.setdefault("description", str(name))
        if name not in required:
            entry["nullable"] = True
        inputs[str(name)] = entry
    return inputs


def _mcpadapt_sanitizer() -> Callable[[str], str]:
    """The ``_sanitize_function_name`` of mcpadapt, the function that names smolagents' MCP tools.

    Imported when mcpadapt imports; mcpadapt 0.1.19 does not with mcp 2 (its core imports
    ``mcp.client.streamable_http.streamablehttp_client``, which mcp 2 renamed), so then the function is
    compiled from mcpadapt's own source file: mcpadapt's code either way, never a copy of it.
    """
    with contextlib.suppress(ImportError):
        from mcpadapt.smolagents_adapter import _sanitize_function_name

        return _sanitize_function_name  # type: ignore[no-any-return]
    found = importlib.util.find_spec("mcpadapt")
    if found is None or not found.submodule_search_locations:
        raise ImportError(
            "the smolagents adapter needs mcpadapt (pip install 'pytest-toolharness[smolagents]')"
        )
    path = f"{next(iter(found.submodule_search_locations))}/smolagents_adapter.py"
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), path)
    node = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_sanitize_function_name"
    )
    namespace: dict[str, Any] = {"re": re, "keyword": keyword}
    exec(compile(ast.Module([node], []), path, "exec"), namespace)  # mcpadapt's installed code
    function: Callable[[str], str] = namespace["_sanitize_function_name"]
    return function


_sanitize_function_name = _mcpadapt_sanitizer()


def smolagents_name(spec: ToolSpec) -> str:
    """The name smolagents gives the tool: an MCP tool's is its MCP name as mcpadapt sanitizes it.

    That is the name ``ToolCollection.from_mcp`` (mcpadapt's ``SmolAgentsAdapter``) gives a server's tool,
    the only way smolagents takes MCP tools; any other tool keeps its spec's name.
    """
    return spec.name if spec.mcp_tool is None else _sanitize_function_name(spec.mcp_tool)


class _Names:
    """The specs' names and smolagents' names for them, both ways (an unknown name is left as it is)."""

    def __init__(self, specs: Iterable[ToolSpec]) -> None:
        self._smolagents = {spec.name: smolagents_name(spec) for spec in specs}
        self._suite = {sent: name for name, sent in self._smolagents.items()}

    def calls(self, blocks: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Content blocks (or tool_use entries) whose tool calls name smolagents' tools."""
        return [
            {**b, "name": self._smolagents.get(str(b["name"]), b["name"])}
            if b.get("type", "tool_use") == "tool_use" and "name" in b
            else dict(b)
            for b in blocks
        ]

    def reported(self, tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Sent tools named by their specs' names again (smolagents' ``final_answer`` as it is).

        A name another sent tool already has stays as sent: the report never makes up a repeated name.
        """
        sent = {str(t.get("name")) for t in tools}
        return [
            {**t, "name": spec}
            if (spec := self._suite.get(str(t.get("name")))) is not None and spec not in sent
            else dict(t)
            for t in tools
        ]


class _Calls:
    """The scenario's calls not yet run, claimed by name and input (smolagents gives a tool no call id)."""

    def __init__(self, scenario: ExecutionScenario) -> None:
        self._open = [(str(u["name"]), u.get("input"), str(u["id"])) for u in scenario.tool_uses]
        self._lock = threading.Lock()

    def claim(self, name: str, tool_input: Mapping[str, Any]) -> str:
        with self._lock:
            for index, (called, given, call_id) in enumerate(self._open):
                if called == name and json.dumps(given, sort_keys=True) == json.dumps(
                    tool_input, sort_keys=True
                ):
                    del self._open[index]
                    return call_id
        return ""


def make_tool(
    spec: ToolSpec,
    run: Callable[[str, Mapping[str, Any]], Any] | None = None,
) -> Tool:
    """A ``smolagents.Tool`` for the spec; ``run(name, arguments)`` answers its calls (else ``""``)."""

    def forward(self: Tool, **arguments: Any) -> Any:
        return "" if run is None else run(spec.name, arguments)

    attributes = {
        "name": smolagents_name(spec),
        "description": spec.description,
        "inputs": _inputs(spec.input_schema),
        "output_type": "string",
        "skip_forward_signature_validation": True,
        "forward": forward,
    }
    return type(f"ScriptedTool_{spec.name}", (Tool,), attributes)()


class _Runner:
    """Answers the smolagents tools' calls from their threads: each call's behaviour runs on ``loop``.

    :meth:`close` ends the session: calls still running are cancelled (their threads get
    ``CancelledError``) and later calls fail at once, so that no thread of the run outlives it.
    """

    def __init__(self, scenario: ExecutionScenario, loop: asyncio.AbstractEventLoop) -> None:
        self._scenario = scenario
        self._loop = loop
        self._calls = _Calls(scenario)
        self._specs = {spec.name: spec for spec in scenario.tools}
        self._running: set[concurrent.futures.Future[Any]] = set()
        self._lock = threading.Lock()
        self._closed = False

    def __call__(self, name: str, arguments: Mapping[str, Any]) -> Any:
        # smolagents passes the unrequired inputs the model left out as None: the model's input had none.
        tool_input = {k: v for k, v in arguments.items() if v is not None}
        call_id = self._calls.claim(name, tool_input)
        with self._lock:
            if self._closed:
                raise RuntimeError("the session has ended")
            behaviour = run_behavior(self._specs[name], call_id, tool_input, self._scenario)
            running = asyncio.run_coroutine_threadsafe(behaviour, self._loop)
            self._running.add(running)
        try:
            output = running.result()
        finally:
            with self._lock:
                self._running.discard(running)
        # A smolagents tool of output_type "string" returns text: a result's blocks are their texts joined.
        return output.text

    def close(self) -> None:
        """Cancel the calls still running; refuse new ones."""
        with self._lock:
            self._closed = True
            for running in self._running:
                running.cancel()


class _Thread:
    """``call`` in a daemon thread (a tool that never returns must not keep the process alive)."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.thread = threading.Thread(target=self._target, args=(call,), name="smolagents-run", daemon=True)
        self.thread.start()

    def _target(self, call: Callable[[], Any]) -> None:
        try:
            self.done.set_result(call())
        except BaseException as exc:  # the agent's own error is the run's outcome
            self.done.set_exception(exc)

    async def result(self) -> Any:
        """The call's result, or its exception."""
        return await asyncio.wrap_future(self.done)


def _steps(transcript: Transcript, names: _Names) -> list[TaskStep | ActionStep]:
    """The transcript as smolagents' memory: a user's text is a task, a tool turn and its results a step."""
    steps: list[TaskStep | ActionStep] = []
    for message in transcript.messages:
        blocks = transcript.blocks(message)
        texts = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        results = [text_of_result(b) for b in blocks if b.get("type") == "tool_result"]
        if message.get("role") == "assistant":
            calls = [
                ToolCall(name=str(b["name"]), arguments=b.get("input") or {}, id=str(b["id"]))
                for b in names.calls(blocks)
                if b.get("type") == "tool_use"
            ]
            step = ActionStep(step_number=len(steps) + 1, timing=Timing(start_time=0.0))
            step.model_output = texts or None
            step.tool_calls = calls or None
            steps.append(step)
        elif results and steps and isinstance(steps[-1], ActionStep):
            steps[-1].observations = "\n".join(results)
        elif texts:
            steps.append(TaskStep(task=texts))
    return steps


def _sent(endpoint: ScriptedEndpoint, run: Callable[[], object]) -> RecordedRequest:
    """The first request of ``run``: the scripted text answer is no tool call, smolagents' own parse error."""
    error: BaseException | None = None
    try:
        run()
    except Exception as exc:
        error = exc
    return first_request(endpoint, CHAT_COMPLETIONS, error)


async def _ended(agents: Sequence[ToolCallingAgent], runner: _Runner, runs: Sequence[_Thread]) -> None:
    """Stop the session's runs and wait (at most :data:`END_BOUND` seconds) for their threads to end.

    No thread of a session outlives it: a thread still running beside the next test races it (CPython
    3.11's ``ast`` state is shared by threads: pytest's and smolagents' parsing collide).
    """
    for agent in agents:
        agent.interrupt()
    runner.close()
    deadline = asyncio.get_running_loop().time() + END_BOUND
    while any(run.thread.is_alive() for run in runs) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)


class SmolagentsHarness(TranscriptSession):
    """One session: a fresh agent per batch, built by the user's factory or ``ToolCallingAgent(...)``."""

    def __init__(self, factory: AgentFactory | None) -> None:
        super().__init__()
        self._factory = factory

    def is_deferred(self, spec: ToolSpec) -> bool:
        """Never: smolagents speaks Chat Completions, which has no deferred loading (every tool is sent)."""
        return False

    def render_request(
        self, *, enable_tool_search: str | None = None, model: str = DEFAULT_MODEL
    ) -> WireRequest:
        """The request of smolagents' next step on the transcript as its memory, read as the Messages API's.

        ``enable_tool_search`` is Claude Code's, unused. smolagents writes tool calls and results into
        text messages: the request has no ``tool_use`` blocks.
        """
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        agent = self._agent(_model(endpoint), [make_tool(spec) for spec in self._transcript.tools])
        agent.memory.steps = list(_steps(self._transcript, _Names(self._transcript.tools)))
        step = ActionStep(step_number=len(agent.memory.steps) + 1, timing=Timing(start_time=0.0))
        return WireRequest(body=messages_view(_sent(endpoint, lambda: agent.step(step))))

    def _agent(self, model: OpenAIServerModel, tools: list[Tool]) -> ToolCallingAgent:
        if self._factory is not None:
            return self._factory(model, tools)
        return ToolCallingAgent(tools=tools, model=model, max_steps=MAX_STEPS, verbosity_level=LogLevel.OFF)

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        """Let smolagents run the scenario's tool-call turn; its next request holds what it made of it."""
        runner = _Runner(scenario, asyncio.get_running_loop())
        tools = [make_tool(spec, runner) for spec in scenario.tools]
        agents: list[ToolCallingAgent] = []
        runs: list[_Thread] = []

        async def run(endpoint: ScriptedEndpoint) -> object:
            agents.append(self._agent(_model(endpoint), tools))
            runs.append(_Thread(lambda: agents[0].run(PROMPT)))
            try:
                return await runs[0].result()
            except asyncio.CancelledError:
                agents[0].interrupt()
                raise

        async def resume(endpoint: ScriptedEndpoint) -> object:
            # The interrupted run ends after its step (with "Agent interrupted."); then the session goes on.
            with contextlib.suppress(Exception):
                await runs[0].result()
            runs.append(_Thread(lambda: agents[0].run(PROMPT, reset=False)))
            return await runs[-1].result()

        # The scripted model calls the tools by the names smolagents gave them.
        called = replace(scenario, tool_uses=_Names(scenario.tools).calls(scenario.tool_uses))
        try:
            return await framework_turn(
                called, run, resume, answer=lambda e: endpoint_answer(e, CHAT_COMPLETIONS)
            )
        finally:
            await _ended(agents, runner, runs)

    async def run_loop(self, scenario: LoopScenario) -> LoopRun:
        """Each prompt an ``agent.run`` of one memory (``max_steps``); the requests read as the Messages API's.

        smolagents ends a run on its ``final_answer`` tool only: a scripted text turn is its parse error,
        and the run goes on to ``max_steps``.
        """
        names = _Names(scenario.tools)
        endpoint = loop_endpoint(replace(scenario, turns=[names.calls(turn) for turn in scenario.turns]))
        runner = _Runner(loop_tools_scenario(scenario), asyncio.get_running_loop())
        agent = self._agent(_model(endpoint), [make_tool(spec, runner) for spec in scenario.tools])
        prompts: list[LoopPromptResult] = []
        runs: list[_Thread] = []
        try:
            for index, prompt in enumerate(scenario.prompts):

                def run(prompt: str = prompt, reset: bool = index == 0) -> Any:
                    return agent.run(
                        prompt, reset=reset, max_steps=scenario.max_turns, return_full_result=True
                    )

                runs.append(_Thread(run))
                try:
                    result = await runs[-1].result()
                except Exception as exc:  # smolagents' own error ends the prompt's run
                    prompts.append(LoopPromptResult("error", [f"{type(exc).__name__}: {exc}"]))
                    continue
                prompts.append(LoopPromptResult("end_turn" if result.state == "success" else "max_turns"))
        finally:
            await _ended([agent], runner, runs)
        return LoopRun(requests=loop_requests(endpoint, CHAT_COMPLETIONS), prompts=prompts)

    def render_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        """The function tools smolagents sends for these tools (its ``final_answer`` tool too).

        Each is named by its spec's name: an MCP tool is sent under :func:`smolagents_name`.
        """
        endpoint = ScriptedEndpoint([AssistantTurn.text("Hello.")])
        agent = self._agent(_model(endpoint), [make_tool(spec) for spec in [*builtin, *mcp]])
        sent = sent_tools(_sent(endpoint, lambda: agent.run(PROMPT, max_steps=1)).json)
        return _Names([*builtin, *mcp]).reported(sent)


class SmolagentsAdapter:
    """The adapter: ``execution`` (with ``abort``), ``transcript``, ``schemas``, ``agent_loop``; ``core``."""

    name = "smolagents (pytest-toolharness)"
    profiles = frozenset({"core"})
    # Where the harness under test's own code is: an exception raised elsewhere in the suite is its fault.
    harness_packages: tuple[str, ...] = ("smolagents",)
    capabilities = frozenset({"execution", "abort", "transcript", "schemas", "agent_loop"})

    def __init__(self, factory: AgentFactory | None = None) -> None:
        self._factory = factory
        self.not_applicable = {
            "PAIR-8": "Chat Completions delivers no reasoning with tool calls, so there is none to send back",
        }

    def new_harness(self) -> SmolagentsHarness:
        """A fresh session."""
        return SmolagentsHarness(self._factory)


def make_adapter(config: Any = None) -> SmolagentsAdapter:
    """The adapter factory; ``config`` (the pytest config) names the user's agent factory, if any."""
    return SmolagentsAdapter(agent_factory(config))
