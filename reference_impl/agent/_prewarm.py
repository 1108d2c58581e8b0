"""Imported by a process that forks the CLI later (a fork server): what every session makes, made once.

A forked child starts with the parent's memory, so what is made here before the fork is not made
again in each child: the API client's TLS context (:func:`~reference_impl.agent._cli.tls_context`,
about 0.25 s of CPU to load the CA bundle) and the validators of the SDK's message types, which
pydantic builds on their first use (``defer_build``). Importing this module changes nothing else.
"""

from __future__ import annotations

import anthropic.types
from pydantic import BaseModel

from reference_impl.agent._cli import tls_context

__all__: list[str] = []

tls_context()
for _model in vars(anthropic.types).values():
    if isinstance(_model, type) and issubclass(_model, BaseModel):
        _model.model_rebuild()
