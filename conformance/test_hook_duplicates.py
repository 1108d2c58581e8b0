"""The same hook handler configured more than once (HOOK-2): a deny is never lost among its twins.

Claude Code runs every matching hook of an event, and "identical handlers are deduplicated
automatically... command hooks by command string, HTTP hooks by URL". A harness that deduplicates
must do it on everything that makes two handlers different: the same command under another ``if``,
another ``onFailure`` or ``async`` is another handler. Keyed on the command text alone, the first twin
seen stands for every other; when it is one whose ``if`` does not match the call, the twin whose
``if`` does match never runs, and its deny is lost: the most restrictive answer does not win.

The scenario draws 1-3 programs (command lines or http URLs, each answering deny, allow, a context,
nothing or a failure) and places each 1-3 times across the matcher groups of 1-3 settings files,
under drawn ``if`` rules, ``onFailure`` and ``async``, beside one another in any order. Each program
logs every run, so the suite sees which programs ran for which call, and the verdicts show which
decided. The requirements do not ask for deduplication itself, so a program run once per handler is
not faulted; one run for no applicable handler, or more often than it is placed, is.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import host_answering, run_calls, shell_tool
from pytest_toolharness.adapters import HookEndpoint, hook_command, requires
from pytest_toolharness.specs import HookSpec, SettingsSpec

ProgramOutcome = Literal["deny", "allow", "context", "none", "exit1"]
OnFailure = Literal["continue", "block"]

# The calls of a turn, and the ``if`` rules a handler may carry: each rule matches exactly one call.
PUSH, PUBLISH = "git push origin main", "npm publish"
IF_RULES = {
    "Bash(git push *)": PUSH,
    "Bash(git push:*)": PUSH,
    "Bash(npm publish)": PUBLISH,
    "Bash(npm publish:*)": PUBLISH,
}
# A group's matcher, and whether it selects the shell tool ``Bash``.
MATCHERS: dict[str | None, bool] = {
    "Bash": True,
    "*": True,
    None: True,
    "^Ba": True,
    "Read|Bash": True,
    "Deploy": False,
    "Read|Write": False,
}
SOURCES = ("userSettings", "projectSettings", "localSettings", "flagSettings", "policySettings")
OUTCOMES: tuple[ProgramOutcome, ...] = ("deny", "allow", "context", "none", "exit1")
ANSWER_TIMEOUT_S = 10


@dataclass(frozen=True)
class Program:
    """One command line or http URL: what it answers, and how it is named in the settings."""

    kind: Literal["command", "http"]
    outcome: ProgramOutcome

    def marker(self, index: int) -> str:
        """The context a ``context`` program adds (unique per program)."""
        return f"dup-hook-ctx-{index}-7c31"


@dataclass(frozen=True)
class Handler:
    """One placement of program ``program`` in a matcher group."""

    program: int
    if_rule: str | None = None
    on_failure: OnFailure = "continue"
    run_async: bool = False

    def applies(self, matcher: str | None, command: str) -> bool:
        """Whether this handler, in a group with ``matcher``, is for a ``Bash`` call of ``command``."""
        return MATCHERS[matcher] and (self.if_rule is None or IF_RULES[self.if_rule] == command)


@dataclass(frozen=True)
class DuplicateCase:
    """Programs, the settings files placing them ((source, ((matcher, handlers), ...)), ...), the calls."""

    programs: tuple[Program, ...]
    files: tuple[tuple[str, tuple[tuple[str | None, tuple[Handler, ...]], ...]], ...]
    commands: tuple[str, ...]

    @property
    def every_kind(self) -> bool:
        """Whether the case uses http programs, ``onFailure`` or ``async`` (capabilities beyond command hooks)."""
        handlers = [h for _, groups in self.files for _, hs in groups for h in hs]
        return any(p.kind == "http" for p in self.programs) or any(
            h.on_failure != "continue" or h.run_async for h in handlers
        )

    def placed(self, command: str) -> list[Handler]:
        """Every handler that applies to a call of ``command``."""
        return [
            h
            for _, groups in self.files
            for matcher, handlers in groups
            for h in handlers
            if h.applies(matcher, command)
        ]

    def verdict(self, command: str) -> tuple[int, bool]:
        """(runs, asked) for a call of ``command``, the host allowing.

        A synchronous handler of a deny program, or of a failing one with ``onFailure: "block"``,
        denies; otherwise one of an allow program allows; otherwise the host is asked. Async
        handlers never decide (HOOK-8).
        """
        live = [(h, self.programs[h.program].outcome) for h in self.placed(command) if not h.run_async]
        if any(o == "deny" or (o == "exit1" and h.on_failure == "block") for h, o in live):
            return (0, False)
        if any(o == "allow" for _, o in live):
            return (1, False)
        return (1, True)


@st.composite
def duplicate_cases(draw: st.DrawFn, *, every_kind: bool) -> DuplicateCase:
    """1-3 programs, each placed 1-3 times (one of them at least twice) in 1-3 settings files.

    Each file has 1-2 matcher groups (matchers selecting ``Bash`` or not); each handler goes to a
    drawn group, in a drawn order, with an ``if`` drawn from no rule and rules matching one call or
    the other. With ``every_kind``, programs may be http URLs, and a handler may say ``onFailure:
    "block"`` or (a command's, not blocking) ``async: true``. The turn calls one or both commands.
    """
    programs = tuple(
        Program(
            draw(st.sampled_from(["command", "http"])) if every_kind else "command",
            draw(st.sampled_from(OUTCOMES)),
        )
        for _ in range(draw(st.integers(1, 3)))
    )
    counts = [draw(st.integers(1, 3)) for _ in programs]
    if max(counts) < 2:
        counts[draw(st.integers(0, len(programs) - 1))] = 2
    handlers = []
    for index, count in enumerate(counts):
        for _ in range(count):
            on_failure: OnFailure = "block" if every_kind and draw(st.booleans()) else "continue"
            run_async = (
                every_kind
                and on_failure == "continue"
                and programs[index].kind == "command"
                and draw(st.integers(0, 3)) == 0
            )
            if_rule = draw(st.sampled_from([None, *IF_RULES]))
            handlers.append(Handler(index, if_rule, on_failure, run_async))
    sources = draw(st.lists(st.sampled_from(SOURCES), min_size=1, max_size=3, unique=True))
    slots = [(s, g) for s in range(len(sources)) for g in range(draw(st.integers(1, 2)))]
    matchers = {slot: draw(st.sampled_from(list(MATCHERS))) for slot in slots}
    placed: dict[tuple[int, int], list[Handler]] = {slot: [] for slot in slots}
    for handler in draw(st.permutations(handlers)):
        placed[draw(st.sampled_from(slots))].append(handler)
    files = tuple(
        (
            source,
            tuple((matchers[slot], tuple(placed[slot])) for slot in slots if slot[0] == s),
        )
        for s, source in enumerate(sources)
    )
    commands = tuple(draw(st.lists(st.sampled_from([PUSH, PUBLISH]), min_size=1, max_size=2, unique=True)))
    return DuplicateCase(programs, files, commands)


def _settings(case: DuplicateCase, lines: list[tuple[str, str]]) -> list[SettingsSpec]:
    """The settings files of ``case``, each program named by its command line or URL in ``lines``."""
    specs = []
    for source, groups in case.files:
        entries = []
        for matcher, handlers in groups:
            written = []
            for h in handlers:
                kind, line = lines[h.program]
                handler: dict[str, Any] = {"type": kind, kind if kind == "command" else "url": line}
                handler["timeout"] = ANSWER_TIMEOUT_S
                if h.if_rule is not None:
                    handler["if"] = h.if_rule
                if h.on_failure != "continue":
                    handler["onFailure"] = h.on_failure
                if h.run_async:
                    handler["async"] = True
                written.append(handler)
            entry: dict[str, Any] = {"hooks": written}
            if matcher is not None:
                entry["matcher"] = matcher
            entries.append(entry)
        specs.append(SettingsSpec(source, {"hooks": {"PreToolUse": entries}}))
    return specs


def _runs(log: Path) -> Counter[str]:
    """How many times the program logging to ``log`` ran, per tool_use id."""
    if not log.exists():
        return Counter()
    return Counter(json.loads(line).get("tool_use_id", "") for line in log.read_text().splitlines() if line)


ONE_SOURCE_SHADOW = DuplicateCase(
    (Program("command", "deny"), Program("command", "context")),
    (
        (
            "projectSettings",
            (
                ("Bash", (Handler(0, "Bash(npm publish)"), Handler(1))),
                ("*", (Handler(0, "Bash(git push *)"), Handler(1))),
            ),
        ),
    ),
    (PUSH,),
)
# The same command as an async handler (it can't decide) and then a synchronous one that denies.
ASYNC_TWIN = DuplicateCase(
    (Program("command", "deny"),),
    (("localSettings", (("Bash", (Handler(0, run_async=True), Handler(0))),)),),
    (PUSH, PUBLISH),
)
# A failing command with onFailure "continue", then with "block", behind an http deny's twin.
FAILURE_TWIN = DuplicateCase(
    (Program("command", "exit1"), Program("http", "deny")),
    (
        (
            "userSettings",
            (
                (None, (Handler(1, "Bash(git push:*)"), Handler(0))),
                ("Bash", (Handler(0, on_failure="block"), Handler(1, "Bash(npm publish)"))),
            ),
        ),
    ),
    (PUBLISH,),
)


@pytest.mark.requirement("HOOK-2", "MUST")
@pytest.mark.parametrize(
    "every_kind",
    [
        pytest.param(False, id="command"),
        pytest.param(True, id="every-kind", marks=requires("hook_sources", "hook_on_failure")),
    ],
)
@requires("execution", "permissions", "hooks", "command_hooks", "host_callback", "settings_files")
@requires("settings_hooks", "hook_if")
@settings(max_examples=15, deadline=None)
@given(data=st.data(), fixed=st.none())
@example(data=None, fixed=ONE_SOURCE_SHADOW)
@example(data=None, fixed=ASYNC_TWIN)
@example(data=None, fixed=FAILURE_TWIN)
def test_a_handler_placed_again_still_runs_where_it_applies(
    new_harness: Callable[[], Any], every_kind: bool, data: st.DataObject | None, fixed: DuplicateCase | None
) -> None:
    """HOOK-2: twins of a hook handler never hide one another: every call gets each applicable handler's answer.

    The same command line or URL, placed 1-3 times in one matcher group or several, in one settings
    file or several, under the same or another ``if`` (``onFailure``, ``async``), beside distinct
    hooks: a call is denied exactly when a synchronous handler for it denies (or fails with
    ``onFailure: "block"``), else let run unasked when one allows, else put to the host. A deny
    whose ``if`` matches the call is never skipped because a twin whose ``if`` does not match was
    seen first. Each program runs at least once for a call it has an applicable synchronous handler
    for (when the call is not denied), never for a call it has no applicable handler for, and never
    more often than it has applicable handlers; a context program's context reaches the model when it
    applies to a call that runs, and never when it applies to none.
    """
    if fixed is not None and fixed.every_kind and not every_kind:
        return  # an explicit example using http, async or onFailure: run under "every-kind"
    case = fixed if fixed is not None else data.draw(duplicate_cases(every_kind=every_kind))  # type: ignore[union-attr]
    where = fresh_dir()
    with ExitStack() as stack:
        lines: list[tuple[str, str]] = []
        logs: list[Path] = []
        for index, program in enumerate(case.programs):
            log = where / f"runs-{index}.jsonl"
            spec = HookSpec(
                event="PreToolUse",
                outcome=program.outcome,
                reason=f"program {index} says {program.outcome}",
                context=program.marker(index),
                as_command=program.kind == "command",
                hook_type=program.kind,
                timeout=ANSWER_TIMEOUT_S,
            )
            if program.kind == "http":
                endpoint = HookEndpoint(spec, log=log).start()
                stack.callback(endpoint.close)
                lines.append(("http", endpoint.url))
            else:
                lines.append(("command", hook_command(spec, where / "hooks", index, log=log)))
            logs.append(log)
        run = run_calls(
            new_harness(),
            [shell_tool()],
            [("Bash", {"command": c}) for c in case.commands],
            host=host_answering("allow"),
            settings=_settings(case, lines),
        )
        runs = [_runs(log) for log in logs]
    asked = [tool_input.get("command") for _, tool_input in run.asked]
    why = f"{case}"
    text = run.all_text()
    for n, command in enumerate(case.commands, start=1):
        call = f"toolu_{n}"
        expected = case.verdict(command)
        got = (run.ran(call), command in asked)
        assert got == expected, (
            f"{why}: call {command!r} (ran, asked) must be {expected}, got {got}: {run.describe()}"
        )
        applicable = case.placed(command)
        for index in range(len(case.programs)):
            own = [h for h in applicable if h.program == index]
            count = runs[index][call]
            assert count <= len(own), (
                f"{why}: program {index} ran {count} times for {command!r}, with {len(own)} handlers for it"
            )
            if expected[0] == 1 and any(not h.run_async for h in own):
                assert count >= 1, f"{why}: program {index} never ran for {command!r}: {run.describe()}"
    for index, program in enumerate(case.programs):
        if program.outcome != "context":
            continue
        marker = program.marker(index)
        reached = [c for c in case.commands if any(h.program == index for h in case.placed(c))]
        if not reached:
            assert marker not in text, f"{why}: program {index} applies to no call, yet its context came"
        elif any(
            case.verdict(c)[0] == 1 and any(h.program == index and not h.run_async for h in case.placed(c))
            for c in case.commands
        ):
            assert marker in text, (
                f"{why}: program {index}'s context never reached the model: {run.describe()}"
            )
