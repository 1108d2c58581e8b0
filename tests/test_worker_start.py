"""How the isolated run starts its xdist workers, and what the controller leaves to them.

- The workers are children of the fork server with the SDK (``anthropic``) and the other
  distributions' pytest plugins imported before they start (``_isolation.worker_preload``), not fresh
  interpreters that import them again; ``TOOLHARNESS_FORK_SERVER=0`` starts fresh ones.
- The controller never imports the adapter: a worker that built it sends its profiles and
  not-applicable declarations back (``workeroutput``), and the report uses them.

Each run is a real pytest subprocess with two real workers.
"""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from pytest_toolharness._isolation import _worker_count
from pytest_toolharness.processes import _launch
from tests._fake_suite import make_suite, run_isolated

pytestmark = pytest.mark.skipif(not _launch._wanted(), reason="the fork server needs Linux (fork, send_fds)")

# Records, per process that imports it, whether the SDK was already there (preloaded) and who it is.
_ADAPTER = """
import json, os, sys
_out = os.environ["PROBE_OUT"]
_who = os.environ.get("PYTEST_XDIST_WORKER", "controller")
with open(os.path.join(_out, _who + ".json"), "w") as f:
    json.dump({"anthropic_before": "anthropic" in sys.modules, "pid": os.getpid(), "ppid": os.getppid()}, f)

class Harness:
    pass

class Adapter:
    name = "probe"
    profiles = frozenset({"core"})
    capabilities = frozenset({"execution"})
    not_applicable = {"PAIR-2": "this probe has no timeouts"}

    def new_harness(self):
        return Harness()

def make():
    return Adapter()
"""

_SUITE = """
@pytest.mark.requirement("PAIR-1", "MUST")
def test_one(toolharness_adapter):
    assert toolharness_adapter.name == "probe"

@pytest.mark.requirement("PAIR-3", "MUST")
def test_two(toolharness_adapter):
    x = 1
    assert x == 1

@pytest.mark.requirement("HOOK-1", "MUST")
def test_claude_code_only(toolharness_adapter):
    pass
"""


def _run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, out: Path, body: str, *args: str
) -> pytest.RunResult:
    suite = make_suite(pytester, body)
    pytester.makepyfile(myadapter=_ADAPTER)
    monkeypatch.setenv("PROBE_OUT", str(out))
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")
    monkeypatch.delenv(_launch.SOCKET_ENV, raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return run_isolated(pytester, suite, *args)


def _statuses(pytester: pytest.Pytester) -> dict[str, str]:
    report = json.loads((pytester.path / "r.json").read_text())
    return {r["id"]: r["status"] for r in report["requirements"]}


@pytest.mark.parametrize("fork", ["1", "0"], ids=["forked-workers", "fresh-workers"])
def test_the_controller_reports_the_declarations_its_workers_sent(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fork: str
) -> None:
    """Profiles and not-applicable declarations reach the report; the controller never imports the adapter."""
    out = tmp_path / "probe"
    out.mkdir()
    monkeypatch.setenv(_launch.FORK_SERVER_ENV, fork)
    result = _run(
        pytester,
        monkeypatch,
        out,
        _SUITE,
        "--toolharness-report=r.json",
        "-W",
        "error::pytest.PytestAssertRewriteWarning",
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "created: 2/2 workers" in result.stdout.str()
    assert "cannot be rewritten" not in result.stdout.str()
    seen = {path.stem: json.loads(path.read_text()) for path in out.glob("*.json")}
    assert "controller" not in seen, "the controller imported the adapter"
    assert seen, "no worker built the adapter"
    statuses = _statuses(pytester)
    assert statuses["PAIR-1"] == statuses["PAIR-3"] == "passed"
    assert statuses["PAIR-2"] == "not applicable"
    assert statuses["HOOK-1"] == "not claimed"
    for worker in seen.values():
        assert worker["anthropic_before"] is (fork == "1"), worker


def test_forked_workers_still_rewrite_the_suites_assertions(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The suite is imported by the worker itself, so a failing assert says what it compared."""
    out = tmp_path / "probe"
    out.mkdir()
    body = """
@pytest.mark.requirement("PAIR-1", "MUST")
def test_compares(toolharness_adapter):
    left, right = [1, 2, 3], [1, 2, 4]
    assert left == right
"""
    result = _run(pytester, monkeypatch, out, body)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "At index 2 diff: 3 != 4" in result.stdout.str()
    workers = [json.loads(path.read_text()) for path in out.glob("*.json")]
    assert workers, "no worker built the adapter"
    assert all(w["anthropic_before"] for w in workers), "the workers were not forked"


class _Hook:
    def __init__(self, cpus: object) -> None:
        self.cpus = cpus

    def pytest_xdist_auto_num_workers(self, config: object) -> object:
        return self.cpus


@pytest.mark.parametrize(
    ("cpus", "variable", "workers"),
    [(1, None, 2), (2, None, 3), (3, None, 4), (8, None, 4), ("garbage", None, 2), (2, "2", 2), (5, "5", 4)],
)
def test_one_worker_more_than_the_cpus_unless_the_count_is_set(
    monkeypatch: pytest.MonkeyPatch, cpus: object, variable: str | None, workers: int
) -> None:
    """The suite's tests often wait, so a worker beyond the CPUs; the variable, when set, is the count."""
    if variable is None:
        monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    else:
        monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", variable)
    config = types.SimpleNamespace(hook=_Hook(cpus))
    assert _worker_count(config) == workers  # type: ignore[arg-type]
