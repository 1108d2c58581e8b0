"""Wire scenarios for result budgets: images are never persisted (RESULT-2), one message's budget (RESULT-3).

``images``: one turn, two MCP calls of the same size over the per-tool limit: ``pic`` returns an
image and the text, ``text_only`` the text alone. The text-only one must be replaced (the proof the
size is over the limit), the one with an image must arrive whole. ``budget``: one turn of
:data:`BUDGET_SIZES` results, each under the per-tool limit, together over the 200,000-character
budget of one message; the largest must be replaced first until the rest fit.
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_toolharness.specs import ToolBehavior
from pytest_toolharness.wire.model_api import AssistantTurn, TextBlock, ToolUseBlock, tool_use_id
from pytest_toolharness.wire.scenarios._core import CLAUDE_CODE_NAMES, ToolNames, WireScenario, mcp_spec

__all__ = [
    "BUDGET_CHARS",
    "BUDGET_SIZES",
    "IMAGE_TEXT_CHARS",
    "ImageIds",
    "budget_ids",
    "budget_output",
    "budget_scenario",
    "images_scenario",
]

_PREFIX = "01Res"
_NO_SEARCH = {"ENABLE_TOOL_SEARCH": "false"}

#: The text each ``images`` tool returns: over the 50,000-character per-tool limit.
IMAGE_TEXT_CHARS = 60_000


class ImageIds:
    """The tool_use ids of :func:`images_scenario`."""

    PICTURE = tool_use_id(1, _PREFIX)
    TEXT_ONLY = tool_use_id(2, _PREFIX)


def images_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """An image result and a text-only one of the same (oversized) text: only the text-only one is replaced."""
    picture = mcp_spec(
        "pic",
        "Returns a picture and its long caption.",
        ToolBehavior("image", chars=IMAGE_TEXT_CHARS, fill="p"),
        names=names,
    )
    text_only = mcp_spec(
        "text_only",
        "Returns the long caption alone.",
        ToolBehavior("text", chars=IMAGE_TEXT_CHARS, fill="p"),
        names=names,
    )
    turn = AssistantTurn(
        (
            TextBlock("A picture and a caption."),
            ToolUseBlock(ImageIds.PICTURE, picture.name, {}),
            ToolUseBlock(ImageIds.TEXT_ONLY, text_only.name, {}),
        )
    )
    return WireScenario(
        name="images",
        prompt="Use the tools as the conversation asks.",
        steps=(turn,),
        mcp_tools=(picture, text_only),
        settings={"permissions": {"allow": [picture.name, text_only.name]}},
        env=_NO_SEARCH,
    )


#: The budget of one user message's tool results, in characters (RESULT-3).
BUDGET_CHARS = 200_000
#: MCP tool → output characters: each under the per-tool limit, 230,000 together; the largest
#: (``b_large``) replaced brings the rest to 160,000 plus its preview.
BUDGET_SIZES: Mapping[str, int] = {
    "b_one": 20_000,
    "b_two": 20_000,
    "b_large": 45_000,
    "b_three": 20_000,
    "b_four": 20_000,
    "b_five": 20_000,
    "b_medium": 25_000,
    "b_six": 20_000,
    "b_seven": 20_000,
    "b_eight": 20_000,
}
_FILLS = "abcdefghijklmnopqrstuvwxyz"


def budget_output(tool: str) -> str:
    """What ``tool`` of :data:`BUDGET_SIZES` returns (its own letter, so a result shows whose it is)."""
    fill = _FILLS[list(BUDGET_SIZES).index(tool)]
    return fill * BUDGET_SIZES[tool]


def budget_ids() -> dict[str, str]:
    """Tool → its tool_use id in :func:`budget_scenario`."""
    return {tool: tool_use_id(11 + n, _PREFIX) for n, tool in enumerate(BUDGET_SIZES)}


def budget_scenario(names: ToolNames = CLAUDE_CODE_NAMES) -> WireScenario:
    """One turn calling every :data:`BUDGET_SIZES` tool: together over :data:`BUDGET_CHARS`."""
    specs = [
        mcp_spec(
            tool,
            f"Returns {size} characters.",
            ToolBehavior("text", text=budget_output(tool)),
            names=names,
        )
        for tool, size in BUDGET_SIZES.items()
    ]
    ids = budget_ids()
    calls = [ToolUseBlock(ids[spec.mcp_tool or ""], spec.name, {}) for spec in specs]
    return WireScenario(
        name="budget",
        prompt="Use the tools as the conversation asks.",
        steps=(AssistantTurn((TextBlock("Many medium results."), *calls)),),
        mcp_tools=tuple(specs),
        settings={"permissions": {"allow": [spec.name for spec in specs]}},
        env=_NO_SEARCH,
    )
