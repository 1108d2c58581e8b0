r"""Keyword search over deferred tools with the seed's scores, answered from an index (000 §6.2-§6.4).

The seed scores every deferred tool against every query term: a name part equal to the term
scores 10 (12 for an MCP tool), a name part containing it 5 (6), a word-boundary match in the
search hint 4 and in the description 2 (DEFER-5). Done literally that is a regex per term per tool
per query. :class:`SearchIndex` does the per-tool work once per pool instead, and answers each
term from postings (numpy arrays of tool slots); its rankings are identical to the naive
translation in :mod:`conformance.oracles.search`, which the tests check property by property.

How a term is answered (the postings are :mod:`reference_impl.search._postings`; the seed's
rules for names and query terms, :mod:`reference_impl.search._terms`):

* name parts: postings from each distinct part to its tools give exact matches; a 1-3 character
  n-gram index over the distinct parts narrows "some part contains the term" to a few candidates;
* word-boundary matches (``\bterm\b`` with JavaScript's ASCII ``\b``, as the seed runs in JS):
  every maximal run of word characters (``[A-Za-z0-9_]``) of a term is, where the term matches, a
  whole word of the text (the term's own non-word characters or the ``\b`` bound it). So a term of
  word characters only matches exactly where it is a word of the text (the word postings), and any
  other term with a word narrows the tools to those holding its rarest word, which the exact regex
  confirms. A term without word characters is searched in the texts joined by newlines.
* scores: each term adds its weights to a dense score array; the top results are the largest keys
  ``score * 2**32 - position`` (ties keep pool order), picked by ``argpartition``.

A pool change need not rebuild: :meth:`SearchIndex.updated` gives the index of a changed pool from
this one's postings, with one more segment for the tools added since the last full build, and the
removed tools masked out (the seed's ``maybeInvalidateCache`` rebuilds; the rankings are the same).
:class:`SearchIndexCache` keeps the last index and updates it when the pool changes. Descriptions
are rendered once per tool name per index, and carried over by an update.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import attrgetter, not_
from typing import Final, TypeAlias

import numpy as np
import numpy.typing as npt

from reference_impl.search._postings import IdArray, Segment, SlotArray
from reference_impl.search._terms import QueryTerms, js_trim, parse_query_terms, parse_tool_name
from reference_impl.tools import MCP_PREFIX, DescriptionContext, Tool

__all__ = [
    "DEFAULT_MAX_RESULTS",
    "SCORE_DESCRIPTION",
    "SCORE_NAME_EXACT",
    "SCORE_NAME_EXACT_MCP",
    "SCORE_NAME_PARTIAL",
    "SCORE_NAME_PARTIAL_MCP",
    "SCORE_SEARCH_HINT",
    "SearchIndex",
    "SearchIndexCache",
    "search_tools_with_keywords",
]

DEFAULT_MAX_RESULTS: Final = 5
SCORE_NAME_EXACT: Final = 10
SCORE_NAME_EXACT_MCP: Final = 12
SCORE_NAME_PARTIAL: Final = 5
SCORE_NAME_PARTIAL_MCP: Final = 6
SCORE_SEARCH_HINT: Final = 4
SCORE_DESCRIPTION: Final = 2

_SCORE_DTYPE: type[np.int64] = np.int64
"""Scores add up over every term of a query, repeats included: wide enough for any query."""
_RANK_BITS: Final = 32
_DELTA_SHARE: Final = 0.25
"""An update rebuilds the whole index when the tools added since the last build would be more."""


def _default_describe() -> Callable[[Tool], str]:
    context = DescriptionContext()

    def describe(tool: Tool) -> str:
        return tool.render_description(context)

    return describe


_NAME = attrgetter("name")
_Hits: TypeAlias = tuple[SlotArray, npt.NDArray[np.int64]]
"""A term's contributions: slots (a slot may repeat, once per field) and the points each adds."""


class SearchIndex:
    """The seed's keyword search over one pool, with the per-tool work done once (DEFER-5).

    ``deferred_tools`` are the candidates, in pool order (ties keep that order); ``tools`` is the
    whole pool (the exact-name fast path falls back to it). ``describe`` renders a tool's
    description (default: an empty :class:`DescriptionContext`); it is called once per name.
    An index never changes; :meth:`updated` makes the index of a changed pool from it.
    """

    def __init__(
        self,
        deferred_tools: Sequence[Tool],
        tools: Sequence[Tool],
        *,
        describe: Callable[[Tool], str] | None = None,
    ) -> None:
        self._describe = describe or _default_describe()
        deferred = tuple(deferred_tools)
        descriptions: dict[str, str] = {}  # memoised per name, as the seed's getter
        texts: list[str] = []
        for tool in deferred:
            if tool.name not in descriptions:
                descriptions[tool.name] = self._describe(tool)
            texts.append(descriptions[tool.name].lower())
        self._segments: tuple[Segment, ...] = ()
        self._slot_tools: list[Tool] = []
        self._names: list[str] = []
        self._slot_texts: list[str] = []
        self._exact_weight: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._partial_weight: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._add_segment(deferred, texts)
        self._unique = len(descriptions) == len(deferred)
        self._finish(deferred, tuple(tools), np.arange(len(deferred), dtype=np.int64))

    def _add_segment(self, tools: Sequence[Tool], texts: list[str]) -> None:
        parsed = [parse_tool_name(tool.name) for tool in tools]
        self._segments = (*self._segments, Segment(len(self._slot_tools), tools, parsed, texts))
        self._slot_tools = [*self._slot_tools, *tools]
        self._names = [*self._names, *map(_NAME, tools)]
        self._slot_texts = [*self._slot_texts, *texts]
        is_mcp = np.fromiter((name.is_mcp for name in parsed), dtype=bool, count=len(parsed))
        exact = np.where(is_mcp, SCORE_NAME_EXACT_MCP, SCORE_NAME_EXACT)
        partial = np.where(is_mcp, SCORE_NAME_PARTIAL_MCP, SCORE_NAME_PARTIAL)
        self._exact_weight = np.concatenate([self._exact_weight, exact])
        self._partial_weight = np.concatenate([self._partial_weight, partial])

    def _finish(
        self,
        deferred: tuple[Tool, ...],
        tools: tuple[Tool, ...],
        slots: IdArray,
        previous: SearchIndex | None = None,
    ) -> None:
        """Set the pool: ``slots[p]`` is the slot of ``deferred[p]``; every other slot is dead.

        With ``previous`` (the index this one is updated from), the maps by id and by name are
        that index's, changed for the slots that died or came alive.
        """
        self.deferred_tools: tuple[Tool, ...] = deferred
        self.tools: tuple[Tool, ...] = tools
        count = len(self._slot_tools)
        self._rank = np.zeros(count, dtype=np.int64)
        self._rank[slots] = np.arange(len(deferred), dtype=np.int64)
        alive = np.zeros(count, dtype=bool)
        alive[slots] = True
        self._alive = alive
        self._dead = np.flatnonzero(~alive)
        if previous is None:
            self._slot_of = dict(zip(map(id, deferred), slots.tolist(), strict=True))
            self._slot_by_name = dict(zip(map(_NAME, deferred), slots.tolist(), strict=False))
        else:
            before = len(previous._alive)
            self._slot_of, self._slot_by_name = previous._slot_of.copy(), previous._slot_by_name.copy()
            for slot in np.flatnonzero(previous._alive & ~alive[:before]).tolist():
                del self._slot_of[id(self._slot_tools[slot])]
                del self._slot_by_name[self._names[slot]]
            for slot in (np.flatnonzero(alive[before:]) + before).tolist():
                self._slot_of[id(self._slot_tools[slot])] = slot
                self._slot_by_name[self._names[slot]] = slot
        # Only a tool outside the deferred set can be the pool's exact match (deferred ones come first).
        self._exact_other: dict[str, str] = {}
        if tools != deferred:
            deferred_mask = map(self._slot_of.__contains__, map(id, tools))
            for tool in compress(tools, map(not_, deferred_mask)):
                self._exact_other.setdefault(tool.name.lower(), tool.name)
        self._hits_cache: dict[str, _Hits] = {}

    def updated(self, deferred_tools: Sequence[Tool], tools: Sequence[Tool]) -> SearchIndex:
        """The index of a changed pool, from this one: the same rankings as a new :class:`SearchIndex`.

        Tools still in the pool (the same objects) keep their postings; removed ones are masked
        out; added ones (with the ones added since the last full build) get a segment of their own.
        A large change, or a pool with repeated names, is a full build.
        """
        deferred = tuple(deferred_tools)
        slot_of = self._slot_of
        slots = np.fromiter(
            map(slot_of.get, map(id, deferred), repeat(-1)), dtype=np.int64, count=len(deferred)
        )
        base_end = len(self._segments[0].tools)
        moving = np.flatnonzero((slots < 0) | (slots >= base_end))
        if (
            not self._unique
            or not self._names_stay_unique(deferred, slots)
            or len(moving) > _DELTA_SHARE * max(1, len(deferred))
            or len(self._slot_tools) + len(moving) > 2 * len(deferred) + 64
        ):
            return SearchIndex(deferred, tools, describe=self._describe)
        index = object.__new__(SearchIndex)
        index._describe = self._describe
        index._unique = True
        index._segments = self._segments[:1]
        index._slot_tools = self._slot_tools
        index._names = self._names
        index._slot_texts = self._slot_texts
        index._exact_weight = self._exact_weight
        index._partial_weight = self._partial_weight
        if moving.size:
            # The tools added since the last full build, old and new, in one segment of new slots.
            texts = self._slot_texts
            delta = [deferred[p] for p in moving.tolist()]
            delta_texts = [
                texts[s] if s >= 0 else self._describe(tool).lower()
                for tool, s in zip(delta, slots[moving].tolist(), strict=True)
            ]
            slots[moving] = len(self._slot_tools) + np.arange(len(delta), dtype=np.int64)
            index._add_segment(delta, delta_texts)
        index._finish(deferred, tuple(tools), slots, self)
        return index

    def _names_stay_unique(self, deferred: tuple[Tool, ...], slots: IdArray) -> bool:
        """Whether every name of the changed pool is once in it (this pool's names are unique)."""
        kept = slots[slots >= 0]
        alive = np.zeros(len(self._alive), dtype=bool)
        alive[kept] = True
        if np.count_nonzero(alive) != kept.size:
            return False  # a tool twice in the pool
        added = [deferred[p].name for p in np.flatnonzero(slots < 0).tolist()]
        if len(set(added)) != len(added):
            return False
        by_name = self._slot_by_name
        return not any(name in by_name and alive[by_name[name]] for name in added)

    def __len__(self) -> int:
        return len(self.deferred_tools)

    def _hits(self, term: str) -> _Hits:
        cached = self._hits_cache.get(term)
        if cached is not None:
            return cached
        slots: list[SlotArray] = []
        points: list[npt.NDArray[np.int64]] = []
        scratch = np.zeros(len(self._slot_tools), dtype=bool)
        for segment in self._segments:
            exact = segment.parts.get(term)
            partial = segment.partial(term, exact, scratch)
            hint = segment.hints.matching(term)
            description = segment.descriptions.matching(term)
            slots += [exact, partial, hint, description]
            points += [
                self._exact_weight[exact],
                self._partial_weight[partial],
                np.full(hint.size, SCORE_SEARCH_HINT, dtype=np.int64),
                np.full(description.size, SCORE_DESCRIPTION, dtype=np.int64),
            ]
        hits = (np.concatenate(slots), np.concatenate(points))
        if len(self._hits_cache) >= 4096:
            del self._hits_cache[next(iter(self._hits_cache))]
        self._hits_cache[term] = hits
        return hits

    def exact_name(self, query_lower: str) -> str | None:
        """The fast path: a tool whose lowercased name is the query, deferred tools first."""
        alive = self._alive
        found = [s for segment in self._segments for s in segment.lower.get(query_lower, ()) if alive[s]]
        if found:
            return self._names[min(found, key=self._rank.__getitem__)]
        return self._exact_other.get(query_lower)

    def mcp_prefix(self, query_lower: str) -> list[str]:
        """Deferred tools whose lowercased name starts with ``query_lower``, in pool order."""
        alive, rank = self._alive, self._rank
        found = [s for segment in self._segments for s in segment.prefixed(query_lower) if alive[s]]
        return [self._names[s] for s in sorted(found, key=rank.__getitem__)]

    def _score_array(self, terms: QueryTerms) -> npt.NDArray[np.int64]:
        """Scores by slot (required terms applied, removed tools at 0)."""
        counts: dict[str, int] = {}
        for term in terms.scoring:
            counts[term] = counts.get(term, 0) + 1
        hits = {term: self._hits(term) for term in counts}
        scores = np.zeros(len(self._slot_tools), dtype=_SCORE_DTYPE)
        for term, count in counts.items():
            slots, points = hits[term]
            if slots.size:
                np.add.at(scores, slots, points if count == 1 else points * count)
        for term in dict.fromkeys(terms.required):
            matched = np.zeros(len(scores), dtype=bool)
            matched[hits[term][0]] = True
            scores[~matched] = 0
        if self._dead.size:
            scores[self._dead] = 0
        return scores

    def scores(self, terms: QueryTerms) -> dict[int, int]:
        """Positive scores by candidate position in :attr:`deferred_tools` (required terms applied)."""
        scores = self._score_array(terms)
        slots = np.flatnonzero(scores > 0)
        return dict(zip(self._rank[slots].tolist(), scores[slots].tolist(), strict=True))

    def ranked(self, query: str) -> list[tuple[str, int]]:
        """Every scoring tool of a keyword query with its score, best first (no fast paths)."""
        scores = self.scores(parse_query_terms(js_trim(query.lower())))
        order = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return [(self.deferred_tools[i].name, score) for i, score in order]

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
        return self._top(self._score_array(parse_query_terms(query_lower)), max_results)

    def _top(self, scores: npt.NDArray[np.int64], limit: int) -> list[str]:
        """The ``limit`` best positive scores' names: highest first, ties in pool order."""
        slots = np.flatnonzero(scores > 0)
        if not slots.size:
            return []
        # One key per tool, all distinct: the score, then the earlier position.
        keys = (scores[slots].astype(np.int64) << _RANK_BITS) - self._rank[slots]
        if slots.size > limit:
            chosen = np.argpartition(keys, slots.size - limit)[slots.size - limit :]
        else:
            chosen = np.arange(slots.size)
        best = chosen[np.argsort(keys[chosen])[::-1]]
        names = self._names
        return [names[s] for s in slots[best].tolist()]


class SearchIndexCache:
    """The index of the last pool, updated when the deferred set or the pool changes (000 §6.4).

    The same sequence objects as last time are a hit without looking inside them; equal
    sequences of the same tool objects are a hit too. A changed pool is an update of the last
    index (:meth:`SearchIndex.updated`), not a rebuild.
    """

    def __init__(self, *, describe: Callable[[Tool], str] | None = None) -> None:
        self._describe = describe
        self._index: SearchIndex | None = None
        self._key: tuple[object, ...] | None = None
        self._seen: tuple[Sequence[Tool], Sequence[Tool]] | None = None
        self.builds = 0
        """How many indexes were made, by a build or an update (for tests of invalidation)."""

    def get(self, deferred_tools: Sequence[Tool], tools: Sequence[Tool]) -> SearchIndex:
        """The index for this pool, built on first use and updated after any change."""
        if self._index is not None and self._seen is not None:
            seen_deferred, seen_tools = self._seen
            if seen_deferred is deferred_tools and seen_tools is tools:
                return self._index
        # Tools compare by identity (eq=False); the index holds them, so an id can't be reused meanwhile.
        key = (tuple(map(id, deferred_tools)), tuple(map(id, tools)))
        if self._index is None:
            self._index = SearchIndex(deferred_tools, tools, describe=self._describe)
        elif key != self._key:
            self._index = self._index.updated(deferred_tools, tools)
        else:
            self._seen = (deferred_tools, tools) if _immutable(deferred_tools) and _immutable(tools) else None
            return self._index
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
