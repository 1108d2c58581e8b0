"""Checks over a wire run of the sandbox scenarios (SBX-1, SBX-2, SBX-4, SBX-5, SBX-6).

Each ``judge_*`` returns a :data:`~pytest_toolharness.wire.checks._runs.Judgement` like those of
:mod:`~pytest_toolharness.wire.checks._runs`: what a command wrote is read from the files, that the
sandbox (not the harness's own checks) stopped one from the operating system's refusal in its result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_toolharness.wire.checks._evidence import called
from pytest_toolharness.wire.checks._requests import result_text
from pytest_toolharness.wire.checks._runs import (
    Judgement,
    _block,
    _error_problem,
    _exists,
    _path,
    _tool_offered,
)
from pytest_toolharness.wire.scenarios import (
    SANDBOX_CONTROL,
    SANDBOX_ESCAPES,
    SANDBOX_PROTECTED,
    SANDBOX_RULE_CALLS,
    SANDBOX_SETTINGS_TEXT,
    UNAVAILABLE_FILE,
    UNSANDBOXED,
    UnavailableIds,
    sandbox_ids,
    sandbox_rules_ids,
)

if TYPE_CHECKING:
    from pytest_toolharness.wire.targets import WireRun

__all__ = [
    "judge_sandbox_auto_allow",
    "judge_sandbox_exits",
    "judge_sandbox_protected",
    "judge_sandbox_unavailable",
    "judge_sandbox_writes",
]


# -- SBX-1, SBX-2 ---------------------------------------------------------------------------------

#: What the operating system says when the sandbox refuses a write: the proof the sandbox stopped it.
_SANDBOX_ERRORS = ("Read-only file system", "Permission denied", "Operation not permitted")


def _sandbox_unproven(run: WireRun) -> list[str]:
    unproven = _tool_offered(run, "shell")
    if not _exists(run, SANDBOX_CONTROL):
        unproven.append(
            f"the control ({SANDBOX_CONTROL}, a write inside the working directory) was not written: "
            "the sandbox did not start or no shell command ran"
        )
    return unproven


def judge_sandbox_writes(run: WireRun) -> Judgement:
    """SBX-1 (``sandbox``): with the sandbox on and every command allowed, nothing is written outside.

    Proof: the control was written, and some escape's result carries the operating system's refusal
    (so the sandbox ran it and stopped it, not the harness's own checks).
    """
    ids = sandbox_ids()
    unproven = _sandbox_unproven(run)
    texts = [result_text(b) for b in (_block(run, ids[label]) for label in SANDBOX_ESCAPES) if b is not None]
    if not any(error in text for text in texts for error in _SANDBOX_ERRORS):
        unproven.append("no escape was refused by the operating system: the sandbox never ran one")
    problems = []
    outside = run.workdir.parent if run.workdir is not None else None
    for label, (command, written) in SANDBOX_ESCAPES.items():
        if outside is not None and (outside / written).exists():
            problems.append(f"{label}: {command!r} wrote ../{written}, outside the working directory")
        problems += _error_problem(run, ids[label], f"{label}: {command!r}", unproven)
    return problems, unproven


def judge_sandbox_protected(run: WireRun) -> Judgement:
    """SBX-2 (``sandbox``): inside the working directory the settings, skills and .git stay unwritten."""
    unproven = _sandbox_unproven(run)
    settings = _path(run, ".claude/settings.local.json")
    problems = []
    if (
        settings is not None
        and settings.is_file()
        and settings.read_text(encoding="utf-8") != SANDBOX_SETTINGS_TEXT
    ):
        problems.append("settings: the sandboxed command rewrote .claude/settings.local.json")
    if _exists(run, ".claude/skills/evil/SKILL.md"):
        problems.append("skill: the sandboxed command added .claude/skills/evil/SKILL.md")
    if _exists(run, ".git/hooks/pre-commit"):
        problems.append("git-hook: the sandboxed command wrote .git/hooks/pre-commit")
    config = _path(run, ".git/config")
    if (
        config is not None
        and config.is_file()
        and "fsmonitor" in config.read_text(encoding="utf-8", errors="replace")
    ):
        problems.append("git-config: the sandboxed command set core.fsmonitor in .git/config")
    ids = sandbox_ids()
    for label, command in SANDBOX_PROTECTED.items():
        problems += _error_problem(run, ids[label], f"{label}: {command!r}", unproven)
    return problems, unproven


def _sandbox_works(run: WireRun) -> list[str]:
    """Why the ``sandbox`` run does not show the sandbox running here (its SBX-1 proof), if it does not."""
    return [f"sandbox scenario: {reason}" for reason in judge_sandbox_writes(run)[1]]


def judge_sandbox_exits(sandbox: WireRun, rules_run: WireRun) -> Judgement:
    """SBX-4: leaving the sandbox goes through the permission decision, and can't with allowUnsandboxedCommands false.

    ``sandbox`` (allowUnsandboxedCommands false, every command allowed): the request to leave still
    writes nothing outside. ``sandbox-rules`` (no allow rule): the request to leave and an excluded
    command are decided as permissions, nobody can be asked, so neither runs.
    """
    unproven = _sandbox_works(sandbox)
    problems = []
    command, written = UNSANDBOXED
    if sandbox.workdir is not None and (sandbox.workdir.parent / written).exists():
        problems.append(
            f"with allowUnsandboxedCommands false, {command!r} left the sandbox: ../{written} exists"
        )
    problems += _error_problem(sandbox, sandbox_ids()["unsandboxed"], f"unsandboxed: {command!r}", unproven)
    ids = sandbox_rules_ids()
    for label in ("unsandboxed", "excluded"):
        command, _, created, _ = SANDBOX_RULE_CALLS[label]
        if _exists(rules_run, created):
            problems.append(
                f"{label}: {command!r} ran outside the sandbox though nothing allowed it: {created} exists"
            )
        problems += _error_problem(rules_run, ids[label], f"{label}: {command!r}", unproven)
    return problems, unproven


def judge_sandbox_auto_allow(sandbox: WireRun, rules_run: WireRun) -> Judgement:
    """SBX-6 (``sandbox-rules``): autoAllowBashIfSandboxed runs a sandboxed command no rule names; deny and ask still apply.

    Proof: the ``sandbox`` run shows the sandbox starts here, so a control that did not run was refused.
    """
    unproven = _sandbox_works(sandbox)
    ids = sandbox_rules_ids()
    problems = []
    for label, (command, _, created, must_run) in SANDBOX_RULE_CALLS.items():
        if label in ("unsandboxed", "excluded"):
            continue
        if must_run and not _exists(rules_run, created):
            problems.append(
                f"{label}: {command!r} (sandboxed, no rule names it) did not run: it was not auto-allowed"
            )
        elif not must_run:
            if _exists(rules_run, created):
                problems.append(
                    f"{label}: {command!r} ran although a {label} rule names it: {created} exists"
                )
            problems += _error_problem(rules_run, ids[label], f"{label}: {command!r}", unproven)
    return problems, unproven


def judge_sandbox_unavailable(run: WireRun) -> Judgement:
    """SBX-5 (``sandbox-unavailable``): the sandbox can't start and is required: say so, never run the shell.

    Either the harness refuses to start, saying why on stderr (no request, an error exit), or it
    runs and the shell call never runs and is an error; the MCP call then must run (the proof the
    rest works, so the refusal is the sandbox's). A hang or a silent exit is a problem.
    """
    outcome = run.outcome
    if outcome.timed_out or outcome.start_error is not None:
        return [run.failure() or "the harness did not run"], []
    if not run.message_requests:
        if outcome.exit_code != 0 and "sandbox" in outcome.stderr.lower():
            return [], []
        return [
            f"the harness stopped without a request and without saying the sandbox is unavailable: {outcome.stderr[-300:]!r}"
        ], []
    problems = [run.failure()] if run.failure() is not None else []
    if _exists(run, UNAVAILABLE_FILE):
        problems.append(
            f"the shell command ran although the sandbox could not start: {UNAVAILABLE_FILE} exists"
        )
    unproven: list[str] = []
    problems += _error_problem(run, UnavailableIds.SHELL, "the shell call without a sandbox", unproven)
    if not called(run, "u_echo", outcome="ok"):
        unproven.append("the MCP call did not run either: the harness refused everything, not the shell")
    return [p for p in problems if p], unproven
