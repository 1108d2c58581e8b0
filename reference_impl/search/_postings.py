"""The keyword index's postings: name parts, search hints and descriptions to the tool slots holding them.

Slots are numpy arrays of tool positions in the index; a :class:`Segment` holds the postings of
consecutive slots (a full build, or the tools added since), and :class:`TextIndex` answers the
seed's word-boundary matches from word postings. :mod:`reference_impl.search._index` scores them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from typing import Final, TypeAlias

import numpy as np
import numpy.typing as npt

from reference_impl.search._terms import ParsedToolName, word_boundary_pattern
from reference_impl.tools import Tool

__all__ = ["IdArray", "Segment", "SlotArray", "TextIndex"]

_WORD_RUN = re.compile(r"[A-Za-z0-9_]+")
_MAX_GRAM: Final = 3

SlotArray: TypeAlias = npt.NDArray[np.int32]
IdArray: TypeAlias = npt.NDArray[np.int64]
_EMPTY: Final[SlotArray] = np.zeros(0, dtype=np.int32)
_EMPTY.setflags(write=False)


def _offsets(lengths: Sequence[int] | npt.NDArray[np.int64]) -> IdArray:
    """Where each of consecutive pieces of these lengths starts (one more entry: the total)."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


class _Postings:
    """Keys (words, name parts) to the sorted slots holding them, as one array and offsets per key."""

    __slots__ = ("_ids", "_offsets", "_slots", "keys")

    def __init__(self, keys_per_slot: Iterable[Iterable[str]], base: int) -> None:
        flat: list[str] = []
        lengths: list[int] = []
        for keys in keys_per_slot:
            distinct = set(keys)
            flat.extend(distinct)
            lengths.append(len(distinct))
        self._ids: dict[str, int] = {key: i for i, key in enumerate(dict.fromkeys(flat))}
        self.keys: list[str] = list(self._ids)
        key_ids = np.fromiter(map(self._ids.__getitem__, flat), dtype=np.int64, count=len(flat))
        owners = np.repeat(np.arange(base, base + len(lengths), dtype=np.int32), lengths)
        # A stable sort by key keeps each key's slots in slot order.
        self._slots: SlotArray = owners[np.argsort(key_ids, kind="stable")]
        self._offsets = _offsets(np.bincount(key_ids, minlength=len(self._ids)))

    def get(self, key: str) -> SlotArray:
        """The slots holding ``key``, ascending."""
        i = self._ids.get(key)
        if i is None:
            return _EMPTY
        return self._slots[self._offsets[i] : self._offsets[i + 1]]

    def gather(self, key_ids: IdArray) -> SlotArray:
        """The slots of several keys (by position in :attr:`keys`), concatenated."""
        starts = self._offsets[key_ids]
        lengths = self._offsets[key_ids + 1] - starts
        total = int(lengths.sum())
        if not total:
            return _EMPTY
        shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        return self._slots[shift + np.arange(total)]


def _find_all(pieces: Sequence[str], pattern: re.Pattern[str], joined: list[tuple[str, IdArray]]) -> IdArray:
    """The positions of the pieces in which ``pattern`` matches, searched in them joined by newlines.

    ``pattern`` must not match a newline (a query term never holds white space), so a match never
    spans two pieces; the joined text is built on first use and kept in ``joined``.
    """
    if not joined:
        joined.append(("\n".join(pieces), _offsets([len(piece) + 1 for piece in pieces])))
    text, starts = joined[0]
    found = [match.start() for match in pattern.finditer(text)]
    if not found:
        return np.zeros(0, dtype=np.int64)
    at = np.searchsorted(starts, found, side="right") - 1
    return at if at.size == 1 else np.unique(at)


class TextIndex:
    """Word-boundary lookups over one lowercased text per slot (descriptions, or search hints)."""

    def __init__(self, texts: Sequence[str], base: int = 0) -> None:
        self._texts = texts
        self._base = base
        self._words = _Postings((_WORD_RUN.findall(text) for text in texts), base)
        self._joined: list[tuple[str, IdArray]] = []

    def matching(self, term: str) -> SlotArray:
        """The slots whose text contains ``term`` between word boundaries, ascending."""
        runs = _WORD_RUN.findall(term)
        if not runs:
            # No word character: only a search of the texts finds it (rare in queries).
            found = _find_all(self._texts, word_boundary_pattern(term), self._joined)
            return (found + self._base).astype(np.int32)
        if len(runs) == 1 and runs[0] == term:
            return self._words.get(term)
        # Each word of the term is a whole word of a matching text: narrow by the rarest, confirm.
        rarest = min((self._words.get(run) for run in runs), key=len)
        if not rarest.size:
            return _EMPTY
        pattern, texts, base = word_boundary_pattern(term), self._texts, self._base
        return np.array([s for s in rarest.tolist() if pattern.search(texts[s - base])], dtype=np.int32)


class Segment:
    """The postings of consecutive slots ``base`` to ``base + len(tools)``: name parts, hints, descriptions."""

    def __init__(
        self, base: int, tools: Sequence[Tool], parsed: Sequence[ParsedToolName], descriptions: Sequence[str]
    ) -> None:
        self.base = base
        self.tools = tools
        self.parts = _Postings((name.parts for name in parsed), base)
        self.descriptions = TextIndex(descriptions, base)
        # An empty hint never matches (the seed tests ``hintNormalized &&`` first); "" has no words.
        self.hints = TextIndex([(tool.search_hint or "").lower() for tool in tools], base)
        # The distinct parts are few (about a thousand at 10,000 tools): their 1-3 character grams
        # narrow "some part contains the term" to a few parts.
        grams: dict[str, list[int]] = {}
        for part_id, part in enumerate(self.parts.keys):
            for gram in {part[a : a + n] for n in range(1, _MAX_GRAM + 1) for a in range(len(part) - n + 1)}:
                grams.setdefault(gram, []).append(part_id)
        self._grams = grams
        self._by_lower: list[tuple[str, int]] | None = None
        self.lower: dict[str, list[int]] = {}
        for i, tool in enumerate(tools):
            self.lower.setdefault(tool.name.lower(), []).append(base + i)

    def partial(self, term: str, exact: SlotArray, scratch: npt.NDArray[np.bool_]) -> SlotArray:
        """Slots with a name part containing ``term`` and no part equal to it (``scratch``: all False)."""
        if len(term) <= _MAX_GRAM:
            part_ids = self._grams.get(term, [])
        else:
            parts = self.parts.keys
            grams = (self._grams.get(term[a : a + _MAX_GRAM], []) for a in range(len(term) - _MAX_GRAM + 1))
            part_ids = [p for p in min(grams, key=len) if term in parts[p]]
        if not part_ids:
            return _EMPTY
        keys = np.array(part_ids, dtype=np.int64)
        found = self.parts.gather(keys)
        if keys.size == 1 and not exact.size:
            return found  # one part's postings: sorted, no repeats
        scratch[found] = True
        scratch[exact] = False
        partial = np.flatnonzero(scratch).astype(np.int32)
        scratch[found] = False
        return partial

    def prefixed(self, prefix: str) -> list[int]:
        """Slots whose lowercased name starts with ``prefix``."""
        if self._by_lower is None:
            self._by_lower = sorted((key, slot) for key, slots in self.lower.items() for slot in slots)
        found: list[int] = []
        for key, slot in self._by_lower[bisect.bisect_left(self._by_lower, (prefix, -1)) :]:
            if not key.startswith(prefix):
                break
            found.append(slot)
        return found
