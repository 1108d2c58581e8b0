"""``toolsearch_*``: keyword search over 100, 1,000 and 10,000 tools, indexed vs naive vs bm25s.

Pools are built from ``mcp_tools.json`` in corpus order; past its distinct records the names take
a suffix (``_2``, ``_3``, ...) so every tool name is unique. Queries are keyword queries of the
kind a model sends ToolSearch: two or three words taken from the pool's own names and
descriptions (a fixed random sample), some with a ``+required`` term. The naive baseline is
:mod:`conformance.oracles.search` (the seed's algorithm, a regex per term per tool per query);
the indexed search must give exactly its rankings, which this benchmark checks on every query.
"""

from __future__ import annotations

import functools
import random
import re
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks._corpus import load_mcp_records, record_tool
from benchmarks._timing import clock
from conformance.oracles.search import oracle_search_tools_with_keywords
from reference_impl import DescriptionContext, SearchIndex, Tool, mcp_tool_name

__all__ = ["build_pool", "make_queries", "run"]

_SIZES = (100, 1_000, 10_000)
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
        started = clock()
        index = SearchIndex(pool, pool)
        build_ms = (clock() - started) * 1e3
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
        bm25_build_s, bm25_search = _bm25s(pool)
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
        figures[f"toolsearch_rankings_identical_{label}"] = f"{len(naive_queries)}/{len(naive_queries)}"
    return figures


if __name__ == "__main__":
    for key, value in run(quick=True).items():
        print(f"{key:50} {value}")
