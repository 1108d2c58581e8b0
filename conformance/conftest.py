"""Shared helpers of the conformance suite (loaded only when the suite runs)."""

from __future__ import annotations

import pytest

from pytest_toolharness import strategies as ths
from pytest_toolharness.strategies import (
    drop_local_constants,
    load_suite_profile,
    register_profiles,
    restore_profile,
)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Run under the suite's Hypothesis profile unless the user chose one, drawing no local constants.

    The plugin does this (and registers the profiles, in time for ``--hypothesis-profile``) whenever
    the suite is added with ``--toolharness-conformance``; this covers a run that names the suite's
    folder without it.
    """
    register_profiles()
    previous = load_suite_profile()
    session.config.add_cleanup(lambda: restore_profile(previous))
    session.config.add_cleanup(drop_local_constants())


@pytest.fixture(scope="session")
def bash_oracle() -> ths.BashSandbox:
    """A real bash in a bubblewrap sandbox that reports what a command line executes, or a skip naming what is missing."""
    sandbox = ths.bash_sandbox()
    if sandbox is None:
        pytest.skip(f"bash oracle unavailable: {ths.bash_sandbox_problem()}")
    return sandbox
