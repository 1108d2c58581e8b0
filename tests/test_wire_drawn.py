"""Drawn wire scenarios: the data, the strategy's respect for a target's roles, the replay file and the budget."""

from __future__ import annotations

import json
import shlex
import sys

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis
import pytest
from hypothesis import given, settings

from conformance._strategies_wire import drawn_scenarios
from pytest_toolharness.wire.scenarios import DrawnCall, DrawnRule, DrawnScenario
from pytest_toolharness.wire.targets import profile_named
from tests.test_option_target import FAKE_HARNESS
from tests.test_option_target_run import run_suite

_ROLES = {name: profile_named(name).capabilities for name in ("claude-code", "opencode", "cline", "gemini")}  # type: ignore[union-attr]


@settings(max_examples=40, deadline=None)
@given(drawn_scenarios(None, refusing=True))
def test_a_drawn_scenario_survives_its_json(drawn: DrawnScenario) -> None:
    """The replay file's line is the scenario: from_json(to_json(s)) == s, and the bytes are stable."""
    text = drawn.to_json()
    assert DrawnScenario.from_json(text) == drawn
    assert DrawnScenario.from_json(text).to_json() == text
    assert drawn.catches_touch() is not None  # refusing: a deny or ask rule always names touch


@pytest.mark.parametrize("target", sorted(_ROLES))
@settings(max_examples=25, deadline=None)
@given(data=hypothesis.strategies.data())
def test_only_what_a_target_can_express_is_drawn(target: str, data: hypothesis.strategies.DataObject) -> None:
    """The drawn scenario needs no role the target's profile lacks (modes, settings files, rules)."""
    roles = frozenset(_ROLES[target])
    drawn = data.draw(drawn_scenarios(roles, refusing="permission_rules" in roles))
    profile = profile_named(target)
    assert profile is not None
    assert drawn.scenario(profile.names).roles <= roles


def test_the_rules_verdict() -> None:
    """deny holds in every mode; ask in every mode but bypassPermissions; allows refuse nothing."""
    control = ((DrawnCall("control", "mkdir c", "c"),),)

    def drawn(mode: str | None, *rules: tuple[str, str]) -> DrawnScenario:
        return DrawnScenario(tuple(DrawnRule("flagSettings", a, r) for a, r in rules), mode, control)

    assert drawn("bypassPermissions", ("deny", "{shell}(touch:*)")).catches_touch()
    assert drawn("dontAsk", ("ask", "{shell}(touch *)")).catches_touch()
    assert drawn("bypassPermissions", ("ask", "{shell}(touch:*)")).catches_touch() is None
    assert drawn(None, ("allow", "{shell}")).catches_touch() is None
    assert drawn("plan", ("allow", "{shell}(mkdir:*)")).control_allowed() is False
    assert drawn(None, ("allow", "{shell}(mkdir:*)")).control_allowed() is True


@pytest.mark.parametrize(
    "text",
    ["{}", "[1]", '{"mode": "sideways", "rules": [], "turns": [[["control", "mkdir c", "c"]]]}', "nope"],
)
def test_a_bad_replay_line_is_refused_naming_it(text: str) -> None:
    with pytest.raises(ValueError, match="not a drawn wire scenario"):
        DrawnScenario.from_json(text)


SUITE = "from conformance.test_wire_drawn import test_drawn_batches_keep_every_call_paired\n"


def test_a_drawn_failure_is_shrunk_kept_and_replayed_first(pytester: pytest.Pytester) -> None:
    """A harness that drops a result fails the drawn pairing test with the scenario and a command that
    runs it again; the replay file holds it, and the next run fails on it before drawing anything."""
    harness = pytester.path / "fake_harness.py"
    harness.write_text(FAKE_HARNESS)
    target = f"{shlex.quote(sys.executable)} {shlex.quote(str(harness))} drop {{prompt}}"
    replay = pytester.path / "drawn.jsonl"
    options = (
        f"--toolharness-target={target}",
        "--toolharness-wire-examples=3",
        f"--toolharness-wire-replay={replay}",
        "-p",
        "no:randomly",
    )
    first = run_suite(pytester, SUITE, *options)
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["*a shrunk drawn scenario*", "*Run it again*--toolharness-wire-replay*"])
    lines = replay.read_text().splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["test"] == "drawn-batches"
    second = run_suite(pytester, SUITE, *options)
    second.assert_outcomes(failed=1)
    second.stdout.fnmatch_lines(["*replayed drawn scenario, 1 run*"])


@pytest.mark.parametrize(
    ("option", "message"),
    [("--toolharness-wire-examples=0", "must be >= 1"), ("--toolharness-wire-budget=-1", "must be >= 0")],
)
def test_a_bad_budget_is_a_usage_error(pytester: pytest.Pytester, option: str, message: str) -> None:
    result = pytester.runpytest("--toolharness-target=reference", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_the_budget_comes_from_the_ini_file_too(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolharness_wire_examples = many\n")
    result = pytester.runpytest("--toolharness-target=reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*toolharness_wire_examples = 'many' is not a whole number*"])
