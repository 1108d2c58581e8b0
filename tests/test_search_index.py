"""The seed's keyword search (000 §6.2-§6.4): name parsing, scores, fast paths, and the index == oracle."""

from __future__ import annotations

import json
import re
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.oracles.search import oracle_parse_tool_name, oracle_search_tools_with_keywords
from reference_impl import Tool, ToolContext, ToolOutput, assemble_tool_pool, build_tool, mcp_tool
from reference_impl.search import _index as _search_index
from reference_impl.search._index import SearchIndex, SearchIndexCache, search_tools_with_keywords
from reference_impl.search._postings import TextIndex
from reference_impl.search._terms import ParsedToolName, js_trim, parse_query_terms, parse_tool_name


async def _call(_input: object, _context: ToolContext) -> ToolOutput:
    return ToolOutput(content="ok")


def tool(name: str, description: str = "", *, hint: str | None = None, defer: bool = True) -> Tool:
    return build_tool(
        name, description, _call, input_json_schema={"type": "object"}, search_hint=hint, should_defer=defer
    )


def mcp(server: str, name: str, description: str = "", *, hint: str | None = None) -> Tool:
    meta = {"anthropic/searchHint": hint} if hint is not None else None
    return mcp_tool(server, name, description, {"type": "object"}, _call, meta=meta)


NOTEBOOK = tool("NotebookEdit", "Edit a Jupyter notebook cell.", hint="jupyter notebooks")
CRON = tool("CronCreate", "Schedule a cron job.")
SLACK = mcp("slack", "send_message", "Send a message to a Slack channel.")
SLACK_READ = mcp("slack", "read_channel", "Read the messages of a channel.")
GITHUB = mcp("github", "create_issue", "Create an issue on GitHub.")
READ = tool("Read", "Read a file from disk.", defer=False)
DEFERRED = (NOTEBOOK, CRON, SLACK, SLACK_READ, GITHUB)
POOL = (READ, *DEFERRED)


def search(query: str, max_results: int = 5, deferred: tuple[Tool, ...] = DEFERRED) -> list[str]:
    return SearchIndex(deferred, (READ, *deferred)).search(query, max_results)


# --- parseToolName (000 §6.3) ---


@pytest.mark.parametrize(
    ("name", "parts", "is_mcp"),
    [
        ("mcp__slack__send_message", ("slack", "send", "message"), True),
        ("mcp__My_Server__Do__It", ("my", "server", "do", "it"), True),
        ("mcp__a___b", ("a", "b"), True),
        ("NotebookEditTool", ("notebook", "edit", "tool"), False),
        ("WebFetch", ("web", "fetch"), False),
        ("snake_case_Name", ("snake", "case", "name"), False),
        ("HTTPServer", ("httpserver",), False),  # only a lower->upper step splits
        ("getHTTP", ("get", "http"), False),
        ("Mcp__not_prefixed", ("mcp", "not", "prefixed"), False),  # the prefix is case-sensitive
    ],
)
def test_parse_tool_name(name: str, parts: tuple[str, ...], is_mcp: bool) -> None:
    assert parse_tool_name(name) == ParsedToolName(parts, is_mcp)


def test_query_terms_plus_marks_required_terms() -> None:
    terms = parse_query_terms("+slack  send +  +msg")
    assert terms.required == ("slack", "msg")
    assert terms.optional == ("send", "+")
    assert terms.scoring == ("slack", "msg", "send", "+")


# --- scores (DEFER-5), computed by hand ---


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("slack", [("mcp__slack__read_channel", 12), ("mcp__slack__send_message", 14)][::-1]),
        ("notebook", [("NotebookEdit", 10 + 2)]),  # hint says "notebooks": no word match
        ("note", [("NotebookEdit", 5)]),  # partial part match, built-in
        ("slac", [("mcp__slack__send_message", 6), ("mcp__slack__read_channel", 6)]),  # MCP partial
        ("jupyter", [("NotebookEdit", 4 + 2)]),  # search hint, description
        ("cron", [("CronCreate", 10 + 2)]),
        ("create", [("mcp__github__create_issue", 12 + 2), ("CronCreate", 10)]),
        ("channel", [("mcp__slack__read_channel", 12 + 2), ("mcp__slack__send_message", 2)]),
        ("sched", []),  # descriptions match whole words only
        ("+slack message", [("mcp__slack__send_message", 14 + 14), ("mcp__slack__read_channel", 12 + 0)]),
        ("+github message", [("mcp__github__create_issue", 12 + 2)]),
        ("+nothing slack", []),
    ],
)
def test_hand_computed_scores(query: str, expected: list[tuple[str, int]]) -> None:
    """DEFER-5: name part 10/12, partial 5/6, hint 4, description 2; only positive scores."""
    index = SearchIndex(DEFERRED, POOL)
    assert index.ranked(query) == expected
    assert index.search(query, 10) == [name for name, _ in expected]
    assert oracle_search_tools_with_keywords(query, DEFERRED, POOL, 10) == [name for name, _ in expected]


def test_ties_keep_pool_order_and_max_results_cuts() -> None:
    pool = tuple(tool(f"Tool{i}", "a shared word") for i in range(8))
    index = SearchIndex(pool, pool)
    assert index.search("shared", 3) == ["Tool0", "Tool1", "Tool2"]
    assert index.search("shared") == [f"Tool{i}" for i in range(5)]  # default 5
    reordered = pool[::-1]
    assert SearchIndex(reordered, reordered).search("shared", 2) == ["Tool7", "Tool6"]


def test_exact_name_fast_path_returns_only_that_tool() -> None:
    assert search("notebookedit") == ["NotebookEdit"]
    assert search("  mcp__SLACK__send_message ") == ["mcp__slack__send_message"]
    assert search("read") == ["Read"]  # a loaded tool, from the whole pool


def test_mcp_prefix_lists_the_servers_deferred_tools_in_pool_order() -> None:
    assert search("mcp__slack") == ["mcp__slack__send_message", "mcp__slack__read_channel"]
    assert search("mcp__slack", 1) == ["mcp__slack__send_message"]
    assert search("mcp__") == []  # the prefix alone is a term, not a prefix query
    assert search("mcp__nowhere") == []


def test_word_boundaries_are_javascripts_ascii_ones() -> None:
    pool = (
        tool("Alpha", "compile c++ code"),
        tool("Beta", "uses c++x and node.js"),
        tool("Gamma", "café ünïcode naïve"),
    )
    index = SearchIndex(pool, pool)
    # \bc\+\+\b needs a word character after "++": not in "c++ code", but in "c++x".
    assert index.search("c++") == ["Beta"]
    assert index.search("node.js") == ["Beta"]
    assert index.search("caf") == ["Gamma"]  # é is not a word character in JS: "caf" is a word
    assert index.search("na") == ["Gamma"]
    assert index.search("café") == []  # \b after é needs a word character next
    for query in ("c++", "node.js", "caf", "na", "café", "++", "ïve"):
        assert index.search(query) == oracle_search_tools_with_keywords(query, pool, pool), query


def test_max_results_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_results must be at least 1"):
        SearchIndex(DEFERRED, POOL).search("slack", 0)
    with pytest.raises(ValueError, match="max_results must be at least 1"):
        oracle_search_tools_with_keywords("slack", DEFERRED, POOL, 0)


def test_descriptions_are_rendered_once_per_tool() -> None:
    calls: list[str] = []

    def describe(context: object) -> str:
        calls.append("x")
        return "dynamic description"

    dynamic = build_tool("Dyn", describe, _call, input_json_schema={"type": "object"}, should_defer=True)
    index = SearchIndex((dynamic,), (dynamic,))
    assert index.search("dynamic") == ["Dyn"]
    assert index.search("description") == ["Dyn"]
    assert calls == ["x"]


def test_cache_rebuilds_only_when_the_pool_changes() -> None:
    cache = SearchIndexCache()
    first = cache.get(DEFERRED, POOL)
    assert cache.get(DEFERRED, POOL) is first
    assert cache.get(tuple(DEFERRED), tuple(POOL)) is first  # equal tuples of the same tools
    assert cache.builds == 1
    replaced = (*DEFERRED[:-1], mcp("github", "create_issue", "A different tool object."))
    second = cache.get(replaced, (READ, *replaced))
    assert second is not first
    assert second.search("different") == ["mcp__github__create_issue"]
    assert cache.get(DEFERRED[:-1], POOL[:-1]) is not second
    assert cache.builds == 3
    lst = list(DEFERRED)
    cache.get(lst, POOL)
    lst.pop()
    assert cache.get(lst, POOL).search("github") == []  # a mutated list is not trusted by identity


def test_module_level_search_function() -> None:
    assert search_tools_with_keywords("slack send", DEFERRED, POOL) == [
        "mcp__slack__send_message",  # 12 + 2 (slack) + 12 + 2 (send)
        "mcp__slack__read_channel",  # 12
    ]


# --- the index ranks exactly as the naive oracle (DEFER-5) ---

VOCAB = ["slack", "send", "message", "github", "issue", "read", "file", "note", "c++", "node.js", "a", "_x"]
NAME_WORDS = ["Slack", "Send", "message", "Git", "hub", "READ", "file", "Note", "book", "x", "é"]
PUNCT = [" ", "  ", ", ", ".", "-", "+", "(", ")", "_", "++", "/", "\u00a0", "\n", "é", "İ", "ß"]


@st.composite
def names(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["camel", "mcp", "snake", "random"]))
    words = draw(st.lists(st.sampled_from(NAME_WORDS), min_size=1, max_size=3))
    if kind == "camel":
        return "".join(w[:1].upper() + w[1:] for w in words)
    if kind == "mcp":
        server = draw(st.sampled_from(["slack", "git-hub", "Files", "a_b"]))
        return f"mcp__{server}__{'_'.join(words)}"
    if kind == "snake":
        return "_".join(words)
    return draw(st.text(st.sampled_from(list("aB_+.é -mcp")), min_size=1, max_size=8))


texts = st.lists(
    st.one_of(st.sampled_from(VOCAB), st.sampled_from(PUNCT), st.text(max_size=4)), max_size=12
).map("".join)


@st.composite
def pools(draw: st.DrawFn) -> tuple[tuple[Tool, ...], tuple[Tool, ...]]:
    tool_names = draw(st.lists(names(), min_size=1, max_size=10, unique=True))
    all_tools = []
    deferred = []
    for name in tool_names:
        hint = draw(st.none() | texts)
        made = build_tool(name, draw(texts), _call, input_json_schema={"type": "object"}, search_hint=hint)
        all_tools.append(made)
        if draw(st.booleans()):
            deferred.append(made)
    return tuple(deferred), tuple(all_tools)


@st.composite
def queries(draw: st.DrawFn, pool: tuple[Tool, ...]) -> str:
    kind = draw(st.sampled_from(["terms", "terms", "name", "prefix", "random"]))
    if kind == "name":
        name = draw(st.sampled_from(pool)).name
        return draw(st.sampled_from([name, name.upper(), f" {name.lower()}\t"]))
    if kind == "prefix":
        name = draw(st.sampled_from(pool)).name
        return name[: draw(st.integers(0, len(name)))]
    if kind == "random":
        return draw(st.text(max_size=12))
    terms = draw(
        st.lists(
            st.one_of(
                st.sampled_from(VOCAB),
                st.sampled_from(NAME_WORDS),
                st.sampled_from(PUNCT).filter(str.strip),
                st.text(st.sampled_from(list("abcé+._-")), min_size=1, max_size=4),
            ),
            min_size=1,
            max_size=5,
        )
    )
    terms = [("+" + t if draw(st.booleans()) and draw(st.booleans()) else t) for t in terms]
    return draw(st.sampled_from([" ", "  ", "\u3000", "\t"])).join(terms)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_index_ranks_exactly_as_the_naive_oracle(data: st.DataObject) -> None:
    """DEFER-5: for any pool and query, the indexed search returns exactly the oracle's names.

    Pools mix CamelCase, snake and mcp__ names; texts and queries mix punctuation, unicode,
    regex specials and +required terms.
    """
    deferred, pool = data.draw(pools())
    index = SearchIndex(deferred, pool)
    for _ in range(3):
        query = data.draw(queries(pool))
        max_results = data.draw(st.integers(1, 8))
        assert index.search(query, max_results) == oracle_search_tools_with_keywords(
            query, deferred, pool, max_results
        ), query


@st.composite
def pool_changes(draw: st.DrawFn) -> tuple[list[Tool], list[tuple[tuple[Tool, ...], tuple[Tool, ...]]]]:
    """A first pool, then one to four changed pools: tools removed, added anywhere, kept in order.

    Changes range from nothing (the same tools again) to replacing every tool; a removed tool may
    come back later (the same object) and names may repeat across the tools drawn.
    """
    made: list[Tool] = []
    for name in draw(st.lists(names(), min_size=1, max_size=14)):
        hint = draw(st.none() | texts)
        made.append(
            build_tool(name, draw(texts), _call, input_json_schema={"type": "object"}, search_hint=hint)
        )
    steps: list[tuple[tuple[Tool, ...], tuple[Tool, ...]]] = []
    current: list[Tool] = draw(st.lists(st.sampled_from(made), unique_by=id, max_size=8))
    for _ in range(draw(st.integers(1, 4)) + 1):
        deferred = tuple(current)
        extra = draw(st.lists(st.sampled_from(made), unique_by=id, max_size=2))
        pool = (*[t for t in extra if t not in deferred], *deferred)
        steps.append((deferred, pool))
        kept = [t for t in current if draw(st.integers(0, 4))]  # most tools stay
        for added in draw(st.lists(st.sampled_from(made), unique_by=id, max_size=4)):
            if added not in kept:
                kept.insert(draw(st.integers(0, len(kept))), added)
        current = kept
    return made, steps


@pytest.mark.parametrize("share", [_search_index._DELTA_SHARE, 100.0], ids=["as-shipped", "always-update"])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=pool_changes(), data=st.data())
def test_updated_index_ranks_as_a_rebuilt_one(
    changes: tuple[list[Tool], list[tuple[tuple[Tool, ...], tuple[Tool, ...]]]],
    data: st.DataObject,
    share: float,
) -> None:
    """DEFER-5 under pool changes: an index updated through any sequence of changes ranks exactly as
    the oracle (and so as an index built afresh) on the last pool, for every query.

    Tools are removed, added at any position, re-added after removal; pools with repeated names
    (which must fall back to a full build) are drawn too. Run with the shipped rebuild threshold
    and with none, so that small pools take the update path too.
    """
    made, steps = changes
    first_deferred, first_pool = steps[0]
    index = SearchIndex(first_deferred, first_pool)
    for deferred, pool in steps[1:]:
        # "always-update": however much of a small pool changes, it is updated, never rebuilt.
        with mock.patch.object(_search_index, "_DELTA_SHARE", share):
            index = index.updated(deferred, pool)
        assert index.deferred_tools == deferred
        assert len(index) == len(deferred)
    deferred, pool = steps[-1]
    for _ in range(4):
        query = data.draw(queries(tuple(made)))
        max_results = data.draw(st.integers(1, 8))
        assert index.search(query, max_results) == oracle_search_tools_with_keywords(
            query, deferred, pool, max_results
        ), query
        terms = parse_query_terms(js_trim(query.lower()))
        assert index.scores(terms) == SearchIndex(deferred, pool).scores(terms), query


def test_an_update_reuses_the_postings_and_a_large_change_rebuilds() -> None:
    """One server's tools added to or removed from a large pool update the index; most of it changed rebuilds."""
    base = tuple(mcp(f"s{i // 50}", f"tool_{i}", f"Does thing {i} with files.") for i in range(400))
    added = tuple(mcp("new", f"tool_{i}", "Sends a message to a channel.") for i in range(50))
    grown = base[:200] + added + base[200:]
    first = SearchIndex(base, base)
    second = first.updated(grown, grown)
    assert second._segments[0] is first._segments[0]  # the base postings are shared, not rebuilt
    assert len(second._segments) == 2
    assert second.search("channel", 3) == ["mcp__new__tool_0", "mcp__new__tool_1", "mcp__new__tool_2"]
    third = second.updated(base, base)
    assert third._segments == second._segments[:1]  # removal only masks
    assert third.search("channel") == []
    assert third.search("files", 2) == [
        "mcp__s0__tool_0",
        "mcp__s0__tool_1",
    ]
    rebuilt = third.updated(added, added)
    assert len(rebuilt._segments) == 1
    assert rebuilt._segments[0] is not first._segments[0]
    assert rebuilt.search("channel", 1) == ["mcp__new__tool_0"]


def test_removed_tools_are_masked_until_the_dead_outnumber_the_live_by_64() -> None:
    """Removal masks: an index keeps its postings while its slots are at most twice the pool's tools
    plus 64, so removing half of a pool is an update, and removing more rebuilds."""
    base = tuple(mcp(f"s{i // 50}", f"tool_{i}", f"Does thing {i} with files.") for i in range(400))
    first = SearchIndex(base, base)
    half = first.updated(base[:200], base[:200])  # 400 slots, 200 alive: 400 <= 2 * 200 + 64
    assert half._segments == first._segments
    assert half.search("files", 2) == ["mcp__s0__tool_0", "mcp__s0__tool_1"]
    assert half.search("mcp__s4") == []
    fewer = half.updated(base[:150], base[:150])  # 400 slots, 150 alive: 400 > 2 * 150 + 64
    assert fewer._segments[0] is not first._segments[0]
    assert len(fewer._segments[0].tools) == 150


@pytest.mark.parametrize("repeat", ["same-tool", "same-name"])
def test_an_update_to_a_pool_with_a_tool_twice_ranks_as_a_rebuilt_one(repeat: str) -> None:
    """A pool that holds one tool twice (the same object, or two tools of one name) is a full build:
    the rankings are those of a fresh index (and of the oracle), the tool listed once per copy."""
    tools = [mcp("github", f"tool_{i}", f"Does thing {i} with issues.") for i in range(6)]
    twin = tools[2] if repeat == "same-tool" else mcp("github", "tool_2", "Another copy with issues.")
    first = SearchIndex(tools, tools)
    changed = (*tools[:4], twin, *tools[4:])
    updated = first.updated(changed, changed)
    for query, max_results in (("issues", 8), ("tool_2", 3), ("mcp__github", 8), ("+thing issues", 8)):
        want = oracle_search_tools_with_keywords(query, changed, changed, max_results)
        assert updated.search(query, max_results) == want, query
        assert updated.search(query, max_results) == SearchIndex(changed, changed).search(query, max_results)
    assert updated.search("issues", 8).count("mcp__github__tool_2") == 2


@settings(max_examples=200, deadline=None)
@given(name=names())
def test_parse_tool_name_matches_the_oracle(name: str) -> None:
    """parseToolName is the seed's: same parts, same MCP flag."""
    parts, _full, is_mcp = oracle_parse_tool_name(name)
    assert parse_tool_name(name) == ParsedToolName(tuple(parts), is_mcp)


@settings(max_examples=200, deadline=None)
@given(term=st.text(st.sampled_from(list("ab_+.,- é")), min_size=1, max_size=6), text=texts)
def test_text_index_matches_the_word_boundary_regex(term: str, text: str) -> None:
    """A term matches a text in the index exactly when ``\\bterm\\b`` (ASCII) finds it."""
    index = TextIndex([text.lower()])
    expected = re.search(r"\b" + re.escape(term) + r"\b", text.lower(), re.ASCII) is not None
    assert (0 in index.matching(term).tolist()) == expected


# --- real tools ---


def test_real_corpus_rankings_equal_the_oracle(shared_dir: Path) -> None:
    """DEFER-5 on real MCP tools and real retrieval queries: index == oracle for every query."""
    records = json.loads((shared_dir / "corpus" / "mcp_tools.json").read_text(encoding="utf-8"))
    queries_doc = json.loads((shared_dir / "corpus" / "retrieval_queries.json").read_text(encoding="utf-8"))
    tools = [
        mcp_tool(r["server"], r["name"], r["description"] or "", {"type": "object"}, _call) for r in records
    ]
    pool = assemble_tool_pool([NOTEBOOK, CRON, READ], tools)
    deferred = tuple(t for t in pool if t is not READ)
    index = SearchIndex(deferred, pool)
    sample = [q["query"] for q in queries_doc["queries"]][::25]
    sample += ["github", "+github issue", "mcp__github", "read file", "create_issue", "c++", "+slack"]
    assert len(sample) > 15
    found_any = 0
    for query in sample:
        got = index.search(query, 10)
        assert got == oracle_search_tools_with_keywords(query, deferred, pool, 10), query
        found_any += bool(got)
    assert found_any > len(sample) // 2
