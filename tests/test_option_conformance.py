"""``--toolharness-conformance``: the suite joins the user's own tests; markers and JUnit properties."""

from __future__ import annotations

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

SUITE_TEST = """
import pytest

@pytest.mark.requirement("PAIR-1", "MUST")
def test_pairing():
    pass

@pytest.mark.requirement("PAIR-5")
def test_order():
    pass
"""

ADAPTER = """
class Adapter:
    name = "empty"
    capabilities = frozenset()

def make():
    return Adapter()
"""


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    # Inner runs must not append to a real CI step summary.
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> str:
    directory = pytester.mkdir("suite")
    (directory / "test_suite.py").write_text(SUITE_TEST)
    pytester.makepyfile(myadapter=ADAPTER)
    return f"toolharness_suite_path={directory}"


def test_suite_runs_beside_testpaths(pytester: pytest.Pytester, suite: str) -> None:
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    (pytester.mkdir("tests") / "test_own.py").write_text("def test_own():\n    pass\n")
    result = pytester.runpytest("--toolharness-conformance", "-o", suite, "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["*tests/test_own.py::test_own PASSED*", "*test_suite.py::test_pairing PASSED*"]
    )


def test_suite_runs_in_a_project_without_tests(pytester: pytest.Pytester, suite: str) -> None:
    (pytester.path / "suite" / "conftest.py").write_text("")
    empty = pytester.mkdir("empty_project")
    result = pytester.runpytest_inprocess(
        "--toolharness-conformance", "-o", suite, f"--rootdir={empty}", str(empty)
    )
    result.assert_outcomes(passed=2)


def test_without_the_option_the_suite_is_not_added(pytester: pytest.Pytester, suite: str) -> None:
    (pytester.mkdir("tests") / "test_own.py").write_text("def test_own():\n    pass\n")
    result = pytester.runpytest("-o", suite, "tests")
    result.assert_outcomes(passed=1)
    assert "toolharness conformance" not in result.stdout.str()


def test_ini_key_enables_the_suite(pytester: pytest.Pytester, suite: str) -> None:
    pytester.makeini(f"[pytest]\ntoolharness_conformance = true\n{suite.replace('=', ' = ', 1)}\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "suite/../suite/..", "--co", "-q")
    result.stdout.fnmatch_lines(["*test_suite.py::test_pairing", "*test_suite.py::test_order"])
    assert result.stdout.str().count("test_suite.py::test_pairing") == 1


def test_suite_tests_get_the_toolharness_marker(pytester: pytest.Pytester, suite: str) -> None:
    (pytester.mkdir("tests") / "test_own.py").write_text("def test_own():\n    pass\n")
    result = pytester.runpytest("--toolharness-conformance", "-o", suite, "tests", "-m", "toolharness")
    result.assert_outcomes(passed=2, deselected=1)


def test_requirement_ids_are_junit_properties(pytester: pytest.Pytester, suite: str) -> None:
    result = pytester.runpytest("--toolharness-conformance", "-o", suite, "--junitxml=out.xml", "suite")
    result.assert_outcomes(passed=2)
    xml = (pytester.path / "out.xml").read_text()
    assert '<property name="requirement" value="PAIR-1"' in xml
    assert '<property name="requirement" value="PAIR-5"' in xml


def test_suite_test_without_requirement_is_refused(pytester: pytest.Pytester, suite: str) -> None:
    (pytester.path / "suite" / "test_bare.py").write_text("def test_bare():\n    pass\n")
    result = pytester.runpytest("--toolharness-conformance", "-o", suite, "suite")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*test_bare.py::test_bare: a conformance test needs @pytest.mark.requirement*"]
    )


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ('requirement("PAIR-99", "MUST")', "*unknown requirement id 'PAIR-99'*"),
        ('requirement("PAIR-5", "MUST")', "*PAIR-5 is a SHOULD requirement, but is marked 'MUST'*"),
        ('toolharness_requires("telepathy")', "*unknown capability name(s) 'telepathy'*"),
    ],
)
def test_invalid_markers_are_usage_errors(pytester: pytest.Pytester, marker: str, message: str) -> None:
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.requirement("PAIR-1")
        @pytest.mark.{marker}
        def test_it():
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_markers_are_registered_for_strict_markers(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.toolharness:*", "@pytest.mark.requirement(id, level):*"])


def test_fixtures_are_registered_by_the_plugin(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--fixtures", "-v")
    assert result.ret == pytest.ExitCode.OK
    for name in ("toolharness_adapter", "harness", "new_harness", "toolharness_capabilities"):
        result.stdout.fnmatch_lines([f"{name} *-- *plugin.py:*"])
    result.stdout.fnmatch_lines(["tool_schema_snapshot *"])
