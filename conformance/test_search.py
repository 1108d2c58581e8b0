"""The ToolSearch tool: DEFER-4 (``select:``) and DEFER-5 (keyword search, against an independent oracle)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, cast

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_conversation import SEARCH_TOOL
from conformance._strategies_execution import execute, is_error, scenario_root, text_of, tool_use
from conformance._strategies_pool import (
    WORDS,
    builtin_names,
    builtin_spec,
    descriptions,
    mcp_spec,
    mcp_tool_parts,
    server_names,
)
from conformance.oracles.search import (
    JS_WHITESPACE,
    oracle_parse_tool_name,
    oracle_search_tools_with_keywords,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import ToolSpec
from pytest_toolharness.strategies import PERMISSION_MODES, cached_strategy

# Terms that are not one word run: the search matches them with a literal pattern between word
# boundaries instead of by word (``send-message``, ``note++``, ``file.``, a lone ``-``); a lone ``+``
# is a term, not a required empty one.
_JOINERS = ("-", "-", ".", "/", "++", "+", ":")


@cached_strategy
def _compound_terms() -> st.SearchStrategy[str]:
    word = st.sampled_from(WORDS)
    return st.one_of(
        st.tuples(word, st.sampled_from(_JOINERS), word | st.just("")).map("".join),
        st.sampled_from(("-", "+", "++", "+-", ".")),
    )


# The ends of linked words: vocabulary words, and short ends that put the punctuation a character or
# two from a text's start or end (``1-web``, ``task.v2``).
_LINK_ENDS = (*WORDS, "1", "v2", "x")


@cached_strategy
def _linked_texts() -> st.SearchStrategy[str]:
    """Texts of words and linked words (``send-message web-page``, ``1/web``), anywhere in the text.

    A query term of a link's punctuation (``-``), or of one end with it (``send-``, ``-message``),
    matches there between word boundaries; two links in one text match such a term twice.
    """
    end = st.sampled_from(_LINK_ENDS)
    items = st.lists(st.sampled_from(WORDS) | st.tuples(end, end), min_size=1, max_size=4)
    return st.tuples(st.sampled_from(_JOINERS), items).map(_link_words)


def _link_words(joiner_and_items: tuple[str, list[str | tuple[str, str]]]) -> str:
    """The items as words, a pair linked by the joiner (one punctuation per text: it matches as often)."""
    joiner, items = joiner_and_items
    return " ".join(item if isinstance(item, str) else joiner.join(item) for item in items)


@cached_strategy
def _search_descriptions() -> st.SearchStrategy[str]:
    """Descriptions, some of which contain compound terms, so that a query's compound term can match."""
    with_compound = st.tuples(descriptions(), _compound_terms()).map(" ".join)
    return st.one_of(descriptions(), with_compound, _linked_texts())


def deferred(spec: ToolSpec) -> bool:
    """Whether the spec is deferred (DEFER-1, for the names this suite generates)."""
    return not spec.always_load and (spec.is_mcp or spec.should_defer)


_search_builtins = st.lists(
    st.builds(
        lambda n, d, defer, hint: builtin_spec(n, description=d, should_defer=defer, search_hint=hint),
        builtin_names(),
        _search_descriptions(),
        st.sampled_from([True, True, False]),
        st.none() | _search_descriptions(),
    ),
    min_size=1,
    max_size=6,
    unique_by=lambda s: s.name,
)
_search_mcps = st.lists(
    st.builds(
        lambda srv, t, d, load, hint: mcp_spec(srv, t, description=d, always_load=load, search_hint=hint),
        server_names(),
        mcp_tool_parts(),
        _search_descriptions(),
        st.sampled_from([False, False, False, True]),
        st.none() | _search_descriptions(),
    ),
    min_size=1,
    max_size=8,
    unique_by=lambda s: s.name,
)


@st.composite
def _search_pools(draw: st.DrawFn) -> tuple[list[ToolSpec], list[ToolSpec]]:
    """(built-in tools, MCP tools), often with a case twin of an MCP tool.

    The twin is a deferred MCP tool whose name differs from another's only in letter case (its
    server's name upper-cased), anywhere in the pool.
    """
    builtins, mcps = draw(_search_builtins), draw(_search_mcps)
    if draw(st.booleans()):
        model = draw(st.sampled_from(mcps))
        twin = mcp_spec(str(model.mcp_server).upper(), str(model.mcp_tool), description=model.description)
        if twin.name not in {s.name for s in mcps}:
            mcps.insert(draw(st.integers(0, len(mcps))), twin)
    return builtins, mcps


search_pools = _search_pools().filter(lambda pool: any(deferred(s) for s in pool[0] + pool[1]))


NO_MATCH_TEXT = "No matching deferred tools found"
"""What a search that finds nothing answers (DEFER-4 quotes it)."""


def _names(result: list[str] | str) -> list[str]:
    return [] if isinstance(result, str) else list(result)


_select_pads = st.text(
    st.sampled_from(JS_WHITESPACE.translate({ord(c): None for c in "\n\r\u2028\u2029"})), max_size=3
)
"""Blanks around a ``select:`` name: JavaScript's white space without its line terminators."""


def _expected_select(requested: list[str], by_name: dict[str, ToolSpec]) -> tuple[list[str], list[str]]:
    """The two orders DEFER-4 allows for ``select:`` of ``requested``: request order, or deferred first."""
    in_order = list(dict.fromkeys(n for n in requested if n in by_name))
    deferred_first = [n for n in in_order if deferred(by_name[n])] + [
        n for n in in_order if not deferred(by_name[n])
    ]
    return in_order, deferred_first


# -- DEFER-4 ------------------------------------------------------------------------------------


@requires("search")
@pytest.mark.requirement("DEFER-4", "MUST")
@settings(max_examples=30, deadline=None)
@given(pool=search_pools, data=st.data())
def test_select_returns_the_named_tools_once(
    new_harness: Callable[[], Any], pool: tuple[list[ToolSpec], list[ToolSpec]], data: st.DataObject
) -> None:
    """DEFER-4: ``select:A,B`` returns the named tools (deferred or already loaded), each once.

    Names are split on commas and trimmed of whatever JavaScript's ``trim`` removes (tabs, no-break
    and ideographic spaces, a BOM; not line terminators, which end a ``select:``); empty pieces and
    unknown names (a known name in another case among them) are dropped; the prefix is
    case-insensitive. The order is the request order, or deferred tools first then loaded ones.
    """
    builtins, mcps = pool
    specs = builtins + mcps
    by_name = {s.name: s for s in specs}
    picked = data.draw(st.lists(st.sampled_from(sorted(by_name)), min_size=1, max_size=6), label="selected")
    # Lookup is exact: a name in another case is an unknown name (unless the pool holds that spelling too).
    twins = [n.swapcase() for n in picked if n.swapcase() != n]
    unknown = data.draw(
        st.lists(st.sampled_from(["NoSuchTool", "mcp__nowhere__x", *twins]), max_size=2), label="unknown"
    )
    requested = data.draw(st.permutations(picked + unknown), label="request order")
    pads = data.draw(
        st.lists(_select_pads, min_size=2 * len(requested), max_size=2 * len(requested)), label="pads"
    )
    # Empty pieces (``A,,B``, a leading or trailing comma) name nothing and are dropped.
    empties = data.draw(st.lists(_select_pads, max_size=2), label="empty pieces")
    pieces = [f"{pads[2 * i]}{name}{pads[2 * i + 1]}" for i, name in enumerate(requested)]
    for empty in empties:
        pieces.insert(data.draw(st.integers(0, len(pieces)), label="empty piece at"), empty)
    prefix = data.draw(st.sampled_from(["select:", "Select:", "SELECT:"]), label="prefix")
    query = prefix + ",".join(pieces)
    assume(query[len(prefix) :].strip(JS_WHITESPACE + ","))  # ``select:`` with nothing after it is no select
    result = new_harness().search(builtins, mcps, query, max_results=5)

    in_order, deferred_first = _expected_select(requested, by_name)
    got = _names(result)
    assert got in (in_order, deferred_first), (
        f"query {query!r}: expected {in_order} (request order) or {deferred_first} (deferred first), got {result!r}"
    )


@requires("search")
@pytest.mark.requirement("DEFER-4", "MUST")
@settings(max_examples=15, deadline=None)
@given(first=search_pools, second=search_pools, data=st.data())
def test_select_follows_the_pool_as_it_changes(
    new_harness: Callable[[], Any],
    first: tuple[list[ToolSpec], list[ToolSpec]],
    second: tuple[list[ToolSpec], list[ToolSpec]],
    data: st.DataObject,
) -> None:
    """DEFER-4 across a pool change in one session: ``select:`` returns the named tools of the pool now.

    One harness searches a pool, then a changed one (an MCP server connects or leaves, built-ins
    come and go): a tool that joined is found, a tool that left is not, whatever the first search
    kept of the pool. The names of both pools are asked for each time.
    """
    harness = new_harness()
    kept = data.draw(st.lists(st.sampled_from(first[1]), unique_by=lambda s: s.name), label="MCP tools kept")
    names_now = {s.name for s in second[0] + second[1]}
    changed = (second[0], [*second[1], *(s for s in kept if s.name not in names_now)])
    everything = sorted({s.name for s in first[0] + first[1] + changed[0] + changed[1]})
    query = "select:" + ",".join(everything)
    for builtins, mcps in (first, changed, first):
        in_pool = {s.name for s in builtins + mcps}
        got = _names(harness.search(builtins, mcps, query, max_results=5))
        assert set(got) == in_pool & set(everything), (
            f"after a pool change, select: of {everything} returned {got}; the pool now holds {sorted(in_pool)}"
        )


@requires("search")
@pytest.mark.requirement("DEFER-4", "MUST")
@settings(max_examples=30, deadline=None)
@given(pool=search_pools, data=st.data())
def test_no_match_is_text(
    new_harness: Callable[[], Any], pool: tuple[list[ToolSpec], list[ToolSpec]], data: st.DataObject
) -> None:
    """DEFER-4: a search that finds nothing answers with text, never an empty list of tools.

    Covers ``select:`` of unknown names, of names in the wrong case (names are case-sensitive),
    and keywords that occur nowhere.
    """
    builtins, mcps = pool
    names = {s.name for s in builtins + mcps}
    wrong_case = [
        n.swapcase()
        for n in sorted(names)
        if n.swapcase() not in names and n.swapcase().lower() != "toolsearch"
    ]
    query = data.draw(
        st.sampled_from(
            [
                "select:NoSuchTool",
                "select:NoSuchTool, mcp__nowhere__nothing",
                "zzqx",
                "+zzqx " + WORDS[0],
                *(f"select:{n}" for n in wrong_case),
            ]
        ),
        label="query",
    )
    result = new_harness().search(builtins, mcps, query, max_results=5)
    assert isinstance(result, str), f"query {query!r} matches nothing, but the search returned {result!r}"
    assert result.strip() == NO_MATCH_TEXT, (
        f"query {query!r} matches nothing: expected the text {NO_MATCH_TEXT!r}, got {result!r}"
    )


@requires("search", "execution", "permissions")
@pytest.mark.requirement("DEFER-4", "MUST")
@pytest.mark.parametrize("mode", PERMISSION_MODES)
@settings(max_examples=6, deadline=None)
@given(pool=search_pools, data=st.data(), calls=st.integers(1, 3))
def test_select_calls_in_every_permission_mode(
    new_harness: Callable[[], Any],
    mode: str,
    pool: tuple[list[ToolSpec], list[ToolSpec]],
    data: st.DataObject,
    calls: int,
) -> None:
    """DEFER-4 as the model calls it: ToolSearch tool_use blocks in one batch, in every permission mode.

    Searching only reads the harness's own tool list, so no mode stands in its way: plan mode denies
    only tools that are not read-only (PERM-9), and ToolSearch asks nobody. One to three ToolSearch
    calls share a batch (the same query twice, or different ones); each gets its own result, never an
    error: the named tools as tool_reference blocks, or the text "No matching deferred tools found"
    when the pool has none of them.
    """
    builtins, mcps = pool
    by_name = {s.name: s for s in builtins + mcps}
    queries: list[tuple[str, list[str]]] = []
    for _ in range(calls):
        requested = data.draw(
            st.lists(st.sampled_from([*sorted(by_name), "NoSuchTool"]), min_size=1, max_size=4),
            label="selected",
        )
        queries.append(("select:" + ",".join(requested), requested))
    if calls > 1 and data.draw(st.booleans(), label="same query twice"):
        queries[1] = queries[0]
    blocks = [
        tool_use(f"toolu_search_{i}", SEARCH_TOOL, {"query": query}) for i, (query, _) in enumerate(queries)
    ]
    with scenario_root() as root:
        run = execute(new_harness(), root, builtins + mcps, blocks, mode=mode)
    results = run.results_by_id()
    for i, (query, requested) in enumerate(queries):
        result = results.get(f"toolu_search_{i}")
        assert result is not None, f"{mode} mode: the ToolSearch call {query!r} got no result"
        assert not is_error(result), f"{mode} mode: ToolSearch {query!r} failed: {text_of(result)!r}"
        in_order, deferred_first = _expected_select(requested, by_name)
        content = result.get("content")
        if not in_order:
            assert text_of(result).strip() == NO_MATCH_TEXT, (
                f"{mode} mode: {query!r} names no tool of the pool: expected {NO_MATCH_TEXT!r}, got {content!r}"
            )
            continue
        got = [
            str(b.get("tool_name"))
            for b in (content if isinstance(content, list) else [])
            if isinstance(b, dict) and b.get("type") == "tool_reference"
        ]
        assert got in (in_order, deferred_first), (
            f"{mode} mode: {query!r}: expected tool_reference blocks for {in_order} (request order) or "
            f"{deferred_first} (deferred first), got {content!r}"
        )


# -- DEFER-5 ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _OracleTool:
    """What the oracle reads of a tool: its name, search hint and description."""

    name: str
    search_hint: str | None
    description: str


def _prefix(word_and_length: tuple[str, int]) -> str:
    word, length = word_and_length
    return word[: max(2, min(length, len(word) - 1))]


@cached_strategy
def _term(words: tuple[str, ...]) -> st.SearchStrategy[str]:
    # Mostly words the pool's tools contain, so that rankings have several scored tools and ties.
    word = st.sampled_from(words)
    return st.one_of(
        word,
        word,
        word.map(str.upper),
        st.tuples(word, st.integers(2, 12)).map(_prefix),  # a prefix of 2 to len - 1 characters
        word.map(lambda w: "+" + w),
        st.sampled_from(["the", "über", "zzqx"]),
        _compound_terms(),
        _compound_terms().map(lambda t: "+" + t),
    )


def _oracle(query: str, in_pool: list[ToolSpec], max_results: int) -> list[str]:
    """What the seed's search returns for ``query`` over the pool (in pool order) and its deferred tools."""
    tools = [_OracleTool(s.name, s.search_hint, s.description) for s in in_pool]
    return oracle_search_tools_with_keywords(
        query,
        cast(Any, [t for t, s in zip(tools, in_pool, strict=True) if deferred(s)]),
        cast(Any, tools),
        max_results,
        describe=lambda tool: cast(_OracleTool, tool).description,
    )


def _pool_words(specs: list[ToolSpec]) -> tuple[str, ...]:
    text = " ".join(f"{s.name} {s.description} {s.search_hint or ''}" for s in specs).lower()
    return tuple(sorted(w for w in WORDS if w in text)) or tuple(WORDS)


def _pool_compounds(specs: list[ToolSpec]) -> tuple[str, ...]:
    """The pool's description and hint words that are not one word run (``send-message``, ``file.``)."""
    text = " ".join(f"{s.description} {s.search_hint or ''}" for s in specs).lower()
    return tuple(sorted({w for w in text.split() if not re.fullmatch(r"\w+", w)}))


_LINK = re.compile(r"[A-Za-z0-9_]+(?:[^A-Za-z0-9_\s]+[A-Za-z0-9_]+)+")
_JOINT = re.compile(r"[^A-Za-z0-9_]+")
_WORD_CHARACTER = re.compile(r"[A-Za-z0-9_]")


def _pool_link_terms(specs: list[ToolSpec]) -> tuple[str, ...]:
    """Terms cut from the pool's linked words (``send-message``, JavaScript's ASCII word characters).

    The whole link (several word runs), its punctuation alone (no word character: ``-``), and each
    end with the punctuation next to it (one word run that is not the whole term: ``send-``,
    ``-message``); each matches the text it was cut from between word boundaries.
    """
    text = " ".join(f"{s.description} {s.search_hint or ''}" for s in specs).lower()
    terms: set[str] = set()
    for link in _LINK.findall(text):
        terms.add(link)
        for joint in _JOINT.finditer(link):
            terms.update((joint.group(), link[: joint.end()], link[joint.start() :]))
    return tuple(sorted(t for t in terms if not any(c.isspace() for c in t)))


def _repeated_joints(specs: list[ToolSpec]) -> tuple[str, ...]:
    """Punctuation that links words twice in one description or hint: the text matches it once."""
    repeated: set[str] = set()
    for text in (t.lower() for s in specs for t in (s.description, s.search_hint or "")):
        joints = [joint.group() for link in _LINK.findall(text) for joint in _JOINT.finditer(link)]
        repeated.update(j for j in joints if joints.count(j) > 1)
    return tuple(sorted(repeated))


def _shared_pieces(specs: list[ToolSpec]) -> tuple[str, ...]:
    """Pieces of 1-3 characters in two name parts of one tool, equal to none: a partial match, once."""
    shared: set[str] = set()
    for spec in specs:
        parts = set(oracle_parse_tool_name(spec.name)[0])
        seen: dict[str, int] = {}
        for part in parts:
            for piece in {part[a : a + n] for n in (1, 2, 3) for a in range(len(part) - n + 1)}:
                seen[piece] = seen.get(piece, 0) + 1
        shared.update(piece for piece, count in seen.items() if count > 1 and piece not in parts)
    return tuple(sorted(shared))


def _pool_parts(specs: list[ToolSpec]) -> tuple[str, ...]:
    """The name parts of the pool's tools, as the seed cuts names (``send-message`` of an MCP server too)."""
    return tuple(sorted({part for s in specs for part in oracle_parse_tool_name(s.name)[0]}))


def _cut(piece: tuple[str, int, int]) -> str:
    """``length`` characters of a part from about ``start``, fewer than the whole part when it has two or more."""
    part, start, length = piece
    length = min(length, max(1, len(part) - 1))
    start %= len(part) - length + 1
    return part[start : start + length]


def _part_pieces(parts: tuple[str, ...], lengths: tuple[int, int]) -> st.SearchStrategy[str]:
    """Pieces of ``lengths`` characters of the pool's name parts: partial name matches."""
    return st.tuples(st.sampled_from(parts), st.integers(0, 15), st.integers(*lengths)).map(_cut)


@pytest.mark.toolharness_heavy
@requires("search", "pool")
@pytest.mark.requirement("DEFER-5", "SHOULD")
@settings(max_examples=50, deadline=None)
@given(pool=search_pools, data=st.data(), max_results=st.sampled_from([5, 10, 3, 2, 1]))
def test_keyword_search_matches_the_oracle(
    new_harness: Callable[[], Any],
    pool: tuple[list[ToolSpec], list[ToolSpec]],
    data: st.DataObject,
    max_results: int,
) -> None:
    """DEFER-5: keyword queries return the seed's ranking: fast paths, +required terms, scores, ties, limit.

    Query terms are the pool's words and prefixes of them, pieces of 1 to 11 characters of its name
    parts (partial name matches), and pieces of the linked words of its descriptions and hints
    (``send-message``, ``send-``, ``-message``, a lone ``-``), which match between word boundaries.
    """
    builtins, mcps = pool
    specs = {s.name: s for s in builtins + mcps}
    harness = new_harness()
    order = harness.assemble_pool(builtins, mcps)
    in_pool = [specs[n] for n in order if n in specs]
    term = _term(_pool_words(in_pool))
    compounds = _pool_compounds(in_pool)
    if compounds:  # the pool's own compound terms, so that such a query term matches something
        term = st.one_of(term, st.sampled_from(compounds), st.sampled_from(compounds).map(lambda t: "+" + t))
    # Each term is a word of the pool (above), or one of the pieces the index answers each its own way.
    kinds = [term]
    candidates = [s for s in in_pool if deferred(s)]  # the tools a term can score
    links = _pool_link_terms(candidates)
    if links:  # pieces of the pool's linked words: terms of several word runs, of one, of none
        joints = st.sampled_from([t for t in links if not _WORD_CHARACTER.search(t)] or links)
        repeated = _repeated_joints(candidates)
        kinds += [
            st.sampled_from(links) | st.sampled_from(links).map(lambda t: "+" + t),
            joints | st.sampled_from(repeated) if repeated else joints,
        ]
    parts = _pool_parts(candidates)
    if parts:
        # Pieces of 1 to 4 characters, some in two parts of one tool (``re`` of ``ReadCreate``); and of
        # 7 to 11 from the long parts (``notebook``, an MCP server's ``send-message``).
        short, shared = _part_pieces(parts, (1, 4)), _shared_pieces(candidates)
        kinds.append(short | st.sampled_from(shared) if shared else short)
        long_parts = tuple(part for part in parts if len(part) >= 8)
        if long_parts:
            kinds.append(_part_pieces(long_parts, (7, 11)))
    terms = st.lists(term, min_size=1, max_size=3)
    query = data.draw(
        st.one_of(
            st.tuples(terms, st.sampled_from([" ", "  ", "\t"])).map(lambda pair: pair[1].join(pair[0])),
            terms.map(" ".join),
            st.sampled_from(sorted(specs)).map(lambda n: n.lower()),
            st.sampled_from([s.mcp_server or "" for s in mcps] or ["slack"]).map(lambda srv: f"mcp__{srv}"),
        ),
        label="query",
    )
    queries = [query]
    if len(kinds) > 1:  # and a query of the pieces, on the same pool
        pieces = st.lists(st.sampled_from(kinds).flatmap(lambda kind: kind), min_size=1, max_size=3)
        queries.append(data.draw(pieces.map(" ".join), label="query of pieces"))
    for query in queries:
        want = _oracle(query, in_pool, max_results)
        got = _names(harness.search(builtins, mcps, query, max_results=max_results))
        assert got == want, f"query {query!r} (max_results={max_results}): expected {want}, got {got}"


# -- boundaries and alternate spellings -----------------------------------------------------------


@requires("search")
@pytest.mark.requirement("DEFER-4", "MUST")
@settings(max_examples=20, deadline=None)
@given(pool=search_pools, data=st.data())
def test_select_by_alias_returns_the_tool(
    new_harness: Callable[[], Any], pool: tuple[list[ToolSpec], list[ToolSpec]], data: st.DataObject
) -> None:
    """DEFER-4 with alternate spellings: ``select:`` of a tool's alias returns that tool, under its name.

    A tool renamed since an old transcript keeps its old name as an alias (EXEC-3); ``select:Old``
    names that tool as much as ``select:New`` does. Mixing a tool's name and its alias returns it once.
    """
    builtins, mcps = pool
    taken = {s.name for s in builtins + mcps}
    aliased = [
        replace(s, aliases=(f"Legacy{s.name}",)) if f"Legacy{s.name}" not in taken else s for s in builtins
    ]
    with_alias = [s for s in aliased if s.aliases]
    assume(with_alias)
    picked = data.draw(st.lists(st.sampled_from(with_alias), min_size=1, max_size=4), label="aliased tools")
    spellings = [
        data.draw(st.sampled_from([s.aliases[0], s.aliases[0], s.name]), label=s.name) for s in picked
    ]
    query = "select:" + ",".join(spellings)
    got = _names(new_harness().search(aliased, mcps, query, max_results=5))
    want = list(dict.fromkeys(s.name for s in picked))
    aliases = [(s.aliases[0], s.name) for s in with_alias]
    assert len(got) == len(set(got)), f"query {query!r} (aliases {aliases}) returned a tool twice: {got}"
    assert sorted(got) == sorted(want), f"query {query!r} (aliases {aliases}): expected {want}, got {got}"


@requires("search", "pool")
@pytest.mark.requirement("DEFER-5", "SHOULD")
@settings(max_examples=15, deadline=None)
@given(
    server=server_names(),
    parts=st.lists(mcp_tool_parts(), min_size=2, max_size=7, unique=True),
    others=st.lists(st.tuples(server_names(), mcp_tool_parts()), max_size=3),
    extra=st.integers(1, 3),
)
def test_server_prefix_returns_at_most_max_results(
    new_harness: Callable[[], Any], server: str, parts: list[str], others: list[tuple[str, str]], extra: int
) -> None:
    """DEFER-5 with more tools than asked for: ``mcp__<server>`` returns at most ``max_results`` tools.

    The server has more deferred tools than ``max_results`` (by 1 to 3): the answer is the first
    ``max_results`` of them in pool order, as the oracle says, and never a tool of another server.
    """
    max_results = max(1, len(parts) - extra)
    mcps = [mcp_spec(server, p) for p in parts] + [mcp_spec(s, p) for s, p in others if s != server]
    mcps = list({s.name: s for s in mcps}.values())
    builtins = [builtin_spec("Alpha", should_defer=False)]
    harness = new_harness()
    order = harness.assemble_pool(builtins, mcps)
    specs = {s.name: s for s in builtins + mcps}
    in_pool = [specs[n] for n in order if n in specs]
    query = f"mcp__{server}"
    want = _oracle(query, in_pool, max_results)
    got = _names(harness.search(builtins, mcps, query, max_results=max_results))
    assert len(got) <= max_results, (
        f"query {query!r} returned {len(got)} tools, over max_results={max_results}"
    )
    assert got == want, f"query {query!r} (max_results={max_results}): expected {want}, got {got}"


@requires("search", "pool")
@pytest.mark.requirement("DEFER-5", "SHOULD")
@pytest.mark.parametrize("kind", ["builtin", "mcp"])
def test_search_hint_outscores_a_description_match(new_harness: Callable[[], Any], kind: str) -> None:
    """DEFER-5 weights: a search-hint match (4) beats a description match (2), the tool's place aside.

    The hinted tool sorts last by name, so where the pool keeps that order a hint scored like a
    description would lose the tie.
    """
    if kind == "builtin":
        builtins = [
            builtin_spec("Alpha", should_defer=True, description="zeta one"),
            builtin_spec("Beta", should_defer=True, description="zeta two"),
            builtin_spec("Zed", should_defer=True, description="other", search_hint="zeta"),
        ]
        mcps: list[ToolSpec] = []
    else:
        builtins = []
        mcps = [
            mcp_spec("alpha", "one", description="zeta one"),
            mcp_spec("beta", "two", description="zeta two"),
            mcp_spec("zed", "three", description="other", search_hint="zeta"),
        ]
    harness = new_harness()
    order = harness.assemble_pool(builtins, mcps)
    specs = {s.name: s for s in builtins + mcps}
    in_pool = [specs[n] for n in order if n in specs]
    want = _oracle("zeta", in_pool, 3)
    got = _names(harness.search(builtins, mcps, "zeta", max_results=3))
    assert got == want, f"expected {want} (the hinted tool first), got {got}"


# A 16-bit score counter holds 32,767: at 18 points a term at most, 1,820 terms fit and 1,821 don't.
# Both sides of that line are drawn, and far past it: at 4,000 terms even a tool scoring 12 points a
# term totals 48,000.
LONG_QUERY_TERMS = (1_820, 1_821, 2_400, 4_000)


@requires("search", "pool")
@pytest.mark.requirement("DEFER-5", "SHOULD")
@settings(max_examples=6, deadline=None)
@given(
    pool=search_pools,
    cycle=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
    count=st.sampled_from(LONG_QUERY_TERMS),
)
@example(
    pool=(
        [builtin_spec("SendMessage", should_defer=True), builtin_spec("ReadFile", should_defer=True)],
        [mcp_spec("slack", "send_message"), mcp_spec("slack", "list"), mcp_spec("github", "send")],
    ),
    cycle=["send", "message"],
    count=4_000,
)
def test_very_long_query_matches_the_oracle(
    new_harness: Callable[[], Any], pool: tuple[list[ToolSpec], list[ToolSpec]], cycle: list[str], count: int
) -> None:
    """DEFER-5 with many terms: a query of thousands of terms is ranked as the oracle ranks it.

    Scores add up over every term, repeated ones included; the ranking, the ties and the limit do
    not change when the total no longer fits a small counter.
    """
    builtins, mcps = pool
    specs = {s.name: s for s in builtins + mcps}
    harness = new_harness()
    order = harness.assemble_pool(builtins, mcps)
    in_pool = [specs[n] for n in order if n in specs]
    query = " ".join(cycle[i % len(cycle)] for i in range(count))
    want = _oracle(query, in_pool, 3)
    got = _names(harness.search(builtins, mcps, query, max_results=3))
    assert got == want, f"a {count}-term query cycling {cycle}: expected {want}, got {got}"
