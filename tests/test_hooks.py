"""Hooks: matchers, settings parsing, in-process callbacks, aggregation (HOOK-1..4, EXEC-5)."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_toolharness.adapters import HookEndpoint
from reference_impl import CommandHook, HookConfigError, HookContext, HookMatcher, Hooks, hooks_from_settings
from reference_impl.hooks import (
    BackgroundHookResult,
    HookBaseInput,
    HttpHook,
    PreToolUseOutcome,
    UnsupportedHook,
    collect_background,
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


def run_pre(
    hooks: list[Any], tool: str = "Bash", matcher: str | None = None, timeout: float | None = None
) -> PreToolUseOutcome:
    registry = Hooks({"PreToolUse": [HookMatcher(matcher, hooks, timeout)]})
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
@example(name="A", others=["Ax"], probe="A")  # found by CI at session 34's check: the test's own slip
def test_literal_and_alternation_matchers_are_exact(name: str, others: list[str], probe: str) -> None:
    """HOOK-1: a word-only matcher is a set of exact names; `A|B` matches exactly A or B."""
    alternatives = [name, *others]
    predicate = compile_matcher("|".join(alternatives))
    assert predicate(probe) is (probe in alternatives)
    assert predicate(name)
    # A name with a letter more is another tool, unless the alternatives name it too (``A|Ax``).
    assert predicate(name + "x") is (name + "x" in alternatives)
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


# -- which hooks run, and for how long ---------------------------------------------------------


def test_an_identical_hook_runs_once_and_the_hooks_after_it_still_run() -> None:
    """HOOK-1, HOOK-2: a command or http hook repeated in one source is run once, and every other
    hook the event matches still runs: the ones after the repeat in its matcher too."""
    a, b = {"type": "command", "command": "./a"}, {"type": "command", "command": "./b"}
    web = {"type": "http", "url": "http://127.0.0.1:1/h"}
    text = json.dumps(
        {"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [a, web]},
            {"matcher": "*", "hooks": [a, b, web, a, {"type": "command", "command": "./c"}]},
        ]}}
    )  # fmt: skip
    hooks = hooks_from_settings(json.loads(text), name="s.json")
    labels = [getattr(h, "label", None) for h, _ in hooks.matching("PreToolUse", "Bash")]
    assert labels == ["./a", "http://127.0.0.1:1/h", "./b", "./c"]


def test_an_async_hook_and_its_synchronous_twin_are_two_hooks() -> None:
    """HOOK-2: the same command as an async hook and as a synchronous one both run: the async one, seen
    first, can't decide, so it must not stand for the twin whose deny blocks the call."""
    text = json.dumps(
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "./deny", "async": True},
            {"type": "command", "command": "./deny"},
            {"type": "command", "command": "./deny"},
        ]}]}}
    )  # fmt: skip
    hooks = hooks_from_settings(json.loads(text), name="s.json")
    found = [h for h, _ in hooks.matching("PreToolUse", "Bash")]
    assert [(getattr(h, "label", None), getattr(h, "run_async", None)) for h in found] == [
        ("./deny", True),
        ("./deny", False),
    ]


@pytest.mark.parametrize(
    ("own", "matcher", "times_out"),
    [(0.3, 30.0, True), (None, 0.3, True), (30.0, 0.3, False)],
)
def test_a_command_hooks_own_timeout_wins_over_its_matchers(
    own: float | None, matcher: float, times_out: bool
) -> None:
    """``HookMatcher.timeout`` applies to the command hooks of the matcher that set none of their own."""
    slow = CommandHook("cat >/dev/null; sleep 1.5", timeout=own)
    out = run_pre([slow], timeout=matcher)
    assert out.verdict is None
    assert [e.kind for e in out.errors] == (["timeout"] if times_out else [])
    with HookEndpoint(lambda _input: (200, b"{}"), delay=1.5) as endpoint:
        out = run_pre([HttpHook(endpoint.url, timeout=own)], timeout=matcher)
    assert [e.kind for e in out.errors] == (["timeout"] if times_out else []), "an http hook"


@pytest.mark.parametrize("kind", ["command", "http"])
def test_on_failure_block_given_by_a_caller_blocks_a_failing_hook(kind: str) -> None:
    """``on_failure="block"`` built by a caller (a str read from JSON, not Python's interned literal)
    turns a failing command or http hook into a block; ``continue`` keeps it a non-blocking error."""
    for value, blocks in ((json.loads('"block"'), True), (json.loads('"continue"'), False)):
        with HookEndpoint(lambda _input: (500, b"down")) as endpoint:
            hook: Any = (
                CommandHook("cat >/dev/null; exit 1", on_failure=value)
                if kind == "command"
                else HttpHook(endpoint.url, timeout=10, on_failure=value)
            )
            out = run_pre([hook])
        assert (out.verdict.behavior if out.verdict else None) == ("deny" if blocks else None), value


# -- http hooks: every 2xx answer is read (HOOK-8) -----------------------------------------------


@pytest.mark.parametrize(
    ("status", "read"), [(200, True), (201, True), (203, True), (299, True), (300, False), (418, False)]
)
def test_every_2xx_answer_of_an_http_hook_is_read_and_no_other(status: int, read: bool) -> None:
    """HOOK-8: a 2xx body is read like a command's stdout (its deny denies); any other status is a
    non-blocking error, whatever its body says."""
    body = json.dumps(decision("deny", "HTTP-SAYS-NO")).encode()
    with HookEndpoint(lambda _input: (status, body)) as endpoint:
        out = run_pre([HttpHook(endpoint.url, timeout=10)])
    assert (out.verdict.behavior if out.verdict else None) == ("deny" if read else None)
    assert [e.kind for e in out.errors] == ([] if read else ["http"])


# -- async command hooks: collected later, each field only when it is what it should be ----------


def _async_hook(script: str, gate: Path | None = None) -> CommandHook:
    wait = f"while [ ! -e {shlex.quote(str(gate))} ]; do sleep 0.05; done; " if gate else ""
    return CommandHook(f"cat >/dev/null; {wait}{script}", timeout=5, run_async=True)


def _run_async(
    *hooks: CommandHook, gate: Path | None = None
) -> tuple[list[BackgroundHookResult], int, list[BackgroundHookResult]]:
    """Fire ``hooks`` on a PreToolUse, collect without waiting, open ``gate``, collect waiting."""
    registry = Hooks({"PreToolUse": [HookMatcher("Bash", list(hooks))]})

    async def main() -> tuple[list[BackgroundHookResult], int, list[BackgroundHookResult]]:
        out = await run_pre_tool_use(
            registry, tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="toolu_1", base=BASE
        )
        assert out.verdict is None
        early = await collect_background(registry)
        running = len(registry.background)
        if gate is not None:
            gate.touch()
        return early, running, await collect_background(registry, wait=True)

    return asyncio.run(main())


def test_collecting_async_hooks_without_waiting_leaves_the_running_ones_running(tmp_path: Path) -> None:
    """An async hook still running is not waited for (the loop's next turn goes on); it is collected
    once it ends, and ``wait`` waits for it (``AgentSession.end()``)."""
    gate = tmp_path / "gate"
    said = json.dumps({"systemMessage": "LATE"})
    early, running, late = _run_async(_async_hook(f"printf '%s' {shlex.quote(said)}", gate), gate=gate)
    assert (early, running) == ([], 1)
    assert [(d.system_message, d.error) for d in late] == [("LATE", None)]


@pytest.mark.parametrize(
    ("output", "message", "context"),
    [
        ({"systemMessage": "SAID"}, "SAID", None),
        ({"systemMessage": "SAID", "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "CTX"}}, "SAID", "CTX"),
        ({"systemMessage": "", "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": ""}}, None, None),
        ({"systemMessage": 5, "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": ["x"]}}, None, None),
        ({"systemMessage": ["SAID"], "hookSpecificOutput": "CTX"}, None, None),
    ],
)  # fmt: skip
def test_an_async_hook_says_only_a_non_empty_string_message_and_context(
    output: dict[str, Any], message: str | None, context: str | None
) -> None:
    """HOOK-8: an async hook's ``systemMessage`` and ``additionalContext`` are delivered when they are
    non-empty strings; anything else in their place says nothing (and crashes nothing)."""
    _, _, (done,) = _run_async(_async_hook(f"printf '%s' {shlex.quote(json.dumps(output))}"))
    assert (done.system_message, done.additional_context, done.error) == (message, context, None)


def test_an_async_hook_exiting_2_is_an_error_not_a_message() -> None:
    """HOOK-8: an async hook can't block: its exit 2 is a non-blocking error naming its stderr."""
    _, _, (done,) = _run_async(_async_hook("echo 'NO WAY' >&2; exit 2"))
    assert done.system_message is None
    assert done.error is not None
    assert (done.error.kind, "NO WAY" in done.error.message) == ("exit_code", True)
