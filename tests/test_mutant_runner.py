"""The mutant runner never reports a false kill: a mutant that is broken is reported broken.

The deliberately broken mutants of ``tests/mutants/broken_examples/`` go through the same code path as
the real ones (discovery, the suite in a subprocess, the JSON and JUnit reports, ``run.py``'s matrix
and ``tests/test_mutants.py``'s check), against a few requirements only, so this file stays fast.
"""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path

import pytest

from tests import test_mutants as ci_check  # a module: its test is not collected twice
from tests.mutants._base import MutantLoadError, Patch
from tests.mutants._discover import MUTANTS_DIR, THRESHOLD_MIN_CHECKED, Mutant, discover, run_suite
from tests.mutants.run import main as run_matrix

BROKEN_DIR = MUTANTS_DIR / "broken_examples"
BROKEN = {mutant.name: mutant for mutant in discover(directory=BROKEN_DIR)}
REAL = {mutant.name: mutant for mutant in discover()}
# Requirements that a real PERM-1 mutant does not all fail (m_perm_1_bypass_skips_deny fails PERM-1 only).
FEW_REQUIREMENTS = ("PERM-1", "PERM-2", "PERM-3", "PERM-13")


def _identity(original: object) -> object:
    return original


def test_patch_names_a_missing_module() -> None:
    """A Patch on a module that does not exist says which module, instead of patching nothing."""
    patch = Patch("reference_impl._permissions", "_decide", _identity)
    with pytest.raises(MutantLoadError, match=r"can't import module 'reference_impl\._permissions'"):
        patch.apply()


def test_patch_names_the_missing_part_of_an_attribute() -> None:
    """A Patch on ``Class.method`` names the part that is missing and where it was looked for."""
    patch = Patch("pytest_toolharness.adapters.reference._adapter", "ReferenceHarness.no_such", _identity)
    with pytest.raises(
        MutantLoadError, match=r"'[\w.]+\._adapter\.ReferenceHarness' has no attribute 'no_such'"
    ):
        patch.apply()


def test_a_replacement_that_cant_take_the_originals_calls_is_a_load_error() -> None:
    """A mutant written against an older signature is broken, not a kill (its calls raise TypeError,
    which the harness turns into an internal-error deny that fails a requirement test)."""

    def stale(original: object) -> object:
        async def settle(
            tool: object,
            tool_input: object,
            decision: object,
            ctx: object,
            tool_context: object,
            control: object,
        ) -> object:
            raise AssertionError("never called")

        return settle

    patch = Patch("reference_impl.execution._pipeline", "settle_ask_with_hooks_or_host", stale)
    with pytest.raises(MutantLoadError, match=r"can't take the calls of the original.*control"):
        patch.apply()


def test_a_sync_replacement_of_an_async_function_is_a_load_error() -> None:
    def synchronous(original: object) -> object:
        def settle(*args: object) -> object:
            return original

        return settle

    patch = Patch("reference_impl.execution._pipeline", "settle_ask_with_hooks_or_host", synchronous)
    with pytest.raises(MutantLoadError, match="differ in being async"):
        patch.apply()


def test_every_mutants_replacements_take_their_originals_calls() -> None:
    """Each Patch of every mutant builds a replacement that binds the original's calls (checked
    without installing it, so this process's reference stays unmutated)."""
    from tests.mutants._base import _check_takes_the_same_calls

    checked = 0
    for mutant in REAL.values():
        module = importlib.import_module(mutant.module)
        for patch in module.adapter.patches:
            if not isinstance(patch, Patch):
                continue
            original: object = importlib.import_module(patch.module)
            for part in patch.attribute.split("."):
                original = getattr(original, part)
            _check_takes_the_same_calls(f"{mutant.name}: {patch.attribute}", original, patch.mutate(original))
            checked += 1
    assert checked > 100


def test_broken_examples_are_not_real_mutants() -> None:
    """Discovery of tests/mutants finds none of the broken examples; the examples' own directory finds all,
    including the one that does not import (its TARGET is read from the source)."""
    assert not set(BROKEN) & set(REAL)
    assert set(BROKEN) == {
        "m_fails_everything",
        "m_import_error",
        "m_missing_attribute",
        "m_missing_module",
        "m_not_a_harness",
    }
    assert BROKEN["m_import_error"].target == "PERM-1"
    assert BROKEN["m_import_error"].adapter_spec == "tests.mutants.broken_examples.m_import_error:adapter"


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("m_missing_module", "Patch('reference_impl._permissions', '_decide'): can't import module"),
        ("m_missing_attribute", "ReferenceHarness' has no attribute 'no_such_method'"),
        ("m_import_error", "can't import 'tests.mutants.broken_examples.m_import_error'"),
    ],
)
def test_a_mutant_that_does_not_load_fails_its_ci_test_as_broken(name: str, detail: str) -> None:
    """tests/test_mutants.py's check fails for a mutant that does not load, saying it is broken and why.

    Without the check it would pass: the target's tests fail (at setup) against such a mutant.
    """
    with pytest.raises(AssertionError) as failure:
        ci_check.test_mutant_is_killed_by_its_target(BROKEN[name])
    message = str(failure.value)
    assert (
        f"{name} is broken, not killed: adapter load error: adapter {BROKEN[name].adapter_spec!r}" in message
    )
    assert detail in message


def test_the_matrix_reports_broken_mutants_and_never_counts_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run.py marks a mutant that does not load, and one whose every test errors at setup, broken."""
    stem = tmp_path / "matrix"
    argv = ["--targeted", "--mutants-dir", str(BROKEN_DIR), "--matrix", str(stem)]
    argv += ["--mutant", "m_missing_module", "--mutant", "m_not_a_harness", "--budget", "3600"]
    assert run_matrix(argv) == 1
    printed = capsys.readouterr().out
    assert printed.rstrip().splitlines()[-1] == "mutation score: 0/2 (2 broken)"
    assert printed.rstrip().splitlines()[-2] == "judged 2 of 2 mutants"
    # Each verdict is printed as it comes, before the table: a run cut short still shows them.
    assert "broken: m_missing_module (PERM-1, " in printed
    assert "broken (not counted as killed): m_missing_module, m_not_a_harness" in printed
    document = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
    assert document["score"] == {"killed": 0, "broken": 2, "total": 2}
    rows = {row["mutant"]: row for row in document["mutants"]}
    assert {row["status"] for row in rows.values()} == {"broken"}
    assert not any(row["killed"] for row in rows.values())
    assert rows["m_missing_module"]["broken"].startswith("adapter load error:")
    assert rows["m_not_a_harness"]["broken"].startswith("every test that ran")
    markdown = stem.with_suffix(".md").read_text(encoding="utf-8")
    assert "| `m_missing_module` | PERM-1 | BROKEN |" in markdown
    assert "mutation score: 0/2 (2 broken)" in markdown


def _broken_reason_over_few(mutant: Mutant) -> str | None:
    run = run_suite(mutant.adapter_spec, requirements=FEW_REQUIREMENTS, timeout=300)
    assert run.statuses, run.output[-3000:]
    return run.broken_reason()


def test_a_mutant_that_fails_most_requirements_is_broken() -> None:
    """A mutant that loads but fails more than half of the checked requirements is broken, not killed."""
    assert len(FEW_REQUIREMENTS) >= THRESHOLD_MIN_CHECKED
    reason = _broken_reason_over_few(BROKEN["m_fails_everything"])
    assert reason is not None
    assert reason.startswith(f"fails {len(FEW_REQUIREMENTS)} of the {len(FEW_REQUIREMENTS)} checked")


def test_a_real_mutant_over_the_same_requirements_is_not_broken() -> None:
    """The threshold does not catch a real mutant, which fails its target and little else."""
    assert _broken_reason_over_few(REAL["m_perm_1_bypass_skips_deny"]) is None


def test_a_run_that_writes_no_report_is_broken() -> None:
    """A run that ends before writing a report (here: an unknown requirement ID) is broken."""
    run = run_suite(REAL["m_perm_1_bypass_skips_deny"].adapter_spec, requirements=("NO-SUCH-1",))
    reason = run.broken_reason()
    assert reason is not None
    assert reason.startswith(f"the run wrote no report (exit code {run.returncode})")


def test_a_run_that_times_out_is_broken_and_ends_nothing_else() -> None:
    """A suite run cut off by its timeout (a loaded machine) judges nothing: broken, never killed, never a crash."""
    run = run_suite(REAL["m_perm_1_bypass_skips_deny"].adapter_spec, requirements=("PERM-1",), timeout=0.5)
    reason = run.broken_reason()
    assert reason is not None
    assert "timed out after" in reason, reason
    assert "nothing was judged" in reason, reason


def test_shards_cover_every_mutant_exactly_once_with_few_targets_each() -> None:
    """CI runs one rotating shard of the targeted matrix: N shards must partition the mutants, each
    about M/N of them, and keep a target's mutants together (its baseline runs every test of its
    targets): a target is split only when it has more mutants than a shard holds."""
    from tests.mutants.run import parse_shard, shard_of

    mutants = discover(None, MUTANTS_DIR)
    counts: dict[str, int] = {}
    for mutant in mutants:
        counts[mutant.target] = counts.get(mutant.target, 0) + 1
    for n in (1, 3, 4, 7, 8):
        cap = math.ceil(len(mutants) / n)
        shards = [shard_of(mutants, (k, n)) for k in range(n)]
        names = [m.name for shard in shards for m in shard]
        assert sorted(names) == sorted(m.name for m in mutants)
        assert len(names) == len(set(names))
        assert max(map(len, shards)) - min(map(len, shards)) <= cap // 2, [len(s) for s in shards]
        for target, count in counts.items():
            holding = sum(1 for shard in shards if any(m.target == target for m in shard))
            assert holding == math.ceil(count / cap), (n, target, count, holding)
        assert shards == [shard_of(mutants, (k, n)) for k in range(n)]  # the same every run
    assert parse_shard("2/4") == (2, 4)
    for bad in ("4/4", "x/3", "1", "-1/3", "0/0"):
        with pytest.raises(ValueError, match="--shard"):
            parse_shard(bad)


def test_a_budget_the_baseline_overruns_judges_nothing_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``--budget`` shorter than the baseline, the baseline is cut off at the budget: no mutant is
    judged, none counts as killed, and the run says how many were left unjudged."""
    argv = ["--targeted", "--mutants-dir", str(BROKEN_DIR), "--matrix", str(tmp_path / "matrix")]
    argv += ["--mutant", "m_missing_module", "--mutant", "m_not_a_harness", "--budget", "0.5"]
    assert run_matrix(argv) == 2
    printed = capsys.readouterr().out
    assert "timed out after" in printed
    assert printed.rstrip().splitlines()[-1] == (
        "judged 0 of 2 mutants: 2 not judged within the budget of 0 s"
    )
    assert not (tmp_path / "matrix.json").exists()


def test_a_suite_timeout_cuts_the_baseline_and_must_be_positive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--suite-timeout`` bounds each run of the suite (a loaded machine needs more than 600 s for the
    whole suite): a baseline it cuts judges nothing; zero or less is a usage error naming the option."""
    argv = ["--targeted", "--mutants-dir", str(BROKEN_DIR), "--matrix", str(tmp_path / "matrix")]
    assert run_matrix([*argv, "--mutant", "m_missing_module", "--suite-timeout", "0.5"]) == 2
    assert "timed out after" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exited:
        run_matrix([*argv, "--suite-timeout", "0"])
    assert exited.value.code == 2
    assert "--suite-timeout" in capsys.readouterr().err


def test_a_mutant_runs_the_reference_cli_with_its_defect(tmp_path: Path) -> None:
    """The wire checks run the reference CLI in a process of its own: a mutant's patches reach it too.

    ``m_cache_2_loop_mcp_first`` patches the agent loop's pool assembly; its CLI sends the MCP tools
    first, while the plain CLI sends the built-in tools first, in the same scenario.
    """
    from pytest_toolharness.wire.scenarios import CLAUDE_CODE_NAMES, pairing_scenario
    from pytest_toolharness.wire.targets import ReferenceTarget, run_wire_scenario
    from tests.mutants.m_cache_2_loop_mcp_first import adapter

    mutant_target = adapter.wire_target()  # calling the factory would patch this process
    assert isinstance(mutant_target, ReferenceTarget)
    assert mutant_target.module_args == ("tests.mutants.m_cache_2_loop_mcp_first",)
    scenario = pairing_scenario(CLAUDE_CODE_NAMES)
    firsts: dict[str, str] = {}
    for label, target in (("plain", ReferenceTarget()), ("mutant", mutant_target)):
        run = run_wire_scenario(target, scenario, tmp_path / label)
        firsts[label] = run.requests[0].tool_names[0]
    assert not firsts["plain"].startswith("mcp__"), firsts
    assert firsts["mutant"].startswith("mcp__"), firsts
