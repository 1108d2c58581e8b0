"""The anthropic SDK tool runner adapter (``pip install 'pytest-toolharness[anthropic-tool-runner]'``).

``toolharness check --adapter pytest_toolharness.adapters.anthropic_tool_runner:make_adapter`` checks the
loop every SDK user has, ``client.beta.messages.tool_runner`` with ``@beta_async_tool`` tools, through
the SDK's real client (message threads included) against the scripted Messages API.
"""

from __future__ import annotations

from pytest_toolharness.adapters.anthropic_tool_runner._adapter import (
    TOOL_SEARCH,
    ToolRunnerAdapter,
    ToolRunnerHarness,
    make_adapter,
)

__all__ = ["TOOL_SEARCH", "ToolRunnerAdapter", "ToolRunnerHarness", "make_adapter"]
