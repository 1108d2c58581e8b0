"""Drawn wire scenarios: rules x commands x modes x batch shapes as plain data, and what they must do.

A :class:`DrawnScenario` is what a Hypothesis strategy draws for a black-box run (the strategy is
the suite's, ``conformance/_strategies_wire.py``, on the composing shell grammar): the permission
rules (each in a settings source, written in Claude Code's rule syntax with the target's tool
names, so every target profile translates them with the mechanism it already uses for the fixed
scenarios), a permission mode, and turns of parallel calls (:class:`DrawnCall`): shell commands that
run ``touch <marker>`` however the grammar spells them, a control (``mkdir``), MCP tools that work,
fail, report an error, answer slowly, answer empty or with an image and text, and names no tool has.

It is plain data with a JSON form (:meth:`DrawnScenario.to_json`, :meth:`DrawnScenario.from_json`):
a failing scenario is written to the replay file and run first next time, CI's profile included
(which has no example database). :meth:`DrawnScenario.must_not_run` is the rules' verdict on each
shell call (the requirement's, not any harness's): which calls no compliant harness runs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from pytest_toolharness.specs import ToolBehavior, ToolSpec
from pytest_toolharness.wire.model_api import AssistantTurn, StreamFault, TextBlock, ToolUseBlock, tool_use_id
from pytest_toolharness.wire.scenarios._core import CLAUDE_CODE_NAMES, Step, ToolNames, WireScenario, mcp_spec

if TYPE_CHECKING:
    from pytest_toolharness.wire.model_api import RecordedRequest

__all__ = [
    "CALL_KINDS",
    "DRAWN_FAULTS",
    "DRAWN_MCP_KINDS",
    "DRAWN_MODES",
    "DRAWN_SOURCES",
    "INTERRUPTED_TOOL",
    "INTERRUPTS",
    "MCP_TIMEOUT_MS",
    "SHELL_SLEEP_SECONDS",
    "SHELL_TIMEOUT_MS",
    "SUITE_MCP_TIMEOUT_ENV",
    "TIMED_OUT_KINDS",
    "DrawnCall",
    "DrawnFaults",
    "DrawnRule",
    "DrawnScenario",
    "drawn_call_id",
]

#: The permission modes a drawn scenario may set (None: the harness's default).
DRAWN_MODES: tuple[str, ...] = ("default", "acceptEdits", "bypassPermissions", "dontAsk", "plan")
#: Where a drawn rule may be written: ``flagSettings`` is ``--settings``; the others need ``settings_files``.
DRAWN_SOURCES: tuple[str, ...] = ("flagSettings", "userSettings", "projectSettings", "localSettings")

#: Each MCP tool a drawn batch may call → how the suite's server answers it.
DRAWN_MCP_KINDS: Mapping[str, ToolBehavior] = {
    "d_ok": ToolBehavior("text", text="d_ok-ran"),
    "d_raise": ToolBehavior("raise", message="d_raise failed"),
    "d_error": ToolBehavior("error_result", message="d_error reported a failure"),
    "d_slow": ToolBehavior("sleep", seconds=2.0, text="d_slow-ran"),
    "d_empty": ToolBehavior("empty"),
    "d_image": ToolBehavior("image"),
    # Outlives the MCP tool timeout the scenario sets (MCP_TIMEOUT_MS) where the target has one.
    "d_hang": ToolBehavior("sleep", seconds=8.0, text="d_hang-ran"),
}
#: Every call kind: a shell command, the control, an MCP tool of :data:`DRAWN_MCP_KINDS`, an unknown
#: name, and a shell command that sleeps past the timeout the call itself sets (``shell_timeout``).
CALL_KINDS: tuple[str, ...] = ("shell", "control", *DRAWN_MCP_KINDS, "unknown", "shell_timeout")
#: The kinds that time out: their result must be an error saying so (PAIR-3).
TIMED_OUT_KINDS: tuple[str, ...] = ("shell_timeout", "d_hang")
_FAILING = ("d_raise", "d_error", "unknown", *TIMED_OUT_KINDS)
#: The timeout a ``shell_timeout`` call sets (milliseconds) and how long its command sleeps first (seconds).
SHELL_TIMEOUT_MS = 1000
SHELL_SLEEP_SECONDS = 4
#: The MCP tool-call timeout a scenario with a ``d_hang`` call sets (milliseconds): above ``d_slow``'s 2 s.
MCP_TIMEOUT_MS = 3000
#: How a drawn batch may be interrupted: the user's Ctrl-C (SIGINT to the CLI while
#: :data:`INTERRUPTED_TOOL` runs), or the model's stream breaking mid-turn, once (the Messages API's
#: stream ends after some blocks without ``message_stop``, or with an ``error`` event): a retry is
#: answered whole.
INTERRUPTS: tuple[str, ...] = ("sigint", "stream_cut", "stream_error")
#: The variable (of the scenario's environment) in which a target profile that writes its CLI's MCP
#: config finds the MCP tool-call timeout to write (milliseconds); unset: the profile's own default.
SUITE_MCP_TIMEOUT_ENV = "TOOLHARNESS_MCP_TOOL_TIMEOUT_MS"
#: The MCP tool during whose call a drawn interrupt sends SIGINT.
INTERRUPTED_TOOL = "d_slow"


@dataclass(frozen=True, slots=True)
class DrawnFaults:
    """The timeouts and interrupts a target's own protocol can express, as data (:data:`DRAWN_FAULTS`).

    ``shell_timeout`` is the shell tool's input key for its own timeout in milliseconds (Claude
    Code's Bash ``timeout``); ``mcp_timeout_env`` the environment variable that sets the MCP
    tool-call timeout in milliseconds; ``interrupts`` how a batch may be interrupted
    (:data:`INTERRUPTS`: SIGINT reaches any process, a broken stream only a target of the Messages
    API). None or empty: not drawn for the target, ``why`` says why.
    """

    shell_timeout: str | None = None
    mcp_timeout_env: str | None = None
    interrupts: tuple[str, ...] = ("sigint",)
    why: str = ""


#: Per target (its name): what :class:`DrawnFaults` it can express. A target not listed (a command
#: template) gets the default: SIGINT only, which every process can receive.
DRAWN_FAULTS: Mapping[str, DrawnFaults] = {
    "reference": DrawnFaults(
        shell_timeout="timeout", interrupts=INTERRUPTS, why="its MCP client has no tool-call timeout setting"
    ),
    "claude-code": DrawnFaults(
        shell_timeout="timeout", mcp_timeout_env="MCP_TOOL_TIMEOUT", interrupts=INTERRUPTS
    ),
    "opencode": DrawnFaults(
        why="its MCP timeout is the profile's config constant (mcp.<name>.timeout), not per scenario yet; "
        "its bash tool's timeout parameter is not confirmed from its docs"
    ),
    "cline": DrawnFaults(
        why="execute_command takes no timeout; its MCP timeout (mcpServers.<name>.timeout, seconds) is the "
        "profile's config constant, not per scenario yet"
    ),
    "gemini": DrawnFaults(
        mcp_timeout_env=SUITE_MCP_TIMEOUT_ENV,
        why="run_shell_command takes no timeout; its API's stream is not broken yet",
    ),
    "codex": DrawnFaults(
        why="its MCP timeout (tool_timeout_sec) is the profile's config constant, not per scenario yet"
    ),
}
_PREFIX = "01Drw"
_PROMPT = "Use the tools as the conversation asks."


def drawn_call_id(turn: int, index: int) -> str:
    """The tool_use id of the ``index``-th call of turn ``turn`` (deterministic: the evidence cites it)."""
    return tool_use_id(turn * 100 + index + 1, _PREFIX)


@dataclass(frozen=True, slots=True)
class DrawnRule:
    """``action`` (allow, ask, deny) on ``rule`` in settings ``source``.

    ``rule`` is Claude Code's syntax with ``{shell}`` for the target's shell tool (``{shell}(touch:*)``)
    and ``{mcp}`` for every MCP tool of the scenario (one rule each).
    """

    source: str
    action: str
    rule: str


@dataclass(frozen=True, slots=True)
class DrawnCall:
    """One call of a drawn batch: ``kind`` (:data:`CALL_KINDS`); a shell call's ``command`` creates ``marker``.

    ``mechanism`` is how a shell line hides its command (the grammar's outermost carrier family,
    ``plain`` for none): a failure is told apart, and shrunk, by the mechanism that got through.
    ``carried`` is the part of ``command`` that runs it, without a harmless command and joiner
    before it ("": the whole command): what the bash oracle runs to prove the line can run it.
    """

    kind: str
    command: str = ""
    marker: str = ""
    mechanism: str = ""
    carried: str = ""

    def __post_init__(self) -> None:
        if self.kind not in CALL_KINDS:
            raise ValueError(f"drawn call kind {self.kind!r} is not one of {CALL_KINDS}")
        if self.kind in ("shell", "control", "shell_timeout") and not (self.command and self.marker):
            raise ValueError(f"a drawn {self.kind} call needs a command and the marker it creates")

    @property
    def fails(self) -> bool:
        """Whether the call's result must be an error whatever the rules say (a tool failure, an unknown name)."""
        return self.kind in _FAILING


def _call_fields(call: DrawnCall) -> list[str]:
    # ``carried`` only when it says something: the replay lines written before it still read alike.
    fields = [call.kind, call.command, call.marker, call.mechanism]
    return [*fields, call.carried] if call.carried and call.carried != call.command else fields


@dataclass(frozen=True, slots=True)
class DrawnScenario:
    """A drawn black-box run: ``rules``, a ``mode`` (None: unset), ``turns`` of parallel calls.

    ``interrupt`` (:data:`INTERRUPTS`, None: none): ``sigint`` while the harness runs the first
    :data:`INTERRUPTED_TOOL` call; ``stream_cut``/``stream_error``: the first stream of turn
    ``interrupt_turn`` breaks after ``interrupt_after`` content blocks (the turn's text is the first).
    """

    rules: tuple[DrawnRule, ...]
    mode: str | None
    turns: tuple[tuple[DrawnCall, ...], ...]
    interrupt: str | None = None
    interrupt_turn: int = 0
    interrupt_after: int = 0

    def __post_init__(self) -> None:
        if self.mode is not None and self.mode not in DRAWN_MODES:
            raise ValueError(f"drawn mode {self.mode!r} is not one of {DRAWN_MODES}")
        for rule in self.rules:
            if rule.source not in DRAWN_SOURCES or rule.action not in ("allow", "ask", "deny"):
                raise ValueError(f"drawn rule {rule} needs a source of {DRAWN_SOURCES} and allow/ask/deny")
        if not self.turns or not all(self.turns):
            raise ValueError("a drawn scenario needs at least one turn, each with at least one call")
        if self.interrupt is not None and self.interrupt not in INTERRUPTS:
            raise ValueError(f"drawn interrupt {self.interrupt!r} is not one of {INTERRUPTS}")
        if self.interrupt == "sigint" and self.interrupted_turn() is None:
            raise ValueError(f"an interrupted drawn scenario needs a {INTERRUPTED_TOOL} call to interrupt")
        if self.interrupt not in (None, "sigint") and not (
            0 <= self.interrupt_turn < len(self.turns)
            and 0 <= self.interrupt_after <= len(self.turns[self.interrupt_turn])
        ):
            raise ValueError(
                f"a drawn stream interrupt breaks turn {self.interrupt_turn} after {self.interrupt_after} blocks: "
                "no such turn, or more blocks than the turn has"
            )

    # -- identity and the replay file ------------------------------------------------------------

    def to_json(self) -> str:
        """Deterministic JSON (sorted keys, no spaces): a line of the replay file, the verdict cache's key."""
        data: dict[str, Any] = {
            "mode": self.mode,
            "rules": [[r.source, r.action, r.rule] for r in self.rules],
            "turns": [[_call_fields(c) for c in turn] for turn in self.turns],
        }
        if self.interrupt is not None:  # absent when none: the replay lines written before still read alike
            data["interrupt"] = [self.interrupt, self.interrupt_turn, self.interrupt_after]
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)

    @classmethod
    def from_json(cls, text: str) -> DrawnScenario:
        """The scenario :meth:`to_json` wrote; a ValueError naming what is wrong otherwise."""
        try:
            data = json.loads(text)
            return cls(
                rules=tuple(DrawnRule(*map(str, r)) for r in data["rules"]),
                mode=data["mode"],
                turns=tuple(tuple(DrawnCall(*map(str, c)) for c in turn) for turn in data["turns"]),
                **_interrupt(data.get("interrupt")),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"not a drawn wire scenario ({exc}): {text[:200]!r}") from None

    # -- the rules' verdict ------------------------------------------------------------------------

    def _rules(self, action: str, prefix: str) -> list[DrawnRule]:
        return [r for r in self.rules if r.action == action and r.rule.startswith(prefix)]

    def catches_touch(self) -> str | None:
        """Why every shell call of the scenario must not run, or None when the rules let touch through.

        A deny rule naming touch holds in every mode (PERM-1) however the command is spelled
        (PERM-17); so does an ask rule, since a headless run has nobody to ask (PERM-8), except in
        bypassPermissions, where only Claude Code's profile promises that (PERM-5).
        """
        deny = self._rules("deny", "{shell}(touch")
        if deny:
            return f"deny {deny[0].rule} in {deny[0].source}"
        ask = self._rules("ask", "{shell}(touch")
        if ask and self.mode != "bypassPermissions":
            return f"ask {ask[0].rule} in {ask[0].source}, and a headless run has nobody to ask"
        return None

    def control_allowed(self) -> bool:
        """Whether the rules and mode let the control (``mkdir``) run, so the shell tool is shown to work."""
        if self.mode == "plan":
            return False
        allowed = any(r.rule in ("{shell}", "{shell}(mkdir:*)") for r in self.rules if r.action == "allow")
        return allowed or self.mode == "bypassPermissions"

    def calls(self) -> list[tuple[str, DrawnCall]]:
        """Every call with its tool_use id, in the order the model makes them."""
        return [
            (drawn_call_id(t, i), call) for t, turn in enumerate(self.turns) for i, call in enumerate(turn)
        ]

    def interrupted_turn(self) -> int | None:
        """The turn the interrupt falls in: the stream's, or the first :data:`INTERRUPTED_TOOL` call's for SIGINT."""
        if self.interrupt is None:
            return None
        if self.interrupt != "sigint":
            return self.interrupt_turn
        return next(
            (t for t, turn in enumerate(self.turns) if any(c.kind == INTERRUPTED_TOOL for c in turn)), None
        )

    def timed_out_ids(self) -> list[str]:
        """The ids of the calls that outlive their timeout (:data:`TIMED_OUT_KINDS`)."""
        return [i for i, call in self.calls() if call.kind in TIMED_OUT_KINDS]

    def failing_ids(self) -> list[str]:
        """The ids of the calls whose result must be an error whatever the rules say."""
        return [i for i, call in self.calls() if call.fails]

    def shell_calls(self) -> list[tuple[str, DrawnCall]]:
        """The shell calls (not the control, not the timed-out ones) with their ids."""
        return [(i, call) for i, call in self.calls() if call.kind == "shell"]

    def describe(self) -> str:
        """A few lines a person reads: the rules, the mode, each turn's calls."""
        lines = [f"mode: {self.mode or '(unset)'}"]
        if self.interrupt == "sigint":
            lines.append(f"interrupt: SIGINT while the first {INTERRUPTED_TOOL} call runs")
        elif self.interrupt is not None:
            lines.append(
                f"interrupt: {self.interrupt}: turn {self.interrupt_turn + 1}'s first stream breaks after "
                f"{self.interrupt_after} block(s)"
            )
        lines += [f"{r.action} {r.rule} ({r.source})" for r in self.rules]
        for t, turn in enumerate(self.turns):
            shown = [f"{c.kind}: {c.command!r}" if c.command else c.kind for c in turn]
            lines.append(f"turn {t + 1}: " + " | ".join(shown))
        return "\n".join(lines)

    # -- the wire scenario --------------------------------------------------------------------------

    def mcp_tools(self, names: ToolNames = CLAUDE_CODE_NAMES) -> tuple[ToolSpec, ...]:
        """The MCP tools the calls name (every kind, so the rules' ``{mcp}`` and the batches agree)."""
        return tuple(
            mcp_spec(kind, f"Tool {kind}.", behavior, names=names)
            for kind, behavior in DRAWN_MCP_KINDS.items()
        )

    def settings_by_source(self, names: ToolNames = CLAUDE_CODE_NAMES) -> dict[str, dict[str, list[str]]]:
        """Source → action → rule texts in the target's names (``{mcp}`` expanded to each MCP tool)."""
        shell = names.builtin("shell")
        by_source: dict[str, dict[str, list[str]]] = {}
        for rule in self.rules:
            texts = (
                [spec.name for spec in self.mcp_tools(names)]
                if rule.rule == "{mcp}"
                else [rule.rule.replace("{shell}", shell)]
            )
            listed = by_source.setdefault(rule.source, {}).setdefault(rule.action, [])
            listed += [t for t in texts if t not in listed]
        return by_source

    def scenario(
        self, names: ToolNames = CLAUDE_CODE_NAMES, name: str = "drawn", faults: DrawnFaults | None = None
    ) -> WireScenario:
        """The :class:`WireScenario`: one assistant turn per drawn turn, the rules in their sources.

        ``faults`` says how the target expresses the drawn timeouts (a ValueError when it can't).
        """
        faults = faults or DrawnFaults()
        specs = {str(spec.mcp_tool): spec for spec in self.mcp_tools(names)}
        kinds = {call.kind for _, call in self.calls()}
        env = {"ENABLE_TOOL_SEARCH": "false"}
        if "d_hang" in kinds:
            if faults.mcp_timeout_env is None:
                raise ValueError(f"a d_hang call needs an MCP tool timeout the target can set: {faults.why}")
            env[faults.mcp_timeout_env] = str(MCP_TIMEOUT_MS)
        if "shell_timeout" in kinds and faults.shell_timeout is None:
            raise ValueError(f"a shell_timeout call needs a shell tool that takes a timeout: {faults.why}")
        turns: list[Step] = []
        for t, turn in enumerate(self.turns):
            blocks: list[TextBlock | ToolUseBlock] = [TextBlock(f"Step {t + 1}.")]
            for i, call in enumerate(turn):
                tool, tool_input = _tool_and_input(call, names, specs)
                if call.kind == "shell_timeout":
                    tool_input[str(faults.shell_timeout)] = SHELL_TIMEOUT_MS
                blocks.append(ToolUseBlock(drawn_call_id(t, i), tool, tool_input))
            whole = AssistantTurn(tuple(blocks))
            if self.interrupt not in (None, "sigint") and t == self.interrupt_turn:
                kind: Literal["cut", "error"] = "cut" if self.interrupt == "stream_cut" else "error"
                turns.append(_broken_once(whole, StreamFault(kind, self.interrupt_after)))
            else:
                turns.append(whole)
        by_source = self.settings_by_source(names)
        flag: dict[str, Any] = dict(by_source.pop("flagSettings", {}))
        if self.mode is not None:
            flag["defaultMode"] = self.mode
        roles = {"mcp", "shell_tool"}
        if self.rules:
            roles.add("permission_rules")
        if self.mode is not None:
            roles.add("permission_modes")
        if by_source:
            roles.add("settings_files")
        return WireScenario(
            name=name,
            prompt=_PROMPT,
            steps=tuple(turns),
            mcp_tools=tuple(specs.values()),
            settings={"permissions": flag},
            setting_files={source: {"permissions": rules} for source, rules in by_source.items()},
            env=env,
            roles=frozenset(roles),
            interrupt_on=INTERRUPTED_TOOL if self.interrupt == "sigint" else None,
        )


def _interrupt(value: object) -> dict[str, Any]:
    """The interrupt fields of a JSON line: absent, or ``[how, turn, after]``."""
    if value is None:
        return {}
    if not (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[1], int)
        and isinstance(value[2], int)
    ):
        raise ValueError(f"interrupt {value!r} is not [how, turn, blocks]")
    return {"interrupt": str(value[0]), "interrupt_turn": value[1], "interrupt_after": value[2]}


def _broken_once(turn: AssistantTurn, fault: StreamFault) -> Step:
    """``turn`` whose first stream breaks by ``fault``; every later request for it gets it whole (a retry)."""
    answered = threading.Lock()

    def step(request: RecordedRequest) -> AssistantTurn:
        del request
        return replace(turn, fault=fault) if answered.acquire(blocking=False) else turn

    return step


def _tool_and_input(
    call: DrawnCall, names: ToolNames, specs: Mapping[str, ToolSpec]
) -> tuple[str, dict[str, Any]]:
    if call.kind in ("shell", "control", "shell_timeout"):
        return names.builtin("shell"), {"command": call.command, "description": f"a {call.kind} command"}
    if call.kind == "unknown":
        return names.mcp("no_such_drawn_tool"), {}
    return specs[call.kind].name, {}
