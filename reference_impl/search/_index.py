r"""Keyword search over deferred tools with the seed's scores, answered from an index (000 §6.2-§6.4).

The seed scores every deferred tool against every query term: a name part equal to the term
scores 10 (12 for an MCP tool), a name part containing it 5 (6), a word-boundary match in the
search hint 4 and in the description 2 (DEFER-5). Done literally that is a regex per term per tool
per query. :class:`SearchIndex` does the per-tool work once per pool instead, and answers each
term from precomputed data; its rankings are identical to the naive translation in
:mod:`conformance.oracles.search`, which the tests check property by property.

How a term is answered:

* name parts: a map from each distinct part to its tools gives exact matches; a 1-3 character
  n-gram index over the distinct parts narrows "some part contains the term" to a few candidates;
* word-boundary matches (``\bterm\b`` with JavaScript's ASCII ``\b``, as the seed runs in
  JS): cut a text into words (maximal runs of ``[A-Za-z0-9_]``) and the gaps between them. A term
  of word characters only matches exactly where it is a whole word of the text. A term without
  word characters matches exactly where it is a whole gap with a word on each side (both ``\b``
  need a word character beyond the term). Otherwise each word of the term that a non-empty gap of
  the term follows is, in the text, a whole word followed by exactly that gap (and a leading gap
  of the term is exactly the gap before the term's first word), so an index of (word, gap after)
  and (gap before, word) pairs narrows the tools to a few, which the exact regex confirms.
* scores: one term's contributions to every tool are packed into one big integer (16 bits a
  tool), so a query's scores are a sum of integers and the top results come from guard-bit
  counting (:class:`_PackedScores`), all in C rather than a Python loop over the pool.

The index is immutable; a pool change means a new index (:class:`SearchIndexCache` keeps the
last one and rebuilds when the deferred set or the pool changes, like the seed's
``maybeInvalidateCache``). Descriptions are rendered once per tool name per index.
"""

from __future__ import annotations

import bisect
import heapq
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from reference_impl.tools import MCP_PREFIX, DescriptionContext, Tool

__all__ = [
    "DEFAULT_MAX_RESULTS",
    "JS_WHITESPACE",
    "SCORE_DESCRIPTION",
    "SCORE_NAME_EXACT",
    "SCORE_NAME_EXACT_MCP",
    "SCORE_NAME_PARTIAL",
    "SCORE_NAME_PARTIAL_MCP",
    "SCORE_SEARCH_HINT",
    "ParsedToolName",
    "QueryTerms",
    "SearchIndex",
    "SearchIndexCache",
    "js_split_whitespace",
    "js_trim",
    "parse_query_terms",
    "parse_tool_name",
    "search_tools_with_keywords",
    "word_boundary_pattern",
]

DEFAULT_MAX_RESULTS: Final = 5
SCORE_NAME_EXACT: Final = 10
SCORE_NAME_EXACT_MCP: Final = 12
SCORE_NAME_PARTIAL: Final = 5
SCORE_NAME_PARTIAL_MCP: Final = 6
SCORE_SEARCH_HINT: Final = 4
SCORE_DESCRIPTION: Final = 2

JS_WHITESPACE: Final = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""ECMAScript's ``\\s`` (what the seed's ``trim()`` and ``split(/\\s+/)`` use), not ``str.isspace``."""

_JS_SPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")
_CAMEL = re.compile(r"([a-z])([A-Z])")
_WORD_SPLIT = re.compile(r"([A-Za-z0-9_]+)")
_MAX_GRAM: Final = 3
_FIELD_BYTES: Final = 2
_GUARD_SHIFT: Final = 15
_FIELD_MAX: Final = (1 << _GUARD_SHIFT) - 1
_FIELD_MAX_MASK: Final = (1 << (8 * _FIELD_BYTES)) - 1
_GUARD_BYTE: Final = b"\x80"
_K = TypeVar("_K")
_MAX_TERM_SCORE: Final = SCORE_NAME_EXACT_MCP + SCORE_SEARCH_HINT + SCORE_DESCRIPTION


def js_trim(text: str) -> str:
    """``text.trim()`` with JavaScript's white-space set."""
    return text.strip(JS_WHITESPACE)


def js_split_whitespace(text: str) -> list[str]:
    r"""``text.split(/\s+/).filter(Boolean)`` with JavaScript's white-space set."""
    return [piece for piece in _JS_SPACE_RUN.split(text) if piece]


@dataclass(frozen=True, slots=True)
class ParsedToolName:
    """A tool name cut into lowercase search parts; ``is_mcp`` for ``mcp__`` names."""

    parts: tuple[str, ...]
    is_mcp: bool


def parse_tool_name(name: str) -> ParsedToolName:
    """The seed's ``parseToolName`` (000 §6.3).

    ``mcp__slack__send_message`` gives ``("slack", "send", "message")`` (prefix removed, split on
    ``__`` then ``_``, lowercased); other names are split at lowercase-uppercase steps, at ``_``
    and at white space: ``NotebookEditTool`` gives ``("notebook", "edit", "tool")``. Empty parts
    are dropped. Whether a tool counts as MCP here is decided by its name, as in the seed.
    """
    if name.startswith(MCP_PREFIX):
        rest = name[len(MCP_PREFIX) :].lower()
        parts = (piece for chunk in rest.split("__") for piece in chunk.split("_"))
        return ParsedToolName(tuple(p for p in parts if p), True)
    spaced = _CAMEL.sub(r"\1 \2", name).replace("_", " ").lower()
    return ParsedToolName(tuple(js_split_whitespace(spaced)), False)


def word_boundary_pattern(term: str) -> re.Pattern[str]:
    r"""``\b<term>\b`` with the term taken literally and JavaScript's ASCII-only ``\b``."""
    return re.compile(r"\b" + re.escape(term) + r"\b", re.ASCII)


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """A keyword query cut into terms: ``+term`` is required; every term scores."""

    required: tuple[str, ...]
    optional: tuple[str, ...]

    @property
    def scoring(self) -> tuple[str, ...]:
        """The terms that score, in the seed's order (required first); repeats score again."""
        return self.required + self.optional


def parse_query_terms(query_lower: str) -> QueryTerms:
    """Split a lowercased, trimmed query on white space; ``+x`` (longer than ``+``) requires ``x``."""
    required: list[str] = []
    optional: list[str] = []
    for term in js_split_whitespace(query_lower):
        if term.startswith("+") and len(term) > 1:
            required.append(term[1:])
        else:
            optional.append(term)
    return QueryTerms(tuple(required), tuple(optional))


def _default_describe() -> Callable[[Tool], str]:
    context = DescriptionContext()

    def describe(tool: Tool) -> str:
        return tool.render_description(context)

    return describe


def _grams(text: str) -> Iterable[str]:
    for size in range(1, min(_MAX_GRAM, len(text)) + 1):
        for start in range(len(text) - size + 1):
            yield text[start : start + size]


class _TextIndex:
    """Word-boundary lookups over one lowercased text per tool (descriptions, or search hints).

    A text is a sequence of words (maximal runs of ASCII word characters) and gaps (the non-word
    text between them). Besides word -> tools it indexes each inner gap (a gap with a word on
    both sides), each (word, gap after it) and each (gap before, word), which is what a term
    with punctuation needs (module docstring).
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = texts
        words: dict[str, set[int]] = {}
        gaps: dict[str, set[int]] = {}
        word_gap: dict[tuple[str, str], set[int]] = {}
        gap_word: dict[tuple[str, str], set[int]] = {}
        for index, text in enumerate(texts):
            pieces = _WORD_SPLIT.split(text)  # gap, word, gap, word, ..., gap
            for word in pieces[1::2]:
                words.setdefault(word, set()).add(index)
            for at in range(2, len(pieces) - 1, 2):  # inner gaps: a word on each side
                gap, before, after = pieces[at], pieces[at - 1], pieces[at + 1]
                gaps.setdefault(gap, set()).add(index)
                word_gap.setdefault((before, gap), set()).add(index)
                gap_word.setdefault((gap, after), set()).add(index)
        self._words = _freeze(words)
        self._gaps = _freeze(gaps)
        self._word_gap = _freeze(word_gap)
        self._gap_word = _freeze(gap_word)

    def matching(self, term: str) -> frozenset[int]:
        """The tools whose text contains ``term`` between word boundaries."""
        pieces = _WORD_SPLIT.split(term)  # gap0, run1, gap1, ..., runk, gapk
        if len(pieces) == 1:
            # No word character: the term must be a whole inner gap.
            return self._gaps.get(term, _EMPTY)
        if len(pieces) == 3 and not pieces[0] and not pieces[2]:
            return self._words.get(term, _EMPTY)
        # A word of the term followed by a non-empty gap of the term has exactly that gap after it
        # in the text; a leading gap has exactly that word after it. Narrow by the rarest key.
        postings = [
            self._word_gap.get((pieces[at - 1], pieces[at]), _EMPTY)
            for at in range(2, len(pieces), 2)
            if pieces[at]
        ]
        if pieces[0]:
            postings.append(self._gap_word.get((pieces[0], pieces[1]), _EMPTY))
        rarest = min(postings, key=len)
        if not rarest:
            return _EMPTY
        pattern = word_boundary_pattern(term)
        return frozenset(i for i in rarest if pattern.search(self._texts[i]) is not None)


_EMPTY: frozenset[int] = frozenset()


def _freeze(index: Mapping[_K, set[int]]) -> dict[_K, frozenset[int]]:
    return {key: frozenset(ids) for key, ids in index.items()}


@dataclass(frozen=True, slots=True)
class _TermHits:
    name_exact: frozenset[int]
    name_partial: frozenset[int]  # a part contains the term but no part equals it
    hint: frozenset[int]
    description: frozenset[int]


class SearchIndex:
    """The seed's keyword search over one pool, with the per-tool work done once (DEFER-5).

    ``deferred_tools`` are the candidates, in pool order (ties keep that order); ``tools`` is the
    whole pool (the exact-name fast path falls back to it). ``describe`` renders a tool's
    description (default: an empty :class:`DescriptionContext`); it is called once per name.
    """

    def __init__(
        self,
        deferred_tools: Sequence[Tool],
        tools: Sequence[Tool],
        *,
        describe: Callable[[Tool], str] | None = None,
    ) -> None:
        describe = describe or _default_describe()
        self.deferred_tools: tuple[Tool, ...] = tuple(deferred_tools)
        self.tools: tuple[Tool, ...] = tuple(tools)
        self._names = [tool.name for tool in self.deferred_tools]

        self._exact_deferred: dict[str, str] = {}
        for tool in self.deferred_tools:
            self._exact_deferred.setdefault(tool.name.lower(), tool.name)
        self._exact_all: dict[str, str] = {}
        for tool in self.tools:
            self._exact_all.setdefault(tool.name.lower(), tool.name)
        self._by_lower_name = sorted((tool.name.lower(), i) for i, tool in enumerate(self.deferred_tools))
        self._lower_keys = [key for key, _i in self._by_lower_name]

        descriptions: dict[str, str] = {}  # memoised per name, as the seed's getter
        desc_texts: list[str] = []
        hint_texts: list[str] = []
        part_tools: dict[str, set[int]] = {}
        self._exact_weight: list[int] = []
        self._partial_weight: list[int] = []
        for i, tool in enumerate(self.deferred_tools):
            parsed = parse_tool_name(tool.name)
            for part in parsed.parts:
                part_tools.setdefault(part, set()).add(i)
            self._exact_weight.append(SCORE_NAME_EXACT_MCP if parsed.is_mcp else SCORE_NAME_EXACT)
            self._partial_weight.append(SCORE_NAME_PARTIAL_MCP if parsed.is_mcp else SCORE_NAME_PARTIAL)
            if tool.name not in descriptions:
                descriptions[tool.name] = describe(tool)
            desc_texts.append(descriptions[tool.name].lower())
            hint_texts.append((tool.search_hint or "").lower())
        self._part_tools: dict[str, frozenset[int]] = {p: frozenset(ids) for p, ids in part_tools.items()}
        self._parts: list[str] = list(self._part_tools)
        grams: dict[str, set[int]] = {}
        for part_id, part in enumerate(self._parts):
            for gram in set(_grams(part)):
                grams.setdefault(gram, set()).add(part_id)
        self._grams: dict[str, frozenset[int]] = {g: frozenset(ids) for g, ids in grams.items()}
        self._descriptions = _TextIndex(desc_texts)
        # An empty hint never matches (the seed tests ``hintNormalized &&`` first); "" has no words.
        self._hints = _TextIndex(hint_texts)
        self._packed = _PackedScores(len(self.deferred_tools))
        self._vectors: dict[str, int] = {}
        # Each cached term costs a packed integer of 2 bytes per tool: keep them to ~32 MB.
        self._vector_cache_size = max(256, 16_000_000 // max(1, len(self.deferred_tools)))

    def __len__(self) -> int:
        return len(self.deferred_tools)

    def _parts_containing(self, term: str) -> Iterable[str]:
        if len(term) <= _MAX_GRAM:
            return (self._parts[p] for p in self._grams.get(term, ()))
        postings = [self._grams.get(term[s : s + _MAX_GRAM], frozenset()) for s in range(len(term) - 2)]
        rarest = min(postings, key=len)
        return (self._parts[p] for p in rarest if term in self._parts[p])

    def _hits(self, term: str) -> _TermHits:
        exact = self._part_tools.get(term, frozenset())
        partial: set[int] = set()
        for part in self._parts_containing(term):
            partial.update(self._part_tools[part])
        return _TermHits(
            name_exact=exact,
            name_partial=frozenset(partial - exact),
            hint=self._hints.matching(term),
            description=self._descriptions.matching(term),
        )

    def exact_name(self, query_lower: str) -> str | None:
        """The fast path: a tool whose lowercased name is the query, deferred tools first."""
        return self._exact_deferred.get(query_lower) or self._exact_all.get(query_lower)

    def mcp_prefix(self, query_lower: str) -> list[str]:
        """Deferred tools whose lowercased name starts with ``query_lower``, in pool order."""
        start = bisect.bisect_left(self._lower_keys, query_lower)
        found: list[int] = []
        for key, i in self._by_lower_name[start:]:
            if not key.startswith(query_lower):
                break
            found.append(i)
        return [self._names[i] for i in sorted(found)]

    def scores(self, terms: QueryTerms) -> dict[int, int]:
        """Positive scores by candidate position in :attr:`deferred_tools` (required terms applied)."""
        hits = {term: self._hits(term) for term in set(terms.scoring)}
        allowed: set[int] | None = None
        for term in terms.required:
            h = hits[term]
            matched = h.name_exact | h.name_partial | h.hint | h.description
            allowed = set(matched) if allowed is None else allowed & matched
        exact_weight, partial_weight = self._exact_weight, self._partial_weight
        scores: dict[int, int] = {}
        get = scores.get
        for term in terms.scoring:
            h = hits[term]
            for i in h.name_exact:
                scores[i] = get(i, 0) + exact_weight[i]
            for i in h.name_partial:
                scores[i] = get(i, 0) + partial_weight[i]
            for i in h.hint:
                scores[i] = get(i, 0) + SCORE_SEARCH_HINT
            for i in h.description:
                scores[i] = get(i, 0) + SCORE_DESCRIPTION
        if allowed is not None:
            return {i: s for i, s in scores.items() if i in allowed}
        return scores

    def ranked(self, query: str) -> list[tuple[str, int]]:
        """Every scoring tool of a keyword query with its score, best first (no fast paths)."""
        scores = self.scores(parse_query_terms(js_trim(query.lower())))
        order = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return [(self._names[i], score) for i, score in order]

    def search(self, query: str, max_results: int = DEFAULT_MAX_RESULTS) -> list[str]:
        """The seed's ``searchToolsWithKeywords``: at most ``max_results`` names, best first.

        An exact tool name (any case) returns just that tool; ``mcp__server`` returns that
        server's deferred tools in pool order; otherwise the scored search, ties in pool order.
        """
        if max_results < 1:
            raise ValueError(f"max_results must be at least 1, got {max_results!r}")
        query_lower = js_trim(query.lower())
        exact = self.exact_name(query_lower)
        if exact is not None:
            return [exact]
        if query_lower.startswith(MCP_PREFIX) and len(query_lower) > len(MCP_PREFIX):
            prefixed = self.mcp_prefix(query_lower)
            if prefixed:
                return prefixed[:max_results]
        terms = parse_query_terms(query_lower)
        bound = _MAX_TERM_SCORE * len(terms.scoring)
        if bound > _FIELD_MAX:
            # Too many terms for a packed field; the plain path gives the same ranking.
            scores = self.scores(terms)
            best = heapq.nsmallest(max_results, scores.items(), key=lambda item: (-item[1], item[0]))
            return [self._names[i] for i, _score in best]
        return [self._names[i] for i in self._packed.top(self._packed_scores(terms), max_results, bound)]

    def _term_vector(self, term: str) -> int:
        # The packed score contributions of one term.
        cached = self._vectors.get(term)
        if cached is not None:
            return cached
        hits = self._hits(term)
        fields = bytearray(self._packed.width)
        for i in hits.name_exact:
            fields[_FIELD_BYTES * i] += self._exact_weight[i]
        for i in hits.name_partial:
            fields[_FIELD_BYTES * i] += self._partial_weight[i]
        for i in hits.hint:
            fields[_FIELD_BYTES * i] += SCORE_SEARCH_HINT
        for i in hits.description:
            fields[_FIELD_BYTES * i] += SCORE_DESCRIPTION
        vector = int.from_bytes(fields, "little")
        if len(self._vectors) >= self._vector_cache_size:
            del self._vectors[next(iter(self._vectors))]
        self._vectors[term] = vector
        return vector

    def _packed_scores(self, terms: QueryTerms) -> int:
        vectors = {term: self._term_vector(term) for term in set(terms.scoring)}
        total = sum(vectors[term] for term in terms.scoring)
        if terms.required:
            # A term matches a tool exactly where it contributes to its score.
            allowed = self._packed.guards
            for term in terms.required:
                allowed &= self._packed.at_least(vectors[term], 1)
            total &= (allowed >> _GUARD_SHIFT) * _FIELD_MAX_MASK
        return total


class _PackedScores:
    """Score vectors as one big integer: tool ``i``'s score in bits ``16*i`` to ``16*i+14``.

    Bit 15 of each field is a guard: adding ``2**15 - T`` to every field sets it exactly where
    the score is at least ``T``, so "how many tools score at least T" is an addition, a mask
    and a bit count, all in C. Scores stay below ``2**15`` (at most 18 per term; queries with
    more terms than fit take the plain path).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.width = _FIELD_BYTES * size
        self.ones = int.from_bytes(b"\x01\x00" * size, "little")
        self.guards = self.ones << _GUARD_SHIFT

    def at_least(self, scores: int, threshold: int) -> int:
        """The guard bits of the fields whose score is at least ``threshold`` (>= 1)."""
        return (scores + self.ones * ((1 << _GUARD_SHIFT) - threshold)) & self.guards

    def _positions(self, guards: int, limit: int) -> list[int]:
        # The first ``limit`` tool positions whose guard bit is set, in pool order.
        data = guards.to_bytes(self.width, "little")
        found: list[int] = []
        start = 0
        while len(found) < limit:
            at = data.find(_GUARD_BYTE, start)
            if at < 0:
                break
            found.append(at // _FIELD_BYTES)
            start = at + 1
        return found

    def top(self, scores: int, limit: int, bound: int) -> list[int]:
        """Positions of the ``limit`` best positive scores: highest first, ties in pool order.

        ``bound`` is at least the highest score (it bounds the threshold search).
        """
        positive = self.at_least(scores, 1)
        if positive.bit_count() <= limit:
            chosen = self._positions(positive, limit)
        else:
            # The largest threshold that still keeps ``limit`` tools: the limit-th best score.
            low, high = 1, bound
            while low < high:
                middle = (low + high + 1) // 2
                if self.at_least(scores, middle).bit_count() >= limit:
                    low = middle
                else:
                    high = middle - 1
            above = self.at_least(scores, low + 1)
            tied = self.at_least(scores, low) & ~above
            chosen = self._positions(above, limit)
            chosen += self._positions(tied, limit - len(chosen))
        data = scores.to_bytes(self.width, "little")
        return sorted(chosen, key=lambda i: (-int.from_bytes(data[2 * i : 2 * i + 2], "little"), i))


def _pool_key(deferred_tools: Sequence[Tool], tools: Sequence[Tool]) -> tuple[object, ...]:
    # Tools compare by identity (eq=False); the index holds them, so an id can't be reused meanwhile.
    return (
        tuple((t.name, id(t)) for t in deferred_tools),
        tuple((t.name, id(t)) for t in tools),
    )


class SearchIndexCache:
    """The last :class:`SearchIndex`, rebuilt when the deferred set or the pool changes (000 §6.4).

    The same sequence objects as last time are a hit without looking inside them; equal
    sequences of the same tool objects are a hit too.
    """

    def __init__(self, *, describe: Callable[[Tool], str] | None = None) -> None:
        self._describe = describe
        self._index: SearchIndex | None = None
        self._key: tuple[object, ...] | None = None
        self._seen: tuple[Sequence[Tool], Sequence[Tool]] | None = None
        self.builds = 0
        """How many indexes were built (for tests of invalidation)."""

    def get(self, deferred_tools: Sequence[Tool], tools: Sequence[Tool]) -> SearchIndex:
        """The index for this pool, built on first use and after any change."""
        if self._index is not None and self._seen is not None:
            seen_deferred, seen_tools = self._seen
            if seen_deferred is deferred_tools and seen_tools is tools:
                return self._index
        key = _pool_key(deferred_tools, tools)
        if self._index is None or key != self._key:
            self._index = SearchIndex(deferred_tools, tools, describe=self._describe)
            self._key = key
            self.builds += 1
        # Only immutable sequences may take the identity shortcut next time.
        self._seen = (deferred_tools, tools) if _immutable(deferred_tools) and _immutable(tools) else None
        return self._index

    def clear(self) -> None:
        """Forget the cached index (the seed's ``clearToolSearchDescriptionCache``)."""
        self._index = self._key = self._seen = None


def _immutable(tools: Sequence[Tool]) -> bool:
    return isinstance(tools, tuple)


_SHARED_CACHE = SearchIndexCache()


def search_tools_with_keywords(
    query: str,
    deferred_tools: Sequence[Tool],
    tools: Sequence[Tool],
    max_results: int = DEFAULT_MAX_RESULTS,
) -> list[str]:
    """The seed's ``searchToolsWithKeywords`` through a module-level index cache."""
    return _SHARED_CACHE.get(deferred_tools, tools).search(query, max_results)
