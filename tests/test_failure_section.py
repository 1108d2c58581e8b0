from __future__ import annotations

import pytest


def test_failed_requirement_test_names_requirement_spec_and_rerun(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_x="""
        import pytest

        @pytest.mark.requirement("PAIR-1", "MUST")
        def test_pairing():
            assert False, "a tool_use id had no tool_result"
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*toolharness requirement*",
            "PAIR-1 (MUST): *",
            '  spec: *conformance/requirements.toml (id = "PAIR-1")',
            "reproduce: pytest --toolharness-conformance */test_x.py::test_pairing*",
        ]
    )


def test_passing_requirement_test_adds_no_section(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_x="""
        import pytest

        @pytest.mark.requirement("PAIR-1", "MUST")
        def test_pairing():
            pass
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1)
    assert "toolharness requirement" not in result.stdout.str()
