"""Black-box conformance of rules however a call is written, failed shells and result budgets.

The scenarios are :mod:`pytest_toolharness.wire.scenarios._rules`' and
:mod:`pytest_toolharness.wire.scenarios._results`'; the judgements
(:mod:`pytest_toolharness.wire.checks._runs`) read the files a command would create, the tokens only a
denied file holds, the suite's MCP server's log, and need each scenario's control to have taken
effect, or the requirement is "not checked".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance._wire_runs import WireRunner, judge, scenario_runner
from pytest_toolharness.adapters import requires
from pytest_toolharness.wire import checks
from pytest_toolharness.wire.scenarios import (
    WireScenario,
    budget_scenario,
    images_scenario,
    malformed_scenario,
    paths_scenario,
    protected_scenario,
    sandbox_rules_scenario,
    sandbox_scenario,
    sandbox_unavailable_scenario,
    shell_allow_scenario,
    shell_deny_scenario,
    shell_fail_scenario,
    sources_scenario,
)

_SCENARIOS: dict[str, Callable[..., WireScenario]] = {
    "sources": sources_scenario,
    "malformed": malformed_scenario,
    "shell-deny": shell_deny_scenario,
    "shell-allow": shell_allow_scenario,
    "paths": paths_scenario,
    "protected": protected_scenario,
    "shell-fail": shell_fail_scenario,
    "images": images_scenario,
    "budget": budget_scenario,
    "sandbox": sandbox_scenario,
    "sandbox-rules": sandbox_rules_scenario,
    "sandbox-unavailable": sandbox_unavailable_scenario,
}


@pytest.fixture(scope="module")
def wire(new_harness: Callable[[], Any], request: pytest.FixtureRequest) -> WireRunner:
    """Runs a named scenario on first use and remembers the run (one harness for the module).

    The first use starts the runs of the module's other selected tests too, two at a time.
    """
    return scenario_runner(new_harness, _SCENARIOS, request)


def _judged(run: Any, judgement: checks.Judgement) -> None:
    problems, unproven = judgement
    judge(run, problems, unproven)


@requires("wire")
@pytest.mark.requirement("PERM-4", "MUST")
def test_rules_resolve_across_settings_sources(wire: WireRunner) -> None:
    """PERM-4: deny > ask > allow across the user, project, local and --settings files."""
    run = wire("sources")
    _judged(run, checks.judge_sources(run))


@requires("wire")
@pytest.mark.requirement("PERM-17", "MUST")
def test_deny_rule_catches_every_spelling(wire: WireRunner) -> None:
    """PERM-17: deny Bash(touch:*) catches touch quoted, escaped, by path, wrapped, nested (no file appears)."""
    run = wire("shell-deny")
    _judged(run, checks.judge_denied_spellings(run))


@requires("wire")
@pytest.mark.requirement("PERM-16", "MUST")
def test_prefix_allow_allows_only_what_it_names(wire: WireRunner) -> None:
    """PERM-16: allow Bash(mkdir:*) runs mkdir, never a command that also runs touch (no file appears)."""
    run = wire("shell-allow")
    _judged(run, checks.judge_unallowed_compounds(run))


@requires("wire")
@pytest.mark.requirement("PERM-11", "MUST")
def test_rules_match_normalised_paths_and_every_part_of_a_compound(wire: WireRunner) -> None:
    """PERM-11: a Read deny holds through ./, .., //, ~ and symbolic links; a prefix allow not for compounds."""
    paths = wire("paths")
    problems, unproven = checks.judge_path_rules(paths)
    compounds = wire("shell-allow")
    more, unproven_more = checks.judge_unallowed_compounds(compounds, checks.COMPOUND_LABELS)
    judge(paths, problems, unproven)
    judge(compounds, more, unproven_more)


@requires("wire")
@pytest.mark.requirement("PERM-15", "MUST")
def test_accept_edits_never_writes_protected_paths(wire: WireRunner) -> None:
    """PERM-15: acceptEdits writes edited.txt but none of .git, .claude, .vscode, .mcp.json, ~/.bashrc, ..."""
    run = wire("protected")
    _judged(run, checks.judge_protected_paths(run))


@requires("wire")
@pytest.mark.requirement("PERM-9", "SHOULD")
def test_accept_edits_allows_only_in_directory_edits(wire: WireRunner) -> None:
    """PERM-9: acceptEdits allows a write inside the working directory, not one outside it."""
    run = wire("protected")
    _judged(run, checks.judge_accept_edits(run))


@requires("wire")
@pytest.mark.requirement("CONC-4", "MUST")
def test_failed_shell_call_cancels_its_shell_siblings(wire: WireRunner) -> None:
    """CONC-4: after a shell call exits 3, the shell calls queued behind it don't run and get error results."""
    run = wire("shell-fail")
    _judged(run, checks.judge_failed_shell(run))


@requires("wire")
@pytest.mark.requirement("RESULT-2", "MUST")
def test_image_results_are_never_persisted(wire: WireRunner) -> None:
    """RESULT-2: an oversized result with an image arrives whole; the same text alone is replaced."""
    run = wire("images")
    _judged(run, checks.judge_images_kept(run))


@requires("wire")
@pytest.mark.requirement("RESULT-3", "MUST")
def test_one_message_stays_within_the_budget(wire: WireRunner) -> None:
    """RESULT-3: 230,000 characters of results in one message: the largest replaced, within 200,000."""
    run = wire("budget")
    _judged(run, checks.judge_message_budget(run))


@requires("wire")
@pytest.mark.requirement("SBX-1", "MUST")
def test_sandboxed_commands_write_only_inside(wire: WireRunner) -> None:
    """SBX-1: sandbox on, every command allowed: writes through .., /proc/self/root, a link, Python, $HOME fail."""
    run = wire("sandbox")
    _judged(run, checks.judge_sandbox_writes(run))


@requires("wire")
@pytest.mark.requirement("SBX-2", "MUST")
def test_sandboxed_commands_leave_settings_skills_and_git_alone(wire: WireRunner) -> None:
    """SBX-2: a sandboxed command can't rewrite the settings, add a skill, a git hook or git config."""
    run = wire("sandbox")
    _judged(run, checks.judge_sandbox_protected(run))


@requires("wire")
@pytest.mark.requirement("SBX-4", "MUST")
def test_leaving_the_sandbox_is_a_permission_decision(wire: WireRunner) -> None:
    """SBX-4: dangerouslyDisableSandbox and excludedCommands are decided as permissions; allowUnsandboxedCommands false keeps it in."""
    sandbox, rules_run = wire("sandbox"), wire("sandbox-rules")
    problems, unproven = checks.judge_sandbox_exits(sandbox, rules_run)
    judge(sandbox, [], unproven)
    judge(rules_run, problems)


@requires("wire")
@pytest.mark.requirement("SBX-6", "SHOULD")
def test_sandboxed_commands_are_auto_allowed_but_rules_still_apply(wire: WireRunner) -> None:
    """SBX-6: with autoAllowBashIfSandboxed a command no rule names runs unasked; a deny and an ask rule still hold."""
    sandbox, rules_run = wire("sandbox"), wire("sandbox-rules")
    problems, unproven = checks.judge_sandbox_auto_allow(sandbox, rules_run)
    judge(sandbox, [], unproven)
    judge(rules_run, problems)


@requires("wire")
@pytest.mark.requirement("SBX-5", "MUST")
def test_unavailable_sandbox_is_said_and_refuses_the_shell(wire: WireRunner) -> None:
    """SBX-5: no bubblewrap on PATH, failIfUnavailable: the harness says so and never runs the command.

    Refusing to start (an error exit naming the sandbox, no request) complies; so does running and
    refusing the shell call while the MCP call runs. Not judged by :func:`judge`: a refusal to
    start is a failed run there.
    """
    run = wire("sandbox-unavailable")
    problems, unproven = checks.judge_sandbox_unavailable(run)
    if unproven:
        pytest.skip(
            f"not checked: {run.target} (sandbox-unavailable) did not exercise it: " + "; ".join(unproven)
        )
    if problems:
        pytest.fail(f"{run.target} (sandbox-unavailable):\n- " + "\n- ".join(problems), pytrace=False)


@requires("wire")
@pytest.mark.requirement("PERM-12", "MUST")
def test_malformed_deny_rules_are_refused_or_mean_what_they_name(wire: WireRunner) -> None:
    """PERM-12: bash(touch:*), Bash(mkdir :* ), Bash(cp:* in the user's settings: refused, or their commands denied.

    Refusing to start with an error naming the settings file complies, so this is not judged by
    :func:`judge` (a refusal to start is a failed run there).
    """
    run = wire("malformed")
    problems, unproven = checks.judge_malformed_rules(run)
    if unproven:
        pytest.skip(f"not checked: {run.target} (malformed) did not exercise it: " + "; ".join(unproven))
    if problems:
        pytest.fail(f"{run.target} (malformed):\n- " + "\n- ".join(problems), pytrace=False)
