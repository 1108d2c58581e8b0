"""pytest-toolharness: prove that an LLM agent's tool harness is correct.

The pytest plugin adds ``--toolharness-conformance``; this package also gives Hypothesis
strategies for tool pools, permission rules, modes and hooks, and a syrupy extension that pins
the exact wire bytes of tool schemas.
"""

from __future__ import annotations

__all__: list[str] = []
