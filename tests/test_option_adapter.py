"""Adapter discovery: option, ini key, conftest hook, default; capabilities skip tests as not checked."""

from __future__ import annotations

import json

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

from tests._fake_suite import ADAPTER, make_suite, run


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    # Inner runs must not append to a real CI step summary.
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


SUITE = """
SEEN = []

@pytest.mark.requirement("PAIR-1", "MUST")
def test_one(harness, toolharness_adapter):
    SEEN.append(harness)
    assert type(harness).__name__ == "Harness"
    assert toolharness_adapter.capabilities == frozenset({"execution", "hooks"})

@pytest.mark.requirement("PAIR-2", "MUST")
def test_two(harness):
    assert all(harness is not other for other in SEEN)
    import myadapter
    assert len(myadapter.CALLS) == 1

@requires("hooks")
@pytest.mark.requirement("HOOK-1", "MUST")
def test_has(harness):
    pass

@requires("hooks", "command_hooks")
@pytest.mark.requirement("HOOK-3", "MUST")
def test_lacks(harness):
    raise AssertionError("must not run")
"""


def test_option_adapter_fresh_harness_and_capability_skip(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    result = run(pytester, suite, "--toolharness-report=r.json", "-rs")
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(["*not checked: adapter lacks capability command_hooks*"])
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["adapter"] == "myadapter:make"
    hook3 = next(r for r in report["requirements"] if r["id"] == "HOOK-3")
    assert hook3 == {
        **hook3,
        "status": "not checked",
        "reason": "not checked: adapter lacks capability command_hooks",
    }


def test_ini_key(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    pytester.makeini("[pytest]\ntoolharness_adapter = myadapter:make\n")
    result = pytester.runpytest("--toolharness-conformance", "-o", suite, "suite")
    result.assert_outcomes(passed=3, skipped=1)


def test_conftest_hook_and_option_precedence(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, SUITE)
    pytester.makeconftest(
        """
        class Other:
            profiles = frozenset({"core", "claude-code"})
            capabilities = frozenset({"execution", "hooks", "command_hooks"})

            async def execute(self, scenario):
                raise NotImplementedError

        def pytest_toolharness_adapter(config):
            return Other()
        """
    )
    by_hook = pytester.runpytest("--toolharness-conformance", "-o", suite, "suite", "-k", "has or lacks")
    # The hook's adapter has command_hooks, so test_lacks runs (and fails on purpose).
    by_hook.assert_outcomes(passed=1, failed=1)
    by_option = run(pytester, suite, "-k", "has or lacks")
    by_option.assert_outcomes(passed=1, skipped=1)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nocolon", "*adapter 'nocolon' is not of the form 'package.module:factory'*"),
        ("no_such_module:make", "*can't import 'no_such_module'*"),
        ("myadapter:missing", "*module 'myadapter' has no 'missing'*"),
        ("myadapter:CALLS", "*'CALLS' is not callable*"),
        ("myadapter:Harness", "*must have a 'capabilities' attribute that is a frozenset*"),
        ("myadapter:bad_caps", "*unknown capability name(s) 'telepathy'*"),
        (
            "myadapter:orphan",
            "*declares 'abort' without 'execution' (it is a feature of that capability's method)*",
        ),
    ],
)
def test_bad_adapters_fail_with_a_clear_error(pytester: pytest.Pytester, spec: str, message: str) -> None:
    suite = make_suite(pytester, '@pytest.mark.requirement("PAIR-1")\ndef test_it(harness):\n    pass\n')
    (pytester.path / "myadapter.py").write_text(
        ADAPTER
        + "\nclass Bad:\n    capabilities = frozenset({'telepathy'})\n\ndef bad_caps():\n    return Bad()\n"
        + "\nclass Orphan(Adapter):\n    capabilities = frozenset({'abort', 'pool'})\n\ndef orphan():\n    return Orphan()\n"
    )
    result = pytester.runpytest(
        "--toolharness-conformance", "-o", suite, f"--toolharness-adapter={spec}", "suite"
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


def test_missing_default_adapter_says_how_to_choose(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    # The module in sys.modules, which the inner run uses: an earlier inner run may have left a stale
    # one as the package's attribute (the plugin imports it only when a run asks for it).
    adapter_loading = importlib.import_module("pytest_toolharness._adapter_loading")
    monkeypatch.setattr(adapter_loading, "DEFAULT_ADAPTER_SPEC", "no_such_default_pkg.adapter:make_adapter")
    suite = make_suite(pytester, '@pytest.mark.requirement("PAIR-1")\ndef test_it(harness):\n    pass\n')
    result = pytester.runpytest("--toolharness-conformance", "-o", suite, "suite")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*the default adapter could not be loaded*--toolharness-adapter=package.module:factory*"]
    )


def test_requires_rejects_unknown_capabilities() -> None:
    from pytest_toolharness.adapters._capabilities import requires

    with pytest.raises(ValueError, match="unknown capability name"):
        requires("hooks", "mind_reading")
    with pytest.raises(ValueError, match="at least one"):
        requires()


LIAR = """
class Harness:
    def assemble_pool(self, builtin, mcp, *, deny_rules=()):
        return []

    def set_tools(self, builtin, mcp):
        pass

class Liar:
    name = "liar 0.1"
    profiles = frozenset({"core", "claude-code"})
    capabilities = frozenset({"pool", "conversation", "execution", "hooks"})

    def new_harness(self):
        return Harness()

def make():
    return Liar()
"""


def test_declared_capability_without_its_methods_fails_setup_naming_them(pytester: pytest.Pytester) -> None:
    suite = make_suite(
        pytester,
        """
@requires("pool")
@pytest.mark.requirement("CACHE-2", "MUST")
def test_fixture(harness):
    raise AssertionError("must not run")

@requires("pool")
@pytest.mark.requirement("PERM-10", "MUST")
def test_factory(new_harness):
    raise AssertionError("must not run")
""",
    )
    (pytester.path / "liar.py").write_text(LIAR)
    result = pytester.runpytest(
        "--toolharness-conformance", "-o", suite, "--toolharness-adapter=liar:make", "suite"
    )
    # Fail closed: neither test runs, and both errors name every missing method of every capability.
    result.assert_outcomes(errors=2)
    message = (
        "*adapter 'liar 0.1' declares capabilities its harness (Harness) does not implement: "
        "capability 'conversation' needs append_message(); capability 'conversation' needs render_request(); "
        "capability 'conversation' needs compact(); capability 'conversation' needs discovered_tools(); "
        "capability 'conversation' needs resume(); capability 'execution' needs execute().*"
    )
    result.stdout.fnmatch_lines(
        ["*ERROR at setup of test_fixture*", message, "*ERROR at setup of test_factory*", message]
    )
    assert "assemble_pool()" not in result.stdout.str()
