"""Hooks: matchers, settings parsing, in-process callbacks, aggregation (HOOK-1..4, EXEC-5)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl import CommandHook, HookConfigError, HookContext, HookMatcher, Hooks, hooks_from_settings
from reference_impl.hooks import (
    HookBaseInput,
    PreToolUseOutcome,
    UnsupportedHook,
    compile_matcher,
    run_permission_request,
    run_post_tool_use,
    run_pre_tool_use,
)

BASE = HookBaseInput("s", "/tmp/t.jsonl", "/tmp", "default")


def returning(value: Any) -> Any:
    async def hook(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
        return value

    return hook


def raising(exc: BaseException) -> Any:
    async def hook(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
        raise exc

    return hook


def decision(behavior: str, reason: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": behavior,
            "permissionDecisionReason": reason,
            **extra,
        }
    }


def run_pre(hooks: list[Any], tool: str = "Bash", matcher: str | None = None) -> PreToolUseOutcome:
    registry = Hooks({"PreToolUse": [HookMatcher(matcher, hooks)]})
    return asyncio.run(
        run_pre_tool_use(
            registry, tool_name=tool, tool_input={"command": "ls"}, tool_use_id="toolu_1", base=BASE
        )
    )


# -- matchers (HOOK-1) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("matcher", "name", "expected"),
    [
        (None, "Bash", True),
        ("", "mcp__a__b", True),
        ("*", "Read", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),
        ("Bash", "bash", False),
        ("Edit|Write", "Write", True),
        ("Edit|Write", "MultiEdit", False),
        ("mcp__memory__.*", "mcp__memory__store", True),
        ("mcp__memory__.*", "mcp__fs__read", False),
        ("Notebook.*", "NotebookEdit", True),
        ("^Bash", "BashOutput", True),  # a regex is searched, not anchored (RegExp.test)
        ("^Write$", "TodoWrite", False),
    ],
)
def test_matcher_examples(matcher: str | None, name: str, expected: bool) -> None:
    assert compile_matcher(matcher)(name) is expected


def test_invalid_regex_matcher_is_a_load_error() -> None:
    with pytest.raises(
        HookConfigError, match=r"my\.json: hooks\.PreToolUse\[0\]\.matcher: invalid regular expression"
    ):
        hooks_from_settings({"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": []}]}}, name="my.json")
    with pytest.raises(HookConfigError, match="invalid regular expression"):
        Hooks({"PostToolUse": [HookMatcher("[", [])]})


names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,12}", fullmatch=True)


@given(name=names, others=st.lists(names, max_size=4), probe=names)
def test_literal_and_alternation_matchers_are_exact(name: str, others: list[str], probe: str) -> None:
    """HOOK-1: a word-only matcher is a set of exact names; `A|B` matches exactly A or B."""
    alternatives = [name, *others]
    predicate = compile_matcher("|".join(alternatives))
    assert predicate(probe) is (probe in alternatives)
    assert predicate(name)
    assert not predicate(name + "x")
    assert compile_matcher(None)(probe)
    assert compile_matcher("")(probe)
    assert compile_matcher("*")(probe)


@given(server=names, tool=names, probe=names)
def test_regex_matcher_is_searched(server: str, tool: str, probe: str) -> None:
    """HOOK-1: a matcher with other characters is a regular expression searched in the tool name."""
    predicate = compile_matcher(f"mcp__{re.escape(server)}__.*")
    assert predicate(f"mcp__{server}__{tool}")
    assert predicate(probe) is (re.search(f"mcp__{re.escape(server)}__", probe) is not None)


# -- settings.json -------------------------------------------------------------------------------


def test_hooks_from_settings_shapes() -> None:
    cfg = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {"type": "command", "command": "guard.sh", "timeout": 5},
                        {"type": "prompt", "prompt": "is this safe?"},
                    ],
                }
            ],
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "setup"}]}],
            "FileChanged": [{"matcher": "*.json", "hooks": [{"type": "command", "command": "x"}]}],
        }
    }
    hooks = hooks_from_settings(cfg, name=".claude/settings.json")
    (m,) = hooks.events["PreToolUse"]
    assert m.matcher == "Bash"
    assert m.hooks[0] == CommandHook("guard.sh", 5.0)
    assert isinstance(m.hooks[1], UnsupportedHook)
    assert m.hooks[1].type == "prompt"
    assert set(hooks.events) == {"PreToolUse", "SessionStart", "FileChanged"}  # unknown events kept
    assert hooks.unsupported == ["PreToolUse: 'prompt' hooks are not supported; skipped"]
    assert hooks_from_settings({}, name="x").events == {}


@pytest.mark.parametrize(
    ("hooks", "fragment"),
    [
        ([], "'hooks' must be an object"),
        ({"PreToolUse": {"command": "x"}}, "hooks.PreToolUse must be a list"),
        ({"PreToolUse": ["Bash"]}, r"hooks.PreToolUse\[0\] must be an object"),
        ({"PreToolUse": [{"matcher": 3, "hooks": []}]}, r"\[0\].matcher must be a string"),
        ({"PreToolUse": [{"matcher": "Bash"}]}, r"\[0\].hooks must be a list"),
        ({"PreToolUse": [{"hooks": [{"command": "x"}]}]}, r"\[0\].hooks\[0\]: a hook needs a string 'type'"),
        ({"PreToolUse": [{"hooks": [{"type": "command"}]}]}, "non-empty 'command'"),
        (
            {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]},
            "positive number",
        ),
        (
            {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": True}]}]},
            "positive number",
        ),
    ],
)
def test_malformed_settings_are_refused(hooks: Any, fragment: str) -> None:
    with pytest.raises(HookConfigError, match=fragment) as info:
        hooks_from_settings({"hooks": hooks}, name="proj/.claude/settings.json")
    assert str(info.value).startswith("proj/.claude/settings.json:")


def test_corpus_settings_load_or_are_refused_clearly(shared_dir: Path) -> None:
    records = json.loads((shared_dir / "corpus" / "claude_settings.json").read_text())
    loaded = refused = 0
    for record in records:
        name = f"{record['repo']}/{record['path']}"
        settings_json = json.loads(record["raw_text"])
        try:
            hooks = hooks_from_settings(settings_json, name=name)
        except HookConfigError as exc:
            problem = str(exc)
        else:
            problem = ""
        if problem:
            refused += 1
            assert problem.startswith(f"{name}: hooks.")
            continue
        loaded += 1
        raw = settings_json.get("hooks") or {}
        assert list(hooks.events) == list(raw)
        for event, entries in raw.items():
            assert [m.matcher for m in hooks.events[event]] == [e.get("matcher") for e in entries]
            assert [len(m.hooks) for m in hooks.events[event]] == [len(e["hooks"]) for e in entries]
    assert loaded >= 20
    assert refused >= 1  # a non-Claude-Code `hooks` object (event -> object) is refused


# -- in-process callbacks and aggregation (HOOK-2, HOOK-3) ---------------------------------------


def test_callback_receives_sdk_arguments() -> None:
    seen: list[Any] = []

    async def hook(
        input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
    ) -> dict[str, Any]:
        seen.append((input_data, tool_use_id, context))
        input_data["tool_input"]["command"] = "rm -rf /"  # mutation must not leak into the call
        return {}

    out = run_pre([hook], matcher="Bash")
    assert out.verdict is None
    assert out.updated_input is None
    ((data, tool_use_id, context),) = seen
    assert data["hook_event_name"] == "PreToolUse"
    assert data["tool_name"] == "Bash"
    assert data["tool_use_id"] == "toolu_1"
    assert tool_use_id == "toolu_1"
    assert context == {"signal": None}


def test_matcher_selects_hooks() -> None:
    out = run_pre([returning(decision("deny", "no"))], tool="Read", matcher="Bash|Write")
    assert out.verdict is None


def test_callback_failures_are_non_blocking_errors() -> None:
    out = run_pre([raising(RuntimeError("kaput")), returning("allow"), returning(None)])
    assert out.verdict is None
    assert [e.kind for e in out.errors] == ["callback_raised", "invalid_output", "invalid_output"]
    assert "RuntimeError: kaput" in out.errors[0].message


def test_callback_timeout_uses_matcher_timeout() -> None:
    async def slow(
        input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
    ) -> dict[str, Any]:
        await asyncio.sleep(30)
        return decision("allow")

    registry = Hooks({"PreToolUse": [HookMatcher(None, [slow], timeout=0.05)]})
    out = asyncio.run(run_pre_tool_use(registry, tool_name="Bash", tool_input={}, tool_use_id="t", base=BASE))
    assert out.verdict is None
    assert [e.kind for e in out.errors] == ["timeout"]


def test_sdk_keyword_spellings_and_stop() -> None:
    out = run_pre([returning({"continue_": False, "stopReason": "halt", "systemMessage": "warn"})])
    assert out.stop
    assert out.stop_reason == "halt"
    assert out.system_messages == ["warn"]


def test_updated_input_from_last_allowing_hook() -> None:
    out = run_pre(
        [
            returning(decision("allow", updatedInput={"command": "a"})),
            returning(
                {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "x"}}}
            ),
            returning(decision("allow", updatedInput={"command": "b"})),
            returning(decision("allow")),
        ]
    )
    assert out.verdict is not None
    assert out.verdict.behavior == "allow"
    assert out.updated_input == {"command": "b"}


def test_ask_keeps_its_updated_input_and_reason() -> None:
    out = run_pre(
        [returning(decision("allow")), returning(decision("ask", "check me", updatedInput={"n": 1}))]
    )
    assert out.verdict is not None
    assert (out.verdict.behavior, out.verdict.reason) == ("ask", "check me")
    assert out.updated_input == {"n": 1}


def test_deny_without_reason_names_the_tool() -> None:
    out = run_pre([returning(decision("deny"))])
    assert out.verdict is not None
    assert out.verdict.reason == "Hook PreToolUse:Bash denied this tool"


def test_unsupported_hook_is_skipped_with_a_note() -> None:
    out = run_pre([UnsupportedHook("http", {"url": "https://example.invalid"}), returning(decision("ask"))])
    assert out.verdict is not None
    assert out.verdict.behavior == "ask"
    assert [(e.kind, e.hook) for e in out.errors] == [("unsupported", "<http hook>")]


def test_post_tool_use_cannot_undo_and_updates_only_mcp_output() -> None:
    """HOOK-4 / EXEC-5: a block is a message after the result; updatedMCPToolOutput is for MCP tools."""
    output = {
        "decision": "block",
        "reason": "bad",
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": "new"},
    }
    registry = Hooks({"PostToolUse": [HookMatcher(None, [returning(output)])]})

    def run(tool: str) -> Any:
        return asyncio.run(
            run_post_tool_use(
                registry, tool_name=tool, tool_input={}, tool_use_id="t", tool_response="old", base=BASE
            )
        )

    builtin = run("Bash")
    assert builtin.block_reason == "PostToolUse:Bash hook error: bad"
    assert builtin.updated_mcp_tool_output is None
    assert [e.kind for e in builtin.errors] == ["invalid_output"]
    mcp = run("mcp__s__t")
    assert mcp.updated_mcp_tool_output is not None
    assert mcp.updated_mcp_tool_output.value == "new"
    assert not hasattr(mcp, "verdict")  # no permission decision exists after the call


def test_permission_request_deny_beats_allow() -> None:
    allow = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "nope", "interrupt": True},
        }
    }
    bad = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "ask"}}}
    registry = Hooks(
        {"PermissionRequest": [HookMatcher(None, [returning(allow), returning(deny), returning(bad)])]}
    )
    out = asyncio.run(
        run_permission_request(registry, tool_name="Bash", tool_input={}, tool_use_id="t", base=BASE)
    )
    assert out.decision is not None
    assert (out.decision.behavior, out.decision.message, out.decision.interrupt) == ("deny", "nope", True)
    assert [e.kind for e in out.errors] == ["invalid_output"]
    none = asyncio.run(
        run_permission_request(Hooks(), tool_name="Bash", tool_input={}, tool_use_id="t", base=BASE)
    )
    assert none.decision is None


# -- aggregation property ------------------------------------------------------------------------

_VALID = {"allow": decision("allow"), "ask": decision("ask"), "deny": decision("deny")}
_LEGACY = {"approve": "allow", "block": "deny"}
kinds = st.sampled_from(
    ["allow", "ask", "deny", "approve", "block", "none", "garbage", "crash", "bad_shape", "wrong_event"]
)


def _hook_for(kind: str) -> Any:
    if kind in _VALID:
        return returning(_VALID[kind])
    if kind in _LEGACY:
        return returning({"decision": kind})
    return {
        "none": returning({}),
        "garbage": returning(["allow"]),
        "crash": raising(ValueError("allow")),
        "bad_shape": returning(decision("allow", updatedInput="x")),
        "wrong_event": returning(
            {"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "allow"}}
        ),
    }[kind]


@settings(max_examples=60, deadline=None)
@given(st.lists(kinds, max_size=6))
def test_most_restrictive_valid_decision_wins(hook_kinds: list[str]) -> None:
    """HOOK-2, HOOK-3: the verdict is the most restrictive valid decision (deny > ask > allow);
    garbage, crashes and invalid shapes are errors that never yield a decision, least of all allow.
    The verdict names the first hook (declaration order) that decided so: the hook the recorded
    decision names (PERM-13)."""
    hooks = [_hook_for(k) for k in hook_kinds]
    for i, hook in enumerate(hooks):
        hook.__qualname__ = f"hook{i}"  # the label a callback is named by
    out = run_pre(hooks)
    decided = [_LEGACY.get(k, k) if k in _VALID or k in _LEGACY else None for k in hook_kinds]
    expected = next((b for b in ("deny", "ask", "allow") if b in decided), None)
    assert (out.verdict.behavior if out.verdict else None) == expected
    if out.verdict is not None:
        assert out.verdict.hook == f"hook{decided.index(expected)}"
    broken = [k for k in hook_kinds if k in ("garbage", "crash", "bad_shape", "wrong_event")]
    assert len(out.errors) == len(broken)
    if expected == "deny":
        assert out.verdict is not None
        assert out.verdict.reason.startswith("Hook PreToolUse:Bash denied")
