"""PAIR-2 mutant: an answer's stream that ends before message_stop is taken as the whole answer."""

from __future__ import annotations

from tests.mutants._base import CliCode, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-2"
DESCRIPTION = (
    "A stream cut off mid-turn (no message_delta, no message_stop) ends the loop as an end_turn: the "
    "calls it already started never get their results sent (the reference harness before session 18)"
)

adapter = make_factory(
    CliCode(
        "import reference_impl.agent._loop as loop\n"
        "assert hasattr(loop, '_incomplete_stream'), 'nothing to patch'\n"
        "loop._incomplete_stream = lambda stopped: None"
    )
)
