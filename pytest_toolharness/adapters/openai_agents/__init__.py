"""The openai-agents adapter (``pip install 'pytest-toolharness[openai-agents]'``).

``toolharness check --adapter pytest_toolharness.adapters.openai_agents:make_adapter`` checks the OpenAI
Agents SDK's tool calling on the Responses API, ``...:make_chat_adapter`` on Chat Completions, through its
real OpenAI client; ``toolharness_agent`` names your own agent factory.
"""

from __future__ import annotations

from pytest_toolharness.adapters.openai_agents._adapter import (
    APIS,
    DEFAULT_MODEL,
    OpenAiAgentsAdapter,
    OpenAiAgentsHarness,
    make_adapter,
    make_chat_adapter,
)

__all__ = [
    "APIS",
    "DEFAULT_MODEL",
    "OpenAiAgentsAdapter",
    "OpenAiAgentsHarness",
    "make_adapter",
    "make_chat_adapter",
]
