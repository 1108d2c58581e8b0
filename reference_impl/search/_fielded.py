"""An optional ToolSearch ranking that ranks free text better than the seed's scores or plain BM25.

:class:`FieldedRanker` is a :class:`~reference_impl.search._toolsearch.Ranker`: pass it as
``tool_search_tool(ranking=FieldedRanker())``. The seed's scoring stays the default (DEFER-5).

It keeps the seed's query syntax exactly: ``select:`` is handled before any ranker runs; an exact
tool name returns that tool; ``mcp__server`` lists that server's deferred tools in pool order;
``+term`` keeps only the tools that the seed's rules say match ``term`` (name part, search hint
or description). Only the ordering of free text differs, and when BM25F finds nothing the seed's
ranking is used, so a query the seed answers is never left empty.

Free text is scored with BM25F (one BM25 over a weighted sum of per-field term frequencies)
over these fields of each deferred tool: the name's parts (camelCase, ``_`` and ``-`` split),
the MCP server name, the search hint, the description and the input schema's property names
and descriptions. Words are lowercased, stop words dropped and suffixes lightly stripped, so
"files" meets "file" and "tracking" meets "track". The query is then widened once with the
characteristic words of its best results (pseudo-relevance feedback). The pure-Python index is built once per
:class:`~reference_impl.search._index.SearchIndex` (a pool change makes a new one).
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.search._index import SearchIndex
from reference_impl.search._terms import QueryTerms, js_trim, parse_query_terms
from reference_impl.tools import MCP_PREFIX, DescriptionContext, Tool

__all__ = [
    "FieldWeights",
    "FieldedIndex",
    "FieldedRanker",
    "QuerySyntax",
    "normalize_words",
    "resolve_query_syntax",
]

_CAMEL: Final = re.compile(r"([a-z0-9])([A-Z])")
_WORD: Final = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]")

# Common English function words and the filler of task-style queries ("please help me ...").
_STOP_WORDS: Final = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "either",
        "etc",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "like",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "please",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "us",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "want",
        "need",
        "help",
        "show",
        "tell",
        "give",
        "find",
        "get",
        "make",
        "use",
        "using",
        "used",
        "provide",
        "may",
        "might",
        "must",
        "shall",
        "thing",
        "things",
        "also",
        "well",
        "much",
        "many",
        "one",
        "ones",
    ]
)

_SUFFIXES: Final = (
    ("ational", "ate"),
    ("ization", "ize"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("iness", "y"),
    ("ings", ""),
    ("ing", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("sses", "ss"),
    ("es", ""),
    ("ed", ""),
    ("ly", ""),
    ("er", ""),
    ("s", ""),
)
_ES_AFTER: Final = ("s", "x", "z", "ch", "sh")


def _stem(word: str) -> str:
    # A light suffix stripper: enough to join plural, -ing and -ed forms of the same word
    # ("files", "file"; "created", "create"; "running", "run").
    if len(word) <= 3 or not word.isascii() or word.isdigit():
        return word
    stem = word
    for suffix, replacement in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < 3:
            continue
        base = word[: len(word) - len(suffix)]
        if suffix == "s" and word.endswith(("ss", "us", "is")):
            break
        if suffix == "es" and not base.endswith(_ES_AFTER):
            continue  # "files" is "file" + "s", not "fil" + "es"
        stem = base + replacement
        if (
            suffix in ("ing", "ings", "ed")
            and len(stem) > 3
            and stem[-1] == stem[-2]
            and stem[-1] not in "lsz"
        ):
            stem = stem[:-1]  # "running" -> "run"
        break
    # A final silent "e" goes, so that "create" and "created" meet.
    if len(stem) > 4 and stem.endswith("e"):
        stem = stem[:-1]
    return stem


def normalize_words(text: str) -> list[str]:
    """``text`` as search words: camelCase split, lowercased, stop words dropped, suffixes stripped."""
    spaced = _CAMEL.sub(r"\1 \2", text).lower()
    return [_stem(word) for word in _WORD.findall(spaced) if word not in _STOP_WORDS]


@dataclass(frozen=True, slots=True)
class FieldWeights:
    """How much one occurrence of a word in each field counts (BM25F field weights)."""

    name: float = 3.0
    server: float = 1.5
    hint: float = 2.0
    description: float = 1.0
    schema: float = 0.4

    def __post_init__(self) -> None:
        for field_name in ("name", "server", "hint", "description", "schema"):
            value = getattr(self, field_name)
            if not (isinstance(value, int | float) and value >= 0 and math.isfinite(value)):
                raise ValueError(f"FieldWeights.{field_name} must be a finite number >= 0, got {value!r}")


def _name_fields(tool: Tool) -> tuple[str, str]:
    # (tool part of the name, server) with the separators turned into spaces.
    name = tool.name
    if tool.mcp is not None:
        return tool.mcp.tool, tool.mcp.server
    if name.startswith(MCP_PREFIX):
        server, _sep, rest = name[len(MCP_PREFIX) :].partition("__")
        return rest, server
    return name, ""


def _schema_text(schema: Mapping[str, Any] | None) -> str:
    # Property names and their descriptions, one level deep: what the tool asks for says what it does.
    if not schema:
        return ""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return ""
    pieces: list[str] = []
    for key, spec in properties.items():
        pieces.append(str(key))
        if isinstance(spec, Mapping) and isinstance(spec.get("description"), str):
            pieces.append(spec["description"])
    return " ".join(pieces)


def _tool_schema(tool: Tool) -> Mapping[str, Any] | None:
    if tool.input_json_schema is not None:
        return tool.input_json_schema
    if tool.input_model is not None:
        return tool.input_model.model_json_schema()
    return None


class FieldedIndex:
    """BM25F statistics over the deferred tools of one :class:`SearchIndex`."""

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        weights: FieldWeights | None = None,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> None:
        weights = weights or FieldWeights()
        context = DescriptionContext()
        self._k1 = k1
        self._postings: dict[str, list[tuple[int, float]]] = {}
        self._documents: list[dict[str, float]] = []
        lengths: list[float] = []
        for position, tool in enumerate(tools):
            name, server = _name_fields(tool)
            fields = (
                (name.replace("-", " ").replace("_", " "), weights.name),
                (server.replace("-", " ").replace("_", " "), weights.server),
                (tool.search_hint or "", weights.hint),
                (tool.render_description(context), weights.description),
                (_schema_text(_tool_schema(tool)), weights.schema),
            )
            frequencies: dict[str, float] = {}
            length = 0.0
            for text, weight in fields:
                for word in normalize_words(text):
                    frequencies[word] = frequencies.get(word, 0.0) + weight
                    length += weight
            lengths.append(length)
            self._documents.append(frequencies)
            for word, frequency in frequencies.items():
                self._postings.setdefault(word, []).append((position, frequency))
        count = len(tools)
        average = (sum(lengths) / count) if count else 1.0
        self._norm = [k1 * (1 - b + b * length / (average or 1.0)) for length in lengths]
        self._idf = {
            word: math.log(1 + (count - len(posts) + 0.5) / (len(posts) + 0.5))
            for word, posts in self._postings.items()
        }

    def expansion(self, positions: Iterable[int], count: int) -> dict[str, float]:
        """The ``count`` words that best characterise the tools at ``positions`` (pseudo-relevance)."""
        weights: dict[str, float] = {}
        for position in positions:
            for word, frequency in self._documents[position].items():
                weights[word] = weights.get(word, 0.0) + frequency * self._idf[word]
        best = sorted(weights.items(), key=lambda item: (-item[1], item[0]))[:count]
        return dict(best)

    def weighted_scores(self, words: Mapping[str, float]) -> dict[int, float]:
        """BM25F scores by position, each query word's contribution scaled by its weight."""
        scores: dict[int, float] = {}
        k1, norm = self._k1, self._norm
        for word, weight in words.items():
            posts = self._postings.get(word)
            if not posts:
                continue
            idf = self._idf[word] * weight
            for position, frequency in posts:
                gain = idf * frequency * (k1 + 1) / (frequency + norm[position])
                scores[position] = scores.get(position, 0.0) + gain
        return scores

    def scores(self, words: Iterable[str]) -> dict[int, float]:
        """BM25F scores by position for already-normalised query ``words`` (repeats count once)."""
        scores: dict[int, float] = {}
        k1, norm = self._k1, self._norm
        for word in dict.fromkeys(words):
            posts = self._postings.get(word)
            if not posts:
                continue
            idf = self._idf[word]
            for position, frequency in posts:
                gain = idf * frequency * (k1 + 1) / (frequency + norm[position])
                scores[position] = scores.get(position, 0.0) + gain
        return scores


@dataclass(frozen=True, slots=True)
class QuerySyntax:
    """What the seed's query syntax settles before any free-text ranking.

    ``answer`` is the final result when the syntax decides alone (an exact name, an ``mcp__server``
    prefix, ``+required`` terms no tool matches); otherwise ``terms`` are the parsed terms and
    ``allowed`` the positions of the tools that match every required term (None: no required term).
    """

    answer: list[str] | None
    terms: QueryTerms
    allowed: frozenset[int] | None = None

    @property
    def words(self) -> list[str]:
        """The free-text words the rankers score: every scoring term's, normalised, in order."""
        return [word for term in self.terms.scoring for word in normalize_words(term)]


def resolve_query_syntax(index: SearchIndex, query: str, max_results: int) -> QuerySyntax:
    """Apply the seed's syntax (exact name, ``mcp__`` prefix, ``+required``) exactly as the seed does.

    Raises :class:`ValueError` when ``max_results`` is below 1.
    """
    if max_results < 1:
        raise ValueError(f"max_results must be at least 1, got {max_results!r}")
    query_lower = js_trim(query.lower())
    terms = parse_query_terms(query_lower)
    exact = index.exact_name(query_lower)
    if exact is not None:
        return QuerySyntax([exact], terms)
    if query_lower.startswith(MCP_PREFIX) and len(query_lower) > len(MCP_PREFIX):
        prefixed = index.mcp_prefix(query_lower)
        if prefixed:
            return QuerySyntax(prefixed[:max_results], terms)
    if not terms.required:
        return QuerySyntax(None, terms)
    # The seed decides what a required term matches; only tools matching all of them stay.
    allowed = frozenset(index.scores(QueryTerms(terms.required, ())))
    return QuerySyntax([] if not allowed else None, terms, allowed)


class FieldedRanker:
    """A :class:`~reference_impl.search._toolsearch.Ranker`: the seed's query syntax, BM25F for free text.

    ``weights``, ``k1`` and ``b`` tune the BM25F scoring. ``feedback_*`` is pseudo-relevance
    feedback: the best ``feedback_words`` words of the first ``feedback_docs`` results are added
    to the query at ``feedback_weight`` (0 docs turns it off). Defaults: a middle setting of a
    small grid on the shared retrieval corpus (``docs/benchmarks.md`` gives the numbers).
    """

    def __init__(
        self,
        *,
        weights: FieldWeights | None = None,
        k1: float = 1.2,
        b: float = 0.75,
        feedback_docs: int = 2,
        feedback_words: int = 10,
        feedback_weight: float = 0.5,
    ) -> None:
        if not (k1 >= 0 and 0 <= b <= 1):
            raise ValueError(f"need k1 >= 0 and 0 <= b <= 1, got k1={k1!r}, b={b!r}")
        if feedback_docs < 0 or feedback_words < 0 or not feedback_weight >= 0:
            raise ValueError("feedback_docs, feedback_words and feedback_weight must be >= 0")
        self._weights = weights or FieldWeights()
        self._k1 = k1
        self._b = b
        self.feedback_docs = feedback_docs
        self.feedback_words = feedback_words
        self.feedback_weight = feedback_weight
        self._indexes: weakref.WeakKeyDictionary[SearchIndex, FieldedIndex] = weakref.WeakKeyDictionary()

    def fielded_index(self, index: SearchIndex) -> FieldedIndex:
        """The BM25F index of ``index``'s deferred tools, built on first use."""
        fielded = self._indexes.get(index)
        if fielded is None:
            fielded = FieldedIndex(index.deferred_tools, weights=self._weights, k1=self._k1, b=self._b)
            self._indexes[index] = fielded
        return fielded

    def lexical_scores(self, index: SearchIndex, words: Sequence[str]) -> dict[int, float]:
        """BM25F scores by position for normalised query ``words``, after the feedback round."""
        fielded = self.fielded_index(index)
        scores = fielded.scores(words)
        if scores and self.feedback_docs:
            top = sorted(scores, key=lambda p: (-scores[p], p))[: self.feedback_docs]
            expansion = fielded.expansion(top, self.feedback_words)
            norm = max(expansion.values(), default=1.0)
            query_weights = dict.fromkeys(words, 1.0)
            for word, value in expansion.items():
                query_weights[word] = query_weights.get(word, 0.0) + self.feedback_weight * value / norm
            scores = fielded.weighted_scores(query_weights)
        return scores

    def __call__(self, index: SearchIndex, query: str, max_results: int) -> list[str]:
        """Rank ``index``'s deferred tools for ``query``: at most ``max_results`` names, best first."""
        syntax = resolve_query_syntax(index, query, max_results)
        if syntax.answer is not None:
            return syntax.answer
        allowed = syntax.allowed
        scores = self.lexical_scores(index, syntax.words)
        if allowed is not None:
            scores = {position: score for position, score in scores.items() if position in allowed}
        if not scores:
            return index.search(query, max_results)
        order = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:max_results]
        names = [index.deferred_tools[position].name for position, _score in order]
        return names
