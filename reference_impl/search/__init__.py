"""ToolSearch: the tool that finds deferred tools (``select:`` and keyword search), its index and rankers.

``_toolsearch`` is the tool; ``_index`` the seed's keyword scores from ``_postings``, with the seed's
text rules in ``_terms``; ``_fielded`` (BM25F) and ``_hybrid`` (BM25F plus embeddings) are the
optional rankers.
"""

from __future__ import annotations

from reference_impl.search._fielded import (
    FieldedRanker,
    FieldWeights,
    QuerySyntax,
    normalize_words,
)
from reference_impl.search._hybrid import (
    Embedder,
    HybridRanker,
    OnnxEmbedder,
    default_embedder,
    query_texts,
    tool_text,
)
from reference_impl.search._index import SearchIndex, search_tools_with_keywords
from reference_impl.search._terms import parse_tool_name
from reference_impl.search._toolsearch import (
    NO_MATCH_TEXT,
    Ranker,
    SeedRanker,
    ToolSearchInput,
    map_tool_search_result,
    parse_select,
    run_tool_search,
    select_tools,
    tool_references,
    tool_search_tool,
)

__all__ = [
    "NO_MATCH_TEXT",
    "Embedder",
    "FieldWeights",
    "FieldedRanker",
    "HybridRanker",
    "OnnxEmbedder",
    "QuerySyntax",
    "Ranker",
    "SearchIndex",
    "SeedRanker",
    "ToolSearchInput",
    "default_embedder",
    "map_tool_search_result",
    "normalize_words",
    "parse_select",
    "parse_tool_name",
    "query_texts",
    "run_tool_search",
    "search_tools_with_keywords",
    "select_tools",
    "tool_references",
    "tool_search_tool",
    "tool_text",
]
