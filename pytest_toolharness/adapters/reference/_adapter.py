"""The adapter for the embedded reference harness: the default the suite runs against.

It is also the worked example for adapter authors: every capability is a few lines that translate
the suite's specs into the harness's own objects and its answers back into wire-shaped data.
"""

from __future__ import annotations

import asyncio
import functools
import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from anthropic.types import MessageParam, ToolUseBlockParam

from pytest_toolharness.adapters import (
    SETTINGS_FILE,
    CallRecorder,
    ExecutionResult,
    ExecutionScenario,
    HookSpec,
    HostAnswer,
    HostSpec,
    LoopRun,
    LoopScenario,
    Notice,
    RuleSpec,
    SandboxOutcome,
    SandboxRun,
    ToolSpec,
    WireRequest,
    hook_command,
    runs_as_command,
)
from pytest_toolharness.adapters.framework import DEFAULT_MODEL
from pytest_toolharness.adapters.reference._hook_sources import SourcedHooks, hook_condition, is_sourced
from pytest_toolharness.adapters.reference._permission_context import (
    permission_context as permission_context_of,
)
from pytest_toolharness.adapters.reference._permission_context import rules_of, settings_files
from pytest_toolharness.adapters.reference._tools import spec_to_tool, specs_to_tools
from pytest_toolharness.processes import remove_at_exit
from pytest_toolharness.specs import SETTINGS_FILES
from reference_impl import (
    AgentSession,
    CommandHook,
    ExecutionContext,
    HookContext,
    HookMatcher,
    Hooks,
    PermissionContext,
    RequestBuilder,
    SandboxedShell,
    Tool,
    TranscriptEntry,
    builtin_tools,
    context_from_settings,
    load_settings,
    run_tool_uses,
    sandbox_settings,
)
from reference_impl.execution import (
    ContentReplacementState,
    finish_batch,
    new_batch_executor,
    rebuild_replacement_state,
)
from reference_impl.hooks import hooks_from_settings_files
from reference_impl.permissions import (
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    SettingSource,
    ToolPermissionContext,
)
from reference_impl.request import (
    BetaLatch,
    CompactBoundary,
    DeferredToolsDelta,
    ListingStyle,
    NoticeMechanism,
    ToolSchemaCache,
    extract_discovered_tool_names,
)
from reference_impl.tools import is_deferred_tool, parse_enable_tool_search

if TYPE_CHECKING:
    from pytest_toolharness.wire import WireRun, WireScenario
    from pytest_toolharness.wire.targets import ReferenceTarget

__all__ = [
    "ReferenceAdapter",
    "ReferenceHarness",
    "claude_code_listing_adapter",
    "listing_adapter",
    "reference_adapter",
]


def _search_tool() -> Tool:
    from reference_impl import tool_search_tool

    return tool_search_tool()


def _greeting() -> list[TranscriptEntry]:
    """A conversation of one user message: the least a request needs."""
    return [cast(MessageParam, {"role": "user", "content": "Hello"})]


@functools.cache
def _offline_client() -> Any:
    """The client of the sessions that only build requests: made once, never sends anything."""
    import anthropic

    from pytest_toolharness.adapters.reference._loop import tls_context

    return anthropic.AsyncAnthropic(
        api_key="unused", max_retries=0, http_client=anthropic.DefaultAsyncHttpxClient(verify=tls_context())
    )


class ReferenceHarness:
    """One session of the reference harness, driven through the suite's capabilities."""

    def __init__(
        self,
        workdir: Path,
        entries: Sequence[TranscriptEntry] = (),
        state: ContentReplacementState | None = None,
        *,
        notices: NoticeMechanism = "delta",
        listing_style: ListingStyle = "tag",
        wire_target: ReferenceTarget | None = None,
    ) -> None:
        self._workdir = workdir
        self._wire_target = wire_target
        self._notices: NoticeMechanism = notices
        self._listing_style: ListingStyle = listing_style
        self._session_dir = workdir / "session"
        self._schema_cache = ToolSchemaCache()
        self._builders: dict[tuple[str | None, str], RequestBuilder] = {}
        self._beta_latch = BetaLatch()
        self._entries: list[TranscriptEntry] = list(entries)
        self._builtin: list[ToolSpec] = []
        self._mcp: list[ToolSpec] = []
        self._replacement_state = state if state is not None else ContentReplacementState()
        self._search = _search_tool()

    # -- pool and classification --------------------------------------------------------------

    def _session(
        self,
        builtin: Sequence[ToolSpec],
        mcp: Sequence[ToolSpec],
        *,
        entries: Sequence[TranscriptEntry] = (),
        builder: RequestBuilder | None = None,
        recorder: CallRecorder | None = None,
        permission_context: PermissionContext | None = None,
        session_dir: Path | None = None,
        **options: Any,
    ) -> AgentSession:
        """A session of the harness's own agent loop over these tools, as its CLI makes one.

        The pool, the requests, the notices and a batch's execution context come from
        :class:`AgentSession` itself, the code the reference CLI runs: a defect there is a defect of
        the harness the suite checks, not of a copy. ``options`` are more of its fields (hooks, host).
        """
        return AgentSession(
            client=_offline_client(),
            builder=builder if builder is not None else self._builder(),
            session_dir=session_dir or self._session_dir,
            tools=[*specs_to_tools(builtin, recorder), self._search],
            mcp_tools=specs_to_tools(mcp, recorder),
            permission_context=permission_context or PermissionContext(cwd=self._workdir),
            entries=list(entries),
            **options,
        )

    def _pool(
        self,
        builtin: Sequence[ToolSpec],
        mcp: Sequence[ToolSpec],
        recorder: CallRecorder | None = None,
        deny: PermissionContext | None = None,
    ) -> tuple[Tool, ...]:
        return self._session(builtin, mcp, recorder=recorder, permission_context=deny).pool()

    def assemble_pool(
        self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec], *, deny_rules: Sequence[RuleSpec] = ()
    ) -> list[str]:
        """The pool's names in wire order (the harness's own ToolSearch tool is part of it)."""
        context = PermissionContext(rules=rules_of(deny_rules), cwd=self._workdir)
        return [tool.name for tool in self._pool(builtin, mcp, deny=context)]

    def is_deferred(self, spec: ToolSpec) -> bool:
        """Whether the reference harness defers the tool."""
        return is_deferred_tool(spec_to_tool(spec))

    # -- requests -----------------------------------------------------------------------------

    def _builder(self, enable_tool_search: str | None = None, model: str = DEFAULT_MODEL) -> RequestBuilder:
        key = (enable_tool_search, model)
        if key not in self._builders:
            self._builders[key] = RequestBuilder(
                model=model,
                max_tokens=1024,
                tool_search=parse_enable_tool_search(enable_tool_search),
                notices=self._notices,
                listing_style=self._listing_style,
                cwd=self._workdir,
                schema_cache=self._schema_cache,
            )
            # One beta latch per session, whatever the per-request setting (CACHE-6).
            self._builders[key].beta_latch = self._beta_latch
        return self._builders[key]

    def _probe_entries(self) -> list[TranscriptEntry]:
        return self._entries or _greeting()

    def render_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        """The tools array of the next request in this session (tool search on)."""
        built = self._session(builtin, mcp, entries=self._probe_entries()).next_request()
        return [dict(tool) for tool in built.params["tools"]]

    def cache_key(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> str:
        """The cache-break detection hash of the next request."""
        return self._session(builtin, mcp, entries=self._probe_entries()).next_request().cache_hash

    def search(
        self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec], query: str, max_results: int = 5
    ) -> list[str] | str:
        """Run the real ToolSearch tool against this pool, through the executor as a model's call is."""
        # A fresh conversation's: the request is built for its pool and deferred names only.
        session = self._session(builtin, mcp, entries=_greeting())
        session.next_request()  # the pool and deferred names the loop gives its tools
        context = session.execution_context(session.state.tools)
        block = cast(
            ToolUseBlockParam,
            {
                "type": "tool_use",
                "id": "toolu_search",
                "name": self._search.name,
                "input": {"query": query, "max_results": max_results},
            },
        )
        batch = asyncio.run(run_tool_uses([block], context, state=session.state))
        content = batch.user_content[0].get("content")
        if isinstance(content, str):
            return content
        return [
            str(item["tool_name"]) if item.get("type") == "tool_reference" else _result_text([item])
            for item in cast(Sequence[Mapping[str, Any]], content or [])
        ]

    def notice(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> Notice | None:
        """The deferred-tools delta the next request for this pool brings, kept in the transcript as the loop keeps it."""
        session = self._session(builtin, mcp, entries=self._entries)
        appended = session.next_request().appended_entries
        self._entries = session.entries
        delta = next((e for e in appended if isinstance(e, DeferredToolsDelta)), None)
        if delta is None:
            return None
        return Notice(added=delta.added_names, removed=delta.removed_names)

    def record_notice(self, notice: Notice) -> None:
        """Append ``notice`` to the transcript as a ``deferred_tools_delta`` record, as a resumed session holds it."""
        self._entries.append(
            DeferredToolsDelta(
                added_names=tuple(notice.added),
                added_lines=tuple(notice.added),
                removed_names=tuple(notice.removed),
            )
        )

    # -- conversation -------------------------------------------------------------------------

    def set_tools(self, builtin: Sequence[ToolSpec], mcp: Sequence[ToolSpec]) -> None:
        """Use these tools from now on."""
        self._builtin, self._mcp = list(builtin), list(mcp)

    def append_message(self, message: dict[str, Any]) -> None:
        """Add a user or assistant message to the transcript."""
        self._entries.append(cast(MessageParam, dict(message)))

    def render_request(
        self, *, enable_tool_search: str | None = None, model: str = DEFAULT_MODEL
    ) -> WireRequest:
        """The next request, exactly as the SDK would send its body."""
        session = self._session(
            self._builtin, self._mcp, entries=self._entries, builder=self._builder(enable_tool_search, model)
        )
        built = session.next_request()
        self._entries = session.entries
        params = dict(built.params)
        headers = dict(params.pop("extra_headers", None) or {})
        return WireRequest(body=params, headers=headers)

    def compact(self, summary: str) -> None:
        """Compact the transcript, keeping the discovered tools; betas may be re-decided afterwards."""
        session = self._session(self._builtin, self._mcp, entries=self._entries)
        asyncio.run(session.compact(summary))
        self._entries = session.entries
        for builder in self._builders.values():
            builder.reset()  # they share one latch; session.compact reset the default builder's

    def discovered_tools(self) -> set[str]:
        """The discovered tools, rebuilt from the transcript."""
        return set(extract_discovered_tool_names(self._entries))

    def resume(self) -> ReferenceHarness:
        """A new session rebuilt from this one's transcript (as a resumed session would be)."""
        entries = list(self._entries)
        messages = [e for e in entries if not isinstance(e, DeferredToolsDelta | CompactBoundary)]
        resumed = ReferenceHarness(
            self._workdir,
            entries,
            rebuild_replacement_state(messages),
            notices=self._notices,
            listing_style=self._listing_style,
            wire_target=self._wire_target,
        )
        resumed.set_tools(self._builtin, self._mcp)
        return resumed

    # -- execution ----------------------------------------------------------------------------

    def run_wire(self, scenario: WireScenario) -> WireRun:
        """Run a wire scenario against ``python -m reference_impl`` (the adapter's ``wire_target``)."""
        from pytest_toolharness.wire.targets import ReferenceTarget, run_wire_scenario

        self._wire_runs = getattr(self, "_wire_runs", 0) + 1
        workdir = self._workdir / f"wire-{self._wire_runs:03d}-{scenario.name}"
        return run_wire_scenario(self._wire_target or ReferenceTarget(), scenario, workdir)

    async def run_loop(self, scenario: LoopScenario) -> LoopRun:
        """Run the scenario's prompts through :class:`reference_impl.AgentSession` against a scripted model."""
        from pytest_toolharness.adapters.reference._loop import run_loop_scenario

        return await run_loop_scenario(scenario, self._workdir, _host_callback)

    async def run_sandboxed(self, run: SandboxRun) -> SandboxOutcome:
        """One Bash call through the pipeline, with the settings in the file of ``run.settings_source``.

        The run's other files are loaded after it, in their order, and the managed ones last.
        """
        self._workdir.mkdir(parents=True, exist_ok=True)
        places: dict[str, Path] = {
            "localSettings": run.workdir / SETTINGS_FILE,
            "projectSettings": run.workdir / SETTINGS_FILES["projectSettings"],
            "userSettings": self._workdir / "home" / ".claude" / "settings.json",
            "flagSettings": self._workdir / "flag-settings.json",
            "policySettings": self._workdir / "managed-settings.json",
        }
        written = [(run.settings_source, run.settings), *run.other_settings]
        if run.managed_settings:
            written.append(("policySettings", run.managed_settings))
        files = []
        for source, content in written:
            path = places[source]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(dict(content)), encoding="utf-8")
            files.append(load_settings(path, cast(SettingSource, source)))
        permission_context = context_from_settings(files, cwd=run.workdir, can_prompt=run.host is not None)
        temp_dir = self._workdir / "tmp"
        temp_dir.mkdir(exist_ok=True)
        shell = SandboxedShell(
            sandbox_settings(files),
            permission_context,
            settings_paths=tuple(Path(f.name) for f in files),
            temp_dir=temp_dir,
        )
        context = ExecutionContext(
            tools=builtin_tools(shell),
            permission_context=permission_context,
            session_dir=self._workdir / "session",
            can_use_tool=_host_callback(run.host) if run.host is not None else None,
        )
        tool_input: dict[str, Any] = {"command": run.command, "timeout": run.timeout_ms}
        if run.disable_sandbox:
            tool_input["dangerouslyDisableSandbox"] = True
        block = cast(
            ToolUseBlockParam,
            {"type": "tool_use", "id": "toolu_sandbox", "name": "Bash", "input": tool_input},
        )
        batch = await run_tool_uses([block], context)
        result = batch.user_content[0]
        decision = context.decision_log.decisions.get("toolu_sandbox")
        return SandboxOutcome(
            ran=bool(shell.runs),
            sandboxed=shell.runs[-1].sandboxed if shell.runs else None,
            output=_result_text(result.get("content")),
            is_error=bool(result.get("is_error")),
            decision=decision.behavior if decision is not None else "deny",
        )

    async def execute(self, scenario: ExecutionScenario) -> ExecutionResult:
        """Run the scenario's tool_use blocks through run_tool_use and the streaming executor."""
        builtin = [s for s in scenario.tools if not s.is_mcp]
        mcp = [s for s in scenario.tools if s.is_mcp]
        permission_context = permission_context_of(scenario)
        sourced = SourcedHooks(scenario.hooks, self._workdir)
        session = self._session(
            builtin,
            mcp,
            entries=_greeting(),
            recorder=scenario.recorder,
            permission_context=permission_context,
            session_dir=scenario.session_dir,
            # The settings files' hooks as their disableAllHooks and allowManagedHooksOnly allow, then the scenario's.
            hooks=hooks_from_settings_files(settings_files(scenario)).merged(
                _hooks([h for h in scenario.hooks if not is_sourced(h)], self._workdir), sourced.hooks
            ),
            can_use_tool=_host_callback(scenario.host) if scenario.host is not None else None,
            replacement_state=self._replacement_state,
        )
        session.next_request()  # the pool and deferred names the loop gives a turn's tools
        context = session.execution_context(session.state.tools)
        if scenario.abort_after_starts is not None:
            scenario.recorder.trigger_after_starts(scenario.abort_after_starts, scenario.abort)
        state = session.state
        blocks = [cast(ToolUseBlockParam, dict(block)) for block in scenario.tool_uses]
        try:
            if scenario.streamed_after_end:
                user_content = await _run_streamed(blocks, context, scenario, state)
            else:
                user_content = (
                    await run_tool_uses(
                        blocks,
                        context,
                        abort=scenario.abort,
                        call_timeout=scenario.call_timeout,
                        state=state,
                        # The suite's hanging tools ignore their abort event on purpose: each interrupted
                        # one costs the grace period, and a tool that honours its abort returns at once.
                        grace_period=0.05,
                    )
                ).user_content
        finally:
            await sourced.close(context.hooks)
        self._entries.append(cast(MessageParam, {"role": "assistant", "content": [dict(b) for b in blocks]}))
        self._entries.append(cast(MessageParam, {"role": "user", "content": user_content}))
        decisions = {
            tool_use_id: {
                "behavior": d.behavior,
                "stage": d.reason.stage,
                "source": d.reason.source,
                "rule": d.reason.rule,
                "hook": d.reason.hook,
                "mode": d.reason.mode,
                "detail": d.reason.detail,
            }
            for tool_use_id, d in context.decision_log.decisions.items()
        }
        return ExecutionResult(user_content=user_content, decisions=decisions)


# How long a streamed block waits after the ends it waits for: the harness handles an end within a
# few turns of the event loop; a block still streaming from the model comes much later than that.
STREAM_SETTLE_S = 0.05


async def _run_streamed(
    blocks: list[ToolUseBlockParam], context: ExecutionContext, scenario: ExecutionScenario, state: Any
) -> list[dict[str, Any]]:
    """Feed the blocks to the harness's streaming executor, each after the end it waits for."""
    executor = new_batch_executor(
        context, abort=scenario.abort, call_timeout=scenario.call_timeout, state=state, grace_period=0.05
    )

    async def feed() -> None:
        try:
            for block in blocks:
                after = scenario.streamed_after_end.get(block["id"])
                if after is not None:
                    while after not in scenario.recorder.ended():
                        await asyncio.sleep(0.005)
                    await asyncio.sleep(STREAM_SETTLE_S)
                executor.add_tool_use(block)
        finally:
            # Even when feeding fails: the results end, and the failure is raised below.
            executor.finish_stream()

    feeding = asyncio.create_task(feed())
    outcomes = [outcome async for outcome in executor.results()]
    await feeding
    return finish_batch(blocks, outcomes, context)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content or () if isinstance(b, Mapping))


def _host_callback(host: HostSpec) -> Any:
    async def can_use_tool(
        name: str, tool_input: dict[str, Any], _context: ToolPermissionContext
    ) -> PermissionResult:
        answer: HostAnswer = host.ask(name, tool_input)
        if answer.behavior == "allow":
            return PermissionResultAllow(updated_input=answer.updated_input)
        return PermissionResultDeny(message=answer.message, interrupt=answer.interrupt)

    return can_use_tool


def _hooks(specs: Sequence[HookSpec], workdir: Path) -> Hooks:
    events: dict[str, list[HookMatcher]] = {}
    for index, spec in enumerate(specs):
        entry: Any
        if runs_as_command(spec):
            command = hook_command(spec, workdir / "hooks", index)
            entry = CommandHook(
                command=command,
                timeout=spec.timeout,
                condition=hook_condition(spec),
                on_failure=spec.on_failure,
            )
        else:
            entry = _hook_callback(spec)
        events.setdefault(spec.event, []).append(
            HookMatcher(matcher=spec.matcher, hooks=[entry], timeout=spec.timeout)
        )
    return Hooks(events, source="conformance scenario")


def _hook_callback(spec: HookSpec) -> Any:
    async def callback(
        _input: dict[str, Any], _tool_use_id: str | None, _context: HookContext
    ) -> dict[str, Any]:
        if spec.outcome == "crash":
            raise RuntimeError("scripted hook crash")
        if spec.outcome == "hang":
            await asyncio.sleep(3600)
        output = spec.output_json()
        return output if output is not None else cast(dict[str, Any], "not a dict")

    return callback


class ReferenceAdapter:
    """The adapter for the reference harness: every capability, both profiles."""

    name = "reference_impl (pytest-toolharness)"
    profiles = frozenset({"core", "claude-code"})
    # Where the harness under test's own code is: an exception raised elsewhere in the suite is its fault.
    harness_packages: tuple[str, ...] = ("reference_impl",)
    capabilities = frozenset(
        {
            "permissions",
            "pool",
            "classification",
            "schemas",
            "cache_key",
            "search",
            "notices",
            "notice_records",
            "conversation",
            "execution",
            "hooks",
            "command_hooks",
            "host_callback",
            "host_interrupt",
            "settings_files",
            "abort",
            "streamed_tool_uses",
            "timeouts",
            "result_persistence",
            "wire",
            "agent_loop",
            "reasoning",
            "hook_sources",
            "hook_if",
            "hook_on_failure",
            "settings_hooks",
            "sandbox",
            "non_object_input",
        }
    )

    def __init__(self, *, notices: NoticeMechanism = "delta", listing_style: ListingStyle = "tag") -> None:
        # A listing harness tells the model its deferred tools in a listing message, not in delta
        # notices, so it has no "notices" capability (DEFER-3 allows either mechanism).
        if notices == "listing":
            self.capabilities = ReferenceAdapter.capabilities - {"notices", "notice_records"}
        self._notices: NoticeMechanism = notices
        self._listing_style: ListingStyle = listing_style
        # The CLI the wire checks run (``None``: ``python -m reference_impl``).
        self.wire_target: ReferenceTarget | None = None
        self._root = Path(tempfile.mkdtemp(prefix="toolharness-reference-"))
        self._count = 0
        remove_at_exit(self._root)

    def new_harness(self) -> ReferenceHarness:
        """A fresh session with its own working directory, made when the session first writes there.

        Most sessions never write (the suite makes thousands, one per example): creating and removing
        each directory up front cost more than some of the examples.
        """
        self._count += 1
        workdir = self._root / f"session-{self._count}"
        return ReferenceHarness(
            workdir, notices=self._notices, listing_style=self._listing_style, wire_target=self.wire_target
        )


def reference_adapter() -> ReferenceAdapter:
    """The adapter factory for the embedded reference harness (the default): delta notices."""
    return ReferenceAdapter()


def listing_adapter() -> ReferenceAdapter:
    """The reference harness telling the model its deferred tools in a listing message (the seed's tag)."""
    return ReferenceAdapter(notices="listing", listing_style="tag")


def claude_code_listing_adapter() -> ReferenceAdapter:
    """The reference harness with Claude Code 2.1's listing text instead of delta notices."""
    return ReferenceAdapter(notices="listing", listing_style="claude_code")
