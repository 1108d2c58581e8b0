r"""The seed's keyword search, translated line by line and without any optimisation (000 §6.2, §6.3).

This is the oracle that the indexed search in :mod:`reference_impl.search._index` must agree with
exactly (DEFER-5), and the baseline that ``benchmarks/`` measures it against. It deliberately does
what the seed's TypeScript does: it parses every tool's name, lowercases every description and
compiles a fresh word-boundary regex per term, per tool, per query.

JavaScript semantics are kept where Python differs:

* ``\b`` is ASCII-only in JS (word characters ``[A-Za-z0-9_]``), so the regexes use ``re.ASCII``;
* ``String.prototype.trim`` and ``/\s+/`` use the ECMAScript white-space set, not ``str.isspace``;
* ``toLowerCase`` is stood in for by ``str.lower`` (the two agree except for a few rare code points).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol


class SearchableTool(Protocol):
    """What the oracle reads of a tool: its name, its search hint, and (by default) its description.

    Any object with these attributes works: the oracle must not depend on a harness.
    """

    @property
    def name(self) -> str: ...

    @property
    def search_hint(self) -> str | None: ...


def _default_description(tool: SearchableTool) -> str:
    description = getattr(tool, "description", "")
    if callable(description):
        render = getattr(tool, "render_description", None)
        if callable(render):
            # A harness tool whose description is computed per session: ask it once, with no context.
            return str(render(_NoContext()))
        return str(description())
    return str(description)


class _NoContext:
    """An empty description context: a model, working directory and tool list nobody set."""

    model = ""
    tool_names: tuple[str, ...] = ()

    @property
    def cwd(self) -> object:
        import pathlib

        return pathlib.Path.cwd()


__all__ = ["JS_WHITESPACE", "oracle_parse_tool_name", "oracle_search_tools_with_keywords"]

JS_WHITESPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""ECMAScript's ``\\s``: WhiteSpace (including category Zs) and LineTerminator."""

_JS_SPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")


def _js_split_whitespace(text: str) -> list[str]:
    # text.split(/\s+/).filter(Boolean)
    return [piece for piece in _JS_SPACE_RUN.split(text) if piece]


def oracle_parse_tool_name(name: str) -> tuple[list[str], str, bool]:
    """``parseToolName``: ``(parts, full, is_mcp)`` exactly as the seed computes them."""
    if name.startswith("mcp__"):
        without_prefix = name[len("mcp__") :].lower()
        parts = [piece for chunk in without_prefix.split("__") for piece in chunk.split("_")]
        full = without_prefix.replace("__", " ").replace("_", " ")
        return [p for p in parts if p], full, True
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("_", " ").lower()
    parts = _js_split_whitespace(spaced)
    return parts, " ".join(parts), False


def _pattern(term: str) -> re.Pattern[str]:
    # new RegExp(`\\b${escapeRegExp(term)}\\b`), with JS's ASCII-only \b. Compiled afresh on every
    # call on purpose (re's own small cache is bypassed for large pools anyway); this is the
    # naive baseline.
    return re.compile(r"\b" + re.escape(term) + r"\b", re.ASCII)


def oracle_search_tools_with_keywords(
    query: str,
    deferred_tools: Sequence[SearchableTool],
    tools: Sequence[SearchableTool],
    max_results: int = 5,
    *,
    describe: Callable[[SearchableTool], str] | None = None,
) -> list[str]:
    """``searchToolsWithKeywords`` from the seed: the names of the best ``max_results`` tools.

    ``describe`` gives a tool's description (default: its ``description`` attribute, rendered once
    with an empty context when it is computed); like the seed's memoised getter it is asked once
    per tool name.
    """
    if max_results < 1:
        raise ValueError(f"max_results must be at least 1, got {max_results!r}")
    memo: dict[str, str] = {}

    def description_of(tool: SearchableTool) -> str:
        if tool.name not in memo:
            memo[tool.name] = describe(tool) if describe is not None else _default_description(tool)
        return memo[tool.name]

    query_lower = query.lower().strip(JS_WHITESPACE)

    for pool in (deferred_tools, tools):
        for tool in pool:
            if tool.name.lower() == query_lower:
                return [tool.name]

    if query_lower.startswith("mcp__") and len(query_lower) > 5:
        prefix_matches = [t.name for t in deferred_tools if t.name.lower().startswith(query_lower)]
        if prefix_matches:
            return prefix_matches[:max_results]

    query_terms = _js_split_whitespace(query_lower)
    required_terms: list[str] = []
    optional_terms: list[str] = []
    for term in query_terms:
        if term.startswith("+") and len(term) > 1:
            required_terms.append(term[1:])
        else:
            optional_terms.append(term)
    all_scoring_terms = [*required_terms, *optional_terms] if required_terms else query_terms

    candidates: list[SearchableTool] = list(deferred_tools)
    if required_terms:
        kept: list[SearchableTool] = []
        for tool in deferred_tools:
            parts, _full, _is_mcp = oracle_parse_tool_name(tool.name)
            desc = description_of(tool).lower()
            hint = (tool.search_hint or "").lower()
            if all(
                term in parts
                or any(term in part for part in parts)
                or _pattern(term).search(desc) is not None
                or (hint and _pattern(term).search(hint) is not None)
                for term in required_terms
            ):
                kept.append(tool)
        candidates = kept

    scored: list[tuple[str, int]] = []
    for tool in candidates:
        parts, full, is_mcp = oracle_parse_tool_name(tool.name)
        desc = description_of(tool).lower()
        hint = (tool.search_hint or "").lower()
        score = 0
        for term in all_scoring_terms:
            pattern = _pattern(term)
            if term in parts:
                score += 12 if is_mcp else 10
            elif any(term in part for part in parts):
                score += 6 if is_mcp else 5
            # Claude Code's "full name fallback". It can never fire: a term holds no space, so a
            # term inside ``full`` lies inside one part and the partial match above already
            # scored. Kept so that this oracle is the source, not our reading of it.
            if term in full and score == 0:
                score += 3
            if hint and pattern.search(hint) is not None:
                score += 4
            if pattern.search(desc) is not None:
                score += 2
        scored.append((tool.name, score))

    # Python's sort is stable, like Array.prototype.sort since ES2019: ties keep pool order.
    ranked = sorted((item for item in scored if item[1] > 0), key=lambda item: -item[1])
    return [name for name, _score in ranked[:max_results]]
