"""Loading the shared corpus (``../shared/corpus``) into harness tools for the benchmarks."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_impl import Tool, ToolContext, ToolInput, ToolOutput, build_tool, mcp_tool

__all__ = [
    "CORPUS_DIR",
    "RetrievalQuery",
    "corpus_file",
    "livemcpbench_tools",
    "load_mcp_records",
    "load_queries",
    "metatool_tools",
    "noop_call",
    "record_tool",
]

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = PROJECT_ROOT.parent / "shared" / "corpus"


def corpus_file(name: str) -> Path:
    """The path of a corpus file; exits with a clear message when the corpus is absent."""
    path = CORPUS_DIR / name
    if not path.is_file():
        sys.exit(
            f"benchmarks: {path} is missing. The benchmarks read the shared corpus in "
            f"../shared/corpus beside the project checkout ({CORPUS_DIR})."
        )
    return path


async def noop_call(_input: ToolInput, _context: ToolContext) -> ToolOutput:
    """A tool body that does nothing."""
    return ToolOutput(content="ok")


def load_mcp_records() -> list[dict[str, Any]]:
    """Every record of ``mcp_tools.json``."""
    records: list[dict[str, Any]] = json.loads(corpus_file("mcp_tools.json").read_text(encoding="utf-8"))
    return records


def record_tool(record: dict[str, Any], *, suffix: str = "", defer: bool = True) -> Tool:
    """A deferred MCP tool from one corpus record; ``suffix`` is appended to the tool name."""
    tool = mcp_tool(
        record["server"],
        record["name"] + suffix,
        record.get("description") or "",
        record.get("input_schema") or {"type": "object"},
        noop_call,
        annotations=record.get("annotations") or None,
    )
    return tool.with_changes(should_defer=defer)


def livemcpbench_tools() -> list[Tool]:
    """The 527 LiveMCPBench tools as MCP tools, in corpus order."""
    return [record_tool(r) for r in load_mcp_records() if r["collection"] == "LiveMCPBench"]


@dataclass(frozen=True)
class RetrievalQuery:
    """A retrieval query and its gold tools (each gold tool: the harness names that count as it)."""

    dataset: str
    query: str
    gold: tuple[frozenset[str], ...]


def load_queries() -> dict[str, Any]:
    """The parsed ``retrieval_queries.json``."""
    data: dict[str, Any] = json.loads(corpus_file("retrieval_queries.json").read_text(encoding="utf-8"))
    return data


def metatool_tools(data: dict[str, Any]) -> list[Tool]:
    """MetaTool's 199 plugin-style tools (name and description only), as ordinary tools."""
    corpus: dict[str, str] = data["tool_corpora"]["MetaTool"]
    return [
        build_tool(name, description, noop_call, input_json_schema={"type": "object"}, should_defer=True)
        for name, description in corpus.items()
    ]
