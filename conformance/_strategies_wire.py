"""Hypothesis strategies for drawn wire scenarios: rules x commands x modes x batch shapes.

The commands come from the composing shell grammar (:func:`~pytest_toolharness.strategies.composed_commands`:
carriers mined from the installed programs' documentation, every spelling of a name), each running
``touch <marker>``; the rules are Claude Code's syntax, placed in the settings sources the target
reads, so each target profile translates them as it does the fixed scenarios'. What a target can't
express (no permission modes, no settings files, no rules at all) is not drawn for it.
"""

from __future__ import annotations

from hypothesis import strategies as st

from pytest_toolharness.strategies import composed_commands
from pytest_toolharness.wire.scenarios import (
    DRAWN_MCP_KINDS,
    DRAWN_MODES,
    DRAWN_SOURCES,
    INTERRUPTED_TOOL,
    SHELL_SLEEP_SECONDS,
    DrawnCall,
    DrawnFaults,
    DrawnRule,
    DrawnScenario,
)

__all__ = ["drawn_scenarios"]

#: The control: ``mkdir`` of this directory, allowed by ``{shell}(mkdir:*)`` in every drawn rule set.
CONTROL_DIR = "drawn-control"
# Harmless commands a composed line may start with (the grammar joins them with ; && || | & newline).
_LEADING = ("ls", "echo ok", "mkdir -p drawn-lead")
_REFUSING = ("{shell}(touch:*)", "{shell}(touch *)")
_EXTRA_ALLOWS = ("{shell}", "{shell}(touch:*)", "{shell}(echo:*)")


def _can(roles: frozenset[str] | None, role: str) -> bool:
    return roles is None or role in roles


@st.composite
def _shell_call(draw: st.DrawFn, marker: str) -> DrawnCall:
    line = draw(composed_commands(("touch",), arguments=(marker,), max_depth=2, allowed=_LEADING))
    carried = line.carried if line.carried != line.command else ""  # "": the whole line
    return DrawnCall("shell", line.command, marker, line.mechanism, carried)


def _timed_out_call(marker: str) -> DrawnCall:
    """A shell call that sleeps past the timeout it sets, then would create ``marker``."""
    return DrawnCall("shell_timeout", f"sleep {SHELL_SLEEP_SECONDS} && mkdir {marker}", marker, "timeout")


@st.composite
def _call(
    draw: st.DrawFn, marker: str, shell_weight: int, faults: DrawnFaults | None, plain: bool = False
) -> DrawnCall:
    kinds = ["shell"] * shell_weight + [k for k in DRAWN_MCP_KINDS if k != "d_hang"] + ["unknown"]
    if faults is not None and faults.shell_timeout is not None:
        kinds.append("shell_timeout")
    if faults is not None and faults.mcp_timeout_env is not None:
        kinds.append("d_hang")
    kind = draw(st.sampled_from(kinds))
    if kind == "shell" and plain:
        # A line that makes its marker as it starts: its file time is its start (an interrupt's judge).
        return DrawnCall("shell", f"touch {marker}", marker, "plain")
    if kind == "shell":
        return draw(_shell_call(marker))
    return _timed_out_call(marker) if kind == "shell_timeout" else DrawnCall(kind)


@st.composite
def _drawn(
    draw: st.DrawFn,
    roles: frozenset[str] | None,
    refusing: bool,
    faults: DrawnFaults | None,
    interrupting: bool,
) -> DrawnScenario:
    mode = draw(st.none() | st.sampled_from(DRAWN_MODES)) if _can(roles, "permission_modes") else None
    rules: list[DrawnRule] = []
    if _can(roles, "permission_rules"):
        sources = [s for s in DRAWN_SOURCES if s == "flagSettings" or _can(roles, "settings_files")]
        source = st.sampled_from(sources)
        rules += [
            DrawnRule("flagSettings", "allow", "{mcp}"),
            DrawnRule("flagSettings", "allow", "{shell}(mkdir:*)"),
        ]
        if refusing:
            refusals = draw(
                st.lists(
                    st.tuples(st.sampled_from(("deny", "ask")), st.sampled_from(_REFUSING), source),
                    min_size=1,
                    max_size=2,
                )
            )
            if mode == "bypassPermissions" and all(action == "ask" for action, _, _ in refusals):
                # An ask refuses nothing there for every profile (only Claude Code's promises it): deny.
                refusals[0] = ("deny", *refusals[0][1:])
            rules += [DrawnRule(where, action, rule) for action, rule, where in refusals]
        # Mostly with the shell allowed as a whole: then only the deny or ask rule stands between a
        # composed line and its run (without it a target that asks about everything refuses it anyway).
        if draw(st.integers(min_value=0, max_value=3)) > 0:
            rules.append(DrawnRule(draw(source), "allow", "{shell}"))
        extra = draw(st.lists(st.tuples(st.sampled_from(_EXTRA_ALLOWS), source), max_size=1))
        rules += [DrawnRule(where, "allow", rule) for rule, where in extra]
    shell_weight = 6 if refusing else 1
    turns = []
    for t in range(draw(st.integers(min_value=1, max_value=3))):
        size = draw(st.integers(min_value=1, max_value=4))
        calls = [draw(_call(f"drawn-mark-{t}-{i}", shell_weight, faults, interrupting)) for i in range(size)]
        if t == 0:
            calls.insert(0, DrawnCall("control", f"mkdir {CONTROL_DIR}", CONTROL_DIR))
        turns.append(calls)
    if interrupting and not any(c.kind == INTERRUPTED_TOOL for turn in turns for c in turn):
        # The interrupt falls while the slow tool runs: put one where the batch goes on after it.
        turn = turns[draw(st.integers(min_value=0, max_value=len(turns) - 1))]
        turn.insert(draw(st.integers(min_value=0, max_value=len(turn))), DrawnCall(INTERRUPTED_TOOL))
    interrupt = "sigint" if interrupting else None
    broken, after = 0, 0
    streams = [i for i in (faults.interrupts if faults is not None else ()) if i != "sigint"]
    if not interrupting and not refusing and streams:
        # Mostly broken (a batch before and after the break is still a batch): shrinks to none.
        interrupt = draw(st.sampled_from((None, *streams)))
        if interrupt is not None:  # which turn's stream breaks, after how many of its blocks (text first)
            broken = draw(st.integers(min_value=0, max_value=len(turns) - 1))
            after = draw(st.integers(min_value=1, max_value=len(turns[broken])))
    return DrawnScenario(
        tuple(dict.fromkeys(rules)),
        mode,
        tuple(tuple(turn) for turn in turns),
        interrupt=interrupt,
        interrupt_turn=broken,
        interrupt_after=after,
    )


def drawn_scenarios(
    roles: frozenset[str] | None,
    *,
    refusing: bool,
    faults: DrawnFaults | None = None,
    interrupting: bool = False,
) -> st.SearchStrategy[DrawnScenario]:
    """Drawn scenarios for a target of ``roles`` (its profile's capabilities; None: every one).

    ``refusing``: every rule set has a deny or ask rule on ``touch`` and most calls are composed
    shell lines (PERM-17); otherwise the batches are mostly MCP calls of every kind (PAIR-2).
    ``faults``: the timeouts the target can express (none drawn without): shell commands that sleep
    past their own timeout, MCP calls past the MCP timeout, and (not ``refusing``) a model stream that
    breaks mid-turn once where the target speaks the Messages API. ``interrupting``: every scenario gets
    SIGINT while its slow tool runs (a ``d_slow`` call is placed in a drawn turn when none was
    drawn), the batch going on after it. The first turn starts with the control (``mkdir``).
    Shrinks toward one turn, fewer calls, plainer lines.
    """
    if interrupting and faults is not None and "sigint" not in faults.interrupts:
        raise ValueError(f"the target can't be interrupted: {faults.why}")
    return _drawn(roles, refusing, faults, interrupting)
