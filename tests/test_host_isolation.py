"""``toolharness check`` gives the same verdicts whatever the host project's pytest configuration (issue 11).

The host's ``addopts`` (``--maxfail=1``, ``--deselect``, ``-p no:...``), ``PYTEST_ADDOPTS`` and an installed
third-party ``pytest11`` plugin that rewrites outcomes must not change what the suite reports; the host's
own pytest runs keep all of it.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from pytest_toolharness._cli import SUITE_PLUGINS, host_plugin_blocks, isolated_env

SUITE = """
import pytest
from hypothesis import given, strategies as st

@pytest.mark.requirement("PAIR-5", "SHOULD")
def test_a_failing_should():
    assert False, "out of order"

@pytest.mark.requirement("PAIR-1", "MUST")
def test_pairing(harness):
    assert harness is not None

@pytest.mark.requirement("PAIR-4", "MUST")
@given(st.integers())
def test_a_property(n):
    assert isinstance(n, int)
"""

ADAPTER = """
class Adapter:
    name = "plain"
    capabilities = frozenset()

    def new_harness(self):
        return object()

def make():
    return Adapter()
"""

# A third-party plugin, installed as a distribution with a pytest11 entry point (autoloaded by pytest):
# every test that passed is reported failed.
HOST_PLUGIN = """
import pytest

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call" and report.passed:
        report.outcome = "failed"
        report.longrepr = "hostplugin: every pass is a failure here"
    return report
"""


def _install_host_plugin(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    site = pytester.mkdir("site")
    (site / "hostplugin.py").write_text(HOST_PLUGIN)
    info = site / "hostplugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hostplugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\nhostplugin = hostplugin\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))


def _check(pytester: pytest.Pytester, report: str) -> tuple[pytest.RunResult, dict[str, str]]:
    result = pytester.run(
        sys.executable,
        "-m",
        "pytest_toolharness._cli",
        "check",
        "--suite-path=suite",
        "--adapter=plainadapter:make",
        f"--report={report}",
    )
    document = json.loads((pytester.path / report).read_text())
    return result, {r["id"]: r["status"] for r in document["requirements"]}


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)


def test_host_addopts_and_plugins_do_not_change_the_verdicts(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same verdicts and exit status with and without the host's addopts, PYTEST_ADDOPTS and plugin."""
    (pytester.mkdir("suite") / "test_suite.py").write_text(SUITE)
    pytester.makepyfile(plainadapter=ADAPTER, test_own="def test_own():\n    pass\n")
    plain, verdicts = _check(pytester, "plain.json")
    mine = {k: verdicts[k] for k in ("PAIR-1", "PAIR-4", "PAIR-5")}
    assert mine == {"PAIR-1": "passed", "PAIR-4": "passed", "PAIR-5": "failed"}
    assert plain.ret == 0

    _install_host_plugin(pytester, monkeypatch)
    pytester.makeini(
        "[pytest]\naddopts = --maxfail=1 -p no:hypothesispytest"
        " --deselect=suite/test_suite.py::test_pairing\n"
    )
    monkeypatch.setenv("PYTEST_ADDOPTS", "--deselect=suite/test_suite.py::test_a_property")
    hosted, hosted_verdicts = _check(pytester, "hosted.json")
    assert hosted_verdicts == verdicts
    assert hosted.ret == plain.ret
    assert "hostplugin" not in hosted.stdout.str()

    # The host's own runs keep the host's configuration: its plugin is loaded and turns the pass into a
    # failure, and its maxfail stops the run (so the isolation above is what kept the suite clean).
    own = pytester.runpytest_subprocess("test_own.py")
    own.assert_outcomes(failed=1)
    assert "hostplugin: every pass is a failure here" in own.stdout.str()


def test_only_the_suites_plugins_are_kept() -> None:
    """Every installed pytest11 plugin outside :data:`SUITE_PLUGINS` is blocked; the suite's are not."""
    import importlib.metadata

    blocked = host_plugin_blocks()[1::2]
    assert all(b.startswith("no:") for b in blocked)
    names = {b.removeprefix("no:") for b in blocked}
    for entry in importlib.metadata.entry_points(group="pytest11"):
        dist = entry.dist.metadata["Name"] if entry.dist is not None else ""
        kept = dist.replace("_", "-").lower() in SUITE_PLUGINS
        assert (entry.name in names) is not kept, (entry.name, dist)


def test_the_hosts_environment_options_are_dropped() -> None:
    env = isolated_env({"PYTEST_ADDOPTS": "-x", "PYTEST_PLUGINS": "p", "PATH": "/bin", "HOME": "/h"})
    assert env == {"PATH": "/bin", "HOME": "/h"}
