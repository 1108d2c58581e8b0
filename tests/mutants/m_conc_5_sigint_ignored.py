"""CONC-5 mutant: the reference CLI ignores SIGINT, so a user's Ctrl-C mid-batch stops nothing."""

from __future__ import annotations

from tests.mutants._base import CliCode, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-5"
DESCRIPTION = (
    "The CLI sets SIGINT to be ignored (to spare its tools' children a Ctrl-C) and never aborts: "
    "after a Ctrl-C mid-batch the calls queued behind the running one still start"
)

# asyncio then installs no SIGINT handler of its own: it does so only over Python's default one.
adapter = make_factory(CliCode("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)"))
