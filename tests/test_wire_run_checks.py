"""The whole-run wire judgements (``wire/checks/_runs.py``) on hand-made runs: each names the fault in a run
that breaks its requirement, passes a run that keeps it, and is "not checked" (a reason) when the
scenario's control did not take effect, so it can't pass for the wrong reason.

A run here is what the suite would have recorded: requests (the tool_results the harness sent),
the MCP server's call log and the files in the working directory.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_toolharness.wire.checks import _runs as checks
from pytest_toolharness.wire.checks import _sandbox as sandbox_checks
from pytest_toolharness.wire.model_api._encoding import wire_json
from pytest_toolharness.wire.model_api._recording import RecordedRequest
from pytest_toolharness.wire.scenarios import _results as res
from pytest_toolharness.wire.scenarios import _rules as rules
from pytest_toolharness.wire.scenarios import _sandbox as sbx
from pytest_toolharness.wire.scenarios._search import search_ids
from pytest_toolharness.wire.scenarios._security import HookSourceIds
from pytest_toolharness.wire.targets._command import TargetOutcome
from pytest_toolharness.wire.targets._wire_adapter import WireRun, write_scenario_files

_TOOLS: list[dict[str, Any]] = [
    {"name": name, "description": name, "input_schema": {"type": "object", "properties": {}}}
    for name in ("Read", "Bash", "Write")
]


def _request(results: Mapping[str, Any], tools: Sequence[Mapping[str, Any]] = _TOOLS) -> RecordedRequest:
    """One main request whose user message answers each id with ``(content, is_error)``."""
    blocks = [
        {"type": "tool_result", "tool_use_id": i, "content": content, "is_error": is_error}
        for i, (content, is_error) in results.items()
    ]
    uses = [{"type": "tool_use", "id": i, "name": "Bash", "input": {}} for i in results]
    body = {
        "model": "m",
        "max_tokens": 10,
        "tools": list(tools),
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": uses},
            {"role": "user", "content": blocks},
        ],
    }
    raw = wire_json(body).encode()
    return RecordedRequest(0, "POST", "/v1/messages", {}, {}, raw, json.loads(raw), status=200)


def _run(
    workdir: Path,
    results: Mapping[str, Any],
    *,
    ran: Sequence[str] = (),
    tools: Sequence[Mapping[str, Any]] = _TOOLS,
    hooks: Sequence[tuple[str, str]] = (),
) -> WireRun:
    calls = [{"event": e, "tool": t, "outcome": "ok", "time": 1.0} for t in ran for e in ("start", "end")]
    hook_calls = [{"hook": hook, "input": {"tool_name": f"mcp__suite__{tool}"}} for hook, tool in hooks]
    return WireRun(
        scenario="made",
        target="made",
        base_url="http://127.0.0.1:9",
        timeout=1.0,
        requests=[_request(results, tools)],
        outcome=TargetOutcome(0, "", "", False, 0.0),
        server_errors=[],
        workdir=workdir,
        mcp_calls=calls,
        hook_calls=hook_calls,
    )


def _errors(ids: Mapping[str, str], skip: Sequence[str] = ("control",)) -> dict[str, Any]:
    return {i: ("denied", True) for label, i in ids.items() if label not in skip}


# -- PERM-4 ---------------------------------------------------------------------------------------


def test_sources_a_denied_tool_that_ran_is_named(tmp_path: Path) -> None:
    ids = rules.source_ids()
    controls = [t for t, (_, must) in rules.SOURCE_GUARDS.items() if must]
    results = {ids[t]: ("denied", True) for t in rules.SOURCE_GUARDS}
    assert checks.judge_sources(_run(tmp_path, results, ran=controls)) == ([], [])
    problems, unproven = checks.judge_sources(
        _run(tmp_path, results, ran=[*controls, "src_user_allow_project_deny"])
    )
    assert unproven == []
    assert problems == [
        "src_user_allow_project_deny ran although allow in userSettings, deny in projectSettings"
    ]
    # An ask that came back as a success (the tool ran where the log can't see) is a problem too.
    problems, _ = checks.judge_sources(
        _run(tmp_path, {**results, ids["src_local_ask_flag_allow"]: ("x", False)}, ran=controls)
    )
    assert any("src_local_ask_flag_allow" in p for p in problems)


def test_sources_an_unread_file_is_not_checked(tmp_path: Path) -> None:
    """A harness that reads no settings file but --settings runs neither user- nor local-only tool."""
    ids = rules.source_ids()
    results = {ids[t]: ("denied", True) for t in rules.SOURCE_GUARDS}
    _, unproven = checks.judge_sources(_run(tmp_path, results, ran=["src_flag_allow"]))
    assert len(unproven) == 2
    assert "src_user_allow" in unproven[0]
    assert "src_local_allow" in unproven[1]


# -- PERM-17, PERM-16, PERM-11 --------------------------------------------------------------------


def test_denied_spellings_a_created_file_is_the_proof_it_ran(tmp_path: Path) -> None:
    ids = rules.shell_deny_ids()
    (tmp_path / rules.DENY_CONTROL).mkdir()
    results = {**_errors(ids), ids["control"]: ("", False)}
    assert checks.judge_denied_spellings(_run(tmp_path, results)) == ([], [])
    (tmp_path / "f17-bash-c").touch()
    problems, unproven = checks.judge_denied_spellings(
        _run(tmp_path, {**results, ids["bash-c"]: ("ok", False)})
    )
    assert unproven == []
    assert [p.split(":")[0] for p in problems] == ["bash-c", ids["bash-c"] + " (bash-c"]


def test_denied_spellings_without_the_control_are_not_checked(tmp_path: Path) -> None:
    """A harness that denies every shell call (or has no shell) proves nothing about deny rules."""
    ids = rules.shell_deny_ids()
    problems, unproven = checks.judge_denied_spellings(_run(tmp_path, _errors(ids, skip=())))
    assert problems == []
    assert unproven == [
        f"the allowed control command (mkdir {rules.DENY_CONTROL}) did not run: its directory is missing"
    ]
    _, unproven = checks.judge_denied_spellings(_run(tmp_path, _errors(ids), tools=[]))
    assert "the harness offers no shell tool (Bash)" in unproven


@pytest.mark.parametrize("label", list(rules.UNALLOWED_COMPOUNDS))
def test_unallowed_compounds_each_part_is_judged(tmp_path: Path, label: str) -> None:
    ids = rules.shell_allow_ids()
    (tmp_path / rules.ALLOW_CONTROL).mkdir()
    (tmp_path / f"f16-{label}").touch()
    problems, unproven = checks.judge_unallowed_compounds(_run(tmp_path, _errors(ids)))
    assert unproven == []
    assert len(problems) == 1
    assert problems[0].startswith(f"{label}: ")
    # PERM-11 judges only the compounds among them.
    problems, _ = checks.judge_unallowed_compounds(_run(tmp_path, _errors(ids)), checks.COMPOUND_LABELS)
    assert bool(problems) == (label in checks.COMPOUND_LABELS)


def test_path_rules_a_leaked_token_is_named(tmp_path: Path) -> None:
    ids = rules.paths_ids()
    results = {**_errors(ids), ids["control"]: (rules.PLAIN_TOKEN, False)}
    assert checks.judge_path_rules(_run(tmp_path, results)) == ([], [])
    leaked = {**results, ids["link"]: (f"1\t{rules.SECRET_TOKEN}", False)}
    problems, _ = checks.judge_path_rules(_run(tmp_path, leaked))
    assert problems[0] == "link: reading 'link.txt' returned the denied file's content"
    home = {**results, ids["home-dotdot"]: (rules.HOME_SECRET_TOKEN, True)}
    assert checks.judge_path_rules(_run(tmp_path, home))[0] == [
        "home-dotdot: reading '~/../home/home-secret.txt' returned the denied file's content"
    ]


def test_path_rules_without_the_control_read_are_not_checked(tmp_path: Path) -> None:
    ids = rules.paths_ids()
    _, unproven = checks.judge_path_rules(_run(tmp_path, _errors(ids, skip=())))
    assert unproven == ["the control read (plain.txt) never reached the model: the read tool read nothing"]


def test_scenario_files_are_written_where_the_target_finds_them(tmp_path: Path) -> None:
    write_scenario_files(tmp_path, rules.paths_scenario())
    assert (tmp_path / "link.txt").read_text() == f"{rules.SECRET_TOKEN}\n"
    assert (tmp_path / "linked" / "secret.txt").read_text() == f"{rules.SECRET_TOKEN}\n"
    assert (tmp_path / "home" / "home-secret.txt").read_text() == f"{rules.HOME_SECRET_TOKEN}\n"
    sources = tmp_path / "sources"
    write_scenario_files(sources, rules.sources_scenario())
    user = json.loads((sources / "home/.claude/settings.json").read_text())
    assert "mcp__suite__src_user_allow" in user["permissions"]["allow"]
    assert (sources / ".claude/settings.json").is_file()
    assert (sources / ".claude/settings.local.json").is_file()


def test_scenario_files_outside_the_workdir_are_refused() -> None:
    with pytest.raises(ValueError, match="must be a relative path inside the working directory"):
        rules.paths_scenario().__class__(name="x", prompt="p", steps=(), files={"../escape": "x"})
    with pytest.raises(ValueError, match="unknown settings source"):
        rules.paths_scenario().__class__(name="x", prompt="p", steps=(), setting_files={"policySettings": {}})


# -- PERM-15, PERM-9 ---------------------------------------------------------------------------------


def _accept_edits_workdir(tmp_path: Path) -> Path:
    workdir = tmp_path / "work"
    write_scenario_files(workdir, rules.protected_scenario())
    (workdir / rules.EDIT_CONTROL).write_text(rules.PLANTED)
    return workdir


def test_protected_paths_a_planted_file_is_named(tmp_path: Path) -> None:
    ids = rules.protected_ids()
    workdir = _accept_edits_workdir(tmp_path)
    results = {**_errors(ids), ids["control"]: ("written", False)}
    assert checks.judge_protected_paths(_run(workdir, results)) == ([], [])
    (workdir / ".git/config").write_text(rules.PLANTED)
    (workdir / "home").mkdir(exist_ok=True)
    (workdir / "home/.bashrc").write_text(rules.PLANTED)
    (workdir / rules.REDIRECTED).write_text("planted\n")
    problems, unproven = checks.judge_protected_paths(_run(workdir, results))
    assert unproven == []
    assert problems == [
        "git-config: the write tool wrote the protected .git/config in acceptEdits",
        "bashrc: the write tool wrote the protected ~/.bashrc in acceptEdits",
        f"a shell redirection wrote the protected {rules.REDIRECTED} in acceptEdits",
    ]


def test_accept_edits_outside_write_is_named_and_no_mode_is_not_checked(tmp_path: Path) -> None:
    ids = rules.protected_ids()
    workdir = _accept_edits_workdir(tmp_path)
    results = {**_errors(ids), ids["control"]: ("written", False)}
    assert checks.judge_accept_edits(_run(workdir, results)) == ([], [])
    (tmp_path / "outside-accept-edits.txt").write_text(rules.PLANTED)
    problems, _ = checks.judge_accept_edits(_run(workdir, {**results, ids["outside"]: ("written", False)}))
    assert problems[0] == f"acceptEdits wrote {rules.OUTSIDE}, outside the working directory"
    (workdir / rules.EDIT_CONTROL).unlink()  # the mode never took effect: nothing was edited
    _, unproven = checks.judge_protected_paths(_run(workdir, _errors(ids, skip=())))
    assert unproven == [
        f"the control write ({rules.EDIT_CONTROL}) wrote nothing: acceptEdits did not take effect"
    ]


# -- CONC-4 ----------------------------------------------------------------------------------------


def test_failed_shell_siblings_that_ran_are_named(tmp_path: Path) -> None:
    ids = rules.shell_fail_ids()
    (tmp_path / "c4-first").touch()
    cancelled = {i: ("Cancelled: a sibling failed", True) for i in ids.values()}
    assert checks.judge_failed_shell(_run(tmp_path, cancelled)) == ([], [])
    (tmp_path / "c4-second").touch()
    ran = {**cancelled, ids["second"]: ("", False)}
    problems, _ = checks.judge_failed_shell(_run(tmp_path, ran))
    assert problems[0] == "second: 'touch c4-second' ran after its shell sibling failed"
    (tmp_path / "c4-first").unlink()
    assert checks.judge_failed_shell(_run(tmp_path, cancelled))[1] == [
        "the failing shell command never ran (c4-first is missing)"
    ]


# -- RESULT-2, RESULT-3 -------------------------------------------------------------------------------

_CAPTION = "p" * res.IMAGE_TEXT_CHARS
_IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}


def test_images_kept_whole_or_named(tmp_path: Path) -> None:
    persisted = ("<persisted-output>saved to /x/y.txt: " + "p" * 100, False)
    whole = ([_IMAGE, {"type": "text", "text": _CAPTION}], False)
    good = {res.ImageIds.PICTURE: whole, res.ImageIds.TEXT_ONLY: persisted}
    ran = ["pic", "text_only"]
    assert checks.judge_images_kept(_run(tmp_path, good, ran=ran)) == ([], [])
    replaced = {**good, res.ImageIds.PICTURE: ([_IMAGE, {"type": "text", "text": persisted[0]}], False)}
    problems, _ = checks.judge_images_kept(_run(tmp_path, replaced, ran=ran))
    assert problems == [
        f"{res.ImageIds.PICTURE}: the image result's text was replaced or cut (137 of 60000 characters sent)"
    ]
    no_image = {**good, res.ImageIds.PICTURE: (_CAPTION, False)}
    assert checks.judge_images_kept(_run(tmp_path, no_image, ran=ran))[0] == [
        f"{res.ImageIds.PICTURE}: the image result was sent without its image"
    ]
    # Nothing is replaced at this size: the exemption can't be seen, so not checked.
    inline = {**good, res.ImageIds.TEXT_ONLY: (_CAPTION, False)}
    assert "went inline too" in checks.judge_images_kept(_run(tmp_path, inline, ran=ran))[1][0]


def test_message_budget_over_or_wrong_one_replaced(tmp_path: Path) -> None:
    ids = res.budget_ids()
    ran = list(res.BUDGET_SIZES)
    inline = {ids[t]: (res.budget_output(t), False) for t in res.BUDGET_SIZES}
    problems, unproven = checks.judge_message_budget(_run(tmp_path, inline, ran=ran))
    assert unproven == []
    assert problems == [
        "the 10 results of one message total 230000 characters, over the 200000-character budget (replaced: none)"
    ]
    largest = {**inline, ids["b_large"]: ("<persisted-output>saved to /x: aaaa", False)}
    assert checks.judge_message_budget(_run(tmp_path, largest, ran=ran)) == ([], [])
    wrong = {**inline, ids["b_medium"]: ("saved", False), ids["b_one"]: ("saved", False)}
    problems, _ = checks.judge_message_budget(_run(tmp_path, wrong, ran=ran))
    assert problems == ["['b_medium', 'b_one'] were replaced but not the largest result (b_large)"]
    assert checks.judge_message_budget(_run(tmp_path, largest, ran=ran[:-1]))[1] == [
        "the suite's MCP server never ran b_eight to its end"
    ]


def test_calls_never_made_are_not_checked_never_passed(tmp_path: Path) -> None:
    """A harness that ends the run at its first auto-rejected call never made the rest: not checked."""
    ids = rules.shell_allow_ids()
    (tmp_path / rules.ALLOW_CONTROL).mkdir()
    first = {ids["control"]: ("", False), ids["and"]: ("rejected", True)}
    problems, unproven = checks.judge_unallowed_compounds(_run(tmp_path, first))
    assert problems == []
    assert len(unproven) == len(rules.UNALLOWED_COMPOUNDS) - 1
    assert unproven[0].endswith("was never answered: the run ended before the call was made")


# -- HOOK-8, DEFER-5 ----------------------------------------------------------------------------------

_HOOKS_RAN = [("async-deny", "h_async"), ("plugin-deny", "h_plugin")]


def test_hook_sources_a_deciding_async_hook_or_ignored_plugin_is_named(tmp_path: Path) -> None:
    good = {
        HookSourceIds.ASYNC: ("ran", False),
        HookSourceIds.PLUGIN: ("denied", True),
        HookSourceIds.HTTP: ("ran", False),
    }
    ran = ["h_async", "h_http"]
    assert checks.judge_hook_sources(_run(tmp_path, good, ran=ran, hooks=_HOOKS_RAN)) == ([], [])
    problems, _ = checks.judge_hook_sources(
        _run(tmp_path, good, ran=["h_plugin", "h_http"], hooks=_HOOKS_RAN)
    )
    assert problems == [
        "h_async did not run: an async hook's deny decided the call",
        "h_plugin ran although its plugin's PreToolUse hook denied it",
    ]
    assert checks.judge_hook_sources(_run(tmp_path, good, ran=["h_async"], hooks=_HOOKS_RAN))[0] == [
        "h_http did not run: an http hook nothing answers blocked the call"
    ]
    # A harness that never loads the plugin (so never expands its root) is not checked.
    _, unproven = checks.judge_hook_sources(_run(tmp_path, good, ran=ran, hooks=_HOOKS_RAN[:1]))
    assert unproven == ["the suite's plugin-deny hook never ran for h_plugin"]


def _refs(*tools: str) -> tuple[list[dict[str, str]], bool]:
    return [{"type": "tool_reference", "tool_name": f"mcp__suite__{t}"} for t in tools], False


_SEARCH_TOOLS: list[dict[str, Any]] = [
    *_TOOLS,
    {"name": "ToolSearch", "description": "s", "input_schema": {"type": "object"}},
]


def test_keyword_search_each_fast_path_is_judged(tmp_path: Path) -> None:
    ids = search_ids()
    good = {
        ids["exact"]: _refs("n_notes"),
        ids["required"]: _refs("f_flights", "w_alpha"),
        ids["limit"]: _refs("w_alpha"),
        ids["nothing"]: ("No matching deferred tools found", False),
        ids["server"]: _refs("w_alpha", "w_beta", "n_notes", "f_flights", "s_stocks"),
    }
    assert checks.judge_keyword_search(_run(tmp_path, good, tools=_SEARCH_TOOLS)) == ([], [])
    bad = {
        **good,
        ids["exact"]: _refs("w_alpha", "n_notes"),
        ids["required"]: _refs("f_flights", "w_beta"),
        ids["limit"]: _refs("w_alpha", "w_beta"),
        ids["nothing"]: _refs("s_stocks"),
        ids["server"]: _refs("w_alpha"),
    }
    problems, unproven = checks.judge_keyword_search(_run(tmp_path, bad, tools=_SEARCH_TOOLS))
    assert unproven == []
    assert [p.split(" ")[0] for p in problems] == ["searching", "+forecast", "max_results", "a", "the"]
    nothing_found = {i: ("No matching deferred tools found", False) for i in ids.values()}
    _, unproven = checks.judge_keyword_search(_run(tmp_path, nothing_found, tools=_SEARCH_TOOLS))
    assert unproven == ["no search returned a tool_reference: the deferred tools were never searched"]


# -- SBX-1, SBX-2 ----------------------------------------------------------------------------------


def _sandbox_workdir(tmp_path: Path) -> Path:
    workdir = tmp_path / "work"
    write_scenario_files(workdir, sbx.sandbox_scenario())
    (workdir / sbx.SANDBOX_CONTROL).write_text("ran\n")
    return workdir


def _refused() -> dict[str, Any]:
    ids = sbx.sandbox_ids()
    return {
        i: ("Exit code 1\n/bin/bash: x: Read-only file system", True)
        for label, i in ids.items()
        if label != "control"
    }


def test_sandbox_an_escape_or_a_protected_write_is_named(tmp_path: Path) -> None:
    workdir = _sandbox_workdir(tmp_path)
    assert sandbox_checks.judge_sandbox_writes(_run(workdir, _refused())) == ([], [])
    assert sandbox_checks.judge_sandbox_protected(_run(workdir, _refused())) == ([], [])
    (tmp_path / "sbx-symlink.txt").write_text("pwned")
    problems, _ = sandbox_checks.judge_sandbox_writes(_run(workdir, _refused()))
    assert problems == [
        "symlink: 'ln -s .. sbx-up && echo pwned > sbx-up/sbx-symlink.txt' wrote ../sbx-symlink.txt, outside the working directory"
    ]
    (workdir / ".claude/settings.local.json").write_text("{}\n")
    (workdir / ".git/config").write_text("[core]\n\tfsmonitor = touch pwned\n")
    problems, _ = sandbox_checks.judge_sandbox_protected(_run(workdir, _refused()))
    assert problems == [
        "settings: the sandboxed command rewrote .claude/settings.local.json",
        "git-config: the sandboxed command set core.fsmonitor in .git/config",
    ]


def test_sandbox_that_never_ran_or_a_rule_that_refused_is_not_checked(tmp_path: Path) -> None:
    """No control written: the sandbox never started. Refusals without the OS's error: a rule, not the sandbox."""
    workdir = _sandbox_workdir(tmp_path)
    (workdir / sbx.SANDBOX_CONTROL).unlink()
    _, unproven = sandbox_checks.judge_sandbox_protected(_run(workdir, _refused()))
    assert unproven[0].startswith(f"the control ({sbx.SANDBOX_CONTROL}")
    (workdir / sbx.SANDBOX_CONTROL).write_text("ran\n")
    denied = {i: ("Permission to use Bash has been denied.", True) for i in _refused()}
    problems, unproven = sandbox_checks.judge_sandbox_writes(_run(workdir, denied))
    assert problems == []
    assert unproven == ["no escape was refused by the operating system: the sandbox never ran one"]


def _rules_run(root: Path, created: Sequence[str]) -> WireRun:
    """A ``sandbox-rules`` run in ``root/rules`` where the files ``created`` exist; every call but the control refused."""
    workdir = root / "rules"
    workdir.mkdir(parents=True)
    for relative in created:
        (workdir / relative).write_text("x")
    ids = sbx.sandbox_rules_ids()
    answered = {i: ("refused", True) for label, i in ids.items() if label != "control"}
    return _run(workdir, {**answered, ids["control"]: ("", False)})


def test_sandbox_exits_an_unsandboxed_or_excluded_command_that_ran_is_named(tmp_path: Path) -> None:
    sandbox = _run(_sandbox_workdir(tmp_path), _refused())
    assert sandbox_checks.judge_sandbox_exits(sandbox, _rules_run(tmp_path / "a", ["sbx6-auto.txt"])) == (
        [],
        [],
    )
    (tmp_path / "sbx-unsandboxed.txt").write_text("x")  # beside the sandbox run's working directory
    (tmp_path / "b" / "sbx4-excluded.txt").parent.mkdir()
    (tmp_path / "b" / "sbx4-excluded.txt").write_text("x")  # beside the rules run's
    problems, unproven = sandbox_checks.judge_sandbox_exits(
        sandbox, _rules_run(tmp_path / "b", ["sbx6-auto.txt"])
    )
    assert unproven == []
    assert problems == [
        "with allowUnsandboxedCommands false, 'echo pwned > ../sbx-unsandboxed.txt' left the sandbox: "
        "../sbx-unsandboxed.txt exists",
        "excluded: 'cp sbx6-auto.txt ../sbx4-excluded.txt' ran outside the sandbox though nothing allowed it: "
        "../sbx4-excluded.txt exists",
    ]


def test_sandbox_auto_allow_missing_or_rules_ignored_is_named(tmp_path: Path) -> None:
    sandbox = _run(_sandbox_workdir(tmp_path), _refused())
    assert sandbox_checks.judge_sandbox_auto_allow(
        sandbox, _rules_run(tmp_path / "a", ["sbx6-auto.txt"])
    ) == ([], [])
    problems, _ = sandbox_checks.judge_sandbox_auto_allow(
        sandbox, _rules_run(tmp_path / "b", ["sbx6-deny.txt"])
    )
    assert problems == [
        "control: 'echo ran > sbx6-auto.txt' (sandboxed, no rule names it) did not run: it was not auto-allowed",
        "deny: 'touch sbx6-deny.txt' ran although a deny rule names it: sbx6-deny.txt exists",
    ]
    # Without the sandbox scenario's proof (its control), nothing is judged.
    (tmp_path / "work" / sbx.SANDBOX_CONTROL).unlink()
    _, unproven = sandbox_checks.judge_sandbox_auto_allow(sandbox, _rules_run(tmp_path / "c", []))
    assert unproven[0].startswith("sandbox scenario: the control")


def test_sandbox_unavailable_refusing_to_start_or_refusing_the_shell_passes(tmp_path: Path) -> None:
    import dataclasses

    ran = _run(tmp_path, {sbx.UnavailableIds.SHELL: ("the sandbox is unavailable", True)}, ran=["u_echo"])
    assert sandbox_checks.judge_sandbox_unavailable(ran) == ([], [])
    said = TargetOutcome(1, "", "Error: sandbox required but unavailable: bwrap not installed", False, 0.0)
    refused = dataclasses.replace(ran, requests=[], outcome=said)
    assert sandbox_checks.judge_sandbox_unavailable(refused) == ([], [])
    silent = dataclasses.replace(refused, outcome=TargetOutcome(1, "", "Error: no API key", False, 0.0))
    assert (
        "without saying the sandbox is unavailable" in sandbox_checks.judge_sandbox_unavailable(silent)[0][0]
    )
    (tmp_path / sbx.UNAVAILABLE_FILE).write_text("ran\n")
    unsandboxed = _run(tmp_path, {sbx.UnavailableIds.SHELL: ("", False)}, ran=["u_echo"])
    problems, _ = sandbox_checks.judge_sandbox_unavailable(unsandboxed)
    assert (
        problems[0]
        == f"the shell command ran although the sandbox could not start: {sbx.UNAVAILABLE_FILE} exists"
    )
    (tmp_path / sbx.UNAVAILABLE_FILE).unlink()
    everything_refused = _run(tmp_path, {sbx.UnavailableIds.SHELL: ("no", True)})
    assert sandbox_checks.judge_sandbox_unavailable(everything_refused)[1] == [
        "the MCP call did not run either: the harness refused everything, not the shell"
    ]


def test_malformed_rules_refused_by_name_or_a_command_that_ran_is_named(tmp_path: Path) -> None:
    import dataclasses

    ids = rules.malformed_ids()
    (tmp_path / rules.MALFORMED_CONTROL).write_text("ran\n")
    denied = {**_errors(ids), ids["control"]: ("", False)}
    assert checks.judge_malformed_rules(_run(tmp_path, denied)) == ([], [])
    (tmp_path / "f12-stray-spaces").mkdir()
    problems, _ = checks.judge_malformed_rules(_run(tmp_path, {**denied, ids["stray-spaces"]: ("", False)}))
    assert (
        problems[0]
        == "stray-spaces: the deny rule 'Bash(mkdir :* )' was loaded and never applied: 'mkdir f12-stray-spaces' ran"
    )
    named = TargetOutcome(
        2, "", "settings file '~/.claude/settings.json': rule 'bash(touch:*)' is invalid", False, 0.0
    )
    refused = dataclasses.replace(_run(tmp_path, {}), requests=[], outcome=named)
    assert checks.judge_malformed_rules(refused) == ([], [])
    unnamed = dataclasses.replace(refused, outcome=TargetOutcome(2, "", "Error", False, 0.0))
    assert "without naming the settings file" in checks.judge_malformed_rules(unnamed)[0][0]
    (tmp_path / rules.MALFORMED_CONTROL).unlink()
    assert checks.judge_malformed_rules(_run(tmp_path, denied))[1] == [
        f"the allowed control (echo ran > {rules.MALFORMED_CONTROL}) did not run"
    ]
