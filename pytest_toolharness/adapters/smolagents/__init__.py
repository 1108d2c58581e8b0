"""The smolagents adapter (``pip install 'pytest-toolharness[smolagents]'``).

``toolharness check --adapter pytest_toolharness.adapters.smolagents:make_adapter`` checks smolagents'
``ToolCallingAgent`` through its real ``OpenAIServerModel`` (Chat Completions); ``toolharness_agent``
names your own agent factory.
"""

from __future__ import annotations

from pytest_toolharness.adapters.smolagents._adapter import (
    DEFAULT_MODEL,
    MAX_STEPS,
    SmolagentsAdapter,
    SmolagentsHarness,
    make_adapter,
    make_tool,
    smolagents_name,
)

__all__ = [
    "DEFAULT_MODEL",
    "MAX_STEPS",
    "SmolagentsAdapter",
    "SmolagentsHarness",
    "make_adapter",
    "make_tool",
    "smolagents_name",
]
