"""The conformance suite has teeth: each mutant fails its TARGET's tests (issue 5).

Each test runs the target's conformance tests (``--toolharness-requirement=TARGET``, strict level,
derandomised) against one mutant through the public adapter path, in a fresh interpreter, and reads
the JSON report. A *broken* mutant (it does not load, or every test errored at setup) fails its test
with the reason: it is never taken for a kill. ``python tests/mutants/run.py`` runs the full suite
against every mutant instead.
"""

from __future__ import annotations

import pytest

from tests.mutants._discover import Mutant, discover, requirement_ids, run_suite

MUTANTS = discover()


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_is_killed_by_its_target(mutant: Mutant) -> None:
    """The mutant loads, the suite fails against it, and the failing requirements include its TARGET."""
    run = run_suite(mutant.adapter_spec, requirements=(mutant.target,), exitfirst=True, timeout=300)
    broken = run.broken_reason()
    assert broken is None, f"{mutant.name} is broken, not killed: {broken}\n{run.output[-3000:]}"
    assert run.returncode != 0, f"{mutant.name} ({mutant.description}) passed the {mutant.target} tests"
    assert mutant.target in run.failed_ids, (
        f"{mutant.name}: {mutant.target} is {run.statuses.get(mutant.target)!r}, failing: {run.failed_ids}"
    )


def test_every_requirement_has_a_mutant() -> None:
    """Every requirement ID of the catalogue is the TARGET of at least one mutant."""
    targets = {m.target for m in MUTANTS}
    missing = [rid for rid in requirement_ids() if rid not in targets]
    assert not missing, f"requirements without a mutant: {', '.join(missing)}"


def test_discovery_refuses_an_unknown_mutant() -> None:
    """Asking for a mutant that does not exist names it."""
    with pytest.raises(ValueError, match="m_no_such_mutant"):
        discover(["m_no_such_mutant"])
