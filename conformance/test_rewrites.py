"""EXEC-2 composed: every source of a rewritten input x every check the rewrite must go through.

A rewrite comes from a PreToolUse hook's ``updatedInput``, a PermissionRequest hook's approval with
``updatedInput`` (a callback or a command hook), or the host's answer to an ask. Whatever its source,
the rewrite is checked like the model's own input: the schema, the tool's own validation, and the
permission rules (a deny rule matching any part of a compound command).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import execute, is_error, scenario_root, tool_use
from conformance._strategies_permissions import shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HookSpec, HostAnswer, HostSpec, RuleSpec

WORDS = st.from_regex(r"[a-z]{1,8}", fullmatch=True, alphabet=ths.utf8_characters())
# Joins of two commands in one line: each part is judged on its own.
JOINS = st.sampled_from([" && ", "; ", " || ", " | ", "\n"])
ECHO = WORDS.map(lambda w: f"echo {w}")
RM = WORDS.map(lambda w: f"rm -rf {w}")
# The same deny, spelled as the rules allow it.
RM_DENY_RULES = st.sampled_from(["Bash(rm:*)", "Bash(rm *)", "Bash(rm -rf:*)"])


def _joined(parts: list[str], join: str) -> str:
    return join.join(parts)


# (the rewritten input, what must come of it: "runs" / "denied" / "invalid").
REWRITES = st.one_of(
    ECHO.map(lambda c: ({"command": c}, "runs")),
    st.builds(lambda a, b, j: ({"command": _joined([a, b], j)}, "runs"), ECHO, ECHO, JOINS),
    RM.map(lambda c: ({"command": c}, "denied")),
    # The denied part behind an allowed one, or before it: the same program as the original first.
    st.builds(
        lambda a, b, j, first: ({"command": _joined([a, b] if first else [b, a], j)}, "denied"),
        ECHO,
        RM,
        JOINS,
        st.booleans(),
    ),
    st.sampled_from([{"command": 5}, {"command": ["echo"]}, {}]).map(lambda bad: (bad, "invalid")),
    ECHO.map(lambda c: ({"command": c, "forbidden": True}, "invalid")),
)
SOURCES = ("PreToolUse", "PermissionRequest", "host")


@requires("execution", "permissions", "hooks", "host_callback")
@pytest.mark.requirement("EXEC-2", "MUST")
@pytest.mark.parametrize("source", SOURCES)
@settings(max_examples=20, deadline=None)
@given(original=ECHO, rewrite=REWRITES, deny_rule=RM_DENY_RULES, as_command=st.booleans())
@example(
    original="echo a", rewrite=({"command": "rm -rf b"}, "denied"), deny_rule="Bash(rm:*)", as_command=False
)
@example(
    original="echo a",
    rewrite=({"command": "echo a && rm -rf b"}, "denied"),
    deny_rule="Bash(rm:*)",
    as_command=True,
)
def test_every_rewrite_goes_through_every_check(
    new_harness: Callable[[], Any],
    source: str,
    original: str,
    rewrite: tuple[dict[str, Any], str],
    deny_rule: str,
    as_command: bool,
) -> None:
    """EXEC-2: a rewritten input from any source (PreToolUse hook, PermissionRequest hook, host) is schema-checked, validated by the tool and judged by the rules again.

    Property: a rewrite that breaks the schema or the tool's validation, or that a deny rule matches
    (alone or as one part of a compound command, in any rule spelling), never runs and gets an error
    result; any other rewrite runs exactly once with exactly the rewritten input.
    """
    updated, expected = rewrite
    # The original is allowed outright for a PreToolUse rewrite, and asked about otherwise (so that a
    # PermissionRequest hook or the host answers).
    rules = [
        RuleSpec(deny_rule, "deny"),
        RuleSpec(
            "Bash(echo:*)" if source == "PreToolUse" else "Bash", "allow" if source == "PreToolUse" else "ask"
        ),
    ]
    hooks: list[HookSpec] = []
    host = HostSpec()
    if source == "host":
        host = HostSpec(lambda _name, _input: HostAnswer("allow", updated_input=updated))
    else:
        hook = HookSpec(
            "PreToolUse", "update_input", matcher="Bash", updated_input=updated, as_command=as_command
        )
        if source == "PermissionRequest":
            hook = dataclasses.replace(hook, event="PermissionRequest", outcome="allow")
        hooks = [dataclasses.replace(hook, timeout=10.0)]
    with scenario_root() as root:
        run = execute(
            new_harness(),
            root,
            [shell_tool(rejects_when="forbidden")],
            [tool_use("toolu_sh", "Bash", {"command": original})],
            hooks=hooks,
            rules=rules,
            host=host,
        )
    inputs = [dict(i) for i in run.recorder.inputs("toolu_sh")]
    why = f"{source} rewrote {original!r} to {updated!r} (deny rule {deny_rule})"
    if expected == "runs":
        assert inputs == [updated], f"{why}: must run once with exactly the rewrite, ran with {inputs}"
        return
    assert inputs == [], f"{why}: the rewrite is {expected}, yet the call ran with {inputs}"
    assert is_error(run.results_by_id()["toolu_sh"]), f"{why}: no error result"
