"""What every CLI session of a process makes, made once: for a process that forks sessions later.

A forked child starts with the parent's memory, so what is made before the fork is not made again
in each child: the API client's TLS context (:func:`~reference_impl.agent._cli.tls_context`, about
0.25 s of CPU to load the CA bundle) and the validators of the SDK's message types, which pydantic
builds on their first use (``defer_build``).
"""

from __future__ import annotations

__all__ = ["prewarm"]


def prewarm() -> None:
    """Make the TLS context and build the SDK's message validators now."""
    import anthropic.types
    from pydantic import BaseModel

    from reference_impl.agent._cli import tls_context

    tls_context()
    for model in vars(anthropic.types).values():
        if isinstance(model, type) and issubclass(model, BaseModel):
            model.model_rebuild()
