"""The plugin costs nothing to a project that installs it but doesn't use it (the figure: benchmarks/_plugin_overhead_bench.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# What the entry point may import: its options, markers and fixtures, nothing of the plugin's work.
ENTRY_POINT_MODULES = {
    "pytest_toolharness",
    "pytest_toolharness._hookspecs",
    "pytest_toolharness._options",
    "pytest_toolharness._profiles",
    "pytest_toolharness._requirements",
    "pytest_toolharness._run_state",
    "pytest_toolharness.plugin",
}


def test_the_entry_point_imports_only_what_its_options_and_fixtures_need() -> None:
    code = (
        "import sys, pytest\n"
        "before = set(sys.modules)\n"
        "import pytest_toolharness.plugin\n"
        "print('\\n'.join(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    ours = {m for m in out.split() if m.startswith("pytest_toolharness")}
    assert ours == ENTRY_POINT_MODULES
    # Nothing else but the standard library's small modules: no SDK, no Hypothesis, no syrupy.
    assert not [m for m in out.split() if m.split(".")[0] in ("anthropic", "hypothesis", "syrupy", "httpx")]


def test_a_run_that_does_not_use_the_plugin_never_starts_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "import sys\n"
        "def test_plain():\n"
        "    assert 'pytest_toolharness._session' not in sys.modules\n"
        "    assert 'pytest_toolharness.adapters' not in sys.modules\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_a_requirement_test_starts_it_without_any_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "import pytest\n"
        "@pytest.mark.requirement('PAIR-1')\n"
        "def test_pairing():\n"
        "    assert False, 'orphan result'\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*toolharness conformance*", "*PAIR-1*failed*orphan result*"])


def test_a_test_the_adapter_cannot_run_is_skipped_at_collection(pytester: pytest.Pytester) -> None:
    """The capability and profile skips are marks put at collection, before any test (or fixture) runs."""
    from tests._fake_suite import make_suite, run

    suite = make_suite(
        pytester,
        '@requires("sandbox")\n'
        '@pytest.mark.requirement("PAIR-1", "MUST")\n'
        "def test_needs_sandbox():\n"
        "    pass\n"
        '@requires("execution")\n'
        '@pytest.mark.requirement("PAIR-1", "MUST")\n'
        "def test_runs():\n"
        "    pass\n",
    )
    pytester.makeconftest(
        "import pytest\n"
        "@pytest.hookimpl(trylast=True)\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        mark = item.get_closest_marker('skip')\n"
        "        print('collected', item.name, mark.kwargs['reason'] if mark else 'runs')\n"
    )
    result = run(pytester, suite, "-s", "-p", "no:xdist", "--toolharness-isolation=none")
    result.stdout.fnmatch_lines(
        [
            "collected test_needs_sandbox not checked: adapter lacks capability sandbox",
            "collected test_runs runs",
        ]
    )
    result.assert_outcomes(passed=1, skipped=1)
    # The skipped test can't apply to this adapter: the verdict rests on the one that can.
    result.stdout.fnmatch_lines(
        ["*PAIR-1*passed*rests on 1 test in-process; 1 more test can't apply here (need sandbox)*"]
    )
