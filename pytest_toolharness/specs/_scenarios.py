"""Scenarios the suite hands a harness (a batch of tool calls, an agent-loop session) and what comes back."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_toolharness.specs._hooks import HookSpec
from pytest_toolharness.specs._permissions import HostSpec, RuleSpec, SettingsSpec
from pytest_toolharness.specs._recorder import CallRecorder
from pytest_toolharness.specs._tools import ToolSpec

__all__ = [
    "ExecutionResult",
    "ExecutionScenario",
    "LoopPromptResult",
    "LoopRun",
    "LoopScenario",
    "Notice",
    "WireRequest",
]


@dataclass(slots=True)
class ExecutionScenario:
    """One assistant turn's tool_use blocks, to be executed by the harness under test.

    ``host`` None means nobody can be asked (headless): an ask becomes a PermissionRequest hook's
    decision or a deny. ``abort`` is the suite's interrupt signal: the harness must watch it
    (the suite sets it, e.g. when a given number of calls have started).

    ``settings`` are the session's settings files (the ``settings_files`` capability), besides
    ``rules``; ``mode`` is the mode given when the session starts (as on the command line), so with
    settings files ``"default"`` means none was given and their ``defaultMode`` applies.

    ``streamed_after_end`` (the ``streamed_tool_uses`` capability) maps a tool_use id to the id of an
    earlier call of the batch: that block streams in only after that call has ended (and the harness
    has had a moment to handle its end), as a block still streaming from the model arrives while the
    earlier calls run. The blocks keep their order: a block waiting holds back those after it.
    """

    tools: Sequence[ToolSpec]
    tool_uses: Sequence[Mapping[str, Any]]
    recorder: CallRecorder
    cwd: Path
    session_dir: Path
    rules: Sequence[RuleSpec] = ()
    mode: str = "default"
    hooks: Sequence[HookSpec] = ()
    host: HostSpec | None = None
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    abort_after_starts: int | None = None
    call_timeout: float | None = None
    additional_dirs: Sequence[Path] = ()
    settings: Sequence[SettingsSpec] = ()
    streamed_after_end: Mapping[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class ExecutionResult:
    """What the harness produced for a scenario.

    ``user_content`` is the content of the user message that follows the assistant turn, as it
    will go on the wire (tool_result blocks and any extra blocks such as hook context).
    ``decisions`` maps tool_use ids to the recorded permission decision, when the harness records
    them: ``{"behavior": ..., "stage": ..., "source": ..., "rule": ...}``.
    ``rejection`` is the API's 400 text when the request carrying ``user_content`` is one the API
    rejects (a harness checked through a scripted endpoint): the model never sees those results, and
    the suite grades the batch with that text rather than as if it had been sent.
    """

    user_content: list[dict[str, Any]]
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    rejection: str | None = None


@dataclass(slots=True)
class LoopScenario:
    """A session of the harness's agent loop against a scripted model (``agent_loop``).

    The harness runs its own loop: for each of ``prompts`` in turn it submits the prompt and loops
    until the model stops, asking the scripted model, which answers with ``turns`` in order (each a
    list of Messages API content blocks: ``text``, ``thinking`` (with its ``signature``) and ``tool_use``;
    a turn with a tool_use ends with
    stop reason ``tool_use``, else ``end_turn``; past the script the model answers ``"Done."``).
    ``compact_after`` compacts the conversation after that prompt (0-based), as a user's ``/compact``
    does, with the summary ``"scripted summary"``. After the last prompt the session ends (SessionEnd).

    ``hook_log``: every hook the adapter installs appends the JSON input it got to this file, one
    object per line, in the order the hooks ran (the suite reads payloads from it: HOOK-6).
    """

    prompts: Sequence[str]
    turns: Sequence[Sequence[Mapping[str, Any]]]
    tools: Sequence[ToolSpec]
    recorder: CallRecorder
    cwd: Path
    session_dir: Path
    hook_log: Path
    rules: Sequence[RuleSpec] = ()
    mode: str = "default"
    hooks: Sequence[HookSpec] = ()
    host: HostSpec | None = None
    max_turns: int = 8
    compact_after: int | None = None


@dataclass(slots=True)
class LoopPromptResult:
    """How the loop ended for one prompt, and what the harness showed the user (never the model).

    ``stop_reason``: ``end_turn`` (the model stopped), ``hook_stopped`` (a hook's ``continue: false``),
    ``prompt_blocked`` (a UserPromptSubmit hook blocked it), ``max_turns``. ``user_messages``: every
    text the harness showed its user for this prompt (hooks' ``systemMessage``, a ``stopReason``, a
    blocked prompt's reason), in order.
    """

    stop_reason: str
    user_messages: list[str] = field(default_factory=list)


@dataclass(slots=True)
class LoopRun:
    """What a :class:`LoopScenario` did: the requests the model got and each prompt's ending.

    ``requests`` are the Messages API request bodies the harness sent (``messages``, ``tools``, ...),
    in order, excluding side requests without tools (summaries). ``ended`` lists what the harness
    showed the user when the session ended.
    """

    requests: list[dict[str, Any]]
    prompts: list[LoopPromptResult]
    ended: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class WireRequest:
    """A Messages API request as it goes on the wire: the JSON body and the headers.

    ``rejection`` is the API's 400 text when the request is one the API rejects (a harness checked
    through a scripted endpoint), so a check reading it sees it was never answered.
    """

    body: Mapping[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)
    rejection: str | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """A deferred-tools change notice: names announced as added and as removed."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
