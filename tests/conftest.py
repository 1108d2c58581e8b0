"""Fixtures shared by our own tests."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DIR = Path(__file__).resolve().parent.parent.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``../shared`` folder beside the checkout (design documents and corpus); skips when absent."""
    if not (SHARED_DIR / "corpus").is_dir():
        pytest.skip(f"the shared data folder is not at {SHARED_DIR}")
    return SHARED_DIR
