"""Hooks the plugin adds, for a ``conftest.py`` (or another plugin) to implement."""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["pytest_toolharness_adapter"]


@pytest.hookspec(firstresult=True)
def pytest_toolharness_adapter(config: pytest.Config) -> Any:
    """Return the adapter the conformance suite runs against, or ``None`` to leave the choice to others.

    Called at most once per session (per xdist worker), lazily, the first time a test needs the
    adapter. Used when neither ``--toolharness-adapter`` nor the ``toolharness_adapter`` ini key is set.
    The adapter needs a ``capabilities`` attribute (a ``frozenset`` of capability names) and may have
    a ``new_harness()`` method that gives each test a fresh harness.
    """
