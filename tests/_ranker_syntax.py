"""The seed's query syntax as a property of an optional ranker (DEFER-5): drawn queries, checked against the seed."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from conformance.oracles.search import oracle_search_tools_with_keywords
from reference_impl import Tool


def syntax_queries(pool: Sequence[Tool], words: Sequence[str]) -> st.SearchStrategy[str]:
    """Queries of the seed's syntax: an exact name in any case, an ``mcp__`` prefix, or +required terms."""
    names = [t.name for t in pool]
    servers = sorted({t.mcp.server for t in pool if t.mcp is not None})
    pad = st.sampled_from(["", " ", "\t"])
    exact = st.tuples(pad, st.sampled_from(names), st.sampled_from([str, str.lower, str.upper])).map(
        lambda drawn: f"{drawn[0]}{drawn[2](drawn[1])}{drawn[0]}"
    )
    prefix = st.tuples(pad, st.sampled_from(servers)).map(
        lambda drawn: f"{drawn[0]}mcp__{drawn[1]}{drawn[0]}"
    )
    word = st.sampled_from(list(words))
    required = st.tuples(
        st.lists(word.map(lambda w: "+" + w), min_size=1, max_size=2), st.lists(word, max_size=2)
    ).map(lambda drawn: " ".join(drawn[0] + drawn[1]))
    return st.one_of(exact, prefix, required)


def assert_answered_as_the_seed(got: list[str], query: str, pool: Sequence[Tool], limit: int) -> None:
    """An exact name and an ``mcp__server`` prefix get the seed's answer exactly; +required terms keep
    only tools the seed returns for them, and give nothing exactly when the seed gives nothing."""
    seed = oracle_search_tools_with_keywords(query, pool, pool, limit)
    if "+" not in query:
        assert got == seed
        return
    required = " ".join(term for term in query.split() if term.startswith("+"))
    allowed = oracle_search_tools_with_keywords(required, pool, pool, len(pool))
    assert set(got) <= set(allowed)
    assert bool(got) == bool(seed)
    assert len(got) == len(set(got)) <= limit
