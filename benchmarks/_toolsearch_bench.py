"""``toolsearch_*``: keyword search over 100, 1,000 and 10,000 tools, indexed vs naive vs bm25s.

Pools are built from ``mcp_tools.json`` in corpus order; past its distinct records the names take
a suffix (``_2``, ``_3``, ...) so every tool name is unique. Queries are keyword queries of the
kind a model sends ToolSearch: two or three words taken from the pool's own names and
descriptions (a fixed random sample), some with a ``+required`` term. The naive baseline is
:mod:`conformance.oracles.search` (the seed's algorithm, a regex per term per tool per query);
the indexed search must give exactly its rankings, which this benchmark checks on every query.

Incremental updates (``toolsearch_incremental_*``, at 10,000 tools): one MCP server's 50 tools
connect (inserted in the middle of the pool) or disconnect; the update of the index
(:meth:`SearchIndex.updated`) is timed against building the changed pool's index afresh, and the
updated index must rank every query exactly as the rebuilt one.
"""

from __future__ import annotations

import functools
import random
import re
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks._corpus import load_mcp_records, record_tool
from benchmarks._timing import clock, median_seconds
from conformance.oracles.search import oracle_search_tools_with_keywords
from reference_impl import Tool
from reference_impl.search import SearchIndex
from reference_impl.tools import DescriptionContext, mcp_tool_name

__all__ = ["build_pool", "make_queries", "run"]

_SIZES = (100, 1_000, 10_000)
_SERVER_TOOLS = 50
_WORD = re.compile(r"[a-z]{4,}")


def build_pool(size: int) -> list[Tool]:
    """``size`` deferred MCP tools from the corpus, names suffixed past the first round."""
    records, seen = [], set()
    for record in load_mcp_records():
        key = mcp_tool_name(record["server"], record["name"])
        if key not in seen:  # a few servers were listed twice (two sources): keep names unique
            seen.add(key)
            records.append(record)
    pool = []
    for i in range(size):
        round_, at = divmod(i, len(records))
        pool.append(record_tool(records[at], suffix=f"_{round_ + 1}" if round_ else ""))
    return pool


def make_queries(pool: Sequence[Tool], count: int) -> list[str]:
    """``count`` keyword queries drawn from the pool's names and descriptions (seeded)."""
    rng = random.Random(20260101)
    context = DescriptionContext()
    queries: list[str] = []
    while len(queries) < count:
        tool = pool[rng.randrange(len(pool))]
        name_words = [w for w in re.split(r"[_\-]+", tool.mcp.tool if tool.mcp else tool.name) if len(w) > 2]
        description_words = _WORD.findall(tool.render_description(context).lower())
        if not name_words or not description_words:
            continue
        words = [rng.choice(name_words).lower(), rng.choice(description_words)]
        if rng.random() < 0.3:
            words.append(rng.choice(description_words))
        if rng.random() < 0.2:
            words[0] = "+" + words[0]
        queries.append(" ".join(words))
    return queries


def _bm25s(pool: Sequence[Tool]) -> tuple[float, Callable[[str], list[str]]]:
    import bm25s  # the ``bench`` extra; run.py checks it

    context = DescriptionContext()
    started = clock()
    retriever = bm25s.BM25()
    corpus = [f"{t.name.replace('_', ' ')} {t.render_description(context)}" for t in pool]
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    build = clock() - started
    names = [t.name for t in pool]

    def search(query: str) -> list[str]:
        tokens = bm25s.tokenize([query.replace("+", "")], stopwords="en", show_progress=False)
        if not tokens.vocab:
            return []
        docs, _scores = retriever.retrieve(tokens, k=5, show_progress=False)
        return [names[int(i)] for i in docs[0]]

    return build, search


def _server() -> list[Tool]:
    """One more MCP server's ``_SERVER_TOOLS`` tools (corpus records under a new server name)."""
    return [
        record_tool(dict(record, server="connected_server")) for record in load_mcp_records()[:_SERVER_TOOLS]
    ]


def _incremental(pool: list[Tool], queries: Sequence[str], repeat: int) -> dict[str, Any]:
    """Adding and removing one server's tools: the index update against a rebuild of the new pool."""
    server = _server()
    middle = len(pool) // 2
    grown = pool[:middle] + server + pool[middle:]
    index = SearchIndex(pool, pool)
    grown_index = SearchIndex(grown, grown)
    rebuild_s = median_seconds([lambda: SearchIndex(grown, grown)], repeat=repeat)
    add_s = median_seconds([lambda: index.updated(grown, grown)], repeat=3 * repeat)
    remove_s = median_seconds([lambda: grown_index.updated(pool, pool)], repeat=3 * repeat)
    added, removed = index.updated(grown, grown), grown_index.updated(pool, pool)
    for query in queries:
        if added.search(query, 5) != grown_index.search(query, 5) or removed.search(query, 5) != index.search(
            query, 5
        ):
            raise AssertionError(f"an updated index ranks {query!r} differently from a rebuilt one")
    return {
        "toolsearch_incremental_rebuild_ms_10k": round(rebuild_s * 1e3, 1),
        "toolsearch_incremental_add_ms_10k": round(add_s * 1e3, 2),
        "toolsearch_incremental_remove_ms_10k": round(remove_s * 1e3, 2),
        "toolsearch_incremental_ratio": round(max(add_s, remove_s) / rebuild_s, 4),
        "toolsearch_incremental_rankings_identical": f"{len(queries)}/{len(queries)}",
    }


def _median_ms(search: Callable[[str], object], queries: Sequence[str]) -> float:
    samples = []
    for query in queries:
        started = clock()
        search(query)
        samples.append(clock() - started)
    return statistics.median(samples) * 1e3


def run(quick: bool = False) -> dict[str, Any]:
    """Per pool size: build time, median query time of each search, speedups, ranking agreement."""
    figures: dict[str, Any] = {}
    for size in _SIZES:
        pool = build_pool(size)
        queries = make_queries(pool, 20 if quick else 60)
        builds = 1 if quick else 3
        build_ms = median_seconds([functools.partial(SearchIndex, pool, pool)], repeat=builds) * 1e3
        index = SearchIndex(pool, pool)
        # Cold: the first time each query runs on a fresh index (term vectors not cached yet).
        indexed_ms = _median_ms(functools.partial(index.search, max_results=5), queries)
        warm_ms = _median_ms(functools.partial(index.search, max_results=5), queries)
        naive_queries = (
            queries[: 8 if size == 10_000 else 20] if quick else queries[: 20 if size == 10_000 else 60]
        )
        naive = functools.partial(
            oracle_search_tools_with_keywords, deferred_tools=pool, tools=pool, max_results=5
        )
        naive_ms = _median_ms(naive, naive_queries)
        # Correctness: identical rankings on every query that was timed against the oracle.
        fresh = SearchIndex(pool, pool)
        for query in naive_queries:
            ours = fresh.search(query, 5)
            oracle = oracle_search_tools_with_keywords(query, pool, pool, 5)
            if ours != oracle:
                raise AssertionError(
                    f"indexed search differs from the seed's on {query!r}: {ours} vs {oracle}"
                )
        bm25_runs = [_bm25s(pool) for _ in range(builds)]
        bm25_build_s, bm25_search = statistics.median(run[0] for run in bm25_runs), bm25_runs[-1][1]
        bm25_ms = _median_ms(bm25_search, queries)
        label = {100: "100", 1_000: "1k", 10_000: "10k"}[size]
        figures[f"toolsearch_median_ms_{label}"] = round(indexed_ms, 4)
        figures[f"toolsearch_warm_median_ms_{label}"] = round(warm_ms, 4)
        figures[f"toolsearch_naive_median_ms_{label}"] = round(naive_ms, 3)
        figures[f"toolsearch_bm25s_median_ms_{label}"] = round(bm25_ms, 4)
        figures[f"toolsearch_speedup_vs_naive_{label}"] = round(naive_ms / indexed_ms, 1)
        figures[f"toolsearch_ratio_vs_bm25s_{label}"] = round(indexed_ms / bm25_ms, 3)
        figures[f"toolsearch_index_build_ms_{label}"] = round(build_ms, 1)
        figures[f"toolsearch_bm25s_build_ms_{label}"] = round(bm25_build_s * 1e3, 1)
        figures[f"toolsearch_build_ratio_vs_bm25s_{label}"] = round(build_ms / (bm25_build_s * 1e3), 3)
        figures[f"toolsearch_rankings_identical_{label}"] = f"{len(naive_queries)}/{len(naive_queries)}"
        if size == 10_000:
            figures.update(_incremental(pool, queries, 3 if quick else 7))
    return figures


if __name__ == "__main__":
    for key, value in run(quick=True).items():
        print(f"{key:50} {value}")
