"""CONC-5 mutant: after a Ctrl-C the reference CLI answers only the calls that ran to their end."""

from __future__ import annotations

from tests.mutants._base import CliCode, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "CONC-5"
DESCRIPTION = (
    "On a user's interrupt the CLI's loop leaves out the synthetic 'Interrupted by user' results: the "
    "call the interrupt cut off and the calls it kept from starting get no tool_result, and the session "
    "goes on with a transcript that leaves them unanswered"
)

# The loop builds the next user message with finish_batch; the mutant filters what it is given.
_CODE = """
import reference_impl.agent._loop as loop
_finish = loop.finish_batch
def finish_batch(blocks, outcomes, ctx):
    kept = [(b, o) for b, o in zip(blocks, outcomes) if not (o.synthetic and 'nterrupted' in str(o.result))]
    return _finish([b for b, _ in kept], [o for _, o in kept], ctx)
loop.finish_batch = finish_batch
"""

adapter = make_factory(CliCode(_CODE))
