"""Fixtures shared by our own tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

SHARED_DIR = Path(__file__).resolve().parent.parent.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``../shared`` folder beside the checkout (design documents and corpus); skips when absent."""
    if not (SHARED_DIR / "corpus").is_dir():
        pytest.skip(f"the shared data folder is not at {SHARED_DIR}")
    return SHARED_DIR


@pytest.fixture(scope="session", autouse=True)
def _one_isolated_worker() -> Iterator[None]:
    """Suite runs our tests start get one isolated worker, not one per CPU (``-n auto`` is ours already).

    Set once our own run's workers are up, so ``pytest -n auto`` itself still counts the CPUs; a test
    about the worker count sets ``PYTEST_XDIST_AUTO_NUM_WORKERS`` itself.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "1")
        yield
