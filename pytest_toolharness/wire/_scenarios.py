"""Wire scenarios: what the scripted model does, which tools the suite serves, which settings apply.

A :class:`WireScenario` is run against a harness from outside (see
:mod:`pytest_toolharness.wire._adapter`): the scripted Messages API answers its main-loop requests
with the scenario's :attr:`~WireScenario.steps`, the suite's MCP tool server serves its
:attr:`~WireScenario.mcp_tools`, and the harness reads :attr:`~WireScenario.settings` (permission
rules, hooks) from a settings file.

The script is reactive and stateless: the step answered is the number of assistant messages in the
request (so a retried request gets the same answer), a step may be a function of the request (call
a tool only once the harness loaded it), requests without tools are side requests (titles,
summaries) answered with a short text, and after the last step the model says it is done.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, TypeAlias

from pytest_toolharness._vocabulary import SETTINGS_FILES
from pytest_toolharness.adapters._hook_programs import HOOK_PYTHON
from pytest_toolharness.adapters._specs import ToolBehavior, ToolSpec
from pytest_toolharness.wire._script import AssistantTurn, TextBlock, ToolUseBlock, tool_use_id

if TYPE_CHECKING:
    from pytest_toolharness.wire._api_server import RecordedRequest

__all__ = [
    "CLAUDE_CODE_NAMES",
    "CONCURRENT_SLOW_SECONDS",
    "DEFERRED_OUTPUT_CHARS",
    "FINAL_TEXT",
    "GIVE_UP_TEXT",
    "HOOK_LOG_NAME",
    "SCHEDULING_TOOLS",
    "SERVER_NAME",
    "SIDE_TEXT",
    "ConcurrentIds",
    "DeferIds",
    "PairingIds",
    "SchedulingIds",
    "Step",
    "ToolNames",
    "WireScenario",
    "concurrent_scenario",
    "deferred_scenario",
    "logged_hook_command",
    "logged_hook_program",
    "mcp_name",
    "mcp_spec",
    "pairing_scenario",
    "persisted_scenario",
    "scheduling_scenario",
]

#: The name of the suite's MCP server in the harness's MCP config: tools are ``mcp__suite__<tool>``.
SERVER_NAME = "suite"
#: The model's last turn once the scenario's steps are done.
FINAL_TEXT = "All done."
#: The answer to a side request (one without tools: a title, a summary, a quota check).
SIDE_TEXT = "ok"
#: What the model says when the harness did not do what a reactive step needs.
GIVE_UP_TEXT = "Giving up: the harness did not offer the tool this scenario needs."

Step: TypeAlias = "AssistantTurn | Callable[[RecordedRequest], AssistantTurn]"
_ID_PREFIX = "01Wire"


@dataclass(frozen=True, slots=True)
class ToolNames:
    """A CLI's names for the roles a scenario uses; None for a role it has no tool for.

    ``mcp_format`` builds an MCP tool's name from ``{server}`` and ``{tool}``. The built-in
    scenarios take one (default: Claude Code's, :data:`CLAUDE_CODE_NAMES`), so the scripted model
    calls each CLI's tools by that CLI's names.
    """

    read: str | None = "Read"
    shell: str | None = "Bash"
    tool_search: str | None = "ToolSearch"
    mcp_format: str = "mcp__{server}__{tool}"
    write: str | None = "Write"

    def builtin(self, role: str) -> str:
        """The CLI's name for built-in ``role`` (``read``, ``shell``, ``tool_search``, ``write``).

        A CLI without one gets an unmistakable stand-in, ``no_<role>_tool``: a call of it is a call
        of an unknown tool, never of another CLI's tool (Claude Code's ``Read`` sent to opencode).
        """
        if role not in ("read", "shell", "tool_search", "write"):
            raise ValueError(f"{role!r} is not a built-in role (read, shell, tool_search, write)")
        name: str | None = getattr(self, role)
        return name if name is not None else f"no_{role}_tool"

    def mcp(self, tool: str, server: str = SERVER_NAME) -> str:
        """The name the CLI gives tool ``tool`` of MCP server ``server``."""
        return self.mcp_format.format(server=server, tool=tool)


#: Claude Code's names, which the built-in scenarios use unless told otherwise.
CLAUDE_CODE_NAMES = ToolNames()


def mcp_name(tool: str) -> str:
    """The name Claude Code gives the suite server's tool ``tool``: ``mcp__suite__<tool>``."""
    return CLAUDE_CODE_NAMES.mcp(tool)


def mcp_spec(
    tool: str,
    description: str,
    behavior: ToolBehavior,
    *,
    names: ToolNames = CLAUDE_CODE_NAMES,
    **schema_props: Any,
) -> ToolSpec:
    """A tool of the suite's MCP server; ``schema_props`` are required properties and their schemas."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(schema_props)}
    if schema_props:
        schema["required"] = list(schema_props)
    return ToolSpec(
        name=names.mcp(tool),
        description=description,
        input_schema=schema,
        mcp_server=SERVER_NAME,
        mcp_tool=tool,
        behavior=behavior,
    )


@dataclass(frozen=True, slots=True)
class WireScenario:
    """One black-box run: prompt, scripted model steps, MCP tools, settings and environment.

    ``roles`` are the target-profile capabilities the scenario as a whole needs (a target without
    one of them can't run it: its requirements are "not checked"); a role only some calls need is
    judged per call (:data:`~pytest_toolharness.wire._evidence.PAIRING_ROLES`).

    ``files`` are written into the working directory before the run (path relative to it, text);
    ``links`` are symbolic links (path → what it points to, as written); ``home/...`` is the
    target's ``HOME``. ``setting_files`` are settings the target must find by itself, by source
    (``userSettings``, ``projectSettings``, ``localSettings``), written where Claude Code reads them
    (:data:`~pytest_toolharness._vocabulary.SETTINGS_FILES`); ``settings`` is the one it is given.
    ``plugin_dirs`` are Claude Code plugin folders among ``files`` the target loads
    (``claude --plugin-dir``).
    """

    name: str
    prompt: str
    steps: Sequence[Step]
    mcp_tools: Sequence[ToolSpec] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    roles: frozenset[str] = frozenset({"mcp"})
    files: Mapping[str, str] = field(default_factory=dict)
    links: Mapping[str, str] = field(default_factory=dict)
    setting_files: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    plugin_dirs: Sequence[str] = ()

    def __post_init__(self) -> None:
        if not self.name or not self.prompt:
            raise ValueError("a WireScenario needs a name and a non-empty prompt")
        for path in (*self.files, *self.links, *self.plugin_dirs):
            parts = PurePosixPath(path).parts
            if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
                raise ValueError(
                    f"WireScenario {self.name!r}: file {path!r} must be a relative path inside the working directory"
                )
        unknown = sorted(set(self.setting_files) - set(SETTINGS_FILES))
        if unknown:
            raise ValueError(
                f"WireScenario {self.name!r}: unknown settings source(s) {unknown}; "
                f"a target finds {sorted(SETTINGS_FILES)} by itself"
            )
        for index, step in enumerate(self.steps):
            if not (isinstance(step, AssistantTurn) or callable(step)):
                raise TypeError(
                    f"WireScenario {self.name!r} step {index} is a {type(step).__name__}, "
                    "not an AssistantTurn or a function of the request"
                )
        names = [spec.name for spec in self.mcp_tools]
        if len(set(names)) != len(names):
            raise ValueError(f"WireScenario {self.name!r} has duplicate MCP tool names: {names}")

    def answer(self, request: RecordedRequest) -> AssistantTurn:
        """The scripted model's answer to ``request`` (the server's script callable)."""
        if not request.tools:
            return AssistantTurn.text(SIDE_TEXT)
        step = sum(1 for m in request.messages if isinstance(m, Mapping) and m.get("role") == "assistant")
        if step >= len(self.steps):
            return AssistantTurn.text(FINAL_TEXT)
        item = self.steps[step]
        if isinstance(item, AssistantTurn):
            return item
        return item(request)


# -- the built-in scenarios ------------------------------------------------------------------


def _id(n: int) -> str:
    return tool_use_id(n, _ID_PREFIX)


class PairingIds:
    """The tool_use ids of :func:`pairing_scenario`, one per path."""

    OK = _id(1)
    UNKNOWN = _id(2)
    INVALID = _id(3)
    ERROR = _id(4)
    EMPTY = _id(5)
    DENIED = _id(6)
    HOOK_BLOCKED = _id(7)
    SECOND = _id(8)
    INVALID_MCP = _id(9)
    FIRST_TURN = (OK, UNKNOWN, INVALID, INVALID_MCP, ERROR, EMPTY, DENIED, HOOK_BLOCKED)
    # Schema validation of an MCP tool's input may be left to the MCP server (which here does not
    # validate and succeeds), so INVALID_MCP only has to be answered; INVALID (a built-in's own
    # schema, Read without file_path) must be an error.
    FAILURES = (UNKNOWN, INVALID, ERROR, DENIED, HOOK_BLOCKED)


class DeferIds:
    """The tool_use ids of :func:`deferred_scenario`."""

    SEARCH = _id(21)
    BIG = _id(22)


class PersistedIds:
    """The tool_use ids of :func:`persisted_scenario`."""

    BIG = _id(25)
    AFTER = _id(26)


class ConcurrentIds:
    """The tool_use ids of :func:`concurrent_scenario`, in the model's order."""

    SLOW = _id(31)
    FAST = _id(32)
    UNKNOWN = _id(33)
    ALL = (SLOW, FAST, UNKNOWN)


#: How long the concurrent scenario's slow tool sleeps, in seconds.
CONCURRENT_SLOW_SECONDS = 1.0

#: How many characters the deferred scenario's big tool returns (over the 50,000 default limit).
DEFERRED_OUTPUT_CHARS = 60_000

_TEXT_PROP = {"type": "string", "description": "Any text"}


#: The file, in the run's working directory, where the suite's command hooks log each input they read.
HOOK_LOG_NAME = "hooks.jsonl"

# The hook finds the log through TOOLHARNESS_WORKDIR (every target's environment has it), else the
# "cwd" of its input, else its own working directory; one whole line per call, appended.
_HOOK_PRELUDE = (
    "import json, os, sys\n"
    "raw = sys.stdin.read()\n"
    "try:\n    data = json.loads(raw)\nexcept ValueError:\n    data = {'unparsed': raw}\n"
    "folder = os.environ.get('TOOLHARNESS_WORKDIR') or (data.get('cwd') if isinstance(data, dict) else None) "
    "or os.getcwd()\n"
    "line = json.dumps({'hook': NAME, 'input': data}, sort_keys=True) + '\\n'\n"
    "fd = os.open(os.path.join(folder, LOG), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)\n"
    "os.write(fd, line.encode('utf-8'))\n"
    "os.close(fd)\n"
)


def logged_hook_program(name: str, *, exit_code: int = 0, stdout: str = "", stderr: str = "") -> str:
    """The Python program of :func:`logged_hook_command` (for a hook that runs a file, a plugin's)."""
    return (
        f"NAME = {name!r}\nLOG = {HOOK_LOG_NAME!r}\n{_HOOK_PRELUDE}"
        f"sys.stdout.write({stdout!r})\nsys.stderr.write({stderr!r})\nsys.exit({exit_code})\n"
    )


def logged_hook_command(name: str, *, exit_code: int = 0, stdout: str = "", stderr: str = "") -> str:
    """A command hook that logs its input to :data:`HOOK_LOG_NAME` as ``name``, then answers.

    It writes ``stdout`` and ``stderr`` and exits with ``exit_code`` (2 blocks, 0 with JSON on
    stdout decides), so a check can prove from the log that the hook really ran.
    """
    code = logged_hook_program(name, exit_code=exit_code, stdout=stdout, stderr=stderr)
    return f"{HOOK_PYTHON} -c {shlex.quote(code)}"


def _blocking_hook_command(reason: str) -> str:
    """A command hook that logs its input and blocks with exit status 2 and ``reason`` on stderr."""
    return logged_hook_command("block", exit_code=2, stderr=reason)


def pairing_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Every failure path in one turn, then a second turn: PAIR-1..6, CACHE-2/3/5 over the wire.

    Turn 1 calls, in this order: a tool that works, a tool nobody has, ``Read`` without its
    required ``file_path``, an MCP tool with input that fails its schema, a tool that fails, a tool with empty output, ``Bash`` against a deny rule, and
    a tool a PreToolUse command hook blocks. Turn 2 calls the working tool again. Tool search is off
    (``ENABLE_TOOL_SEARCH=false``) so every tool can be called at once.
    """
    echo = mcp_spec(
        "echo", "Echo text back.", ToolBehavior("text", text="echo-ok"), names=names, text=_TEXT_PROP
    )
    fail = mcp_spec(
        "fail", "A tool that fails.", ToolBehavior("raise", message="the suite's tool failed"), names=names
    )
    empty = mcp_spec("empty", "A tool with no output.", ToolBehavior("empty"), names=names)
    guarded = mcp_spec(
        "guarded", "A tool a hook blocks.", ToolBehavior("text", text="guarded-ran"), names=names
    )
    tools = (echo, fail, empty, guarded)
    first = AssistantTurn(
        (
            TextBlock("Trying every path."),
            ToolUseBlock(PairingIds.OK, echo.name, {"text": "hello"}),
            ToolUseBlock(PairingIds.UNKNOWN, names.mcp("no_such_tool"), {}),
            ToolUseBlock(PairingIds.INVALID, names.builtin("read"), {}),
            ToolUseBlock(PairingIds.INVALID_MCP, echo.name, {"text": 42}),
            ToolUseBlock(PairingIds.ERROR, fail.name, {}),
            ToolUseBlock(PairingIds.EMPTY, empty.name, {}),
            ToolUseBlock(PairingIds.DENIED, names.builtin("shell"), {"command": "echo denied-by-rule"}),
            ToolUseBlock(PairingIds.HOOK_BLOCKED, guarded.name, {}),
        )
    )
    second = AssistantTurn((ToolUseBlock(PairingIds.SECOND, echo.name, {"text": "again"}),))
    settings = {
        "permissions": {
            "allow": [spec.name for spec in tools],
            "deny": [f"{names.builtin('shell')}(echo denied-by-rule:*)"],
        },
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": guarded.name,
                    "hooks": [
                        {"type": "command", "command": _blocking_hook_command("blocked by the suite hook")}
                    ],
                }
            ]
        },
    }
    return WireScenario(
        name="pairing",
        prompt="Use the tools as the conversation asks.",
        steps=(first, second),
        mcp_tools=tools,
        settings=settings,
        env={"ENABLE_TOOL_SEARCH": "false"},
    )


def deferred_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Tool search on: load a deferred MCP tool with ``select:``, call it, get a persisted result.

    Turn 1 calls ``ToolSearch`` with ``select:mcp__suite__big``; turn 2 calls the tool once the
    harness sends it in ``tools`` (else the model gives up); the tool returns 60,000 characters.
    DEFER-2, DEFER-3, DEFER-6, DEFER-8, CACHE-2/3/5/6 and RESULT-1 over the wire.
    """
    big = mcp_spec(
        "big",
        "Returns a very large report.",
        ToolBehavior("text", chars=DEFERRED_OUTPUT_CHARS, fill="0123456789"),
        names=names,
    )
    weather = mcp_spec(
        "weather", "Get the weather forecast for a city.", ToolBehavior("text", text="sunny"), names=names
    )
    notes = mcp_spec("notes", "Search the user's notes.", ToolBehavior("text", text="no notes"), names=names)
    tools = (big, weather, notes)

    def call_when_loaded(request: RecordedRequest) -> AssistantTurn:
        if big.name not in request.tool_names:
            return AssistantTurn.text(GIVE_UP_TEXT)
        return AssistantTurn((ToolUseBlock(DeferIds.BIG, big.name, {}),))

    search = AssistantTurn(
        (
            ToolUseBlock(
                DeferIds.SEARCH,
                names.builtin("tool_search"),
                {"query": f"select:{big.name}", "max_results": 5},
            ),
        )
    )
    return WireScenario(
        name="deferred",
        prompt="Load the big report tool and run it.",
        steps=(search, call_when_loaded),
        mcp_tools=tools,
        settings={"permissions": {"allow": [spec.name for spec in tools]}},
        env={"ENABLE_TOOL_SEARCH": "true"},
        roles=frozenset({"mcp", "tool_search"}),
    )


def concurrent_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Two concurrency-safe calls that finish out of order, then an unknown tool: PAIR-5 over the wire.

    One turn calls, in this order: a read-only MCP tool that sleeps
    :data:`CONCURRENT_SLOW_SECONDS`, a read-only MCP tool that answers at once, and a tool nobody
    has. ``read_only`` puts ``readOnlyHint`` on both, so a harness may run them at the same time; a
    harness that answers in completion order then sends the fast result (and the unknown tool's
    error, found before anything runs) before the slow one. Serial calls can't show that, which is
    why the pairing scenario alone can't see a completion-order harness. Tool search is off and both
    tools are allowed, so nothing stands between the call and its run.
    """
    slow = dataclasses.replace(
        mcp_spec(
            "slow",
            "A slow read-only lookup.",
            ToolBehavior("sleep", seconds=CONCURRENT_SLOW_SECONDS, text="slow-done"),
            names=names,
        ),
        read_only=True,
    )
    fast = dataclasses.replace(
        mcp_spec("fast", "A fast read-only lookup.", ToolBehavior("text", text="fast-done"), names=names),
        read_only=True,
    )
    turn = AssistantTurn(
        (
            TextBlock("Looking things up in parallel."),
            ToolUseBlock(ConcurrentIds.SLOW, slow.name, {}),
            ToolUseBlock(ConcurrentIds.FAST, fast.name, {}),
            ToolUseBlock(ConcurrentIds.UNKNOWN, names.mcp("no_such_lookup"), {}),
        )
    )
    return WireScenario(
        name="concurrent",
        prompt="Look both things up.",
        steps=(turn,),
        mcp_tools=(slow, fast),
        settings={"permissions": {"allow": [slow.name, fast.name]}},
        env={"ENABLE_TOOL_SEARCH": "false"},
    )


class SchedulingIds:
    """The tool_use ids of :func:`scheduling_scenario`, in the model's order."""

    SLOW_SAFE = _id(41)
    FAST_SAFE = _id(42)
    PLAIN_A = _id(43)
    PLAIN_B = _id(44)
    SAFE_AFTER = _id(45)


#: The scheduling scenario's MCP tools: (tool, seconds it sleeps, declared read-only), in call order.
SCHEDULING_TOOLS: tuple[tuple[str, float, bool], ...] = (
    ("c_slow_safe", 1.0, True),
    ("c_fast_safe", 0.2, True),
    ("c_plain_a", 0.3, False),
    ("c_plain_b", 0.3, False),
    ("c_safe_after", 0.3, True),
)


def scheduling_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """Concurrency from the MCP server's call times: CONC-1, CONC-2, CONC-3 over the wire.

    One turn calls two read-only tools (slow, fast), two tools that declare nothing, and one more
    read-only tool. The adjacent read-only pair may (SHOULD) overlap; a tool declaring nothing is
    not concurrency safe, so neither undeclared call may overlap any other call. Each tool sleeps,
    so an overlap shows in the server's start and end times.
    """
    specs = [
        dataclasses.replace(
            mcp_spec(
                tool,
                f"Lookup {tool}.",
                ToolBehavior("sleep", seconds=seconds, text=f"{tool}-done"),
                names=names,
            ),
            read_only=read_only,
        )
        for tool, seconds, read_only in SCHEDULING_TOOLS
    ]
    ids = (
        SchedulingIds.SLOW_SAFE,
        SchedulingIds.FAST_SAFE,
        SchedulingIds.PLAIN_A,
        SchedulingIds.PLAIN_B,
        SchedulingIds.SAFE_AFTER,
    )
    turn = AssistantTurn(
        (
            TextBlock("Scheduling these."),
            *(ToolUseBlock(i, spec.name, {}) for i, spec in zip(ids, specs, strict=True)),
        )
    )
    return WireScenario(
        name="scheduling",
        prompt="Look these things up.",
        steps=(turn,),
        mcp_tools=tuple(specs),
        settings={"permissions": {"allow": [spec.name for spec in specs]}},
        env={"ENABLE_TOOL_SEARCH": "false"},
    )


def persisted_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """A result replaced for its size, then two more requests: RESULT-4 over the wire.

    Turn 1 calls an MCP tool returning :data:`DEFERRED_OUTPUT_CHARS` characters (over the 50,000
    default limit, so a harness replaces it); turn 2 calls a small tool; then the model is done. The
    replaced result must go out with the same bytes in both later requests. Tool search is off.
    """
    big = mcp_spec(
        "report",
        "Returns a very large report.",
        ToolBehavior("text", chars=DEFERRED_OUTPUT_CHARS, fill="9876543210"),
        names=names,
    )
    small = mcp_spec("small", "Returns a short answer.", ToolBehavior("text", text="small-ran"), names=names)
    return WireScenario(
        name="persisted",
        prompt="Get the report, then the short answer.",
        steps=(
            AssistantTurn((ToolUseBlock(PersistedIds.BIG, big.name, {}),)),
            AssistantTurn((ToolUseBlock(PersistedIds.AFTER, small.name, {}),)),
        ),
        mcp_tools=(big, small),
        settings={"permissions": {"allow": [big.name, small.name]}},
        env={"ENABLE_TOOL_SEARCH": "false"},
    )
