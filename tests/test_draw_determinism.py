"""A derandomised draw of the suite does not depend on which of the project's modules were imported.

Hypothesis mixes literals of "local" modules (imported from outside site-packages) into its draws and
rescans them whenever ``sys.modules`` grows, so the same derandomised property drew differently after an
earlier test imported a module lazily: a baselined finding came and went with the test order. The suite
drops those constants (``drop_local_constants``) wherever it loads its profile.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests._fake_suite import make_suite

# A module of literals Hypothesis would find: distinct strings and integers, as any project has.
LITERALS = "\n".join(
    [f"WORD_{i} = 'literal-{i}-{'x' * (i % 7)}'" for i in range(60)]
    + [f"NUMBER_{i} = {i * 7919 + 13}" for i in range(60)]
)

# Draws a derandomised property's examples, with or without importing the literals first, and prints
# their digest. argv: "drop" or "keep", then "import" or "plain".
DRAWS = """
import hashlib, sys
from hypothesis import given, settings, strategies as st
from pytest_toolharness.strategies import drop_local_constants

if sys.argv[1] == "drop":
    drop_local_constants()
if sys.argv[2] == "import":
    import project_literals  # noqa: F401
seen = []

@settings(derandomize=True, database=None, max_examples=150)
@given(st.lists(st.one_of(st.text(), st.integers()), max_size=4))
def draw(x):
    seen.append(x)

draw()
print(hashlib.sha256(repr(seen).encode()).hexdigest())
"""


def _digest(tmp_path: Path, constants: str, imports: str) -> str:
    done = subprocess.run(
        [sys.executable, str(tmp_path / "draws.py"), constants, imports],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def literals_project(tmp_path: Path) -> Path:
    # Outside any "tests" folder and not named test_*: Hypothesis counts such a module as local.
    project = tmp_path / "project"
    project.mkdir()
    (project / "project_literals.py").write_text(LITERALS + "\n")
    (project / "draws.py").write_text(DRAWS)
    return project


def test_dropped_local_constants_leave_the_draws_as_they_were_before_an_import(
    literals_project: Path,
) -> None:
    kept = {_digest(literals_project, "keep", imports) for imports in ("plain", "import")}
    if len(kept) == 1:
        pytest.skip("this Hypothesis draws no constants from local modules: nothing to drop")
    dropped = {_digest(literals_project, "drop", imports) for imports in ("plain", "import")}
    assert len(dropped) == 1, "an imported module of literals changed the derandomised draws"


def test_undoing_the_drop_puts_hypothesis_back_as_it_was() -> None:
    from hypothesis.internal.conjecture import providers

    from pytest_toolharness.strategies import drop_local_constants

    before = providers._get_local_constants
    undo = drop_local_constants()
    assert providers._get_local_constants is not before
    assert drop_local_constants()() is None, "a second drop while dropped must leave the first in force"
    assert providers._get_local_constants is not before
    undo()
    assert providers._get_local_constants is before


# Two tests of a fake suite: the first imports a module of literals (as a test that loads part of a
# harness lazily does) only when told to; the second writes the examples it draws.
ORDER_SUITE = """
import os
from hypothesis import given, settings, strategies as st

@pytest.mark.requirement("PAIR-1", "MUST")
def test_a_loads_a_module():
    if os.environ.get("LOAD_LITERALS"):
        import project_literals  # noqa: F401

@pytest.mark.requirement("PAIR-5", "SHOULD")
@settings(max_examples=120)
@given(st.lists(st.one_of(st.text(), st.integers()), max_size=4))
def test_b_draws(x):
    with open(os.environ["DRAWN"], "a") as drawn:
        drawn.write(repr(x) + "\\n")
"""


def test_a_suite_run_draws_the_same_whatever_an_earlier_test_imported(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = make_suite(pytester, ORDER_SUITE)
    pytester.makepyfile(project_literals=LITERALS)
    digests = []
    for load in ("", "1"):
        drawn = pytester.path / f"drawn{load or 0}.txt"
        monkeypatch.setenv("DRAWN", str(drawn))
        monkeypatch.setenv("LOAD_LITERALS", load)
        # A subprocess: the profile and Hypothesis's scan of sys.modules are process-wide.
        result = pytester.runpytest_subprocess(
            "--toolharness-conformance",
            "-o",
            suite,
            "--toolharness-adapter=myadapter:make",
            "--hypothesis-profile=toolharness-ci",
            "suite",
        )
        result.assert_outcomes(passed=2)
        digests.append(hashlib.sha256(drawn.read_bytes()).hexdigest())
    assert digests[0] == digests[1], "the derandomised draws changed with what an earlier test imported"
