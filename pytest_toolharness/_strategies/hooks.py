"""Hooks: what a hook answers, which tools its matcher selects, stacks of hooks on one event, settings.json.

Tool events (PreToolUse, PostToolUse, ...) and the lifecycle events an agent loop runs
(UserPromptSubmit, Stop, SessionStart) each have the outcomes that mean something for them
(:data:`OUTCOMES_BY_EVENT`, :data:`LIFECYCLE_OUTCOMES_BY_EVENT`); :func:`hook_stacks` draws two or three
hooks on one event at once, mixing JSON answers, exit codes and a broken hook among them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, get_args

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from pytest_toolharness._strategies.schemas import (
    WORDS,
    cached_strategy,
    descriptions,
    json_values,
    property_names,
)
from pytest_toolharness._strategies.text import utf8_characters
from pytest_toolharness._strategies.tools import BUILTIN_TOOL_NAMES, tool_names
from pytest_toolharness.specs import (
    HOOK_ALSO_FIELDS,
    MCP_PREFIX,
    TOOL_HOOK_EVENTS,
    HookAlso,
    HookOutcomeKind,
    HookSpec,
)

__all__ = [
    "ALSO_BY_EVENT",
    "BROKEN_OUTCOMES",
    "HOOK_EVENTS",
    "HOOK_OUTCOMES",
    "LIFECYCLE_OUTCOMES_BY_EVENT",
    "NON_BLOCKING_EXIT_CODES",
    "OUTCOMES_BY_EVENT",
    "hook_matchers",
    "hook_settings",
    "hook_specs",
    "hook_stacks",
    "lifecycle_hook_specs",
]

HOOK_EVENTS: tuple[str, ...] = TOOL_HOOK_EVENTS
"""The events the tool pipeline runs hooks for."""

HOOK_OUTCOMES: tuple[HookOutcomeKind, ...] = get_args(HookOutcomeKind)
"""Every outcome a :class:`HookSpec` can script."""

BROKEN_OUTCOMES: tuple[HookOutcomeKind, ...] = ("exit1", "garbage", "crash")
"""Outcomes of a hook that fails without blocking (a non-blocking error: it decides nothing)."""

NON_BLOCKING_EXIT_CODES: tuple[int, ...] = (1, 3, 126, 127, 255)
"""Exit statuses of a non-blocking hook error (``exit1`` outcomes): 1, the one past the blocking 2, a
program found but not runnable, one not found, and the highest."""

_FAILURES: tuple[HookOutcomeKind, ...] = ("exit2", *BROKEN_OUTCOMES, "hang")
# What any hook can say to the loop and the user besides its event's own answer (HOOK-5).
_SIGNALS: tuple[HookOutcomeKind, ...] = ("stop", "system_message")
OUTCOMES_BY_EVENT: Mapping[str, tuple[HookOutcomeKind, ...]] = {
    "PreToolUse": (
        "allow",
        "ask",
        "deny",
        "defer",
        "none",
        "update_input",
        "context",
        "legacy_approve",
        "legacy_block",
        *_SIGNALS,
        *_FAILURES,
    ),
    "PostToolUse": ("none", "context", "block", "update_output", "legacy_block", *_SIGNALS, *_FAILURES),
    "PostToolUseFailure": ("none", "context", *_SIGNALS, *_FAILURES),
    "PermissionRequest": ("allow", "deny", "none", *_SIGNALS, *_FAILURES),
}
"""The outcomes that mean something for each tool event (others would be garbage for it)."""

LIFECYCLE_OUTCOMES_BY_EVENT: Mapping[str, tuple[HookOutcomeKind, ...]] = {
    # block / exit 2 keep the prompt from the model; context goes with it; stop ends the loop.
    # Their plain stdout (exit 0, not JSON) is context too; a Stop hook's is for the user only.
    "UserPromptSubmit": ("none", "context", "plain_text", "block", "exit2", *_SIGNALS, *BROKEN_OUTCOMES),
    # block_once refuses the stop until stop_hook_active says it already did (an unguarded block, or
    # exit 2, would refuse every stop up to the loop's cap); stop ends the loop even beside a block.
    "Stop": ("none", "block_once", "plain_text", *_SIGNALS, *BROKEN_OUTCOMES),
    # SessionStart can't block; Claude Code ignores its continue: false, so no "stop" is drawn.
    "SessionStart": ("none", "context", "plain_text", "system_message", *BROKEN_OUTCOMES),
}
"""The outcomes that mean something for the lifecycle events an agent loop runs for every prompt."""

ALSO_BY_EVENT: Mapping[str, tuple[HookAlso, ...]] = {
    **{event: HOOK_ALSO_FIELDS for event in OUTCOMES_BY_EVENT if event != "PermissionRequest"},
    "PermissionRequest": tuple(f for f in HOOK_ALSO_FIELDS if f != "context"),
    "UserPromptSubmit": HOOK_ALSO_FIELDS,
    "Stop": tuple(f for f in HOOK_ALSO_FIELDS if f != "context"),
    # Claude Code ignores SessionStart's continue: false (see above).
    "SessionStart": tuple(f for f in HOOK_ALSO_FIELDS if f != "stop"),
}
"""The further output fields (:attr:`HookSpec.also`) a JSON answer to each event can carry beside its outcome."""

# Outcomes answered by an exit code, a crash, a hang or non-JSON: nothing can go beside them.
_NOT_JSON: frozenset[str] = frozenset({"exit2", *BROKEN_OUTCOMES, "plain_text", "hang", "deny_interrupt"})


@cached_strategy
def _literal_names(exclude: str) -> st.SearchStrategy[str]:
    # Only [A-Za-z0-9_] names: a matcher made of them is an exact-name list, never a regex.
    return tool_names().filter(lambda n: n != exclude and re.fullmatch(r"\w+", n, re.ASCII) is not None)


@cached_strategy
def hook_matchers(tool_name: str, *, matching: bool = True) -> st.SearchStrategy[str]:
    """Hook matchers that select ``tool_name`` (or, with ``matching=False``, that don't) (HOOK-1).

    Matching forms: the exact name, ``A|name|B``, an anchored regular expression, a prefix regex
    (``Rea.*``), ``""`` and ``*``. Non-matching forms: other exact names, lists of other names, and
    anchored regexes that need more than the name, and the name in other letter cases (exactly and
    anchored). Matchers follow Claude Code: a matcher of only
    letters, digits, ``_`` and ``|`` is a list of exact names; anything else is a regex searched
    in the name.
    """
    if not isinstance(tool_name, str) or not tool_name:
        raise InvalidArgument(f"tool_name must be a non-empty string, got {tool_name!r}")
    others = st.lists(_literal_names(tool_name), min_size=1, max_size=3, unique=True)
    if matching:
        return st.one_of(
            st.just(tool_name),
            st.tuples(others, st.integers(0, 3)).map(
                lambda p: "|".join([*p[0][: p[1]], tool_name, *p[0][p[1] :]])
            ),
            st.just(f"^{re.escape(tool_name)}$"),
            st.integers(1, len(tool_name)).map(lambda k: re.escape(tool_name[:k]) + ".*"),
            st.sampled_from(["", "*"]),
        )
    # The name in other cases: a matcher compares names exactly, so these select another tool.
    recased = sorted({tool_name.lower(), tool_name.upper(), tool_name.swapcase()} - {tool_name})
    case_forms = (
        [st.sampled_from(recased), st.sampled_from(recased).map(lambda n: f"^{re.escape(n)}$")]
        if recased
        else []
    )
    return st.one_of(
        *case_forms,
        _literal_names(tool_name),
        others.map("|".join),
        st.sampled_from(WORDS).map(lambda w: f"^{re.escape(tool_name)}_{w}$"),
        _literal_names(tool_name).map(lambda n: f"^{re.escape(n)}$"),
    )


def _events(event: str | Sequence[str] | None) -> list[str]:
    chosen = list(HOOK_EVENTS) if event is None else [event] if isinstance(event, str) else list(event)
    unknown = sorted(set(chosen) - set(HOOK_EVENTS))
    if unknown or not chosen:
        raise InvalidArgument(f"event must be one or more of {HOOK_EVENTS}, got {event!r}")
    return sorted(set(chosen), key=HOOK_EVENTS.index)


@cached_strategy
def _updated_inputs() -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(property_names(), st.text(utf8_characters(), max_size=12), max_size=3)


def _draw_spec(
    draw: st.DrawFn,
    event: str,
    outcome: HookOutcomeKind,
    tool_name: str | None,
    as_command: bool | None,
    updated_inputs: st.SearchStrategy[Mapping[str, Any]],
    marks: tuple[str, str] | None = None,
    also: Sequence[HookAlso] = (),
) -> HookSpec:
    """One hook of ``event`` answering ``outcome``, with a drawn subset of ``also`` beside it.

    ``marks`` (reason, context) replace drawn texts; the stop reason and system message then are
    ``reason`` and ``context`` with their first letter made ``S`` and ``M``.
    """
    matcher: str | None = None
    if event in OUTCOMES_BY_EVENT:
        if tool_name is not None:
            matcher = draw(st.one_of(st.none(), hook_matchers(tool_name)))
        else:
            matcher = draw(
                st.one_of(
                    st.none(), st.sampled_from(["", "*", "Edit|Write", f"{MCP_PREFIX}.*"]), tool_names()
                )
            )
    updated_input = None
    if outcome == "update_input" or (
        event == "PermissionRequest" and outcome == "allow" and draw(st.booleans())
    ):
        updated_input = draw(updated_inputs)
    reason, context = (
        marks if marks is not None else (draw(descriptions(max_words=6)), draw(descriptions(max_words=6)))
    )
    extras: tuple[HookAlso, ...] = ()
    if outcome not in _NOT_JSON:
        # A systemMessage outcome says its context to the user: that text can't also go to the model.
        taken = {outcome, "context"} if outcome == "system_message" else {outcome}
        offered = [f for f in also if f in ALSO_BY_EVENT.get(event, ()) and f not in taken]
        extras = tuple(draw(st.lists(st.sampled_from(offered), unique=True))) if offered else ()
    return HookSpec(
        event=event,  # type: ignore[arg-type]  # one of the tables' events, HookSpec's Literal
        outcome=outcome,
        matcher=matcher,
        reason=reason,
        updated_input=updated_input,
        context=context,
        updated_output=draw(json_values()) if outcome == "update_output" else None,
        as_command=draw(st.booleans()) if as_command is None else as_command,
        # A hanging hook is ended by its timeout, so keep that short; others get a generous one.
        timeout=draw(st.sampled_from([0.2, 0.5])) if outcome == "hang" else 10.0,
        also=extras,
        exit_code=draw(st.sampled_from(NON_BLOCKING_EXIT_CODES)) if outcome == "exit1" else 1,
        stop_reason=f"S{reason[1:]}" if "stop" in extras else None,
        system_message=f"M{context[1:]}" if "system_message" in extras else None,
    )


@st.composite
def _hook_specs(
    draw: st.DrawFn,
    plan: Sequence[tuple[str, Sequence[HookOutcomeKind]]],
    tool_name: str | None,
    as_command: bool | None,
    updated_inputs: st.SearchStrategy[Mapping[str, Any]],
) -> HookSpec:
    event, outcomes = draw(st.sampled_from(list(plan)))
    outcome = draw(st.sampled_from(list(outcomes)))
    return _draw_spec(draw, event, outcome, tool_name, as_command, updated_inputs)


def _check_outcomes(outcomes: Sequence[HookOutcomeKind] | None) -> None:
    if outcomes is not None:
        unknown = sorted(set(outcomes) - set(HOOK_OUTCOMES))
        if unknown or not outcomes:
            raise InvalidArgument(
                f"outcomes must be a non-empty subset of {HOOK_OUTCOMES}, got {list(outcomes)}"
            )


def _allowed(
    table: Mapping[str, tuple[HookOutcomeKind, ...]], event: str, outcomes: Sequence[HookOutcomeKind] | None
) -> list[HookOutcomeKind]:
    # hang is drawn only when named: each one costs its timeout.
    return [o for o in table[event] if (o in outcomes if outcomes is not None else o != "hang")]


def hook_specs(
    *,
    event: str | Sequence[str] | None = None,
    outcomes: Sequence[HookOutcomeKind] | None = None,
    tool_name: str | None = None,
    as_command: bool | None = None,
    updated_inputs: st.SearchStrategy[Mapping[str, Any]] | None = None,
) -> st.SearchStrategy[HookSpec]:
    """:class:`HookSpec` objects for the given event(s), with outcomes that make sense for each event.

    ``outcomes`` restricts the outcomes (see :data:`OUTCOMES_BY_EVENT`); ``hang`` is drawn only
    when named there, because each one costs its timeout. With ``tool_name`` the matcher is
    None or one that selects that tool. ``as_command`` None draws both command hooks and
    in-process callbacks. ``updated_inputs`` supplies the inputs of ``update_input`` outcomes
    (pass :func:`instances_of` of the tool's schema for rewrites that stay valid).
    """
    events = _events(event)
    _check_outcomes(outcomes)
    plan = []
    for ev in events:
        allowed = _allowed(OUTCOMES_BY_EVENT, ev, outcomes)
        if allowed:
            plan.append((ev, allowed))
    if not plan:
        raise InvalidArgument(f"none of the outcomes {list(outcomes or [])} applies to events {events}")
    if tool_name is not None and (not isinstance(tool_name, str) or not tool_name):
        raise InvalidArgument(f"tool_name must be a non-empty string, got {tool_name!r}")
    return _hook_specs(
        plan, tool_name, as_command, updated_inputs if updated_inputs is not None else _updated_inputs()
    )


def lifecycle_hook_specs(
    *,
    event: str | Sequence[str] | None = None,
    outcomes: Sequence[HookOutcomeKind] | None = None,
    as_command: bool | None = None,
) -> st.SearchStrategy[HookSpec]:
    """:class:`HookSpec` objects for the lifecycle events an agent loop runs (HOOK-5, HOOK-7).

    UserPromptSubmit: block (``decision: "block"`` or exit 2), additional context, ``continue: false``,
    ``systemMessage``; Stop: a block guarded by ``stop_hook_active`` (``block_once``),
    ``continue: false``, ``systemMessage``; SessionStart: context, ``systemMessage``; each also plain
    text on stdout (``plain_text``: context for UserPromptSubmit and SessionStart), a
    hook that says nothing and the broken ones (:data:`BROKEN_OUTCOMES`). ``outcomes`` restricts them
    (see :data:`LIFECYCLE_OUTCOMES_BY_EVENT`); no matcher (these events have none, or match everything).
    """
    chosen = (
        list(LIFECYCLE_OUTCOMES_BY_EVENT)
        if event is None
        else [event]
        if isinstance(event, str)
        else list(event)
    )
    unknown = sorted(set(chosen) - set(LIFECYCLE_OUTCOMES_BY_EVENT))
    if unknown or not chosen:
        raise InvalidArgument(
            f"event must be one or more of {tuple(LIFECYCLE_OUTCOMES_BY_EVENT)}, got {event!r}"
        )
    _check_outcomes(outcomes)
    plan = [(ev, a) for ev in chosen if (a := _allowed(LIFECYCLE_OUTCOMES_BY_EVENT, ev, outcomes))]
    if not plan:
        raise InvalidArgument(f"none of the outcomes {list(outcomes or [])} applies to events {chosen}")
    return _hook_specs(plan, None, as_command, _updated_inputs())


_MARKS = st.from_regex(r"[A-Z]{5,8}", fullmatch=True, alphabet=utf8_characters())


@st.composite
def _hook_stacks(
    draw: st.DrawFn,
    event: str,
    sound: Sequence[HookOutcomeKind],
    broken_kinds: Sequence[HookOutcomeKind],
    sizes: tuple[int, int],
    broken: bool | None,
    tool_name: str | None,
    as_command: bool | None,
    also: tuple[HookAlso, ...],
) -> list[HookSpec]:
    size = draw(st.integers(*sizes))
    if broken is None:
        kinds = draw(st.lists(st.sampled_from([*sound, *broken_kinds]), min_size=size, max_size=size))
    else:
        kinds = draw(st.lists(st.sampled_from(list(sound)), min_size=size, max_size=size))
        if broken:
            kinds[draw(st.integers(0, size - 1))] = draw(st.sampled_from(list(broken_kinds)))
    tokens = draw(st.lists(_MARKS, min_size=size, max_size=size, unique=True))
    return [
        _draw_spec(
            draw, event, kind, tool_name, as_command, _updated_inputs(), (f"R{i}{t}", f"C{i}{t}"), also
        )
        for i, (kind, t) in enumerate(zip(kinds, tokens, strict=True))
    ]


def hook_stacks(
    *,
    event: str,
    outcomes: Sequence[HookOutcomeKind] | None = None,
    min_size: int = 2,
    max_size: int = 3,
    broken: bool | None = None,
    tool_name: str | None = None,
    as_command: bool | None = None,
    also: Sequence[HookAlso] = (),
) -> st.SearchStrategy[list[HookSpec]]:
    """Several hooks on one event, in declaration order: what a stack of hooks must combine to.

    ``min_size`` to ``max_size`` hooks (1..5) on ``event`` (a tool event or a lifecycle one), each
    answering one of the event's outcomes (restricted by ``outcomes``), so a stack mixes JSON answers,
    exit codes and, with ``as_command`` None, command hooks with in-process ones. ``broken`` True puts
    exactly one broken hook (:data:`BROKEN_OUTCOMES`) among sound ones, False none, None lets either
    happen. Each hook's ``reason`` is ``R<index><token>`` and its ``context`` ``C<index><token>``, unique
    in the stack, so a test can tell which hook's words reached the model or the user.

    ``also`` names further output fields (:data:`ALSO_BY_EVENT`) each JSON answer may carry beside its
    outcome, a drawn subset per hook (:attr:`HookSpec.also`): one hook that blocks, adds context, stops
    the loop and messages the user at once. Its ``stopReason`` is ``S<index><token>`` and its
    ``systemMessage`` ``M<index><token>`` (read them with :meth:`HookSpec.says`, ``stop_text``,
    ``system_message_text``).
    """
    unknown_also = sorted(set(also) - set(HOOK_ALSO_FIELDS))
    if unknown_also:
        raise InvalidArgument(f"also must name fields of {HOOK_ALSO_FIELDS}, got {list(also)}")
    table = OUTCOMES_BY_EVENT if event in OUTCOMES_BY_EVENT else LIFECYCLE_OUTCOMES_BY_EVENT
    if event not in table:
        known = (*OUTCOMES_BY_EVENT, *LIFECYCLE_OUTCOMES_BY_EVENT)
        raise InvalidArgument(f"event must be one of {known}, got {event!r}")
    if not (isinstance(min_size, int) and isinstance(max_size, int) and 1 <= min_size <= max_size <= 5):
        raise InvalidArgument(f"need 1 <= min_size <= max_size <= 5, got {min_size!r}, {max_size!r}")
    _check_outcomes(outcomes)
    if tool_name is not None and (not isinstance(tool_name, str) or not tool_name):
        raise InvalidArgument(f"tool_name must be a non-empty string, got {tool_name!r}")
    allowed = _allowed(table, event, outcomes)
    sound = [o for o in allowed if o not in BROKEN_OUTCOMES]
    broken_kinds = (
        [o for o in allowed if o in BROKEN_OUTCOMES] if outcomes is not None else list(BROKEN_OUTCOMES)
    )
    if broken is not None and not sound:
        raise InvalidArgument(f"no sound outcome among {allowed} for event {event}")
    if broken is True and not broken_kinds:
        raise InvalidArgument(f"broken=True, but outcomes {list(outcomes or [])} name no broken outcome")
    if not sound and not broken_kinds:
        raise InvalidArgument(f"none of the outcomes {list(outcomes or [])} applies to event {event}")
    return _hook_stacks(
        event, sound, broken_kinds, (min_size, max_size), broken, tool_name, as_command, tuple(also)
    )


_HOOK_COMMANDS: tuple[str, ...] = (
    "echo ok",
    "./scripts/check.sh",
    "python3 .claude/hooks/guard.py",
    "npx prettier --write .",
    "make lint",
)


@st.composite
def _hook_settings(draw: st.DrawFn, matchers: st.SearchStrategy[str]) -> dict[str, Any]:
    events = draw(
        st.lists(st.sampled_from([*HOOK_EVENTS, "SessionStart", "Stop"]), min_size=1, max_size=3, unique=True)
    )
    settings: dict[str, Any] = {}
    for event in events:
        entries = []
        for _ in range(draw(st.integers(1, 2))):
            entry: dict[str, Any] = {}
            if event in HOOK_EVENTS:
                entry["matcher"] = draw(matchers)
            hook: dict[str, Any] = {"type": "command", "command": draw(st.sampled_from(_HOOK_COMMANDS))}
            if draw(st.booleans()):
                hook["timeout"] = draw(st.integers(1, 120))
            entry["hooks"] = [hook]
            entries.append(entry)
        settings[event] = entries
    return settings


def hook_settings(*, tool_names: Sequence[str] | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """The ``hooks`` object of a settings.json: event -> ``[{"matcher", "hooks": [{"type": "command", ...}]}]``.

    Tool events get matchers for names in ``tool_names`` (default: the built-in names); ``SessionStart``
    and ``Stop`` entries have no matcher, as Claude Code writes them.
    """
    names = sorted(set(tool_names)) if tool_names else list(BUILTIN_TOOL_NAMES)
    return _hook_settings(
        st.one_of(st.sampled_from(["", "*"]), st.sampled_from(names).flatmap(hook_matchers))
    )
