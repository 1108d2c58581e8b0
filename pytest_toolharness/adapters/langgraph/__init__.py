"""The LangGraph adapter (``pip install 'pytest-toolharness[langgraph]'``).

``toolharness check --adapter pytest_toolharness.adapters.langgraph:make_adapter`` checks LangGraph's
``ToolNode`` through langchain-anthropic's real client; ``toolharness_agent`` names your own graph factory.
"""

from __future__ import annotations

from pytest_toolharness.adapters.langgraph._adapter import (
    LangGraphAdapter,
    LangGraphHarness,
    default_graph,
    make_adapter,
)

__all__ = ["LangGraphAdapter", "LangGraphHarness", "default_graph", "make_adapter"]
