"""Shared helpers of the execution conformance tests: running scenarios, reading results, failure batches.

Harness-agnostic: everything goes through the ``execution`` capability and the plain-data specs.
Each call of a generated batch gets its own tool (a distinct name), so a rule, a hook or a host
answer can target exactly one call.

Permission rules are in play only when the adapter declares ``permissions``: for a harness without a
permission engine the suite puts no rule in a scenario (:func:`allow_rules` is then empty) and draws
only the failure kinds any harness has (:data:`CORE_KINDS`).
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias, get_args

from hypothesis import assume
from hypothesis import strategies as st

from pytest_toolharness.processes import remove_at_exit
from pytest_toolharness.specs import (
    CallRecorder,
    ExecutionResult,
    ExecutionScenario,
    HookSpec,
    HostAnswer,
    HostSpec,
    RuleSpec,
    ToolBehavior,
    ToolSpec,
)
from pytest_toolharness.strategies import indices

__all__ = [
    "BLANKS",
    "CORE_KINDS",
    "HANG_GUARD",
    "NAMES",
    "PERMISSION_KINDS",
    "SCHEMA",
    "SUCCESS_KINDS",
    "FailureKind",
    "Planned",
    "Run",
    "allow_rules",
    "assume_receivable",
    "batches",
    "check_pairing",
    "execute",
    "fresh_dir",
    "is_error",
    "ok_tool",
    "pick_sorted",
    "plan_batch",
    "scenario_root",
    "text_of",
    "tool_results",
    "tool_use",
]

HANG_GUARD = 20.0
"""Seconds after which a scenario that never finishes fails the test (a hang guard, not a timing check)."""

# Names that are not prefixes of one another, so a rule or hook matcher for one never matches another.
# Blank text: nothing, or only whitespace the API does not count as text.
BLANKS = st.lists(st.sampled_from(["", " ", "\n", "\t", "\r\n"]), max_size=3).map("".join)

NAMES: tuple[str, ...] = (
    "Alpha",
    "Bravo",
    "Charlie",
    "Delta",
    "Echo",
    "Foxtrot",
    "Golf",
    "Hotel",
    "India",
    "Juliett",
)

SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "required": ["n"],
}
"""The input schema of generated tools: ``{"n": <integer>}`` (other keys allowed)."""

CoreKind: TypeAlias = Literal[
    "ok",
    "empty",
    "unknown",
    "schema",
    "not_object",
    "own_validation",
    "validation_crash",
    "raise",
]
"""Failure kinds every harness has: no rule, hook or host involved. ``not_object``: the input is
not a JSON object at all (a list or a string, as a replayed or hand-edited transcript may hold);
``validation_crash``: the tool's own validation raises instead of answering."""

FailureKind: TypeAlias = Literal[
    CoreKind,
    "rule_deny",
    "shell_ok",
    "shell_raise",
    "hook_deny",
    "hook_crash",
    "host_deny",
    "host_crash",
    "headless_ask",
    "hook_exit2",
    "hook_garbage",
    "timeout",
]

CORE_KINDS: tuple[str, ...] = get_args(CoreKind)
"""The :data:`CoreKind` names, in order."""

PERMISSION_KINDS: frozenset[str] = frozenset({"rule_deny", "host_deny", "host_crash", "headless_ask"})
"""Failure kinds made by a permission rule (they need the ``permissions`` capability)."""

SUCCESS_KINDS: frozenset[str] = frozenset({"ok", "empty", "shell_ok"})
"""Kinds whose call must succeed."""
# A crashed or garbled hook is a non-blocking error (HOOK-3); a harness may also fail closed.
_EITHER_WAY: frozenset[str] = frozenset({"shell_sibling", "hook_crash", "hook_garbage"})


@dataclass
class Run:
    """One executed scenario: what the harness returned and what the suite observed."""

    result: ExecutionResult
    scenario: ExecutionScenario

    @property
    def recorder(self) -> CallRecorder:
        """The scenario's call recorder."""
        return self.scenario.recorder

    @property
    def content(self) -> list[dict[str, Any]]:
        """The content of the user message that follows."""
        return self.result.user_content

    def results_by_id(self) -> dict[str, dict[str, Any]]:
        """The tool_result blocks by tool_use id (the last one wins; see :func:`check_pairing`).

        Looking up an id the harness sent no result for fails the test as the harness's failure (an
        ``AssertionError`` naming the id), not as a ``KeyError`` of the suite.
        """
        return _ResultsById((str(r.get("tool_use_id")), r) for r in tool_results(self.content))


class _ResultsById(dict[str, dict[str, Any]]):
    """tool_result blocks by id; a missing id is the harness's failure to answer it."""

    def __missing__(self, tool_use_id: str) -> dict[str, Any]:
        raise AssertionError(f"no tool_result for {tool_use_id} (results were sent for: {sorted(self)})")


def pick_sorted(data: st.DataObject, names: Iterable[str], label: str) -> str:
    """One of ``names`` (sorted, so the draw never depends on their order), without a new strategy."""
    ordered = sorted(names)
    index: int = data.draw(indices(len(ordered)), label=label)
    return ordered[index]


_ROOT: list[Path] = []
_COUNTER = itertools.count()


def fresh_dir() -> Path:
    """A new empty directory under one per-process root (removed at exit: deleting per run is slow)."""
    if not _ROOT:
        _ROOT.append(Path(tempfile.mkdtemp(prefix="conformance-")).resolve())
        remove_at_exit(_ROOT[0])
    path = _ROOT[0] / f"run-{next(_COUNTER)}"
    path.mkdir()
    return path


@contextmanager
def scenario_root() -> Iterator[Path]:
    """A fresh directory holding a scenario's ``cwd`` and ``session_dir`` (see :func:`fresh_dir`)."""
    root = fresh_dir()
    (root / "cwd").mkdir()
    (root / "session").mkdir()
    yield root


def execute(
    harness: Any,
    root: Path,
    tools: Sequence[ToolSpec],
    tool_uses: Sequence[Mapping[str, Any]],
    *,
    setup: Callable[[ExecutionScenario], None] | None = None,
    **options: Any,
) -> Run:
    """Run one scenario on ``harness`` (``execute`` awaited inside ``asyncio.run``).

    ``setup`` is called inside the event loop with the scenario before it runs (to arm gates or
    fallback timers). A scenario that does not finish within :data:`HANG_GUARD` seconds fails, and so
    does one whose results went out in a request the API rejects (``ExecutionResult.rejection``).
    """

    async def go() -> Run:
        scenario = ExecutionScenario(
            tools=list(tools),
            tool_uses=[dict(b) for b in tool_uses],
            recorder=CallRecorder(),
            cwd=root / "cwd",
            session_dir=root / "session",
            **options,
        )
        if setup is not None:
            setup(scenario)
        try:
            result = await asyncio.wait_for(harness.execute(scenario), HANG_GUARD)
        except TimeoutError:
            raise AssertionError(
                f"the harness did not finish the batch {[b['id'] for b in tool_uses]} within "
                f"{HANG_GUARD:g} s; calls started: {scenario.recorder.started()}, "
                f"ended: {scenario.recorder.ended()}"
            ) from None
        if result.rejection is not None:
            # A rejected request is itself the finding: graded with the API's text, never as if sent.
            raise AssertionError(
                f"the Messages API rejects the harness's request for the batch {[b['id'] for b in tool_uses]} "
                f"(400: {result.rejection}), so the model never sees its results; the results sent: "
                f"{result.user_content}"
            )
        return Run(result, scenario)

    return asyncio.run(go())


def tool_use(tool_use_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    """A tool_use block."""
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}


def tool_results(content: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The tool_result blocks of a user message's content, in order."""
    return [dict(b) for b in content if isinstance(b, Mapping) and b.get("type") == "tool_result"]


def text_of(result: Mapping[str, Any]) -> str:
    """The text of a tool_result's content (string, or the text blocks joined)."""
    content = result.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(
        str(b.get("text", "")) for b in content if isinstance(b, Mapping) and b.get("type") == "text"
    )


def is_error(result: Mapping[str, Any]) -> bool:
    """Whether a tool_result is marked as an error."""
    return result.get("is_error") is True


def check_pairing(run: Run) -> None:
    """PAIR-1: exactly one tool_result per tool_use id, none for other ids, results before other blocks."""
    asked = [str(b["id"]) for b in run.scenario.tool_uses]
    kinds = [b.get("type") for b in run.content]
    answered = [str(r.get("tool_use_id")) for r in tool_results(run.content)]
    missing = [i for i in asked if i not in answered]
    doubled = sorted({i for i in answered if answered.count(i) > 1})
    unexpected = [i for i in answered if i not in asked]
    assert not missing, f"tool_use ids without a tool_result: {missing} (blocks: {kinds})"
    assert not doubled, f"tool_use ids answered more than once: {doubled} (answered: {answered})"
    assert not unexpected, f"tool_results for ids that were not asked: {unexpected} (asked: {asked})"
    first_other = next((i for i, k in enumerate(kinds) if k != "tool_result"), len(kinds))
    late = [i for i, k in enumerate(kinds) if k == "tool_result" and i > first_other]
    assert not late, f"tool_result blocks come after a {kinds[first_other]!r} block: block kinds {kinds}"


def allow_rules(tools: Sequence[ToolSpec], capabilities: Collection[str]) -> list[RuleSpec]:
    """An allow rule for each tool (so that nobody needs to be asked), when the harness has rules at all.

    Without the ``permissions`` capability: no rule (a harness without a permission engine runs every
    call it can, and gets no rule it would have to ignore).
    """
    if "permissions" not in capabilities:
        return []
    return [RuleSpec(t.name, "allow") for t in tools]


def ok_tool(name: str, behavior: ToolBehavior | None = None, **flags: Any) -> ToolSpec:
    """A tool with the standard schema and the given behaviour."""
    return ToolSpec(
        name=name,
        description=f"The {name} tool.",
        input_schema=SCHEMA,
        behavior=behavior or ToolBehavior("text", text=f"{name} done"),
        **flags,
    )


@dataclass
class Planned:
    """A generated batch: tools, tool_use blocks, rules, hooks, host and options, plus what each id is."""

    kinds: dict[str, str]
    tools: list[ToolSpec] = field(default_factory=list)
    tool_uses: list[dict[str, Any]] = field(default_factory=list)
    rules: list[RuleSpec] = field(default_factory=list)
    hooks: list[HookSpec] = field(default_factory=list)
    host_denies: set[str] = field(default_factory=set)
    host_crashes: set[str] = field(default_factory=set)
    call_timeout: float | None = None
    needs_host: bool = False
    reasons: dict[str, str] = field(default_factory=dict)
    """Per failing id, the words of what went wrong that its error text must carry (PAIR-3)."""

    def options(self) -> dict[str, Any]:
        """Keyword arguments for :func:`execute`."""
        options: dict[str, Any] = {"rules": self.rules, "hooks": self.hooks}
        if self.needs_host:
            denies, crashes = frozenset(self.host_denies), frozenset(self.host_crashes)

            def answer(name: str, _input: Mapping[str, Any]) -> HostAnswer:
                if name in crashes:  # the permission prompt itself fails: never an allow
                    raise RuntimeError(f"the permission prompt for {name} crashed")
                return (
                    HostAnswer("deny", message=f"{name} rejected by the host")  # plan.reasons
                    if name in denies
                    else HostAnswer("allow")
                )

            options["host"] = HostSpec(answer)
        if self.call_timeout is not None:
            options["call_timeout"] = self.call_timeout
        return options

    def expected_failures(self) -> list[str]:
        """The ids whose call must end in an error result (a shell sibling of a failed shell call too)."""
        return [i for i, k in self.kinds.items() if k not in SUCCESS_KINDS | _EITHER_WAY]

    def expected_successes(self) -> list[str]:
        """The ids whose call must succeed."""
        return [i for i, k in self.kinds.items() if k in SUCCESS_KINDS]


def plan_batch(kinds: Sequence[str], *, permissions: bool = True) -> Planned:
    """Build a batch where call ``i`` fails (or succeeds) as ``kinds[i]`` says.

    With ``permissions=False`` the batch has no rule at all, and a kind made by a rule is an error.
    """
    if not permissions and PERMISSION_KINDS.intersection(kinds):
        raise ValueError(f"kinds {sorted(PERMISSION_KINDS.intersection(kinds))} need permission rules")
    plan = Planned(kinds={})
    for index, kind in enumerate(kinds):
        name = NAMES[index]
        tool_use_id = f"toolu_{index:02d}_{kind}"
        plan.kinds[tool_use_id] = kind
        tool_input: Any = {"n": index}
        flags: dict[str, Any] = {}
        behavior = ToolBehavior("text", text=f"{name} done")
        if kind == "empty":
            behavior = ToolBehavior("empty")
        elif kind == "schema":
            tool_input = {"n": "not an integer"}
        elif kind == "not_object":
            tool_input = ["n", index] if index % 2 else f"n={index}"
        elif kind == "own_validation":
            flags["rejects_when"] = "forbidden"
            tool_input = {"n": index, "forbidden": True}
            plan.reasons[tool_use_id] = ToolSpec(name, "", {}, rejects_when="forbidden").rejection_message()
        elif kind == "validation_crash":
            flags["validation_raises_when"] = "fragile"
            tool_input = {"n": index, "fragile": True}
        elif kind == "rule_deny":
            plan.rules.append(RuleSpec(name, "deny"))
        elif kind in ("raise", "shell_raise"):
            behavior = ToolBehavior("raise", message=f"{name} broke")
            plan.reasons[tool_use_id] = f"{name} broke"
        elif kind == "hook_deny":
            plan.hooks.append(HookSpec("PreToolUse", "deny", matcher=name, reason=f"{name} blocked by hook"))
            plan.reasons[tool_use_id] = f"{name} blocked by hook"
        elif kind == "hook_crash":
            plan.hooks.append(HookSpec("PreToolUse", "crash", matcher=name))
        elif kind == "hook_exit2":
            plan.hooks.append(
                HookSpec(
                    "PreToolUse", "exit2", matcher=name, reason=f"{name} blocked by exit 2", as_command=True
                )
            )
        elif kind == "hook_garbage":
            plan.hooks.append(HookSpec("PreToolUse", "garbage", matcher=name, as_command=True))
        elif kind == "host_deny":
            plan.rules.append(RuleSpec(name, "ask"))
            plan.host_denies.add(name)
            plan.needs_host = True
            plan.reasons[tool_use_id] = f"{name} rejected by the host"
        elif kind == "host_crash":
            plan.rules.append(RuleSpec(name, "ask"))
            plan.host_crashes.add(name)
            plan.needs_host = True
        elif kind == "headless_ask":
            plan.rules.append(RuleSpec(name, "ask"))
            plan.host_denies.add(name)  # when the batch has a host, it says no to this one too
        elif kind == "timeout":
            behavior = ToolBehavior("hang")
            plan.call_timeout = 0.1
        if kind in ("shell_ok", "shell_raise"):
            flags["shell"] = True
        if permissions and kind not in PERMISSION_KINDS:
            # Everything else is allowed by a rule, so only the stage under test can reject it.
            plan.rules.append(RuleSpec(name, "allow"))
        if kind != "unknown":
            plan.tools.append(ok_tool(name, behavior, **flags))
        plan.tool_uses.append(
            tool_use(tool_use_id, name if kind != "unknown" else f"Missing{name}", tool_input)
        )
    if any(k == "shell_raise" for k in kinds):
        # Shell siblings of a failing shell call may be cancelled: they can end either way.
        for tool_use_id, kind in plan.kinds.items():
            if kind == "shell_ok":
                plan.kinds[tool_use_id] = "shell_sibling"
    return plan


def assume_receivable(kinds: Collection[str], capabilities: Collection[str]) -> None:
    """Discard a drawn batch the harness can't be given: ``not_object`` needs ``non_object_input``.

    A harness fed through the Messages API (every framework adapter) gets each tool_use input as the
    API delivers it, always a JSON object; a list or a string input is not a draw for it.
    """
    assume("not_object" not in kinds or "non_object_input" in capabilities)


def batches(kinds: Sequence[str], *, min_size: int = 1, max_size: int = 6) -> st.SearchStrategy[list[str]]:
    """Lists of failure kinds (one per call) drawn from ``kinds``."""
    return st.lists(st.sampled_from(list(kinds)), min_size=min_size, max_size=max_size)
