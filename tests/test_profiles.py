"""Profiles, capabilities that ask only for what a test uses, statuses that don't flatter, and verdicts
that don't depend on the host project's configuration (issue 11)."""

from __future__ import annotations

import json

import pytest

from tests._fake_suite import make_suite, run

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

# A harness with the execution capability only: it has no permission engine, and it writes down every
# rule and mode a scenario gives it, so the test can prove none was in play.
EXECUTION_ONLY = """
import json, os
import jsonschema
from pytest_toolharness.adapters import ExecutionResult

SEEN = os.environ["TOOLHARNESS_SEEN"]

class Harness:
    async def execute(self, scenario):
        with open(SEEN, "a") as seen:
            seen.write(json.dumps({"rules": len(scenario.rules), "mode": scenario.mode}) + "\\n")
        tools = {t.name: t for t in scenario.tools}
        content = []
        for block in scenario.tool_uses:
            spec = tools.get(block["name"])
            text, error = "", True
            if spec is None:
                text = f"no tool named {block['name']}"
            elif not jsonschema.Draft202012Validator(dict(spec.input_schema)).is_valid(block["input"]):
                text = "input does not match the schema"
            elif spec.rejects_when and block["input"].get(spec.rejects_when):
                text = spec.rejection_message()
            else:
                try:
                    out = await spec.behavior.run(
                        block["id"], spec.name, block["input"], scenario.abort, scenario.recorder
                    )
                except Exception as exc:
                    text = f"the tool failed: {exc}"
                else:
                    error = False
                    text = out if isinstance(out, (str, list)) else json.dumps(out, default=str)
                    if isinstance(text, str) and not text.strip():
                        text = f"({spec.name} completed with no output)"
            content.append(
                {"type": "tool_result", "tool_use_id": block["id"], "content": text, "is_error": error}
            )
        return ExecutionResult(user_content=content)

class Adapter:
    name = "execution only"
    capabilities = frozenset({"execution"})

    def new_harness(self):
        return Harness()

def make():
    return Adapter()
"""

NOTHING = """
class Adapter:
    name = "nothing"
    capabilities = frozenset()

    def new_harness(self):
        return object()

def make():
    return Adapter()
"""


def _statuses(pytester: pytest.Pytester, name: str = "report.json") -> dict[str, dict[str, str]]:
    document = json.loads((pytester.path / name).read_text())
    return {r["id"]: r for r in document["requirements"]}


def test_an_adapter_with_no_capabilities_does_not_exit_0(pytester: pytest.Pytester) -> None:
    """Every suite test is skipped (not claimed, or a capability missing): nothing checked is no pass."""
    pytester.makepyfile(nothing=NOTHING)
    result = pytester.runpytest(
        "--toolharness-conformance", "--toolharness-adapter=nothing:make", "--toolharness-report=report.json"
    )
    assert result.ret != pytest.ExitCode.OK
    statuses = {r["status"] for r in _statuses(pytester).values()}
    assert statuses <= {"not checked", "not claimed"}
    assert "not claimed" in statuses  # the claude-code profile: the adapter claims core only


def test_execution_alone_checks_pairing_without_any_permission_rule(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PAIR-1..PAIR-5 are checked through ``execution`` alone; no scenario carries a rule or a mode."""
    seen = pytester.path / "seen.jsonl"
    monkeypatch.setenv("TOOLHARNESS_SEEN", str(seen))
    pytester.makepyfile(execonly=EXECUTION_ONLY)
    pytester.runpytest(
        "--toolharness-conformance",
        "--toolharness-adapter=execonly:make",
        "--toolharness-requirement=PAIR",
        "--toolharness-report=report.json",
        "-p",
        "no:randomly",
    )
    by_id = _statuses(pytester)
    for requirement in ("PAIR-1", "PAIR-2", "PAIR-3", "PAIR-4", "PAIR-5"):
        # Checked (this small harness need not pass them all): never "not checked" or "not claimed".
        assert by_id[requirement]["status"] in ("passed", "partially checked", "failed"), by_id[requirement]
    # The rule, hook, host, timeout and abort paths need capabilities this harness lacks: those tests
    # can't apply to it, so PAIR-2 is judged on the rest, and its evidence says what could not apply.
    assert by_id["PAIR-2"]["status"] in ("passed", "failed"), by_id["PAIR-2"]
    assert "can't apply here" in by_id["PAIR-2"]["evidence"]
    assert "permissions" in by_id["PAIR-2"]["evidence"]
    scenarios = [json.loads(line) for line in seen.read_text().splitlines()]
    assert scenarios, "the harness ran no scenario"
    assert {s["rules"] for s in scenarios} == {0}
    assert {s["mode"] for s in scenarios} == {"default"}


PROFILE_SUITE = """
@requires("execution")
@pytest.mark.requirement("PAIR-1", "MUST")
def test_core():
    pass

@requires("execution")
@pytest.mark.requirement("CONC-4", "MUST")
def test_claude_code():
    pass

@requires("hooks", "execution")
@pytest.mark.requirement("PAIR-3", "MUST")
def test_needs_hooks():
    pass
"""

CORE_ONLY = """
class Adapter:
    name = "core only"
    capabilities = frozenset({"execution"})
    not_applicable = {"PAIR-3": "this harness has no hooks at all"}

    def new_harness(self):
        return object()

def make():
    return Adapter()
"""


def test_unclaimed_profile_is_not_claimed_and_not_run(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, PROFILE_SUITE)
    pytester.makepyfile(coreonly=CORE_ONLY)
    result = pytester.runpytest(
        "--toolharness-conformance",
        "-o",
        suite,
        "--toolharness-adapter=coreonly:make",
        "suite",
        "--toolharness-report=report.json",
    )
    by_id = _statuses(pytester)
    assert by_id["PAIR-1"]["status"] == "passed"
    assert (by_id["CONC-4"]["status"], by_id["CONC-4"]["profile"]) == ("not claimed", "claude-code")
    assert "claims core" in by_id["CONC-4"]["reason"]
    assert by_id["PAIR-3"]["status"] == "not applicable"
    assert "this harness has no hooks at all" in by_id["PAIR-3"]["reason"]
    result.stdout.fnmatch_lines(["profile core: 1 passed, 0 failed, *", "profile claude-code: not claimed *"])
    assert result.ret == pytest.ExitCode.OK


def test_strict_fails_an_unchecked_must_unless_declared_not_applicable(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, PROFILE_SUITE)
    pytester.makepyfile(
        coreonly=CORE_ONLY,
        undeclared=CORE_ONLY.replace('not_applicable = {"PAIR-3": "this harness has no hooks at all"}', ""),
    )
    args = ("--toolharness-conformance", "-o", suite, "suite", "--toolharness-level=strict")
    declared = pytester.runpytest(*args, "--toolharness-adapter=coreonly:make", "--toolharness-report=a.json")
    assert _statuses(pytester, "a.json")["PAIR-3"]["status"] == "not applicable"
    undeclared = pytester.runpytest(
        *args, "--toolharness-adapter=undeclared:make", "--toolharness-report=b.json"
    )
    assert _statuses(pytester, "b.json")["PAIR-3"]["status"] == "not checked"
    assert undeclared.ret == pytest.ExitCode.TESTS_FAILED
    undeclared.stdout.fnmatch_lines(["*! PAIR-3*MUST*not checked*"])
    # The unchecked requirement of the unclaimed profile never fails the run.
    assert "! CONC-4" not in declared.stdout.str()


WARNING_SUITE = """
import warnings

def dependency():
    warnings.warn("this model name is deprecated", DeprecationWarning, stacklevel=2)
    return 42

@pytest.mark.requirement("PAIR-1", "MUST")
def test_uses_a_warning_dependency():
    assert dependency() == 42
"""


def test_host_warning_filters_do_not_change_the_verdicts(pytester: pytest.Pytester) -> None:
    """A host project with ``filterwarnings = error`` gets the verdicts of one without."""
    suite = make_suite(pytester, WARNING_SUITE)
    pytester.makepyfile(test_own="import warnings\n\ndef test_own():\n    warnings.warn('x', UserWarning)\n")
    plain = run(pytester, suite, "--toolharness-report=plain.json")
    pytester.makeini("[pytest]\nfilterwarnings =\n    error\n")
    strict = run(pytester, suite, "--toolharness-report=strict.json", "test_own.py")
    verdicts = {k: v["status"] for k, v in _statuses(pytester, "plain.json").items()}
    assert verdicts == {k: v["status"] for k, v in _statuses(pytester, "strict.json").items()}
    assert verdicts["PAIR-1"] == "passed"
    assert plain.ret == pytest.ExitCode.OK
    # The host's own tests keep the host's configuration: its warning is still an error there.
    strict.assert_outcomes(passed=1, failed=1)


def test_conversation_includes_transcript_and_names_each_method_once() -> None:
    """``conversation`` extends ``transcript``: declaring it declares both, and a harness missing the
    shared methods is told so once, under the capability the adapter declared."""
    from pytest_toolharness.adapters._capabilities import adapter_capabilities, missing_methods

    class Both:
        capabilities = frozenset({"conversation"})

    class Transcript:
        capabilities = frozenset({"transcript"})

    assert adapter_capabilities(Both(), "both") == {"conversation", "transcript"}
    assert adapter_capabilities(Transcript(), "transcript") == {"transcript"}
    missing = missing_methods(object(), adapter_capabilities(Both(), "both"))
    assert [m for _, m in missing] == [
        "set_tools",
        "append_message",
        "render_request",
        "compact",
        "discovered_tools",
        "resume",
    ]
    assert {c for c, _ in missing} == {"conversation"}
    assert {c for c, _ in missing_methods(object(), {"transcript"})} == {"transcript"}
