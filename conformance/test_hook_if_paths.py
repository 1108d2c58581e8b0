"""A hook handler's ``if`` with a path rule (HOOK-1), on PreToolUse and PostToolUse alike.

``if`` takes any permission rule, not only ``Bash(...)``: ``"Edit(//src/**/*.py)"`` scopes a hook to
the edits of those files. The rule is matched as the harness matches its own path rules, which follow
gitignore's globs (PERM-11), so git is the judge here too: each draw composes a glob from gitignore's
pieces (:mod:`conformance._path_globs`), files made from it and from other globs, and calls of the
rule's tool and of a tool it does not name on those files.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._path_globs import gitignore_matches, globs_and_paths, rule_content
from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import edit_tool, host_answering, read_tool, run_calls
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HookSpec

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None, reason="git (the gitignore oracle) is not installed"
)

ANSWER_TIMEOUT_S = 10.0
OTHER_TOOL = "Deploy"
CONTEXT = "scoped-context-7f3a"


@dataclass(frozen=True, slots=True)
class PathIfCase:
    """A path rule's tool and glob, and calls on files below DATA (tool name, relative path)."""

    tool: str
    glob: str
    calls: tuple[tuple[str, str], ...]


@st.composite
def path_if_cases(draw: st.DrawFn) -> PathIfCase:
    """A ``Read`` or ``Edit`` rule's glob and 1-5 calls on paths made from it or from other globs.

    A path made from the rule's glob (one piece perhaps changed) mostly matches it; one made from
    another glob mostly does not; git says which. A call of a tool the rule does not name (``Deploy``
    with a ``file_path``) never matches, whatever its path.
    """
    tool = draw(st.sampled_from(["Read", "Edit"]))
    glob, first = draw(globs_and_paths(dangling=True))
    others = st.lists(globs_and_paths().map(lambda pair: pair[1]), max_size=3)
    paths: list[str] = []
    for path in [first, *draw(others)]:
        # Each path a file: none may be a directory above another.
        if not any(path == p or path.startswith(p + "/") or p.startswith(path + "/") for p in paths):
            paths.append(path)
    calls = [(tool, path) for path in paths]
    if draw(st.booleans()):
        calls.append((OTHER_TOOL, draw(st.sampled_from(paths))))
    return PathIfCase(tool, glob, tuple(draw(st.permutations(calls))))


def _hook(event: str, outcome: str, matcher: str | None, rule: str) -> HookSpec:
    return HookSpec(
        event=event,  # type: ignore[arg-type]
        outcome=outcome,  # type: ignore[arg-type]
        matcher=matcher,
        reason=f"scoped {outcome} hook",
        context=CONTEXT,
        as_command=True,
        timeout=ANSWER_TIMEOUT_S,
        if_rule=rule,
    )


@requires("execution", "permissions", "hooks", "command_hooks", "host_callback", "hook_if")
@pytest.mark.requirement("HOOK-1", "MUST")
@settings(max_examples=25, deadline=None)
@given(
    case=path_if_cases(),
    hooked=st.sampled_from([("PreToolUse", "deny"), ("PreToolUse", "allow"), ("PostToolUse", "context")]),
    matcher=st.sampled_from([None, "*", "rule's tool"]),
    host_allows=st.booleans(),
)
@example(
    case=PathIfCase("Edit", "a/**/b*", (("Edit", "a/x/bc"), ("Edit", "a/c"), (OTHER_TOOL, "a/x/bc"))),
    hooked=("PreToolUse", "deny"),
    matcher=None,
    host_allows=True,
)
@example(
    case=PathIfCase("Read", "a[!b]c", (("Read", "a/c"), ("Read", "abc"), ("Read", "aac"))),
    hooked=("PostToolUse", "context"),
    matcher="rule's tool",
    host_allows=True,
)
def test_a_path_rule_if_scopes_the_hook_to_exactly_the_files_git_matches(
    new_harness: Callable[[], Any],
    case: PathIfCase,
    hooked: tuple[str, str],
    matcher: str | None,
    host_allows: bool,
) -> None:
    """HOOK-1: a tool hook whose ``if`` is ``Read(//DATA/GLOB)`` or ``Edit(...)`` runs for exactly the calls of that tool on the files git's gitignore glob matches.

    PreToolUse: a scoped deny hook denies exactly those calls without asking; a scoped allow hook lets
    exactly those run unasked (files outside the working directory: asked otherwise). PostToolUse: a
    scoped hook's additional context reaches the model with exactly those calls' results. Every other
    call (a path git does not match, a tool the rule does not name) gets what it gets with no hook. A
    harness may refuse an ``if`` whose glob git finds no match for here, naming the rule.
    """
    event, outcome = hooked
    cwd, data = fresh_dir() / "project", fresh_dir() / "data"
    cwd.mkdir()
    for _, path in case.calls:
        (data / path).parent.mkdir(parents=True, exist_ok=True)
        (data / path).write_text("guarded\n", encoding="utf-8")
    rule = f"{case.tool}(/{data}/{rule_content(case.glob)})"
    matched = [name == case.tool and gitignore_matches(data, case.glob, path) for name, path in case.calls]
    calls = [(name, {"file_path": str(data / path)}) for name, path in case.calls]
    # The other tool has a file_path but no permission target: a path rule must not read it.
    other = dataclasses.replace(read_tool(OTHER_TOOL), permission_kind=None, permission_field=None)
    tools = [read_tool() if case.tool == "Read" else edit_tool(), other]
    hook = _hook(event, outcome, case.tool if matcher == "rule's tool" else matcher, rule)

    def run(hooks: list[HookSpec]) -> Any:
        host = host_answering("allow" if host_allows else "deny")
        return run_calls(new_harness(), tools, calls, hooks=hooks, host=host, cwd=cwd)

    without = run([])
    try:
        scoped = run([hook])
    except Exception as error:  # a refused rule: only one that matches nothing here may be, and by name
        refused = str(error)
        assert not any(matched), f"{rule} refused ({refused}), yet git says it matches {case.calls}"
        assert rule in refused or repr(rule) in refused, f"refused {rule!r} without naming it: {refused}"
        return
    where = (
        f"({event} {outcome} hook, matcher {hook.matcher!r}, host {'allows' if host_allows else 'denies'})"
    )
    for index, ((name, path), hit) in enumerate(zip(case.calls, matched, strict=True), start=1):
        tool_use_id = f"toolu_{index}"
        what = f"{name} {path!r} {'matches' if hit else 'does not match'} if {rule!r} by git's reading"
        got = (scoped.ran(tool_use_id), (name, calls[index - 1][1]) in scoped.asked)
        alone = (without.ran(tool_use_id), (name, calls[index - 1][1]) in without.asked)
        if event == "PostToolUse":
            assert got == alone, f"{what}: a PostToolUse hook changed whether it ran or was asked {where}"
            continue
        expected = ((0, False) if outcome == "deny" else (1, False)) if hit else alone
        assert got == expected, (
            f"{what}: with the scoped hook the call must "
            f"{'be decided by the hook' if hit else 'keep its verdict without the hook'}: "
            f"(ran, asked) {expected}, got {got} {where}"
        )

    if event == "PostToolUse":
        # One context per call the hook ran after: the calls that ran and match.
        expected_contexts = sum(
            1 for i, hit in enumerate(matched, start=1) if hit and scoped.ran(f"toolu_{i}")
        )
        seen = scoped.all_text().count(CONTEXT)
        assert seen == expected_contexts, (
            f"the scoped PostToolUse hook's context reached the model {seen} times, but "
            f"{expected_contexts} of the calls that ran match {rule!r} by git's reading {where}: {scoped.describe()}"
        )
