"""A fault of the suite or of an adapter is reported as "error", never as the harness failing (issue 31).

Each test of the inner suite plants a fault in one layer of the suite: the fault is compiled into
that module's own globals (its frames are that module's, as a bug there would be) and reached the
way the suite reaches it. A real failure of the harness (an exception in its packages, an assert of
a conformance test) still reads "failed".
"""

from __future__ import annotations

import json

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

from tests._fake_suite import in_process_args, make_suite

HARNESS = """
def run_tool(call):
    raise RuntimeError("the harness crashed on " + call)

def call_back(function):
    return function()
"""

ADAPTER = """
import fakeharness

class Adapter:
    name = "fake framework"
    profiles = frozenset({"core", "claude-code"})
    capabilities = frozenset({"execution"})
    harness_packages = ("fakeharness",)

    def new_harness(self):
        return self

    def translate(self, call):
        return {"input": call["input"]}  # the adapter's bug: a KeyError on its own translation

    def run(self, call):
        return fakeharness.run_tool(call)

def make():
    return Adapter()
"""

SUITE = """
import importlib
from hypothesis import given, settings, strategies as st

def plant(module_name, monkeypatch, name=None):
    '''A function raising a TypeError, compiled into the module's globals (a bug in that module).'''
    module = importlib.import_module(module_name)
    namespace = dict(vars(module))
    exec("def planted(*args, **kwargs):\\n    raise TypeError('planted fault')\\n", namespace)
    if name is not None:
        monkeypatch.setattr(module, name, namespace["planted"])
    return namespace["planted"]

@pytest.mark.requirement("PAIR-1", "MUST")
@settings(max_examples=1, database=None)
@given(data=st.data())
def test_strategy_fault(data, toolharness_adapter, monkeypatch):
    planted = plant("pytest_toolharness._strategies.tools", monkeypatch)
    data.draw(st.builds(planted))

@pytest.mark.requirement("PAIR-2", "MUST")
def test_helper_fault(toolharness_adapter, monkeypatch):
    plant("conformance._strategies_execution", monkeypatch)()

@pytest.mark.requirement("PAIR-3", "MUST")
def test_scripted_endpoint_fault(toolharness_adapter, monkeypatch):
    from pytest_toolharness.wire import ScriptedEndpoint
    monkeypatch.setattr(ScriptedEndpoint, "handle", plant("pytest_toolharness.wire.model_api._endpoint", monkeypatch))
    ScriptedEndpoint().client().post("/v1/messages", json={})

@pytest.mark.requirement("PAIR-4", "MUST")
def test_framework_glue_fault(toolharness_adapter, monkeypatch):
    import fakeharness
    # The harness calls back into the glue (a framework calls its tool function): the glue's fault.
    fakeharness.call_back(plant("pytest_toolharness.adapters.framework", monkeypatch))

@pytest.mark.requirement("PAIR-5", "SHOULD")
def test_adapter_translation_fault(toolharness_adapter):
    toolharness_adapter.translate({"name": "Read"})

@pytest.mark.requirement("PAIR-6", "MUST")
def test_control_that_shows_nothing(toolharness_adapter):
    from conformance._controls import require_control
    require_control(False, "the attack starts nothing outside")

@pytest.mark.requirement("EXEC-1", "MUST")
def test_harness_crash(toolharness_adapter):
    toolharness_adapter.run("Read")

@pytest.mark.requirement("EXEC-2", "MUST")
def test_harness_judged(toolharness_adapter):
    assert toolharness_adapter.name == "another harness", "the suite's verdict"
"""


def test_a_fault_planted_in_each_layer_reads_error_and_a_harness_failure_reads_failed(
    pytester: pytest.Pytester,
) -> None:
    suite = make_suite(pytester, SUITE)
    pytester.makepyfile(myadapter=ADAPTER, fakeharness=HARNESS)
    result = pytester.runpytest(*in_process_args(suite, "--toolharness-report=r.json"))
    result.assert_outcomes(failed=8)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    rows = {r["id"]: r for r in json.loads((pytester.path / "r.json").read_text())["requirements"]}
    where = {
        "PAIR-1": "pytest_toolharness._strategies.tools:planted",
        "PAIR-2": "conformance._strategies_execution:planted",
        "PAIR-3": "pytest_toolharness.wire.model_api._endpoint:planted",
        "PAIR-4": "pytest_toolharness.adapters.framework:planted",
        "PAIR-5": "myadapter:translate",
        "PAIR-6": "conformance._controls:require_control",
    }
    for requirement_id, frame in where.items():
        assert rows[requirement_id]["status"] == "error", rows[requirement_id]
        assert f"suite/adapter fault in {frame}: " in rows[requirement_id]["reason"]
    assert "ControlFailed: the test's control failed" in rows["PAIR-6"]["reason"]
    assert rows["EXEC-1"]["status"] == "failed"
    assert "the harness crashed on Read" in rows["EXEC-1"]["reason"]
    assert rows["EXEC-2"]["status"] == "failed"
    result.stdout.fnmatch_lines(
        [
            "*not a failure of the harness under test: the suite or the adapter is at fault*",
            "*PAIR-5*error*myadapter:translate*KeyError*",
            "*exit status 1: 6 test(s) hit a fault of the suite or the adapter, not of the harness*",
        ]
    )


def test_an_adapter_naming_no_harness_packages_keeps_its_own_faults_on_the_harness(
    pytester: pytest.Pytester,
) -> None:
    """Without ``harness_packages`` the adapter's code can't be told from its harness's: failed, as before."""
    suite = make_suite(pytester, SUITE)
    pytester.makepyfile(
        myadapter=ADAPTER.replace('    harness_packages = ("fakeharness",)\n', ""), fakeharness=HARNESS
    )
    result = pytester.runpytest(*in_process_args(suite, "--toolharness-report=r.json", "-k", "translation"))
    rows = {r["id"]: r for r in json.loads((pytester.path / "r.json").read_text())["requirements"]}
    assert rows["PAIR-5"]["status"] == "failed"
    result.assert_outcomes(failed=1)
