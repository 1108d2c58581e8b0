"""The composed draws of issue 33 (deliverable 4): one hook answer with several fields, exit codes past 2,
bash-expanded spellings of a path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters._hook_programs import hook_program
from pytest_toolharness.specs import HOOK_ALSO_FIELDS, HookSpec


def test_also_fields_go_into_the_same_answer() -> None:
    """A block with context, a system message, a stop and suppressOutput is one JSON object with all of them."""
    spec = HookSpec(
        "PostToolUse",
        "block",
        reason="R0",
        context="C0",
        also=("context", "system_message", "stop", "suppress_output"),
        stop_reason="S0",
        system_message="M0",
    )
    assert spec.output_json() == {
        "decision": "block",
        "reason": "R0",
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "C0"},
        "systemMessage": "M0",
        "continue": False,
        "stopReason": "S0",
        "suppressOutput": True,
    }
    assert all(spec.says(f) for f in ("block", *HOOK_ALSO_FIELDS))
    assert (spec.stop_text, spec.system_message_text) == ("S0", "M0")


def test_also_merges_into_a_decision() -> None:
    """An allow decision keeps its hookSpecificOutput and gains the context beside it."""
    spec = HookSpec("PreToolUse", "allow", reason="ok", context="C", also=("context", "stop"))
    out = spec.output_json()
    assert out is not None
    assert out["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "permissionDecisionReason": "ok",
        "additionalContext": "C",
    }
    assert (out["continue"], out["stopReason"]) == (False, "ok")


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"outcome": "exit2", "also": ("context",)}, "answered in JSON"),
        ({"outcome": "none", "also": ("nonsense",)}, "unknown field"),
        ({"outcome": "system_message", "also": ("context",)}, "to the user"),
        ({"outcome": "exit1", "exit_code": 2}, "non-blocking"),
        ({"outcome": "exit1", "exit_code": 256}, "non-blocking"),
    ],
)
def test_a_spec_that_cannot_be_answered_is_refused(fields: dict[str, object], problem: str) -> None:
    """A HookSpec whose fields contradict each other is refused by name when it is made."""
    with pytest.raises(ValueError, match=problem):
        HookSpec("PreToolUse", **fields)  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(ths.hook_stacks(event="PostToolUse", also=ths.ALSO_BY_EVENT["PostToolUse"], min_size=1, max_size=3))
def test_stacks_draw_also_fields_with_their_own_texts(hooks: list[HookSpec]) -> None:
    """Drawn ``also`` fields belong to the event, skip the outcome's own, and bring unique stop/message texts."""
    texts = []
    for spec in hooks:
        assert set(spec.also) <= set(ths.ALSO_BY_EVENT["PostToolUse"])
        assert spec.outcome not in spec.also
        if spec.also:
            assert spec.output_json() is not None
        if spec.says("stop"):
            texts.append(spec.stop_text)
        if spec.says("system_message"):
            texts.append(spec.system_message_text)
        if spec.says("context"):
            texts.append(spec.context)
    assert len(texts) == len(set(texts)), texts


@pytest.mark.parametrize("code", ths.NON_BLOCKING_EXIT_CODES)
def test_the_hook_program_exits_with_the_drawn_code(tmp_path: Path, code: int) -> None:
    """An ``exit1`` hook program exits with its ``exit_code`` and writes its reason to stderr."""
    script = tmp_path / "hook.py"
    script.write_text(hook_program(HookSpec("PreToolUse", "exit1", reason="why", exit_code=code)))
    done = subprocess.run(
        [sys.executable, str(script)], input=json.dumps({}), capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (code, "why")


@settings(max_examples=60, deadline=None)
@given(path=st.sampled_from([".git/config", "sub/.bashrc", "a b/.mcp.json"]), data=st.data())
def test_expanded_spellings_expand_to_the_path(
    tmp_path_factory: pytest.TempPathFactory, path: str, data: st.DataObject
) -> None:
    """Each bash word of ``expanded_spellings`` expands, in bash, to the path it spells (the file exists)."""
    root = tmp_path_factory.mktemp("words")
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text("x")
    word = data.draw(ths.expanded_spellings(path))
    assert ths.bash_word_values(word, root) in ([path], [f"{os.path.realpath(root)}/{path}"]), word
