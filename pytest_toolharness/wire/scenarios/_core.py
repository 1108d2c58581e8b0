"""The wire scenario and its vocabulary: what the scripted model does, which tools are served, which settings apply.

A :class:`WireScenario` is run against a harness from outside (see
:mod:`pytest_toolharness.wire.targets._wire_adapter`): the scripted Messages API answers its main-loop requests
with the scenario's :attr:`~WireScenario.steps`, the suite's MCP tool server serves its
:attr:`~WireScenario.mcp_tools`, and the harness reads :attr:`~WireScenario.settings` (permission
rules, hooks) from a settings file.

The script is reactive and stateless: the step answered is the number of assistant messages in the
request (so a retried request gets the same answer), a step may be a function of the request (call
a tool only once the harness loaded it), requests without tools are side requests (titles,
summaries) answered with a short text, and after the last step the model says it is done.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, TypeAlias

from pytest_toolharness.processes import HOOK_PYTHON
from pytest_toolharness.specs import SETTINGS_FILES, ToolBehavior, ToolSpec
from pytest_toolharness.wire.model_api import AssistantTurn, ToolUseBlock

if TYPE_CHECKING:
    from pytest_toolharness.wire.model_api import RecordedRequest

__all__ = [
    "CLAUDE_CODE_NAMES",
    "FINAL_TEXT",
    "GIVE_UP_TEXT",
    "HOOK_LOG_NAME",
    "INTERRUPT_DELAY",
    "MCP_SEARCH_ID",
    "SERVER_NAME",
    "SIDE_TEXT",
    "Step",
    "ToolNames",
    "WireScenario",
    "logged_hook_command",
    "logged_hook_program",
    "mcp_name",
    "mcp_spec",
]

#: The name of the suite's MCP server in the harness's MCP config: tools are ``mcp__suite__<tool>``.
SERVER_NAME = "suite"
#: The ids of the model's searches for MCP tools a CLI hides behind its search (a number follows).
MCP_SEARCH_ID = "toolu_01McpSearch"
#: How many times the model searches for them before it goes on without them, and how long it waits
#: before searching again (seconds): 40 tries cover an MCP server that takes 20 s to list its tools.
MCP_SEARCH_TRIES = 40
MCP_SEARCH_WAIT = 0.5
#: How long a call of :attr:`WireScenario.interrupt_on` has been running when the harness gets SIGINT.
INTERRUPT_DELAY = 0.5
#: The model's last turn once the scenario's steps are done.
FINAL_TEXT = "All done."
#: The answer to a side request (one without tools: a title, a summary, a quota check).
SIDE_TEXT = "ok"
#: What the model says when the harness did not do what a reactive step needs.
GIVE_UP_TEXT = "Giving up: the harness did not offer the tool this scenario needs."

Step: TypeAlias = "AssistantTurn | Callable[[RecordedRequest], AssistantTurn]"


@dataclass(frozen=True, slots=True)
class ToolNames:
    """A CLI's names for the roles a scenario uses; None for a role it has no tool for.

    ``mcp_format`` builds an MCP tool's name from ``{server}`` and ``{tool}``. The built-in
    scenarios take one (default: Claude Code's, :data:`CLAUDE_CODE_NAMES`), so the scripted model
    calls each CLI's tools by that CLI's names. ``shell_key`` is the shell tool's input key for the
    command (scenarios write ``command``; :meth:`WireScenario.for_target` renames it).
    ``mcp_search`` names the search tool a CLI always hides its MCP tools behind (Codex's
    client-side ``tool_search``): the scripted model then searches for the scenario's MCP tools
    first, as a real model must, before it calls them. ``shell_hook_name`` is the shell tool's name
    in hook input when the CLI gives hooks another name than its model (Codex: ``Bash``).
    """

    read: str | None = "Read"
    shell: str | None = "Bash"
    tool_search: str | None = "ToolSearch"
    mcp_format: str = "mcp__{server}__{tool}"
    write: str | None = "Write"
    shell_key: str = "command"
    mcp_search: str | None = None
    shell_hook_name: str | None = None

    def hook_name(self, tool: str) -> str:
        """The tool's name in a hook's input: ``shell_hook_name`` for the shell tool (Codex: ``Bash``), else ``tool``."""
        return self.shell_hook_name if tool == self.shell and self.shell_hook_name else tool

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
    judged per call (:data:`~pytest_toolharness.wire.checks._evidence.PAIRING_ROLES`).

    ``files`` are written into the working directory before the run (path relative to it, text);
    ``links`` are symbolic links (path → what it points to, as written); ``home/...`` is the
    target's ``HOME``. ``setting_files`` are settings the target must find by itself, by source
    (``userSettings``, ``projectSettings``, ``localSettings``), written where Claude Code reads them
    (:data:`~pytest_toolharness.specs._vocabulary.SETTINGS_FILES`); ``settings`` is the one it is given.
    ``plugin_dirs`` are Claude Code plugin folders among ``files`` the target loads
    (``claude --plugin-dir``). ``mcp_search`` is the search tool the model must call to find the MCP
    tools first (set by :meth:`for_target` for a CLI that hides them behind one).
    ``interrupt_on`` names an MCP tool of the scenario (its ``mcp_tool``): once the suite's server
    has been running a call of it for :data:`INTERRUPT_DELAY` seconds, the harness gets SIGINT, as
    a user's Ctrl-C mid-batch.
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
    mcp_search: str | None = None
    interrupt_on: str | None = None

    def __post_init__(self) -> None:
        if not self.name or not self.prompt:
            raise ValueError("a WireScenario needs a name and a non-empty prompt")
        if self.interrupt_on is not None and self.interrupt_on not in {s.mcp_tool for s in self.mcp_tools}:
            raise ValueError(
                f"WireScenario {self.name!r}: interrupt_on {self.interrupt_on!r} is not one of its MCP tools"
            )
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

    def for_target(self, names: ToolNames) -> WireScenario:
        """The scenario as a target named by ``names`` needs it (itself when nothing differs).

        Each shell call's ``command`` is sent under ``names.shell_key``; with ``names.mcp_search``
        the model first searches for the scenario's MCP tools (:meth:`answer`).
        """
        renamed = names.shell is not None and names.shell_key != "command"
        search = names.mcp_search if self.mcp_tools else None
        if not renamed and search is None:
            return self
        steps = tuple(_shell_key_step(step, names) for step in self.steps) if renamed else self.steps
        return replace(self, steps=steps, mcp_search=search)

    def _search_turn(self, request: RecordedRequest, tool: str, searches: int) -> AssistantTurn | None:
        """Another search for the MCP tools, or None once one found them (or the searches ran out).

        The query is every MCP tool's name, asking for as many results as there are tools. A CLI
        that starts its MCP servers beside the first request finds nothing until they have listed
        their tools: the model waits a moment and searches again, as a real model would.
        """
        if searches:
            last = request.messages[-1] if request.messages else {}
            content = last.get("content") if isinstance(last, Mapping) else None
            blocks = content if isinstance(content, list) else []
            found = [
                b
                for b in blocks
                if isinstance(b, Mapping)
                and b.get("type") == "tool_result"
                and b.get("content") not in ("[]", "", None)
            ]
            if found or searches >= MCP_SEARCH_TRIES:
                return None
            time.sleep(MCP_SEARCH_WAIT)
        query = " ".join(spec.mcp_tool or spec.name for spec in self.mcp_tools)
        call_id = f"{MCP_SEARCH_ID}{searches:03d}"
        return AssistantTurn((ToolUseBlock(call_id, tool, {"query": query, "limit": len(self.mcp_tools)}),))

    def answer(self, request: RecordedRequest) -> AssistantTurn:
        """The scripted model's answer to ``request`` (the server's script callable).

        The step is the number of assistant messages in the request, the model's searches for the
        MCP tools (:meth:`_search_turn`) not counted.
        """
        if not request.tools:
            return AssistantTurn.text(SIDE_TEXT)
        turns = [m for m in request.messages if isinstance(m, Mapping) and m.get("role") == "assistant"]
        searches = sum(1 for m in turns if _is_search(m))
        step = len(turns) - searches
        if step == 0 and self.mcp_search is not None:
            search = self._search_turn(request, self.mcp_search, searches)
            if search is not None:
                return search
        if step >= len(self.steps):
            return AssistantTurn.text(FINAL_TEXT)
        item = self.steps[step]
        if isinstance(item, AssistantTurn):
            return item
        return item(request)


def _is_search(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    blocks = [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
    return bool(blocks) and all(str(b.get("id", "")).startswith(MCP_SEARCH_ID) for b in blocks)


def _shell_key_turn(turn: AssistantTurn, names: ToolNames) -> AssistantTurn:
    blocks = [
        replace(b, input={(names.shell_key if k == "command" else k): v for k, v in b.input.items()})
        if isinstance(b, ToolUseBlock) and b.name == names.shell
        else b
        for b in turn.blocks
    ]
    return replace(turn, blocks=tuple(blocks))


def _shell_key_step(step: Step, names: ToolNames) -> Step:
    if isinstance(step, AssistantTurn):
        return _shell_key_turn(step, names)
    return lambda request: _shell_key_turn(step(request), names)


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
