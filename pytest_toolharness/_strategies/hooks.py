"""Hooks: what a hook answers, which tools its matcher selects, and hooks in settings.json."""

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
from pytest_toolharness._strategies.tools import BUILTIN_TOOL_NAMES, tool_names
from pytest_toolharness._vocabulary import MCP_PREFIX, TOOL_HOOK_EVENTS
from pytest_toolharness.adapters._specs import HookOutcomeKind, HookSpec

__all__ = [
    "HOOK_EVENTS",
    "HOOK_OUTCOMES",
    "OUTCOMES_BY_EVENT",
    "hook_matchers",
    "hook_settings",
    "hook_specs",
]

HOOK_EVENTS: tuple[str, ...] = TOOL_HOOK_EVENTS
"""The events the tool pipeline runs hooks for."""

HOOK_OUTCOMES: tuple[HookOutcomeKind, ...] = get_args(HookOutcomeKind)
"""Every outcome a :class:`HookSpec` can script."""

_FAILURES: tuple[HookOutcomeKind, ...] = ("exit2", "exit1", "garbage", "crash", "hang")
OUTCOMES_BY_EVENT: Mapping[str, tuple[HookOutcomeKind, ...]] = {
    "PreToolUse": (
        "allow",
        "ask",
        "deny",
        "none",
        "update_input",
        "context",
        "legacy_approve",
        "legacy_block",
        *_FAILURES,
    ),
    "PostToolUse": ("none", "context", "block", "update_output", "legacy_block", *_FAILURES),
    "PostToolUseFailure": ("none", "context", *_FAILURES),
    "PermissionRequest": ("allow", "deny", "none", *_FAILURES),
}
"""The outcomes that mean something for each event (others would be garbage for it)."""


@cached_strategy
def _literal_names(exclude: str) -> st.SearchStrategy[str]:
    # Only [A-Za-z0-9_] names: a matcher made of them is an exact-name list, never a regex.
    return tool_names().filter(lambda n: n != exclude and re.fullmatch(r"\w+", n, re.ASCII) is not None)


@cached_strategy
def hook_matchers(tool_name: str, *, matching: bool = True) -> st.SearchStrategy[str]:
    """Hook matchers that select ``tool_name`` (or, with ``matching=False``, that don't) (HOOK-1).

    Matching forms: the exact name, ``A|name|B``, an anchored regular expression, a prefix regex
    (``Rea.*``), ``""`` and ``*``. Non-matching forms: other exact names, lists of other names, and
    anchored regexes that need more than the name. Matchers follow Claude Code: a matcher of only
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
    return st.one_of(
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
    return st.dictionaries(property_names(), st.text(max_size=12), max_size=3)


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
    if tool_name is not None:
        matcher: str | None = draw(st.one_of(st.none(), hook_matchers(tool_name)))
    else:
        matcher = draw(
            st.one_of(st.none(), st.sampled_from(["", "*", "Edit|Write", f"{MCP_PREFIX}.*"]), tool_names())
        )
    updated_input = None
    if outcome == "update_input" or (
        event == "PermissionRequest" and outcome == "allow" and draw(st.booleans())
    ):
        updated_input = draw(updated_inputs)
    return HookSpec(
        event=event,  # type: ignore[arg-type]  # one of HOOK_EVENTS, HookSpec's Literal
        outcome=outcome,
        matcher=matcher,
        reason=draw(descriptions(max_words=6)),
        updated_input=updated_input,
        context=draw(descriptions(max_words=6)),
        updated_output=draw(json_values()) if outcome == "update_output" else None,
        as_command=draw(st.booleans()) if as_command is None else as_command,
        # A hanging hook is ended by its timeout, so keep that short; others get a generous one.
        timeout=draw(st.sampled_from([0.2, 0.5])) if outcome == "hang" else 10.0,
    )


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
    if outcomes is not None:
        unknown = sorted(set(outcomes) - set(HOOK_OUTCOMES))
        if unknown or not outcomes:
            raise InvalidArgument(
                f"outcomes must be a non-empty subset of {HOOK_OUTCOMES}, got {list(outcomes)}"
            )
    plan = []
    for ev in events:
        allowed = [
            o for o in OUTCOMES_BY_EVENT[ev] if (o in outcomes if outcomes is not None else o != "hang")
        ]
        if allowed:
            plan.append((ev, allowed))
    if not plan:
        raise InvalidArgument(f"none of the outcomes {list(outcomes or [])} applies to events {events}")
    if tool_name is not None and (not isinstance(tool_name, str) or not tool_name):
        raise InvalidArgument(f"tool_name must be a non-empty string, got {tool_name!r}")
    return _hook_specs(
        plan, tool_name, as_command, updated_inputs if updated_inputs is not None else _updated_inputs()
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
