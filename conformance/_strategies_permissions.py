"""Shared helpers for the permission, rule-matching and hook conformance tests.

Harness-agnostic: tools, rules, hooks and hosts are the suite's plain-data specs, and everything is
observed from outside: which calls ran (the :class:`CallRecorder`), what the host was asked
(:class:`HostSpec`), and the ``tool_result`` blocks the harness returns.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import assume
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from pytest_toolharness.specs import (
    SETTING_SOURCES,
    CallRecorder,
    ExecutionResult,
    ExecutionScenario,
    HookSpec,
    HostAnswer,
    HostSpec,
    RuleSpec,
    SettingsSpec,
    ToolBehavior,
    ToolSpec,
    mcp_tool_name,
)
from pytest_toolharness.strategies import PERMISSION_MODES, BashSandbox, cached_strategy, written_paths

__all__ = [
    "BASH_CALL",
    "COMMAND",
    "MODES",
    "SOURCES",
    "TOOL_OUTPUT",
    "Run",
    "allow_rule_for",
    "assert_runs_unasked",
    "bash_runs",
    "covered_by_prefix",
    "descriptor_spellings",
    "edit_tool",
    "fetch_tool",
    "host_answering",
    "input_run_as_program_lines",
    "installed_on_path_lines",
    "mcp_tool_spec",
    "other_descriptor_lines",
    "other_descriptor_spellings",
    "plain_tool",
    "pre_hook",
    "read_tool",
    "run_calls",
    "run_line_in_bypass",
    "shell_tool",
    "sources",
    "tools",
    "written_then_run_lines",
]

MODES: tuple[str, ...] = PERMISSION_MODES
"""Claude Code's permission modes."""

SOURCES: tuple[str, ...] = SETTING_SOURCES
"""Every settings source a rule can come from."""

TOOL_OUTPUT = "scripted-output-7c1e"
"""What every tool built here returns, so a result can be recognised as the tool's own output."""

COMMAND = "git push origin main"
"""The command of :data:`BASH_CALL`."""

BASH_CALL = ("Bash", {"command": COMMAND})
"""One shell call (name, input), as :func:`run_calls` takes it."""


@cached_strategy
def sources() -> st.SearchStrategy[str]:
    """A settings source."""
    return st.sampled_from(SOURCES)


def _behavior() -> ToolBehavior:
    return ToolBehavior(kind="text", text=TOOL_OUTPUT)


def _string_schema(field_name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {field_name: {"type": "string"}},
        "required": [field_name],
    }


def shell_tool(name: str = "Bash", **flags: Any) -> ToolSpec:
    """A shell tool whose ``command`` is what ``Bash(...)`` rules match."""
    schema = _string_schema("command")
    return ToolSpec(
        name=name,
        description="Runs a shell command.",
        input_schema=schema,
        shell=True,
        permission_kind="shell",
        permission_field="command",
        behavior=_behavior(),
        **flags,
    )


def read_tool(name: str = "Read", **flags: Any) -> ToolSpec:
    """A read-only file tool whose ``file_path`` is what ``Read(...)`` rules match."""
    return ToolSpec(
        name=name,
        description="Reads a file.",
        input_schema=_string_schema("file_path"),
        read_only=True,
        concurrency_safe=True,
        permission_kind="read",
        permission_field="file_path",
        behavior=_behavior(),
        **flags,
    )


def edit_tool(name: str = "Edit", **flags: Any) -> ToolSpec:
    """A file-editing tool whose ``file_path`` is what ``Edit(...)`` rules match."""
    return ToolSpec(
        name=name,
        description="Edits a file.",
        input_schema=_string_schema("file_path"),
        permission_kind="edit",
        permission_field="file_path",
        behavior=_behavior(),
        **flags,
    )


def fetch_tool(name: str = "WebFetch", **flags: Any) -> ToolSpec:
    """A fetching tool whose ``url`` is what ``WebFetch(domain:...)`` rules match."""
    return ToolSpec(
        name=name,
        description="Fetches a URL.",
        input_schema=_string_schema("url"),
        read_only=True,
        permission_kind="web_fetch",
        permission_field="url",
        behavior=_behavior(),
        **flags,
    )


def plain_tool(name: str, **flags: Any) -> ToolSpec:
    """A tool with no permission target (its rules are whole-tool rules)."""
    schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    return ToolSpec(
        name=name, description=f"The {name} tool.", input_schema=schema, behavior=_behavior(), **flags
    )


def mcp_tool_spec(server: str, tool: str, **flags: Any) -> ToolSpec:
    """An MCP tool ``mcp__<server>__<tool>`` (server and tool already in normalised form)."""
    schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    return ToolSpec(
        name=mcp_tool_name(server, tool),
        description=f"{tool} on {server}",
        input_schema=schema,
        mcp_server=server,
        mcp_tool=tool,
        behavior=_behavior(),
        **flags,
    )


def tools() -> list[ToolSpec]:
    """The shell tool and a plain ``Deploy`` tool: the tools of the permission-decision properties."""
    return [shell_tool(), plain_tool("Deploy")]


def pre_hook(outcome: str) -> HookSpec:
    """An in-process PreToolUse hook that answers ``outcome`` (allow, ask, deny or none)."""
    return HookSpec(event="PreToolUse", outcome=outcome)  # type: ignore[arg-type]


_HARMLESS_WRAPPERS = frozenset({"time", "nice", "timeout", "nohup", "stdbuf"})


def covered_by_prefix(record: tuple[str, ...], prefix: str) -> bool:
    """Whether ``Bash(prefix:*)`` covers one executed program (argv), or it only changes how one runs."""
    name = record[0].rsplit("/", 1)[-1]
    if name in _HARMLESS_WRAPPERS:
        return True
    line = " ".join((name, *record[1:]))
    return line == prefix or line.startswith(prefix + " ")


def bash_runs(bash_oracle: BashSandbox, line: str, program: str) -> bool:
    """Whether the sandboxed bash executes ``program`` (by its base name) running ``line``."""
    return any(record[0].rsplit("/", 1)[-1] == program for record in bash_oracle.executed(line))


def allow_rule_for(prefix: str, form: str) -> str:
    """The allow rule for ``prefix`` in the ``colon`` (``Bash(p:*)``) or ``space`` (``Bash(p *)``) form."""
    return {"colon": f"Bash({prefix}:*)", "space": f"Bash({prefix} *)"}[form]


def host_answering(behavior: Literal["allow", "deny"]) -> HostSpec:
    """A host that answers every question with ``behavior`` and records the questions."""
    answer = HostAnswer(behavior)
    return HostSpec(answer=lambda _name, _input: answer)


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(str(b.get("text", "")) if isinstance(b, Mapping) else str(b) for b in content)
    return json.dumps(content, sort_keys=True, default=str)


@dataclass
class Run:
    """What one ``execute`` did: the result, the call record and the host's questions."""

    result: ExecutionResult
    recorder: CallRecorder
    host: HostSpec | None

    def ran(self, tool_use_id: str = "toolu_1") -> int:
        """How many times the call with this id started."""
        return self.recorder.started().count(tool_use_id)

    @property
    def asked(self) -> list[tuple[str, dict[str, Any]]]:
        """The host's questions (empty when headless)."""
        return list(self.host.asked) if self.host is not None else []

    def tool_result(self, tool_use_id: str = "toolu_1") -> dict[str, Any]:
        """The one tool_result block for this id (fails when there isn't exactly one)."""
        found = [
            b
            for b in self.result.user_content
            if b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id
        ]
        assert len(found) == 1, (
            f"expected one tool_result for {tool_use_id}, got {self.result.user_content!r}"
        )
        return found[0]

    def result_text(self, tool_use_id: str = "toolu_1") -> str:
        """The text of the tool_result for this id."""
        return _text_of(self.tool_result(tool_use_id).get("content", ""))

    def all_text(self) -> str:
        """Every text the model will see in the user message (results and extra blocks)."""
        return "\n".join(_text_of(b.get("content", b.get("text", ""))) for b in self.result.user_content)

    def is_error(self, tool_use_id: str = "toolu_1") -> bool:
        """Whether the tool_result for this id is marked as an error."""
        return bool(self.tool_result(tool_use_id).get("is_error", False))

    def decision(self, tool_use_id: str = "toolu_1") -> dict[str, Any]:
        """The recorded decision for this id ({} when none was recorded)."""
        return dict(self.result.decisions.get(tool_use_id, {}))

    def describe(self) -> str:
        """A one-line summary for assertion messages."""
        return (
            f"ran={self.recorder.started()} asked={self.asked} "
            f"decisions={self.result.decisions} content={self.result.user_content!r}"
        )


def run_calls(
    harness: Any,
    tools: Sequence[ToolSpec],
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    rules: Sequence[RuleSpec] = (),
    mode: str = "default",
    hooks: Sequence[HookSpec] = (),
    host: HostSpec | None = None,
    cwd: Path | None = None,
    settings: Sequence[SettingsSpec] = (),
) -> Run:
    """Execute one assistant turn of ``calls`` (name, input) with ids ``toolu_1``, ``toolu_2``...

    The working directory is ``cwd`` or a fresh directory; the session directory is always a
    fresh one. ``settings`` are settings files (the ``settings_files`` capability).
    """
    uses = [
        {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": dict(tool_input)}
        for i, (name, tool_input) in enumerate(calls, start=1)
    ]
    recorder = CallRecorder()
    root = fresh_dir()
    work = cwd if cwd is not None else root / "work"
    work.mkdir(parents=True, exist_ok=True)
    session = root / "session"
    session.mkdir()
    scenario = ExecutionScenario(
        tools=list(tools),
        tool_uses=uses,
        recorder=recorder,
        cwd=work,
        session_dir=session,
        rules=list(rules),
        mode=mode,
        hooks=list(hooks),
        host=host,
        settings=list(settings),
    )
    result = asyncio.run(harness.execute(scenario))
    return Run(result, recorder, host)


def run_line_in_bypass(harness: Any, line: str, work: Path) -> Run:
    """``line`` called once in bypassPermissions from ``work``, a host refusing whatever it is asked."""
    return run_calls(
        harness,
        [shell_tool()],
        [("Bash", {"command": line})],
        mode="bypassPermissions",
        host=host_answering("deny"),
        cwd=work,
    )


def assert_asked_not_run(run: Run, why: str) -> None:
    """PERM-15: a protected write never runs unasked, and the user is asked (not refused without a question).

    The requirement's own words: protected paths "ask" in acceptEdits and bypassPermissions. A harness that
    refuses the call unasked (an error inside its reading of the line, say) fails it too.
    """
    assert run.ran() == 0, f"{why}, yet ran unasked: {run.describe()}"
    assert run.asked, (
        f"{why}: refused without asking the user (PERM-15: a protected path asks): {run.describe()}"
    )


PROTECTED_TARGETS = (
    ".git/hooks/pre-commit",
    ".git/config",
    ".claude/settings.json",
    ".vscode/tasks.json",
    ".mcp.json",
)
"""Protected files the write properties draw (PERM-15): git's hook and configuration, the harness's, an editor's, MCP's."""


def assert_protected_write_asks(
    harness: Any, line: str, target: str, how: str, files: Mapping[str, str | bytes] | None = None
) -> None:
    """PERM-15: where ``line``, run for real, writes the protected ``target``, the harness asks in bypassPermissions.

    Two fresh repositories holding ``target``'s directory: bash runs the line in a bubblewrap sandbox
    in one (the judge; a line that writes no ``target`` is discarded), the harness gets it in the other.
    ``files`` (relative path -> text or bytes) are made in both first. Skips without bubblewrap, naming it.
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    directory = target.rpartition("/")[0]
    work, judged = fresh_dir(), fresh_dir()
    for place in (work, judged):
        subprocess.run(["git", "init", "-q", "."], cwd=place, capture_output=True, check=False)
        (place / directory).mkdir(parents=True, exist_ok=True)
        for name, text in (files or {}).items():
            (place / name).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                (place / name).write_bytes(text)
            else:
                (place / name).write_text(text, encoding="utf-8")
    assume(target in written_paths(line, judged))
    run = run_line_in_bypass(harness, line, work)
    assert_asked_not_run(run, f"{line!r} writes {target}{how} (the filesystem says so)")


def assert_runs_unasked(
    new_harness: Callable[[], Any], tool: ToolSpec, call: tuple[str, Mapping[str, Any]], mode: str, why: str
) -> None:
    """A control: the one ``call`` runs in ``mode`` without anyone asked (the host would say no)."""
    run = run_calls(new_harness(), [tool], [call], mode=mode, host=host_answering("deny"))
    assert (run.ran(), run.asked) == (1, []), f"{why}: {run.describe()}"


# --------------------------------------------------------------------------------------------
# Lines that make a file and then run it (PERM-17): writers x runners, and descriptor spellings.

# (how the line finds and runs the file F, F's name, F's text): a shell or exec runs F by name;
# make and a PATH lookup find it by convention. A Makefile's recipe on a line of its own or after ``;``.
_WRITTEN_RUNNERS: tuple[tuple[str, str, str], ...] = (
    ("sh {f}", "s.sh", "{c}\n"),
    ("bash {f}", "s.sh", "{c}\n"),
    (". ./{f}", "s.sh", "{c}\n"),
    ("chmod +x {f} && ./{f}", "t", "#!/bin/sh\n{c}\n"),
    ("make -s", "Makefile", "all:\n\t{c}\n"),
    ("make -s", "Makefile", "all: ; {c}\n"),  # the recipe on the rule's line: one line, which sort keeps
    ("make -s -f {f}", "b.mk", "all:\n\t{c}\n"),
    ("make -s -f {f}", "b.mk", "all: ; {c}\n"),
    ("chmod +x {f} && PATH=.:$PATH {f}", "lsx", "#!/bin/sh\n{c}\n"),
)


def _printf_literal(text: str) -> str:
    """``text`` as a single-quoted printf format (newlines and tabs as escapes, ``%`` doubled)."""
    return "'" + text.replace("%", "%%").replace("\n", "\\n").replace("\t", "\\t") + "'"


@st.composite
def _sorting_writer(draw: st.DrawFn, data: str, name: str, one_line: bool) -> str:
    """``sort`` (or ``shuf``, for one line) making ``name`` through its output option: composed.

    The option spelled every way getopt reads it (``-o F``, ``-oF``, ``--output=F``, ``--output F``),
    before or after the input operand (GNU getopt permutes them).
    """
    program = draw(st.sampled_from(("sort", "shuf") if one_line else ("sort",)))
    option = draw(st.sampled_from((f"-o {name}", f"-o{name}", f"--output={name}", f"--output {name}")))
    words = (option, "d.dat") if draw(st.booleans()) else ("d.dat", option)
    return f"{data} && {program} {' '.join(words)}"


def _writers(name: str, text: str) -> list[st.SearchStrategy[str]]:
    """Lines that make file ``name`` with ``text`` from data written first under a name no runner uses."""
    data = f"printf {_printf_literal(text)} > d.dat"
    hexed = "".join(f"{byte:02x}" for byte in text.encode())
    writers = [
        st.just(line)
        for line in (
            f"{data} && uniq d.dat {name}",
            f"{data} && cp d.dat {name}",
            f"{data} && sed -n 'w {name}' d.dat",
            f"printf {hexed} > d.hex && xxd -r -p d.hex {name}",
            f"{data} && awk '{{print > \"{name}\"}}' d.dat",
            f"mkdir -p s && {data} && mv d.dat s/{name} && tar cf d.tar -C s {name} && tar xf d.tar",
            f"{data} && gzip -c d.dat > d.gz && gzip -dc d.gz | tee {name} >/dev/null",
        )
    ]
    lines = text.splitlines()
    # Sorting keeps the text (``#!/bin/sh`` sorts first), not a recipe on a line of its own (its tab sorts first).
    if lines == sorted(lines):
        writers.append(_sorting_writer(data, name, len(lines) == 1))
    return writers


@st.composite
def written_then_run_lines(draw: st.DrawFn, command: str = "rm -rf x") -> str:
    """A line that makes a file holding ``command`` with some program, then runs it or lets a program find it."""
    runner, name, template = draw(st.sampled_from(_WRITTEN_RUNNERS))
    text = template.format(c=command)
    write = draw(st.one_of(_writers(name, text)))
    joiner = draw(st.sampled_from((" && ", "; ", "\n")))
    return f"{write}{joiner}{runner.format(f=name)}"


@st.composite
def installed_on_path_lines(draw: st.DrawFn, directory: str, command: str = "rm -rf x") -> str:
    """A line that puts a script running ``command`` in ``directory`` (on PATH) under a program's name, then runs that name.

    Composed: how the file gets there (a redirection, ``install``, ``cp``, ``mv`` of a file made
    under another name, ``tee``, a symbolic link), which common program it stands for, and how the
    name is run (bare, through ``command``, ``env``, ``nice``, ``xargs``, with or without words).
    """
    name = draw(st.sampled_from(("ls", "cat", "git", "make", "grep", "sort", "head", "python3")))
    target = f"{directory}/{name}"
    data = "printf " + _printf_literal(f"#!/bin/sh\n{command}\n")
    placed = draw(
        st.sampled_from(
            (
                f"mkdir -p {directory} && {data} > {target} && chmod +x {target}",
                f"{data} > t.dat && install -D t.dat {target}",
                f"{data} > t.dat && install -D -m 755 t.dat {target}",
                f"mkdir -p {directory} && {data} > t.dat && cp t.dat {target} && chmod 755 {target}",
                f"mkdir -p {directory} && {data} > t && chmod +x t && mv t {target}",
                f"mkdir -p {directory} && {data} | tee {target} >/dev/null && chmod +x {target}",
                f'mkdir -p {directory} && {data} > t && chmod +x t && ln -s "$PWD/t" {target}',
            )
        )
    )
    runner = draw(
        st.sampled_from(
            ("{n}", "{n} --version", "command {n}", "env {n}", "nice {n} -q", "echo . | xargs {n}")
        )
    )
    joiner = draw(st.sampled_from((" && ", "; ", "\n")))
    return f"{placed}{joiner}{runner.format(n=name)}"


@st.composite
def descriptor_spellings(draw: st.DrawFn) -> str:
    """A name the kernel resolves to standard input: ``/dev/stdin``, ``//dev/./stdin``, ``/proc/self/fd/0``..."""
    slashes = "/" * draw(st.integers(1, 3))
    dots = "./" * draw(st.integers(0, 2))
    return draw(
        st.sampled_from(
            (
                f"{slashes}dev/{dots}stdin",
                f"{slashes}dev/{dots}fd/0",
                f"{slashes}proc/self/{dots}fd/0",
                f"{slashes}proc/thread-self/fd/{dots}0",
                f"/dev/../dev/{dots}stdin",
            )
        )
    )


@st.composite
def other_descriptor_spellings(draw: st.DrawFn, fd: int) -> str:
    """A name the kernel resolves to descriptor ``fd`` (1-9): ``/dev/fd/3``, ``/dev/stdout``, ``/proc/self/root/dev/fd/3``...

    Spelled with doubled slashes, ``.`` components, a climb from a directory the engine does not
    know, and through ``/proc/self/root``, which the engine can't tell from a device.
    """
    slashes = "/" * draw(st.integers(1, 2))
    dots = "./" * draw(st.integers(0, 1))
    # The standard name first, where there is one: Hypothesis leans to the first of a sampled list.
    devices = [
        *(f"dev/{dots}{name}" for name in {1: ["stdout"], 2: ["stderr"]}.get(fd, [])),
        f"dev/{dots}fd/{fd}",
    ]
    device = draw(st.sampled_from(devices))
    return draw(
        st.sampled_from(
            (
                slashes + device,
                "/proc/self/root/" + device,
                "../" * 12 + device,
                f"{slashes}proc/self/{dots}fd/{fd}",
                f"/proc/thread-self/fd/{fd}",
            )
        )
    )


@st.composite
def other_descriptor_lines(draw: st.DrawFn, command: str = "rm -rf x") -> str:
    """A line that feeds ``command`` on a descriptor other than standard input, and harmless text on it.

    A program that reads its program from a named file (a shell, ``source``, ``make -f``,
    ``python3``) is given a name of that descriptor (or of a file the line wrote whose name sorts
    before ``-``, such as ``,f``), while standard input holds ``echo hi``: what runs is ``command``,
    which only a harness that reads standard input in place of the descriptor misses.
    """
    fd = draw(st.sampled_from((1, 2, 3, 9)))  # standard output and error, and two others
    programs = {
        "shell": (command, "echo hi"),
        "make": (f"all:\n\t{command}", "all:\n\techo hi"),
        "python": (f'import os; os.system("{command}")', 'print("hi")'),
    }
    reader, kind = draw(
        st.sampled_from(
            (("bash {f}", "shell"), ("sh {f}", "shell"), (". {f}", "shell"), ("source {f}", "shell"),
             ("make -s -f {f}", "make"), ("python3 {f}", "python"))
        )
    )  # fmt: skip
    code, harmless = programs[kind]
    # Each feed: (a command before the reader, its redirection, a here-document's body after the line).
    stdin_feeds = {
        "here-string": ("", f"<<< $'{harmless}'", ""),
        "here-document": ("", "<<'H'", f"{harmless}\nH\n"),
        "pipe": (f"printf '%s\\n' $'{harmless}' | ", "", ""),
        "file": (f"printf '%s\\n' $'{harmless}' > in.txt; ", "< in.txt", ""),
    }
    stdin_before, stdin_redirect, stdin_body = stdin_feeds[
        draw(st.sampled_from(list(stdin_feeds)), label="input")
    ]
    if draw(st.integers(0, 3), label="a written file named before '-' (0)") == 0:
        name = draw(st.sampled_from((",f", "+f", "%f", "*f")))
        written = f"printf '%s\\n' $'{code}' > '{name}'; "
        line = f"{written}{stdin_before}{reader.format(f=repr(name))} {stdin_redirect}"
        return f"{line}\n{stdin_body}" if stdin_body else line
    name = draw(other_descriptor_spellings(fd))
    fd_feeds = {
        "here-string": ("", f"{fd}<<< $'{code}'", ""),
        "here-document": ("", f"{fd}<<'E'", f"{code}\nE\n"),
        "file": (f"printf '%s\\n' $'{code}' > d.txt; ", f"{fd}< d.txt", ""),
    }
    fd_before, fd_redirect, fd_body = fd_feeds[
        draw(st.sampled_from(sorted(fd_feeds)), label="descriptor fed by")
    ]
    feeds = [(stdin_redirect, stdin_body), (fd_redirect, fd_body)]
    if draw(st.booleans(), label="descriptor fed first"):
        feeds.reverse()
    line = f"{fd_before}{stdin_before}{reader.format(f=name)} " + " ".join(r for r, _ in feeds if r)
    bodies = "".join(body for _, body in feeds)
    return f"{line}\n{bodies}" if bodies else line


@st.composite
def input_run_as_program_lines(draw: st.DrawFn, command: str = "rm -rf x") -> str:
    """A line that feeds ``command`` on standard input to a program reading its program from a named file."""
    name = draw(descriptor_spellings())
    form = draw(
        st.sampled_from(
            (
                f"bash {name} <<< {command!r}",
                f". {name} <<< {command!r}",
                f"source {name} <<'E'\n{command}\nE\n",
                f"make -s -f {name} <<'E'\nall:\n\t{command}\nE\n",
                f"printf {_printf_literal('all:' + chr(10) + chr(9) + command + chr(10))} | make -s -f {name}",
                f"python3 {name} <<< 'import os; os.system(\"{command}\")'",
            )
        )
    )
    return form
