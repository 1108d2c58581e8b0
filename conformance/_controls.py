"""A test's control: the run that shows the test can see what it judges, or an error of the suite.

A property that judges an attack first shows the attack works where nothing stops it (outside the
sandbox, with no rule); a property that judges a denial first shows the program runs when nothing
denies it. When the control does not show that, the test can judge nothing: it is neither a pass
nor a failure of the harness under test. :func:`require_control` raises :class:`ControlFailed`,
which the plugin reports as an error of the suite (``pytest_toolharness._faults``: an exception
other than an assertion, raised in the suite's own code), never as the harness failing.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

__all__ = ["ControlFailed", "require_control", "run_for_real"]


class ControlFailed(RuntimeError):
    """A control run did not show what its test needs; the message says what it showed instead."""


def require_control(shown: object, what_failed: str) -> None:
    """Raise :class:`ControlFailed` with ``what_failed`` unless the control ``shown`` it holds."""
    if not shown:
        raise ControlFailed(f"the test's control failed, so it can judge nothing: {what_failed}")


def run_for_real(line: str, cwd: Path, env: Mapping[str, str], *, timeout: float = 60) -> int:
    """Run ``line`` in bash as a user would, with no input; its exit status (the control's evidence)."""
    done = subprocess.run(
        ["bash", "-c", line],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode
