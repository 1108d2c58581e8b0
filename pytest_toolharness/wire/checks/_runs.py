"""Checks over a whole wire run: its requests, the suite's logs and the files in its working directory.

The sandbox's are in :mod:`~pytest_toolharness.wire.checks._sandbox`, on these helpers.

Each ``judge_*`` function takes a :class:`~pytest_toolharness.wire.targets._wire_adapter.WireRun` of its
scenario (:mod:`~pytest_toolharness.wire.scenarios._rules`,
:mod:`~pytest_toolharness.wire.scenarios._results`) and returns a :data:`Judgement`: the problems
(the requirement is broken) and the reasons it was not exercised (a control that did not take
effect, a tool never offered or never run). With a reason the requirement is "not checked", and its
problems say nothing, however the harness answered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from pytest_toolharness.wire.checks._evidence import called, hook_saw, offered
from pytest_toolharness.wire.checks._requests import main_requests, result_text, tool_results
from pytest_toolharness.wire.scenarios import (
    ALLOW_CONTROL,
    BUDGET_CHARS,
    BUDGET_SIZES,
    DENIED_SPELLINGS,
    DENY_CONTROL,
    EDIT_CONTROL,
    HOME_SECRET_TOKEN,
    IMAGE_TEXT_CHARS,
    MALFORMED_CONTROL,
    MALFORMED_DENIES,
    OUTSIDE,
    PATH_READS,
    PLAIN_TOKEN,
    PROTECTED_WRITES,
    REDIRECTED,
    SEARCH_TOOLS,
    SECRET_TOKEN,
    SHELL_FAIL,
    SOURCE_GUARDS,
    UNALLOWED_COMPOUNDS,
    HookSourceIds,
    ImageIds,
    budget_ids,
    budget_output,
    malformed_ids,
    paths_ids,
    protected_ids,
    search_ids,
    shell_allow_ids,
    shell_deny_ids,
    shell_fail_ids,
    source_ids,
)

if TYPE_CHECKING:
    from pytest_toolharness.wire.targets import WireRun

__all__ = [
    "COMPOUND_LABELS",
    "Judgement",
    "judge_accept_edits",
    "judge_denied_spellings",
    "judge_failed_shell",
    "judge_hook_sources",
    "judge_images_kept",
    "judge_keyword_search",
    "judge_malformed_rules",
    "judge_message_budget",
    "judge_path_rules",
    "judge_protected_paths",
    "judge_sources",
    "judge_unallowed_compounds",
]

Judgement: TypeAlias = tuple[list[str], list[str]]
"""(problems, reasons the behaviour was not exercised)."""

#: The ``shell-allow`` calls that are compounds (PERM-11's part of that scenario).
COMPOUND_LABELS = ("and", "semicolon", "pipe", "newline", "substitution", "backticks")


def _path(run: WireRun, relative: str) -> Path | None:
    """Where ``relative`` (to the working directory; ``~`` is its HOME) is, or None without a workdir."""
    if run.workdir is None:
        return None
    if relative.startswith("~/"):
        return run.workdir / "home" / relative[2:]
    return run.workdir / relative


def _exists(run: WireRun, relative: str) -> bool:
    path = _path(run, relative)
    return path is not None and (path.exists() or path.is_symlink())


def _block(run: WireRun, tool_use_id: str) -> Mapping[str, Any] | None:
    blocks = tool_results(run.requests).get(tool_use_id, [])
    return blocks[0] if blocks else None


def _error_problem(run: WireRun, tool_use_id: str, what: str, unproven: list[str] | None = None) -> list[str]:
    """A problem when the call's result is not an error.

    A call never answered (the harness ended the run before it: opencode stops at the first
    permission it auto-rejects) was never exercised: that goes to ``unproven`` when given.
    """
    block = _block(run, tool_use_id)
    if block is None and unproven is not None:
        unproven.append(f"{tool_use_id} ({what}) was never answered: the run ended before the call was made")
        return []
    if block is not None and block.get("is_error") is True:
        return []
    shown = "no result" if block is None else repr(result_text(block)[:160])
    return [f"{tool_use_id} ({what}): its result is not an error: {shown}"]


def _tool_offered(run: WireRun, role: str) -> list[str]:
    name = run.names.builtin(role)
    return [] if offered(run, name) else [f"the harness offers no {role} tool ({name})"]


# -- PERM-4 ------------------------------------------------------------------------------------


def judge_sources(run: WireRun) -> Judgement:
    """PERM-4 (``sources``): deny > ask > allow whichever settings file each rule is in.

    Proof: each control, allowed by one file alone (user, local, ``--settings``), ran.
    """
    ids = source_ids()
    unproven = [
        f"{tool} (allowed only in {', '.join(where)}) did not run: that file was not read"
        for tool, (where, must_run) in SOURCE_GUARDS.items()
        if must_run and not called(run, tool, outcome="ok")
    ]
    problems = []
    for tool, (where, must_run) in SOURCE_GUARDS.items():
        if must_run:
            continue
        said = ", ".join(f"{kind} in {source}" for source, kind in where.items())
        if called(run, tool):
            problems.append(f"{tool} ran although {said}")
        problems += _error_problem(run, ids[tool], f"{tool}, {said}", unproven)
    return problems, unproven


# -- PERM-17, PERM-16 ------------------------------------------------------------------------------


def _shell_judgement(
    run: WireRun,
    commands: Mapping[str, str],
    ids: Mapping[str, str],
    control: str,
    prefix: str,
    why: str,
    labels: Iterable[str] | None = None,
) -> Judgement:
    unproven = _tool_offered(run, "shell")
    if not _exists(run, control):
        unproven.append(
            f"the allowed control command (mkdir {control}) did not run: its directory is missing"
        )
    problems = []
    for label in labels if labels is not None else commands:
        command = commands[label]
        if _exists(run, f"{prefix}{label}"):
            problems.append(f"{label}: {command!r} ran although {why}: {prefix}{label} exists")
        problems += _error_problem(run, ids[label], f"{label}: {command!r}", unproven)
    return problems, unproven


def judge_denied_spellings(run: WireRun) -> Judgement:
    """PERM-17 (``shell-deny``): ``deny Bash(touch:*)`` catches touch however it is spelled or wrapped."""
    return _shell_judgement(
        run,
        DENIED_SPELLINGS,
        shell_deny_ids(),
        DENY_CONTROL,
        "f17-",
        "a deny rule names touch",
    )


def judge_unallowed_compounds(run: WireRun, labels: Iterable[str] | None = None) -> Judgement:
    """PERM-16 (``shell-allow``): ``allow Bash(mkdir:*)`` allows no command that also runs touch."""
    return _shell_judgement(
        run,
        UNALLOWED_COMPOUNDS,
        shell_allow_ids(),
        ALLOW_CONTROL,
        "f16-",
        "only mkdir is allowed",
        labels,
    )


# -- PERM-11 -------------------------------------------------------------------------------------


def judge_path_rules(run: WireRun) -> Judgement:
    """PERM-11 (``paths``): a deny rule on a file holds however its path is spelled, a link included.

    A denied file's token in any request means the harness read it to the model. Proof: the
    control file's token reached the model, so the read tool reads.
    """
    bodies = [r.body.decode("utf-8", "replace") for r in main_requests(run.requests)]
    unproven = _tool_offered(run, "read")
    if not any(PLAIN_TOKEN in body for body in bodies):
        unproven.append("the control read (plain.txt) never reached the model: the read tool read nothing")
    problems = []
    ids = paths_ids()
    for label, path in PATH_READS.items():
        if label == "control":
            continue
        block = _block(run, ids[label])
        text = result_text(block) if block is not None else ""
        if SECRET_TOKEN in text or HOME_SECRET_TOKEN in text:
            problems.append(f"{label}: reading {path!r} returned the denied file's content")
        problems += _error_problem(run, ids[label], f"{label}: read {path!r}", unproven)
    if any(SECRET_TOKEN in body or HOME_SECRET_TOKEN in body for body in bodies) and not problems:
        problems.append("a denied file's content reached the model")
    return problems, unproven


# -- PERM-15, PERM-9 ----------------------------------------------------------------------------------


def _planted(run: WireRun, relative: str) -> bool:
    path = _path(run, relative)
    return (
        path is not None
        and path.is_file()
        and "planted" in path.read_text(encoding="utf-8", errors="replace")
    )


def _accept_edits_unproven(run: WireRun) -> list[str]:
    unproven = _tool_offered(run, "write")
    if not _planted(run, EDIT_CONTROL):
        unproven.append(f"the control write ({EDIT_CONTROL}) wrote nothing: acceptEdits did not take effect")
    return unproven


def judge_protected_paths(run: WireRun) -> Judgement:
    """PERM-15 (``protected``): in acceptEdits no protected path is written, by the write tool or a redirection."""
    ids = protected_ids()
    problems: list[str] = []
    unproven = _accept_edits_unproven(run)
    for label, path in PROTECTED_WRITES.items():
        if _planted(run, path):
            problems.append(f"{label}: the write tool wrote the protected {path} in acceptEdits")
        problems += _error_problem(run, ids[label], f"{label}: write {path}", unproven)
    if _planted(run, REDIRECTED) or (_exists(run, REDIRECTED)):
        problems.append(f"a shell redirection wrote the protected {REDIRECTED} in acceptEdits")
    return problems, unproven


def judge_accept_edits(run: WireRun) -> Judgement:
    """PERM-9 (``protected``): acceptEdits allows a write inside the working directory, not one outside."""
    ids = protected_ids()
    problems: list[str] = []
    unproven = _accept_edits_unproven(run)
    if _planted(run, OUTSIDE):
        problems.append(f"acceptEdits wrote {OUTSIDE}, outside the working directory")
    problems += _error_problem(run, ids["outside"], f"write {OUTSIDE}", unproven)
    control = _block(run, ids["control"])
    if control is not None and control.get("is_error") is True:
        problems.append(f"the in-directory write is an error: {result_text(control)[:160]!r}")
    return problems, unproven


# -- CONC-4 ------------------------------------------------------------------------------------


def judge_failed_shell(run: WireRun) -> Judgement:
    """CONC-4 (``shell-fail``): after a shell call fails, its queued shell siblings don't run and get errors."""
    ids = shell_fail_ids()
    unproven = _tool_offered(run, "shell")
    if not _exists(run, "c4-first"):
        unproven.append("the failing shell command never ran (c4-first is missing)")
    problems = _error_problem(run, ids["first"], "the command that exited 3")
    for label in ("second", "third"):
        if _exists(run, f"c4-{label}"):
            problems.append(f"{label}: {SHELL_FAIL[label]!r} ran after its shell sibling failed")
        problems += _error_problem(run, ids[label], f"{label}, queued behind a failed shell call")
    return problems, unproven


# -- RESULT-2, RESULT-3 ---------------------------------------------------------------------------------


def _served(run: WireRun, tools: Iterable[str]) -> list[str]:
    return [f"the suite's MCP server never ran {tool} to its end" for tool in tools if not called(run, tool)]


def judge_images_kept(run: WireRun) -> Judgement:
    """RESULT-2 (``images``): a result with an image is never persisted, whatever its size.

    Proof: the text-only result of the same size was replaced (shorter), so the size is over the
    harness's limit.
    """
    unproven = _served(run, ("pic", "text_only"))
    caption = "p" * IMAGE_TEXT_CHARS
    text_only = _block(run, ImageIds.TEXT_ONLY)
    if text_only is not None and caption in result_text(text_only):
        unproven.append(
            f"the {IMAGE_TEXT_CHARS}-character text-only result went inline too: "
            "this size is not over the harness's limit, so an image's exemption can't be seen"
        )
    problems = []
    picture = _block(run, ImageIds.PICTURE)
    content = picture.get("content") if picture is not None else None
    images = (
        [b for b in content if isinstance(b, Mapping) and b.get("type") == "image"]
        if isinstance(content, list)
        else []
    )
    if picture is None:
        problems.append(f"{ImageIds.PICTURE} (an image result) got no result")
    else:
        if not images:
            problems.append(f"{ImageIds.PICTURE}: the image result was sent without its image")
        if caption not in result_text(picture):
            problems.append(
                f"{ImageIds.PICTURE}: the image result's text was replaced or cut "
                f"({len(result_text(picture))} of {IMAGE_TEXT_CHARS} characters sent)"
            )
    return problems, unproven


def judge_message_budget(run: WireRun) -> Judgement:
    """RESULT-3 (``budget``): one message's results stay within the budget, the largest replaced first."""
    unproven = _served(run, BUDGET_SIZES)
    ids = budget_ids()
    problems = []
    sizes = {}
    for tool in BUDGET_SIZES:
        block = _block(run, ids[tool])
        if block is None:
            problems.append(f"{ids[tool]} ({tool}) got no result")
            continue
        sizes[tool] = len(result_text(block))
    total = sum(sizes.values())
    replaced = [t for t in sizes if budget_output(t) not in result_text(_block(run, ids[t]) or {})]
    if total > BUDGET_CHARS:
        problems.append(
            f"the {len(sizes)} results of one message total {total} characters, over the "
            f"{BUDGET_CHARS}-character budget (replaced: {sorted(replaced) or 'none'})"
        )
    largest = max(BUDGET_SIZES, key=lambda t: BUDGET_SIZES[t])
    if replaced and largest not in replaced:
        problems.append(f"{sorted(replaced)} were replaced but not the largest result ({largest})")
    return problems, unproven


# -- HOOK-8 ---------------------------------------------------------------------------------------


def judge_hook_sources(run: WireRun) -> Judgement:
    """HOOK-8 (``hook-sources``): an async hook never decides, a plugin's hook decides, an unreachable http hook doesn't block.

    Proof: the async and the plugin hook logged their input (the plugin's program is named through
    ``${CLAUDE_PLUGIN_ROOT}``, so it ran only if the root was expanded).
    """
    unproven = [
        f"the suite's {hook} hook never ran for {tool}"
        for hook, tool in (("async-deny", "h_async"), ("plugin-deny", "h_plugin"))
        if not hook_saw(run, hook, tool)
    ]
    problems = []
    if not called(run, "h_async", outcome="ok"):
        problems.append("h_async did not run: an async hook's deny decided the call")
    if called(run, "h_plugin"):
        problems.append("h_plugin ran although its plugin's PreToolUse hook denied it")
    problems += _error_problem(run, HookSourceIds.PLUGIN, "h_plugin, denied by a plugin hook")
    if not called(run, "h_http", outcome="ok"):
        problems.append("h_http did not run: an http hook nothing answers blocked the call")
    return problems, unproven


# -- DEFER-5 ----------------------------------------------------------------------------------------


def _references(run: WireRun, tool_use_id: str) -> list[str] | None:
    block = _block(run, tool_use_id)
    if block is None:
        return None
    content = block.get("content")
    blocks = content if isinstance(content, list) else []
    return [
        str(b.get("tool_name"))
        for b in blocks
        if isinstance(b, Mapping) and b.get("type") == "tool_reference"
    ]


def judge_keyword_search(run: WireRun) -> Judgement:
    """DEFER-5 (``search``): an exact name, a required term, a limit, no match and a server prefix.

    Proof: some search returned a tool_reference, so the search tool searched the deferred tools.
    """
    ids = search_ids()
    found = {label: _references(run, ids[label]) for label in ids}
    unproven = _tool_offered(run, "tool_search")
    if not any(found.values()):
        unproven.append("no search returned a tool_reference: the deferred tools were never searched")
    served = {run.names.mcp(tool): tool for tool in SEARCH_TOOLS}
    problems = []
    for label, refs in found.items():
        if refs is None:
            problems.append(f"{ids[label]} ({label}) got no result")
    exact, required, limit = found["exact"], found["required"], found["limit"]
    if exact is not None and exact[:1] != [run.names.mcp("n_notes")]:
        problems.append(
            f"searching the exact name {run.names.mcp('n_notes')} returned {exact}, not that tool first"
        )
    if required is not None:
        wrong = [r for r in required if "forecast" not in SEARCH_TOOLS.get(served.get(r, ""), "").lower()]
        if wrong or not required:
            problems.append(
                f"+forecast returned {required}: every tool must contain the required term, and two do"
            )
    if limit is not None and len(limit) != 1:
        problems.append(f"max_results 1 returned {len(limit)} tools: {limit}")
    nothing = _block(run, ids["nothing"])
    if nothing is not None and (_references(run, ids["nothing"]) or not result_text(nothing).strip()):
        problems.append(
            f"a query nothing matches returned {nothing.get('content')!r}, not a text saying so"[:300]
        )
    server = found["server"]
    if server is not None and sorted(server) != sorted(served):
        problems.append(f"the server prefix returned {server}, not the server's five tools")
    return problems, unproven


# -- PERM-12 --------------------------------------------------------------------------------------


def judge_malformed_rules(run: WireRun) -> Judgement:
    """PERM-12 (``malformed``): a deny rule that can't match as written is refused, naming it, or means what it names.

    Refusing to start with an error naming the settings file complies. Running, the command each
    malformed rule means must not run; the control (allowed by ``--settings``) must.
    """
    outcome = run.outcome
    if not run.message_requests and not outcome.timed_out and outcome.start_error is None:
        if outcome.exit_code != 0 and "settings" in outcome.stderr.lower():
            return [], []
        return [
            f"the harness stopped without a request and without naming the settings file: {outcome.stderr[-300:]!r}"
        ], []
    unproven = _tool_offered(run, "shell")
    if not _exists(run, MALFORMED_CONTROL):
        unproven.append(f"the allowed control (echo ran > {MALFORMED_CONTROL}) did not run")
    ids = malformed_ids()
    problems = []
    for label, (rule, command, created) in MALFORMED_DENIES.items():
        if _exists(run, created):
            problems.append(f"{label}: the deny rule {rule!r} was loaded and never applied: {command!r} ran")
        problems += _error_problem(run, ids[label], f"{label}: {command!r} under {rule!r}", unproven)
    return problems, unproven
