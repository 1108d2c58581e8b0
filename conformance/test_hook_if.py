"""A hook handler's ``if`` (HOOK-1): the hook runs for exactly the calls its permission rule matches.

``if`` narrows a hook below its matcher with a rule in permission-rule syntax (``"Bash(git push *)"``),
matched as the harness matches its own rules: a compound shell line matches when any of its commands
does. The suite sees the match only through the verdicts: a deny hook that ran denies, an allow hook
that ran allows, and a hook that did not run leaves the call the verdict it gets without the hook.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import host_answering, plain_tool, run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HookSpec

# How two commands make one line: each of them is a command of the line.
JOINTS = ("&&", "||", ";", "|", "\n")
# A word a rule's prefix can end on: no option, number or path character a rule would read otherwise.
PLAIN_WORD = re.compile(r"[a-z][a-z.]*")
ANSWER_TIMEOUT_S = 10.0
OTHER_TOOL = "Deploy"


@dataclass(frozen=True, slots=True)
class IfCase:
    """A Bash rule for a hook's ``if`` and one turn of calls, each known to match it, not, or neither.

    ``matching`` is True (the call matches the rule), False (it doesn't) or None (whether it does
    can't be told from the line: a program only bash knows, a script a shell reads from a pipe).
    """

    rule: str
    calls: tuple[tuple[str, dict[str, str]], ...]
    matching: tuple[bool | None, ...]

    def describe(self, index: int) -> str:
        name, tool_input = self.calls[index]
        what = {True: "matches", False: "does not match", None: "may or may not match"}[self.matching[index]]
        return f"{name} {tool_input!r} {what} if {self.rule!r}"


def _joined(draw: st.DrawFn, one: str, other: str) -> str:
    """``one`` and ``other`` as two commands of one line, in either order, with a drawn joint."""
    joint = draw(st.sampled_from(JOINTS))
    left, right = draw(st.permutations([one, other]))
    if joint == "\n":
        return f"{left}\n{right}"
    # Real lines are written both ways: "a; b" and "a;b".
    spacing = draw(st.sampled_from([" ", ""])) if joint in (";", "|") else " "
    return f"{left}{spacing}{joint}{spacing}{right}"


@st.composite
def if_cases(draw: st.DrawFn) -> IfCase:
    """A rule ``Bash(p:*)``, ``Bash(p *)`` or ``Bash(p)`` on a drawn prefix ``p``, and 3-10 calls.

    Matching lines: a command the rule covers (``p``, ``p args``; with ``Bash(p *)`` always with
    arguments, with ``Bash(p)`` exactly ``p``), alone or as one command of a compound line (``&&``,
    ``||``, ``;``, ``|``, newline; either part first). Lines that don't match: another program, ``p``
    glued to more letters (``git pushx``: a string prefix, not a word one), ``p args`` and ``p
    -options`` under the exact rule, compounds of those, and sometimes a call of another tool carrying a matching line.
    Lines that may or may not match: a covered command whose program is a variable (``$CMD push``), or
    another program piped into a shell (``curl -s x | sh``), alone or beside a line that doesn't match.
    """
    words = draw(ths.shell_commands()).split()
    plain = list(itertools.takewhile(PLAIN_WORD.fullmatch, words))
    prefix = " ".join(plain[: draw(st.integers(1, len(plain)))])
    form = draw(st.sampled_from(["colon", "space", "exact"]))
    rule = {"colon": f"Bash({prefix}:*)", "space": f"Bash({prefix} *)", "exact": f"Bash({prefix})"}[form]

    with_args = ths.shell_commands(prefix).filter(lambda c: c != prefix)
    covered = {"colon": ths.shell_commands(prefix), "space": with_args, "exact": st.just(prefix)}[form]
    program = prefix.split()[0]
    # Another program: one that does not name the rule's program anywhere (so no wrapper runs it).
    others = ths.shell_commands().filter(lambda c: program not in c.split())
    glued = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=3).flatmap(
        lambda s: ths.shell_commands(prefix + s)
    )
    # ``p`` with options only: the boundary of an exact rule (a deny reading takes options as a set).
    options = ths.shell_commands().map(lambda c: " ".join(w for w in c.split() if w.startswith("-")))
    with_options = options.filter(bool).map(lambda o: f"{prefix} {o}")
    uncovered = (
        st.one_of(others, glued, with_args, with_options) if form == "exact" else st.one_of(others, glued)
    )
    unknown = st.one_of(
        st.tuples(st.sampled_from(["$CMD", "${CMD}", '"$1"']), covered).map(
            lambda pair: " ".join([pair[0], *pair[1].split()[1:]])
        ),
        st.tuples(others, st.sampled_from(["sh", "bash", "sh -s"])).map(lambda pair: " | ".join(pair)),
    )

    lines: dict[str, bool | None] = {}
    for kind, strategy in ((True, covered), (False, uncovered), (None, unknown)):
        for _ in range(draw(st.integers(0 if kind is None else 1, 3))):
            line = draw(strategy)
            lines.setdefault(_joined(draw, line, draw(uncovered)) if draw(st.booleans()) else line, kind)
    calls: list[tuple[tuple[str, dict[str, str]], bool | None]] = [
        (("Bash", {"command": line}), kind) for line, kind in lines.items()
    ]
    if draw(st.booleans()):
        # The rule names Bash: another tool's call never matches it, whatever its input says.
        calls.append(((OTHER_TOOL, {"x": draw(covered)}), False))
    calls = draw(st.permutations(calls))
    return IfCase(rule, tuple(c for c, _ in calls), tuple(kind for _, kind in calls))


def _verdicts(harness: Any, case: IfCase, hooks: list[HookSpec], host_allows: bool) -> list[tuple[int, bool]]:
    """Per call of ``case``: (how many times it ran, whether the host was asked about it)."""
    host = host_answering("allow" if host_allows else "deny")
    run = run_calls(harness, [shell_tool(), plain_tool(OTHER_TOOL)], case.calls, hooks=hooks, host=host)
    asked = [(name, dict(tool_input)) for name, tool_input in run.asked]
    return [(run.ran(f"toolu_{i}"), call in asked) for i, call in enumerate(case.calls, start=1)]


@requires("execution", "permissions", "hooks", "command_hooks", "host_callback", "hook_if")
@pytest.mark.requirement("HOOK-1", "MUST")
@pytest.mark.parametrize("outcome", ["deny", "allow"])
@settings(max_examples=30, deadline=None)
@given(case=if_cases(), matcher=st.sampled_from([None, "Bash", "*"]), host_allows=st.booleans())
@example(
    case=IfCase(
        "Bash(git push *)",
        (
            ("Bash", {"command": "ls -la && git push origin main"}),
            ("Bash", {"command": "git pushx origin"}),
            ("Bash", {"command": "$CMD push origin"}),
        ),
        (True, False, None),
    ),
    matcher=None,
    host_allows=True,
)
@example(
    case=IfCase(
        "Bash(git status)",
        (
            ("Bash", {"command": "git status -q"}),
            ("Bash", {"command": "git status"}),
            ("Bash", {"command": "git diff --stat | git status"}),
        ),
        (False, True, True),
    ),
    matcher="Bash",
    host_allows=False,
)
def test_hook_if_runs_the_hook_for_exactly_the_matching_calls(
    new_harness: Callable[[], Any], outcome: str, case: IfCase, matcher: str | None, host_allows: bool
) -> None:
    """HOOK-1: a PreToolUse command hook with ``if`` (a Bash rule in permission-rule syntax) decides exactly the calls the rule matches.

    A compound line (``&&``, ``||``, ``;``, ``|``, newline) matches when any of its commands does; a
    string prefix of a word (``git pushx`` for ``Bash(git push *)``), another program or another tool
    does not. A deny hook scoped by ``if`` denies every matching call without asking anyone; an allow
    hook scoped by ``if`` lets every matching call run unasked (no rule, default mode). Every call that
    doesn't match gets the verdict it gets with no hook at all (asked, here): neither hook decides it.
    A line that may or may not match (``$CMD push``, ``curl -s x | sh``) is never let run unasked by
    the hook: a scoped allow must not become a blanket one.
    """
    hook = HookSpec(
        event="PreToolUse",
        outcome=outcome,  # type: ignore[arg-type]
        matcher=matcher,
        reason=f"scoped {outcome} hook",
        as_command=True,
        timeout=ANSWER_TIMEOUT_S,
        if_rule=case.rule,
    )
    without = _verdicts(new_harness(), case, [], host_allows)
    scoped = _verdicts(new_harness(), case, [hook], host_allows)
    decided = (0, False) if outcome == "deny" else (1, False)
    where = f"(matcher {matcher!r}, host {'allows' if host_allows else 'denies'})"
    for index, kind in enumerate(case.matching):
        if kind is None:
            unasked = (1, False)
            assert scoped[index] != unasked or without[index] == unasked, (
                f"{case.describe(index)}: a {outcome} hook scoped by it let the call run unasked, "
                f"which it does not without the hook {where}"
            )
            continue
        expected = decided if kind else without[index]
        assert scoped[index] == expected, (
            f"{case.describe(index)}: with a {outcome} hook scoped by it the call must "
            f"{'be decided by the hook' if kind else 'keep its verdict without the hook'}: "
            f"(ran, asked) {expected}, got {scoped[index]} {where}"
        )
