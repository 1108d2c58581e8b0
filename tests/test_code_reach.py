"""``ths.code_reach``: the harness's own lines one call runs, the signal ``target()`` climbs (issue 33)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters.reference import ReferenceAdapter
from pytest_toolharness.specs import RuleSpec

_CONFORMANCE = Path(__file__).resolve().parent.parent / "conformance"
_ENGINE = Path(__file__).resolve().parent.parent / "reference_impl" / "permissions"


def _reach(command: str) -> ths.CodeReach:
    with ths.code_reach(exclude=(_CONFORMANCE,)) as reach:
        run_calls(
            ReferenceAdapter().new_harness(),
            [shell_tool()],
            [("Bash", {"command": command})],
            rules=[RuleSpec("Bash(rm:*)", "deny")],
            mode="default",
        )
    return reach


def test_counts_the_harness_lines_and_nothing_of_the_suite_or_libraries() -> None:
    """The reach holds the engine's files, and none of the suite, conformance, stdlib or site-packages."""
    reach = _reach("rm -rf x")
    files = reach.files()
    assert any(Path(f).resolve().is_relative_to(_ENGINE) for f in files), sorted(files)
    suite = Path(ths.__file__).resolve().parent
    for name in files:
        path = Path(name).resolve()
        assert not path.is_relative_to(suite), name
        assert not path.is_relative_to(_CONFORMANCE), name
        assert "site-packages" not in path.parts, name
        assert not path.is_relative_to(Path(sys.base_prefix).resolve()), name
    assert reach.count == len(reach.lines) > 0


def test_a_line_the_engine_reads_further_reaches_more() -> None:
    """A line the engine must unwrap (a shell string) runs engine lines a plain deny never reaches."""
    plain, carried = _reach("rm -rf x"), _reach("bash -c 'rm -rf x'")
    assert carried.lines - plain.lines, "the shell string reached no line the plain command did not"


def test_the_tracer_in_force_before_is_put_back() -> None:
    """Whatever traced before (a debugger, coverage.py) traces again after the block."""

    def tracer(*_args: object) -> None:
        return None

    before, thread_before = sys.gettrace(), threading.gettrace()
    sys.settrace(tracer)
    try:
        with ths.code_reach():
            assert sys.gettrace() is not tracer
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(before)
    assert threading.gettrace() is thread_before
