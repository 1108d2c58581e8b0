"""Fixtures shared by our own tests."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SHARED_DIR = Path(__file__).resolve().parent.parent.parent / "shared"


def _cache_bytecode_under_a_prefix() -> Path | None:
    """Let the pytest processes our tests start cache their compiled and rewritten modules.

    With ``PYTHONDONTWRITEBYTECODE`` set (as on our CI machine) no process writes a cache, so each of
    the hundreds of pytest processes our tests start rewrites the assertions of every module of every
    distribution with a pytest plugin (some 445 modules, seconds of CPU each time). They write their
    caches under one temporary ``PYTHONPYCACHEPREFIX`` instead, so the checkout stays free of them.
    Set here, in the first process, before its xdist workers start: they and their children share it.
    """
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return None
    prefix = Path(tempfile.mkdtemp(prefix="toolharness-test-pycache-"))
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    return prefix


_PYCACHE_PREFIX = _cache_bytecode_under_a_prefix()


def _take_interrupts_again() -> None:
    """Let Ctrl-C reach our tests' processes even when the shell that started pytest ignores it.

    A shell without job control starts a background command with SIGINT and SIGQUIT ignored, and an
    ignored signal stays ignored through every exec: the tests that interrupt a run, and the
    processes they start, found it ignored (five failed in a clean-clone rehearsal started that
    way). Python's own handler is put back, as an interactive start has it; run here, in the first
    process and in each xdist worker, before any test.
    """
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGQUIT) == signal.SIG_IGN:
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)


_take_interrupts_again()


def pytest_unconfigure(config: pytest.Config) -> None:
    """The process that made the bytecode prefix removes it (its workers are gone by now)."""
    if _PYCACHE_PREFIX is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(_PYCACHE_PREFIX, ignore_errors=True)


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
