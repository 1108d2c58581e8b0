"""Issue 12's traps: runs that looked green but checked nothing, errors that said nothing, reports that misled.

Each test reproduces one trap a new user hit, with a fake suite and adapter (``tests/_fake_suite.py``).
"""

from __future__ import annotations

import json
import re
import sys

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

from tests._fake_suite import make_suite, run

pytestmark = pytest.mark.usefixtures("_no_step_summary")


@pytest.fixture
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


ROW = re.compile(r"^\s+!?\s+([A-Z]+-\d+)\s+(?:MUST|SHOULD)\s")

PASSING = """
@pytest.mark.requirement("PAIR-1", "MUST")
def test_pairing():
    pass

@pytest.mark.requirement("PAIR-5", "SHOULD")
def test_order():
    pass
"""


def test_suite_installed_in_a_venv_inside_the_project_is_collected(pytester: pytest.Pytester) -> None:
    venv = pytester.mkdir(".venv")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    suite = venv / "lib" / "site-packages" / "suite"
    suite.mkdir(parents=True)
    (suite / "test_suite.py").write_text("import pytest\n" + PASSING)
    (venv / "lib" / "site-packages" / "test_other_package.py").write_text("def test_x():\n    pass\n")
    (pytester.mkdir("tests") / "test_own.py").write_text("def test_own():\n    pass\n")
    pytester.makeini("[pytest]\ntoolharness_suite_path = .venv/lib/site-packages/suite\n")
    result = pytester.runpytest("--toolharness-conformance", "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=3)  # the suite's two and the project's own; nothing else in .venv
    result.stdout.fnmatch_lines(["*PAIR-1*MUST*passed*"])
    assert "test_other_package" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.OK


def test_an_adapter_with_no_capabilities_checks_nothing_and_fails(pytester: pytest.Pytester) -> None:
    suite = make_suite(
        pytester,
        """
@requires("abort")
@pytest.mark.requirement("CONC-5", "MUST")
def test_abort(harness):
    pass
""",
    )
    result = run(pytester, suite, "--toolharness-requirement=CONC-5")
    result.assert_outcomes(skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*nothing was checked: every requirement test was skipped*"])


def test_must_level_with_only_should_requirements_selected_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    suite = make_suite(pytester, PASSING)
    result = run(pytester, suite, "--toolharness-level=must", "--toolharness-requirement=PAIR-5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*PAIR-5 selects only SHOULD requirements*nothing would be checked*"])


def test_check_command_honours_the_projects_adapter_ini_key(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        myadapter="class A:\n    name = 'mine'\n    capabilities = frozenset()\n\ndef make():\n    return A()\n"
    )
    pytester.makeini("[pytest]\ntoolharness_adapter = myadapter:make\n")
    result = pytester.run(
        sys.executable,
        "-m",
        "pytest_toolharness._cli",
        "check",
        "--requirement=SNAP-1",
        "--report=r.json",
    )
    assert json.loads((pytester.path / "r.json").read_text())["adapter"] == "myadapter:make", (
        result.stdout.str()
    )
    result.stdout.fnmatch_lines(["*toolharness conformance: myadapter:make*"])


WRONG_TYPE_ADAPTER = """
class Harness:
    async def execute(self, scenario):
        return {"user_content": []}

class SyncHarness:
    def execute(self, scenario):
        return None

class Adapter:
    name = "wrong"
    capabilities = frozenset({"execution"})

    def __init__(self, harness):
        self.harness = harness

    def new_harness(self):
        return self.harness()

def make():
    return Adapter(Harness)

def make_sync():
    return Adapter(SyncHarness)
"""

EXECUTE_SUITE = """
import asyncio

@requires("execution")
@pytest.mark.requirement("PAIR-1", "MUST")
def test_pairing(harness):
    result = asyncio.run(harness.execute(None))
    assert result.user_content == []
"""


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        ("make", "*Harness.execute must return an ExecutionResult*got dict*"),
        ("make_sync", "*SyncHarness.execute must be a coroutine (async def)*returned NoneType*"),
    ],
)
def test_execute_returning_the_wrong_type_says_so(
    pytester: pytest.Pytester, factory: str, message: str
) -> None:
    suite = make_suite(pytester, EXECUTE_SUITE)
    pytester.makepyfile(wrongadapter=WRONG_TYPE_ADAPTER)
    result = pytester.runpytest(
        "--toolharness-conformance", "-o", suite, f"--toolharness-adapter=wrongadapter:{factory}", "suite"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([message])
    assert "AttributeError" not in result.stdout.str()


def _subprocess_run(pytester: pytest.Pytester, suite: str, *args: str) -> pytest.RunResult:
    # In a subprocess: Hypothesis's plugin loads --hypothesis-profile for the whole process, for good.
    return pytester.runpytest_subprocess(
        "--toolharness-conformance", "-o", suite, "--toolharness-adapter=myadapter:make", "suite", *args
    )


def test_the_ci_profile_is_registered_whenever_the_plugin_loads(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, PASSING)
    result = _subprocess_run(pytester, suite, "--hypothesis-profile=toolharness-ci")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=2)


def test_a_baseline_that_is_not_utf8_is_a_usage_error(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, PASSING)
    (pytester.path / "baseline.toml").write_bytes(
        '[[expected_failures]]\nid = "PAIR-5"\nreason = "caf\u00e9"\n'.encode("latin-1")
    )
    result = run(pytester, suite, "--toolharness-baseline=baseline.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*baseline*baseline.toml*not UTF-8 text*save it as UTF-8*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


MULTI_ERROR = """
from hypothesis import given, settings, strategies as st

@pytest.mark.requirement("PAIR-1", "MUST")
@settings(database=None, max_examples=200)
@given(n=st.integers())
def test_two_bugs(n):
    if n > 10:
        raise ValueError(f"too big: {n}")
    assert n > -10, "too small"
"""


def test_a_multi_error_failure_shows_the_first_line_of_each_error(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, MULTI_ERROR)
    result = run(pytester, suite, "--toolharness-report=r.json")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    section = out[out.index("toolharness requirement") :]
    assert "2 distinct errors:" in section
    assert "ValueError: too big: 11" in section
    assert "AssertionError: too small" in section
    row = next(line for line in out.splitlines() if "PAIR-1" in line and "failed" in line)
    assert "2 distinct errors" in row
    reason = json.loads((pytester.path / "r.json").read_text())["requirements"][0]["reason"]
    assert "ValueError: too big: 11" in reason
    assert "AssertionError: too small" in reason


FAILING_TWO = """
@pytest.mark.requirement("PAIR-1", "MUST")
def test_pairing():
    assert False, "a tool_use id had no tool_result"

@pytest.mark.requirement("PAIR-2", "MUST")
def test_paths():
    pass
"""


def test_the_failure_section_states_the_requirement_and_points_at_our_spec(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, FAILING_TWO)
    result = run(pytester, suite)
    result.stdout.fnmatch_lines(
        [
            "*toolharness requirement*",
            "PAIR-1 (MUST): The turn after tool calls answers each call id exactly once*",
            '  spec: *conformance/requirements.toml (id = "PAIR-1")',
            "reproduce: pytest --toolharness-conformance --toolharness-adapter=myadapter:make *suite/test_suite.py::test_pairing*",
        ]
    )
    assert "source: 004" not in result.stdout.str()


def test_the_rerun_command_reports_only_what_it_reruns(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, FAILING_TWO)
    first = run(pytester, suite)
    command = next(line for line in first.stdout.lines if line.startswith("reproduce: "))
    node = command.split("--toolharness-adapter=myadapter:make ", 1)[1].split(" (", 1)[0]
    rerun = pytester.runpytest(
        "--toolharness-conformance", "-o", suite, "--toolharness-adapter=myadapter:make", node
    )
    rerun.assert_outcomes(failed=1)
    rows = [m[1] for line in rerun.stdout.lines if (m := ROW.match(line))]
    assert rows == ["PAIR-1"]


def test_the_footer_does_not_promise_a_database_the_profile_lacks(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, FAILING_TWO)
    # Named, not left to the default: under CI=1 the default is the profile without a database.
    with_db = _subprocess_run(pytester, suite, "--hypothesis-profile=toolharness")
    assert "replays the failing example from its database" in with_db.stdout.str()
    result = _subprocess_run(pytester, suite, "--hypothesis-profile=toolharness-ci")
    out = result.stdout.str()
    assert "replays the failing example from its database" not in out
    assert "keeps no example database" in out


def test_the_suite_runs_with_xdist_disabled(pytester: pytest.Pytester) -> None:
    """``-p no:xdist`` (a host that disables xdist, or a user debugging one test) is a run, not an INTERNALERROR."""
    suite = make_suite(pytester, PASSING)
    result = _subprocess_run(pytester, suite, "-p", "no:xdist")
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out, out
    assert result.ret == pytest.ExitCode.OK, out
    result.assert_outcomes(passed=2)
