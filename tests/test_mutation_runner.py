"""The automatic mutation runner (tests/mutants/mutation.py): where mutants are located, which tests
reach them, the forked runner's verdicts, and the survivors' triage file."""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from tests.mutants import _forked
from tests.mutants._forked import CoverageMap, keyed_test
from tests.mutants._triage import TRIAGE_FILE, classify, enclosing_function, load_rules, stale_rules
from tests.mutants.mutation import (
    MODULE_REQUIREMENTS,
    MODULE_UNIT_TESTS,
    OUT_OF_SCOPE,
    SCORED_MODULES,
    reach_lines,
    use_run_environment,
)

ROOT = Path(__file__).resolve().parent.parent

SOURCE = textwrap.dedent(
    '''\
    LIMIT = 3


    def clamp(value, *, top=LIMIT):
        """Docstring."""
        if value > top:
            return top
        return value


    def unused(x):
        return x + 1
    '''
)


def test_a_signature_mutation_is_reached_through_the_body() -> None:
    """A default or the ``*`` marker matters only if the function runs: its body's lines."""
    tree = ast.parse(SOURCE)
    star = next(n for n, line in enumerate(SOURCE.splitlines(), 1) if "*," in line)
    reach = reach_lines(tree, (star, 18), (star, 19))
    assert reach.start == star + 1, reach
    assert reach.stop - 1 == star + 4, reach


def test_a_condition_is_its_header_and_a_constant_its_line() -> None:
    tree = ast.parse(SOURCE)
    assert list(reach_lines(tree, (6, 7), (6, 16))) == [6]
    assert list(reach_lines(tree, (1, 8), (1, 9))) == [1]


def test_tests_for_a_line_fastest_first_and_import_lines_reach_every_test() -> None:
    coverage = CoverageMap(
        lines={1: frozenset({""}), 6: frozenset({"t::slow", "t::fast"}), 12: frozenset()},
        durations={"t::slow": 2.0, "t::fast": 0.1, "t::other": 0.5},
    )
    assert coverage.tests_for(6, 6) == ["t::fast", "t::slow"]
    assert coverage.tests_for(1, 1) == ["t::fast", "t::other", "t::slow"]
    assert coverage.tests_for(12, 13) == []
    assert coverage.every_test() == ["t::fast", "t::other", "t::slow"]


def test_tests_that_killed_a_mutant_run_first_for_the_next() -> None:
    """The latest killer first, then earlier killers, then the rest fastest first; a killer the
    mutant's lines don't reach is not added."""
    tests = ["t::fast", "t::mid", "t::slow"]
    assert _forked.killers_first(tests, []) == tests
    assert _forked.killers_first(tests, ["t::slow", "t::other", "t::mid"]) == ["t::slow", "t::mid", "t::fast"]
    assert _forked.killers_first(tests, ["t::other"]) == tests


def test_the_run_environment_keeps_the_callers_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests under mutation run with PATH and HOME: a test starting ``bash`` or ``git`` must find it."""
    monkeypatch.setenv("TOOLHARNESS_TEST_MARKER", "kept")
    monkeypatch.setenv("CI", "true")
    before = dict(os.environ)
    try:
        use_run_environment()
        assert os.environ["PATH"] == before["PATH"]
        assert os.environ["TOOLHARNESS_TEST_MARKER"] == "kept"
        assert "CI" not in os.environ  # the run picks its own Hypothesis profile
        assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str(Path(__file__).resolve().parent.parent)
    finally:
        os.environ.clear()
        os.environ.update(before)


def test_every_scored_module_has_requirements_and_exists() -> None:
    for module in SCORED_MODULES:
        assert (ROOT / module).is_file(), module
        assert MODULE_REQUIREMENTS[module], module


def test_every_module_of_the_reference_harness_is_scoreable_or_out_of_scope_with_a_reason() -> None:
    """The tree is the module list: each module has requirements to score it against, or a reason not to."""
    tree = {path.relative_to(ROOT).as_posix() for path in (ROOT / "reference_impl").rglob("*.py")}
    missing = sorted(tree - MODULE_REQUIREMENTS.keys() - OUT_OF_SCOPE.keys())
    assert not missing, f"add these modules to MODULE_REQUIREMENTS (or OUT_OF_SCOPE with a reason): {missing}"
    gone = sorted((MODULE_REQUIREMENTS.keys() | OUT_OF_SCOPE.keys()) - tree)
    assert not gone, f"no such module any more: {gone}"
    both = sorted(MODULE_REQUIREMENTS.keys() & OUT_OF_SCOPE.keys())
    assert not both, f"both scored and out of scope: {both}"
    assert all(reason.strip() for reason in OUT_OF_SCOPE.values())
    # Few: a re-export __init__ per package and the command's glue.
    assert len(OUT_OF_SCOPE) <= len(MODULE_REQUIREMENTS) // 4, sorted(OUT_OF_SCOPE)


def test_every_module_requirement_names_requirements_of_the_catalogue() -> None:
    """An ID or an area prefix that selects nothing would score a module against no test."""
    catalogue = tomllib.loads((ROOT / "conformance" / "requirements.toml").read_text(encoding="utf-8"))
    ids = {entry["id"] for entry in catalogue["requirement"]}
    for module, requirements in MODULE_REQUIREMENTS.items():
        assert requirements, module
        for rid in requirements:
            assert rid in ids or any(i.startswith(f"{rid}-") for i in ids), (module, rid)


def _project(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "mod.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "test_mod.py").write_text(
        textwrap.dedent(
            """\
            import subprocess, sys

            from pkg.mod import clamp


            def test_clamp_under():
                assert clamp(2) == 2


            def test_clamp_over():
                assert clamp(9) == 3


            def test_skips_unless_exercised():
                import pytest
                if clamp(9) != 3:
                    pytest.skip("not exercised")


            def test_always_skips():
                import pytest
                pytest.skip("never exercised here")


            def test_uses_an_optional_module():
                if clamp(9) != 3:
                    import not_installed_anywhere  # noqa: F401


            def test_in_a_subprocess():
                out = subprocess.run(
                    [sys.executable, "-c", "from pkg.mod import clamp; print(clamp(9))"],
                    capture_output=True, text=True, check=True,
                ).stdout
                assert out.strip() == "3"
            """
        ),
        encoding="utf-8",
    )
    return tmp_path


def _forked_script(project: Path, body: str) -> str:
    """A script that preloads the forked runner's parent, with ``root``, ``module`` (pkg/mod.py) and an
    empty ``work`` folder, then runs ``body``."""
    preamble = textwrap.dedent(
        f"""\
        import json
        from pathlib import Path
        from tests.mutants import _forked

        _forked.preload()
        root = Path({str(project)!r})
        module = root / "pkg" / "mod.py"
        work = root / "work"
        work.mkdir()
        """
    )
    return preamble + textwrap.dedent(body)


def _run_in_subprocess(project: Path, script: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project), str(ROOT)])}
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=project, capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_modules_measured_together_get_the_maps_each_gets_alone(tmp_path: Path) -> None:
    """coverage_maps: one run of the tests measures several modules (the modules of one requirement set
    share it); each module's lines and their tests, in the test process and in subprocesses, are those
    a run for it alone measures, and a module no test runs gets its own reason, not the others'."""
    project = _project(tmp_path)
    (project / "pkg" / "other.py").write_text("def twice(x):\n    return 2 * x\n", encoding="utf-8")
    (project / "pkg" / "idle.py").write_text("def idle():\n    return 0\n", encoding="utf-8")
    (project / "test_other.py").write_text(
        "import subprocess, sys\n\n\ndef test_twice():\n"
        "    out = subprocess.run([sys.executable, '-c', 'from pkg.other import twice; print(twice(2))'],\n"
        "                         capture_output=True, text=True, check=True)\n"
        "    assert out.stdout.strip() == '4'\n",
        encoding="utf-8",
    )
    script = _forked_script(
        project,
        """\
        other, idle = root / "pkg" / "other.py", root / "pkg" / "idle.py"
        tests = [("", ["test_mod.py", "test_other.py"])]
        maps, why = _forked.coverage_maps([module, other, idle], tests, work, root, options=())
        assert maps is not None, why
        found = {}
        for path in (module, other):
            together, why = maps[path]
            assert together is not None, why
            alone, why = _forked.coverage_map(path, tests, work, root, options=())
            assert alone is not None, why
            assert together.lines == alone.lines, (path, together.lines, alone.lines)
            found[path.name] = sorted(set().union(*together.lines.values()))
        missing, why = maps[idle]
        assert missing is None and "coverage saw no line of" in why and "idle.py" in why, why
        print(json.dumps(found))
        """,
    )
    found = json.loads(_run_in_subprocess(project, script).splitlines()[-1])
    assert "test_mod.py::test_clamp_over" in found["mod.py"]
    # other.py runs only in test_twice's subprocess: its lines are that test's file's.
    assert "test_other.py::test_twice" in found["other.py"]
    assert not any(test.startswith("test_mod.py") for test in found["other.py"])


def test_a_cached_functions_lines_are_reached_by_every_test_that_asks(tmp_path: Path) -> None:
    """The coverage pass empties the module's functools caches before each test: a cached function's body
    is measured in every test that calls it, not only the first (each could notice its mutant)."""
    project = _project(tmp_path)
    (project / "pkg" / "cached.py").write_text(
        "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef square(x):\n    return x * x\n\n\n"
        "class Box:\n    @staticmethod\n    @functools.cache\n    def cube(x):\n        return x * x * x\n",
        encoding="utf-8",
    )
    (project / "test_cached.py").write_text(
        "from pkg.cached import Box, square\n\n\n"
        "def test_first():\n    assert square(3) == 9 and Box.cube(2) == 8\n\n\n"
        "def test_second():\n    assert square(3) == 9 and Box.cube(2) == 8\n",
        encoding="utf-8",
    )
    script = _forked_script(
        project,
        """\
        cached = root / "pkg" / "cached.py"
        coverage, why = _forked.coverage_map(cached, [("", ["test_cached.py"])], work, root, options=())
        assert coverage is not None, why
        print(json.dumps({line: sorted(tests) for line, tests in coverage.lines.items()}))
        """,
    )
    lines = json.loads(_run_in_subprocess(project, script).splitlines()[-1])
    both = ["test_cached.py::test_first", "test_cached.py::test_second"]
    assert lines["6"] == both, lines  # return x * x
    assert lines["13"] == both, lines  # return x * x * x


def test_forked_runner_verdicts_on_real_mutants(tmp_path: Path) -> None:
    """Each verdict from real forked pytest runs: a mutant a test catches is killed (also when only
    a subprocess sees it, or when a test it passed now skips), an equivalent one survives, one that
    raises on import is killed, one that meets a missing module is a runner fault, and the coverage map names the tests that reach each line, in the
    test process or in a Python subprocess it starts."""
    project = _project(tmp_path)
    script = _forked_script(
        project,
        """\
        coverage, why = _forked.coverage_map(module, [("", ["test_mod.py"])], work, root, options=())
        assert coverage is not None, why
        source = module.read_text()
        jobs = [
            # Without the test that meets a missing module: which of two failing tests runs first
            # follows their measured durations, so a load spike would make it a fault ("gone in a test").
            _forked.MutantJob(
                "top", source.replace("return top", "return top + 1"),
                [t for t in coverage.tests_for(7, 7) if t != "test_mod.py::test_uses_an_optional_module"],
            ),
            _forked.MutantJob(
                "same", source.replace("value > top", "value >= top"), coverage.tests_for(6, 6),
                skipped_before=coverage.skipped,
            ),
            _forked.MutantJob("boom", source.replace("LIMIT = 3", "LIMIT = 1 // 0"), coverage.tests_for(1, 1)),
            _forked.MutantJob("sub", source.replace("return top", "return top + 1"), ["test_mod.py::test_in_a_subprocess"]),
            _forked.MutantJob("unexercised", source.replace("return top", "return top + 1"), ["test_mod.py::test_skips_unless_exercised"]),
            _forked.MutantJob(
                "skipped", source.replace("return top", "return top + 1"), ["test_mod.py::test_always_skips"],
                skipped_before=coverage.skipped,
            ),
            # The environment, not the mutant: a module missing when the mutant is imported, or in a test.
            _forked.MutantJob("gone", "import not_installed_anywhere\\n" + source, coverage.tests_for(1, 1)),
            _forked.MutantJob(
                "gone in a test", source.replace("return top", "return top + 1"),
                ["test_mod.py::test_uses_an_optional_module"],
            ),
        ]
        outcomes = {}
        killers = {}

        def record(outcome):
            outcomes[outcome.job_id] = outcome.verdict
            killers[outcome.job_id] = outcome.killer

        _forked.run_mutants(
            "pkg.mod", module, iter(jobs), parallel=2, timeout=lambda job: 120.0, workdir=work,
            project_root=root, on_outcome=record, options=(),
        )
        print(json.dumps({
            "verdicts": outcomes,
            "killers": killers,
            "line7": coverage.tests_for(7, 7),
            "line12": coverage.tests_for(12, 12),
            "unchanged": module.read_text() == source,
            "skipped": sorted(coverage.skipped),
        }))
        """,
    )
    report = json.loads(_run_in_subprocess(project, script).strip().splitlines()[-1])
    assert report["verdicts"] == {
        "top": "killed",
        "same": "survived",
        "boom": "killed",
        "sub": "killed",
        "unexercised": "killed",  # passed unmutated, skipped mutated: the suite would report it not checked
        "skipped": "survived",  # skipped unmutated too: nothing is lost
        "gone": "fault",  # no mutation operator renames an import: never a kill
        "gone in a test": "fault",
    }
    assert report["skipped"] == ["test_mod.py::test_always_skips"]
    # The test that failed first is named (it runs first for the next mutant); an import error or a
    # test that now skips names none.
    assert report["killers"]["top"] == "test_mod.py::test_clamp_over"
    assert report["killers"]["sub"] == "test_mod.py::test_in_a_subprocess"
    assert report["killers"]["boom"] is None
    assert report["killers"]["unexercised"] is None
    # test_in_a_subprocess runs line 7 only in its subprocess: a line a test file's subprocess runs
    # is reached by every test of that file (wire modules share one run among their tests).
    assert sorted(report["line7"]) == [
        "test_mod.py::test_always_skips",
        "test_mod.py::test_clamp_over",
        "test_mod.py::test_clamp_under",
        "test_mod.py::test_in_a_subprocess",
        "test_mod.py::test_skips_unless_exercised",
        "test_mod.py::test_uses_an_optional_module",
    ]
    assert report["line12"] == []
    assert report["unchanged"], "the runner wrote the mutant into the module's file"


UNIT_TESTS_SOURCE = textwrap.dedent(
    """\
    from pkg.mod import clamp, unused


    def test_the_projects_own_options(request):
        assert request.config.getoption("--from-ini"), "the project's addopts were dropped"
        assert request.config.getoption("--unit-run"), "the unit tests' options were not given"
        assert not request.config.getoption("--conformance-run"), "the conformance options reached the unit tests"


    def test_unused():
        assert unused(1) == 2


    def test_clamp_at_the_limit():
        assert clamp(3) == 3
        assert clamp(4) == 3
    """
)


def test_unit_tests_run_beside_the_conformance_selection_and_their_kills_are_told_apart(
    tmp_path: Path,
) -> None:
    """A selection of the project's own unit tests (``UNIT_TESTS``) is measured under coverage and run per
    mutant with the project's own options (its ini ``addopts`` and ``unit_options``, not the conformance
    run's); it runs after every conformance test of a mutant, whatever the order of its tests, so a kill
    is the unit tests' only when the conformance tests passed: a mutant on lines only unit tests reach,
    or one the conformance tests run past, is theirs; one a conformance test catches is not, even when a
    unit test would catch it too and is listed first."""
    project = _project(tmp_path)
    (project / "conftest.py").write_text(
        "def pytest_addoption(parser):\n"
        "    for name in ('--from-ini', '--unit-run', '--conformance-run'):\n"
        "        parser.addoption(name, action='store_true')\n",
        encoding="utf-8",
    )
    (project / "pytest.ini").write_text("[pytest]\naddopts = --from-ini\n", encoding="utf-8")
    (project / "unit").mkdir()
    (project / "unit" / "test_unit_mod.py").write_text(UNIT_TESTS_SOURCE, encoding="utf-8")
    script = _forked_script(
        project,
        """\
        from tests.mutants._forked import UNIT_TESTS, keyed_test

        options, unit_options = ("--conformance-run",), ("--unit-run",)
        # Measured apart in one workdir, as mutation.py does, then merged.
        conformance, why = _forked.coverage_map(module, [("", ["test_mod.py"])], work, root, options, unit_options)
        assert conformance is not None, why
        unit_map, why = _forked.coverage_map(module, [(UNIT_TESTS, ["unit"])], work, root, options, unit_options)
        assert unit_map is not None, why
        coverage = conformance.merged(unit_map)
        source = module.read_text()
        unit = lambda name: keyed_test(UNIT_TESTS, "unit/test_unit_mod.py::" + name)
        jobs = [
            _forked.MutantJob("unit-only", source.replace("x + 1", "x + 2"), coverage.tests_for(12, 12)),
            _forked.MutantJob(
                "past-conformance", source.replace("value > top", "value > top + 1"), coverage.tests_for(6, 6),
                skipped_before=coverage.skipped,
            ),
            _forked.MutantJob(
                "conformance", source.replace("return top", "return top + 1"),
                [unit("test_clamp_at_the_limit"), "test_mod.py::test_clamp_over"],
            ),
            _forked.MutantJob("options", source, [unit("test_the_projects_own_options"), "test_mod.py::test_clamp_under"]),
        ]
        outcomes = {}
        _forked.run_mutants(
            "pkg.mod", module, iter(jobs), parallel=1, timeout=lambda job: 120.0, workdir=work,
            project_root=root, on_outcome=lambda o: outcomes.__setitem__(o.job_id, [o.verdict, o.by_unit_tests, o.killer]),
            options=options, unit_options=unit_options,
        )
        lines = {n: coverage.tests_for(n, n) for n in (6, 7, 12)}
        print(json.dumps({"outcomes": outcomes, "line12": lines[12], "line6": lines[6], "line7": lines[7]}))
        """,
    )
    report = json.loads(_run_in_subprocess(project, script).strip().splitlines()[-1])
    unit = keyed_test(_forked.UNIT_TESTS, "unit/test_unit_mod.py::test_unused")
    assert report["line12"] == [unit]  # only a unit test runs ``unused``
    assert keyed_test(_forked.UNIT_TESTS, "unit/test_unit_mod.py::test_clamp_at_the_limit") in report["line6"]
    assert "test_mod.py::test_clamp_over" in report["line6"]
    # The second measurement read only its own data: a conformance test's subprocess is not taken for
    # a line every unit test reaches.
    assert sorted(report["line7"]) == sorted(
        [
            "test_mod.py::test_always_skips",
            "test_mod.py::test_clamp_over",
            "test_mod.py::test_clamp_under",
            "test_mod.py::test_in_a_subprocess",
            "test_mod.py::test_skips_unless_exercised",
            "test_mod.py::test_uses_an_optional_module",
            keyed_test(_forked.UNIT_TESTS, "unit/test_unit_mod.py::test_clamp_at_the_limit"),
        ]
    )
    outcomes = report["outcomes"]
    assert outcomes["unit-only"] == ["killed", True, unit]
    assert outcomes["past-conformance"][:2] == ["killed", True]
    assert outcomes["past-conformance"][2].startswith(_forked.UNIT_TESTS)
    assert outcomes["conformance"] == ["killed", False, "test_mod.py::test_clamp_over"]
    assert outcomes["options"] == ["survived", False, None]


def test_a_failing_unmutated_run_scores_nothing(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "test_mod.py").write_text("def test_fails():\n    assert False\n", encoding="utf-8")
    script = textwrap.dedent(
        f"""\
        from pathlib import Path
        from tests.mutants import _forked

        _forked.preload()
        root = Path({str(project)!r})
        (root / "work").mkdir()
        coverage, why = _forked.coverage_map(root / "pkg" / "mod.py", [("", ["test_mod.py"])], root / "work", root, options=())
        print(coverage is None, "did not pass" in why)
        """
    )
    assert _run_in_subprocess(project, script).split()[-2:] == ["True", "True"]


def test_a_test_module_the_mutant_breaks_at_import_is_a_kill_not_a_runner_fault(
    pytester: pytest.Pytester,
) -> None:
    """A test file that builds the mutated class at import (HybridRanker's unit tests do) fails to
    collect; run by node id, pytest then exits 4 ("found no collectors"): a collection failure, 2."""
    test_file = pytester.makepyfile(
        test_built="raise ValueError('the mutant refuses')\ndef test_one():\n    pass\n"
    )
    outcomes = _forked._Outcomes()
    code = int(
        pytester.inline_run(f"{test_file}::test_one", "-p", "no:cacheprovider", plugins=[outcomes]).ret
    )
    assert code == 4
    assert _forked._verdict(code, outcomes, frozenset()) == 2
    assert (
        _forked._verdict(4, _forked._Outcomes(), frozenset()) == 4
    )  # a usage error of its own stays a fault


def test_keyed_tests_keep_the_adapter() -> None:
    assert keyed_test("", "a.py::t") == "a.py::t"
    assert _forked._split_key(keyed_test("m:adapter", "a.py::t")) == ("m:adapter", "a.py::t")


def test_every_module_unit_test_file_exists_and_drives_its_module() -> None:
    """A unit-test file of MODULE_UNIT_TESTS must exist, be a test file of tests/, and name its module
    (in its file name, or an import of it or of the package that re-exports it)."""
    assert MODULE_UNIT_TESTS.keys() <= MODULE_REQUIREMENTS.keys()
    for module, files in MODULE_UNIT_TESTS.items():
        assert files, module
        dotted = module.removesuffix(".py").replace("/", ".")
        package = dotted.rpartition(".")[0]
        stem = Path(module).stem.lstrip("_")
        for name in files:
            path = ROOT / name
            assert path.is_file(), name
            assert path.name.startswith("test_"), name
            assert path.parent.name == "tests", name
            text = path.read_text(encoding="utf-8")
            named = stem in path.stem or dotted in text or module in text
            assert named or f"from {package} import" in text, (module, name)


def test_the_triage_file_loads_and_no_rule_is_stale() -> None:
    rules = load_rules(TRIAGE_FILE)
    assert rules
    assert stale_rules(rules, ROOT) == []
    for rule in rules:
        assert rule.module in MODULE_REQUIREMENTS, rule.module
        assert len(rule.reason) > 20, rule


def test_triage_matches_line_operator_and_function(tmp_path: Path) -> None:
    rules_file = tmp_path / "triage.toml"
    rules_file.write_text(
        textwrap.dedent(
            """\
            [[survivor]]
            module = "m.py"
            source = "if value > top:"
            operators = ["core/ReplaceComparisonOperator_Gt_*"]
            verdict = "equivalent"
            reason = "a reason long enough to say something"

            [[survivor]]
            module = "m.py"
            function = "unused"
            verdict = "unspecified"
            reason = "a reason long enough to say something"
            """
        ),
        encoding="utf-8",
    )
    rules = load_rules(rules_file)
    line = "        if value > top:"
    assert classify(rules, "m.py", "core/ReplaceComparisonOperator_Gt_GtE", line) is rules[0]
    assert classify(rules, "m.py", "core/AddNot", line) is None
    assert classify(rules, "other.py", "core/ReplaceComparisonOperator_Gt_GtE", line) is None
    assert classify(rules, "m.py", "core/AddNot", "return x + 1", "unused") is rules[1]
    tree = ast.parse(SOURCE)
    assert enclosing_function(tree, 12) == "unused"
    assert enclosing_function(tree, 1) == ""
    # A decorator's line is its function's (RemoveDecorator mutants are placed there).
    decorated = ast.parse("class C:\n    x = 1\n\n    @property\n    def f(self):\n        return 1\n")
    assert [enclosing_function(decorated, n) for n in (2, 4, 5, 6)] == ["", "f", "f", "f"]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('module = "m.py"\nsource = "x"\nverdict = "maybe"\nreason = "r"', "verdict 'maybe'"),
        ('module = "m.py"\nverdict = "equivalent"\nreason = "r"', "needs a source line or a function"),
        ('module = "m.py"\nsource = "x"\nverdict = "equivalent"', "missing keys ['reason']"),
        (
            'module = "m.py"\nsource = "x"\nverdict = "equivalent"\nreason = "r"\nwhy = 1',
            "unknown keys ['why']",
        ),
    ],
)
def test_a_malformed_triage_rule_is_refused_by_number(tmp_path: Path, entry: str, message: str) -> None:
    rules_file = tmp_path / "triage.toml"
    rules_file.write_text(f"[[survivor]]\n{entry}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"#1") as raised:
        load_rules(rules_file)
    assert message in str(raised.value)


def _cosmic_ray_session(tmp_path: Path) -> tuple[Path, Path]:
    """The sample project and a real cosmic-ray session initialised on its module."""
    from tests.mutants.mutation import _config

    project = _project(tmp_path)
    config, session = tmp_path / "cr.toml", tmp_path / "cr.sqlite"
    config.write_text(_config("pkg/mod.py", ("PAIR-1",), 10.0), encoding="utf-8")
    cosmic_ray = Path(sys.executable).parent / "cosmic-ray"
    subprocess.run(
        [str(cosmic_ray), "init", str(config), str(session)], cwd=project, check=True, capture_output=True
    )
    return project, session


def test_session_score_triage_and_rerun_on_a_real_cosmic_ray_session(tmp_path: Path) -> None:
    """score_session counts a real cosmic-ray session; --rerun-survivors makes its survivors pending again."""
    from cosmic_ray.work_db import use_db  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cosmic_ray.work_item import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        TestOutcome,
        WorkerOutcome,
        WorkResult,
    )

    from tests.mutants._mutation_report import score_session
    from tests.mutants._triage import TriageRule
    from tests.mutants.mutation import _forget_survivors

    project, session = _cosmic_ray_session(tmp_path)
    with use_db(str(session)) as db:
        items = list(db.pending_work_items)
        assert len(items) > 4
        outcomes = [TestOutcome.KILLED, TestOutcome.SURVIVED, TestOutcome.SURVIVED, TestOutcome.INCOMPETENT]
        for item, outcome in zip(items, outcomes, strict=False):
            db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=outcome))
        survivor_line = items[1].mutations[0].start_pos[0]
    line_text = SOURCE.splitlines()[survivor_line - 1]
    rule = TriageRule("pkg/mod.py", line_text.strip(), "equivalent", "a reason long enough to count")
    score = score_session(session, "pkg/mod.py", project, rules=[rule])
    expected_equivalent = sum(1 for item in items[1:3] if item.mutations[0].start_pos[0] == survivor_line)
    assert (score.killed, score.survived, score.incompetent) == (1, 2, 1)
    assert score.equivalent == expected_equivalent
    assert len(score.gaps) == 2 - expected_equivalent
    assert score.pending == len(items) - 4
    # Only the untriaged survivors run again: the triage file here has no rule for pkg/mod.py.
    assert _forget_survivors(session, "pkg/mod.py", project) == 2
    assert score_session(session, "pkg/mod.py", project, rules=[]).survived == 0


def test_kills_by_unit_tests_only_are_scored_apart_from_the_conformance_suites(tmp_path: Path) -> None:
    """A kill the runner marks as the unit tests' only counts as killed, and the score line, the table
    and the survivors file also give the conformance suite's own score, where it is a survivor (triaged
    when a rule covers its line). With unit tests, a rerun takes the unspecified survivors again too."""
    from cosmic_ray.work_db import use_db  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cosmic_ray.work_item import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        TestOutcome,
        WorkerOutcome,
        WorkResult,
    )

    from tests.mutants._mutation_report import UNIT_KILL, markdown_table, score_session, write_survivors
    from tests.mutants._triage import TriageRule
    from tests.mutants.mutation import _forget_survivors

    project, session = _cosmic_ray_session(tmp_path)
    with use_db(str(session)) as db:
        items = list(db.pending_work_items)
        in_unused = [
            i for i in items if enclosing_function(ast.parse(SOURCE), i.mutations[0].start_pos[0]) == "unused"
        ]
        others = [i for i in items if i not in in_unused]
        assert len(in_unused) >= 2
        assert len(others) >= 4
        unit_killer = keyed_test(_forked.UNIT_TESTS, "unit/test_unit_mod.py::test_unused")
        for item in in_unused[:2]:  # killed by the unit tests only, in a function a rule calls unspecified
            db.set_result(
                item.job_id,
                WorkResult(
                    worker_outcome=WorkerOutcome.NORMAL,
                    test_outcome=TestOutcome.KILLED,
                    output=f"{UNIT_KILL}: {unit_killer}\n1 test(s), 0.1 s\n",
                ),
            )
        db.set_result(  # killed by the unit tests only, on a line no rule covers
            others[0].job_id,
            WorkResult(
                worker_outcome=WorkerOutcome.NORMAL,
                test_outcome=TestOutcome.KILLED,
                output=f"{UNIT_KILL}: timeout\n",
            ),
        )
        db.set_result(  # killed by a conformance test
            others[1].job_id, WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=TestOutcome.KILLED)
        )
        for item in in_unused[2:] + others[2:]:
            db.set_result(
                item.job_id,
                WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=TestOutcome.SURVIVED),
            )
    rule = TriageRule("pkg/mod.py", "", "unspecified", "a reason long enough to count", function="unused")
    score = score_session(session, "pkg/mod.py", project, rules=[rule])
    counted = len(items)
    unspecified = len(in_unused) - 2
    assert (score.killed, score.killed_by_unit_tests, score.unit_kills_triaged) == (4, 3, 2)
    assert (score.conformance_killed, score.unspecified) == (1, unspecified)
    assert score.conformance_base == counted - unspecified - 2
    line = score.line()
    assert f"4/{counted} killed" in line
    assert f"3 by unit tests only, the conformance suite alone 1/{counted}" in line
    assert f"triaged 4/{counted - unspecified} " in line
    assert f"the conformance suite alone 1/{counted - unspecified - 2} " in line
    table = markdown_table([score], {"pkg/mod.py": ("PAIR-1",)})
    header, _rule, row = table.splitlines()
    cells = dict(zip(header.split(" | "), row.split(" | "), strict=True))
    assert cells["of them by unit tests only"] == "3"
    assert cells["killed"] == "4"
    assert cells["triaged, conformance suite alone"] == f"{100 / (counted - unspecified - 2):.1f}%"
    survivors = tmp_path / "survivors.md"
    write_survivors(score, survivors)
    text = survivors.read_text(encoding="utf-8")
    assert "## Killed by unit tests only" in text
    assert "`unit/test_unit_mod.py::test_unused` (triaged unspecified)" in text
    assert ": `timeout` (a gap of the conformance suite)" in text
    # A rerun with unit tests takes the unspecified survivors too (the gaps alone otherwise: above).
    assert unspecified > 0
    forgotten = _forget_survivors(session, "pkg/mod.py", project, unspecified=True, rules=[rule])
    assert forgotten == len(score.gaps) + unspecified


def test_a_selection_runs_and_scores_only_its_part_of_a_real_session(tmp_path: Path) -> None:
    """--lines and --function: only the selected mutants are scored (the rest are not even pending),
    rerun, or turned into jobs; a selection names itself in the score line."""
    from cosmic_ray.work_db import use_db  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cosmic_ray.work_item import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        TestOutcome,
        WorkerOutcome,
        WorkResult,
    )

    from tests.mutants._mutation_report import score_session
    from tests.mutants._selection import Selection, line_range
    from tests.mutants.mutation import _forget_survivors, _jobs, _parser

    project, session = _cosmic_ray_session(tmp_path)
    tree = ast.parse(SOURCE)
    with use_db(str(session)) as db:
        items = list(db.pending_work_items)
        for item in items:  # every mutant survives, so each one is a gap
            db.set_result(
                item.job_id,
                WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=TestOutcome.SURVIVED),
            )
    lines = [item.mutations[0].start_pos[0] for item in items]
    in_unused = sum(1 for line in lines if enclosing_function(tree, line) == "unused")
    on_line_1 = lines.count(1)
    assert in_unused > 0
    assert on_line_1 > 0
    assert in_unused + on_line_1 < len(items)

    def gaps(selection: Selection) -> int:
        score = score_session(session, "pkg/mod.py", project, rules=[], selection=selection)
        assert (score.pending, score.killed) == (0, 0)
        return score.survived

    assert gaps(Selection()) == len(items)
    assert gaps(Selection(functions=("unused",))) == in_unused
    assert gaps(Selection(lines=(range(1, 2),))) == on_line_1
    # Either part: a line range or a function.
    assert gaps(Selection(lines=(range(1, 2),), functions=("unused",))) == in_unused + on_line_1
    assert gaps(Selection(functions=("nothing_here",))) == 0
    line = score_session(session, "pkg/mod.py", project, rules=[], selection=Selection((range(1, 2),))).line()
    assert line.startswith("pkg/mod.py (line 1 only): ")

    # A rerun of the selection forgets its survivors only; _jobs turns only those into work.
    assert _forget_survivors(session, "pkg/mod.py", project, Selection(functions=("unused",))) == in_unused
    assert score_session(session, "pkg/mod.py", project, rules=[]).pending == in_unused
    coverage = CoverageMap(lines={n: frozenset({"t::a"}) for n in range(1, 20)}, durations={"t::a": 0.1})
    jobs, _diffs = _jobs(session, "pkg/mod.py", coverage, Selection(lines=(range(1, 2),)), project)
    assert jobs == []  # line 1's mutants are not pending
    jobs, _diffs = _jobs(session, "pkg/mod.py", coverage, Selection(functions=("unused",)), project)
    assert len(jobs) == in_unused

    assert line_range("120-150") == range(120, 151)
    assert line_range("7") == range(7, 8)
    for bad in ("x", "9-3", "0-2", "3-x"):
        with pytest.raises(argparse.ArgumentTypeError, match="line range"):
            line_range(bad)
    args = _parser().parse_args(["m.py", "--lines", "3-4", "--function", "f", "--function", "g"])
    assert (args.lines, args.function) == ([range(3, 5)], ["f", "g"])


def test_a_sample_is_stable_nested_and_blind_to_edits_elsewhere() -> None:
    """--sample N: the N mutants with the smallest keys, whatever order they come in; a larger sample holds
    the smaller; lines moved by an edit above keep their mutants' keys; equal lines' mutants differ."""
    from tests.mutants._sample import SampleItem, sample_ids

    lines = ["x = 1", "y = x + 1", "y = x + 1", "z = y - 1"]
    items = [
        SampleItem(f"{n}-{op}-{col}", op, (n, col), occurrence)
        for occurrence, (n, op, col) in enumerate(
            (n, op, col)
            for n in range(1, 5)
            for op in ("core/NumberReplacer", "core/ReplaceBinaryOperator")
            for col in (0, 4)
        )
    ]
    everything = sample_ids("m.py", lines, items, 100)
    assert everything == {item.job_id for item in items}
    small, large = sample_ids("m.py", lines, items, 3), sample_ids("m.py", lines, items, 6)
    assert len(small) == 3
    assert len(large) == 6
    assert small < large
    assert sample_ids("m.py", lines, list(reversed(items)), 3) == small
    # An inserted first line moves every mutant down one line: the same mutants are drawn.
    moved = [SampleItem(i.job_id, i.operator, (i.start[0] + 1, i.start[1]), i.occurrence) for i in items]
    assert sample_ids("m.py", ["import os", *lines], moved, 3) == small
    # Another module's mutants are drawn apart.
    assert any(sample_ids(f"m{k}.py", lines, items, 3) != small for k in range(5))
    with pytest.raises(ValueError, match="at least one"):
        sample_ids("m.py", lines, items, 0)


def test_wilson_interval_of_a_sampled_score() -> None:
    """The 95% interval of a sample's score: 50 of 50 may still be 92.9%; nothing run says nothing."""
    from tests.mutants._sample import wilson_interval

    low, high = wilson_interval(50, 50)
    assert round(low, 1) == 92.9
    assert high == 100.0
    low, high = wilson_interval(45, 50)
    assert round(low, 1) == 78.6
    assert round(high, 1) == 95.7
    assert wilson_interval(0, 0) == (0.0, 100.0)


def test_a_sample_runs_and_scores_only_its_mutants_of_a_real_session(tmp_path: Path) -> None:
    """--sample: _jobs turns only the sampled pending mutants into work, the score counts only them and
    says it is an estimate, with its interval, in the line and the table."""
    from cosmic_ray.work_db import use_db  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cosmic_ray.work_item import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        TestOutcome,
        WorkerOutcome,
        WorkResult,
    )

    from tests.mutants._mutation_report import markdown_table, score_session
    from tests.mutants._selection import Selection
    from tests.mutants.mutation import _jobs, _parser

    project, session = _cosmic_ray_session(tmp_path)
    coverage = CoverageMap(lines={n: frozenset({"t::a"}) for n in range(1, 20)}, durations={"t::a": 0.1})
    sample = Selection(sample=3)
    # A mutant in an annotation (skipped when the session is made) is never drawn: the sample is 3 others.
    with use_db(str(session)) as db:
        annotation = next(iter(db.pending_work_items)).job_id
        db.set_result(annotation, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
    for size in range(1, 8):
        drawn = score_session(session, "pkg/mod.py", project, rules=[], selection=Selection(sample=size))
        assert drawn.skipped == 0
        assert drawn.pending + drawn.incompetent == size
    jobs, _diffs = _jobs(session, "pkg/mod.py", coverage, sample, project)
    assert len(jobs) <= 3  # a sampled mutant may be no mutant at all (recorded, not a job)
    score = score_session(session, "pkg/mod.py", project, rules=[], selection=sample)
    # Nothing has run: the sample is pending (or no mutant at all), nothing else is counted.
    assert score.counted == 0
    assert score.pending + score.incompetent == 3
    with use_db(str(session)) as db:
        for item in list(db.pending_work_items):
            db.set_result(
                item.job_id, WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=TestOutcome.KILLED)
            )
    score = score_session(session, "pkg/mod.py", project, rules=[], selection=sample)
    assert score.counted + score.incompetent + score.pending == 3
    assert score.counted == score.killed
    line = score.line()
    assert line.startswith("pkg/mod.py (a random sample of 3 mutants only): ")
    low, _high = score.interval()
    assert f"estimate of every mutant's triaged score: {low:.1f}-100.0% (95% interval)" in line
    whole = score_session(session, "pkg/mod.py", project, rules=[])
    assert whole.counted > score.counted
    assert "estimate" not in whole.line()
    row = markdown_table([score], {"pkg/mod.py": ("PAIR-1",)}).splitlines()[-1]
    assert "(a random sample of 3 mutants)" in row
    assert f"(95%: {low:.1f}-100.0%)" in row
    # A part of a module may be sampled; --sample takes a positive size only.
    assert _parser().parse_args(["m.py", "--sample", "40"]).sample == 40
    for bad in ("0", "-3", "x"):
        with pytest.raises(SystemExit):
            _parser().parse_args(["m.py", "--sample", bad])


SCRIPT_SOURCE = """\
import os
import sys

SCRIPT = os.path.abspath(__file__)


def main():
    print(3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
"""


def test_a_module_run_as_a_script_is_served_mutated_to_its_process_too(tmp_path: Path) -> None:
    """A module the code under test runs as ``python -I -S FILE`` (the sandbox's exec tracer and loader):
    served as a script, the mutant is what that process runs (killed); served only by import, the
    original file runs and the mutant survives. A mutant whose ``__main__`` test turns true exits while
    imported: killed, never a runner fault."""
    project = _project(tmp_path)
    (project / "pkg" / "script.py").write_text(SCRIPT_SOURCE, encoding="utf-8")
    (project / "test_script.py").write_text(
        "import subprocess, sys\nfrom pkg.script import SCRIPT\n\n\n"
        "def test_script_prints_three():\n"
        "    out = subprocess.run([sys.executable, '-I', '-S', SCRIPT], capture_output=True, text=True).stdout\n"
        "    assert out.strip() == '3'\n",
        encoding="utf-8",
    )
    script = textwrap.dedent(
        f"""\
        import json
        from pathlib import Path
        from tests.mutants import _forked

        _forked.preload()
        root = Path({str(project)!r})
        module = root / "pkg" / "script.py"
        source = module.read_text()
        tests = ["test_script.py::test_script_prints_three"]
        verdicts = {{}}
        for as_script in (True, False):
            work = root / f"work-{{as_script}}"
            work.mkdir()
            jobs = [
                _forked.MutantJob("printed", source.replace("print(3)", "print(4)"), tests),
                _forked.MutantJob("main", source.replace('__name__ == "__main__"', '__name__ != "__main__"'), tests),
            ]
            _forked.run_mutants(
                "pkg.script", module, iter(jobs), parallel=1, timeout=lambda job: 120.0, workdir=work,
                project_root=root, on_outcome=lambda o, s=as_script: verdicts.__setitem__(f"{{o.job_id}}-{{s}}", o.verdict),
                options=(), as_script=as_script,
            )
        print(json.dumps(verdicts))
        """
    )
    verdicts = json.loads(_run_in_subprocess(project, script).strip().splitlines()[-1])
    assert verdicts == {
        "printed-True": "killed",
        "main-True": "killed",
        "printed-False": "survived",  # why scripts are served as scripts
        "main-False": "killed",
    }
