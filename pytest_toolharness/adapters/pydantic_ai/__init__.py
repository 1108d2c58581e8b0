"""The pydantic-ai adapter (``pip install 'pytest-toolharness[pydantic-ai]'``).

``toolharness check --adapter pytest_toolharness.adapters.pydantic_ai:make_adapter`` checks pydantic-ai's
tool calling through its real Anthropic client; ``toolharness_agent`` names your own agent factory.
"""

from __future__ import annotations

from pytest_toolharness.adapters.pydantic_ai._adapter import (
    PydanticAiAdapter,
    PydanticAiHarness,
    make_adapter,
)

__all__ = ["PydanticAiAdapter", "PydanticAiHarness", "make_adapter"]
