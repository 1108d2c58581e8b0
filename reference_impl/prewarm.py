"""``import reference_impl.prewarm``: a fork server's preload (see :mod:`reference_impl.agent._prewarm`).

Importing it makes, once, what every session of ``python -m reference_impl`` would make again: a
process forked afterwards shares it. It changes nothing else.
"""

from __future__ import annotations

from reference_impl.agent import prewarm

__all__: list[str] = []

prewarm()
