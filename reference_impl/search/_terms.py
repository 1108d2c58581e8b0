r"""The seed's text rules for keyword search (000 §6.3): white space, tool-name parts, query terms.

JavaScript's white-space set (the seed runs in JS), a tool name cut into lowercase parts, a query
cut into terms (``+term`` is required), and the ASCII-only ```` of its word-boundary matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from reference_impl.tools import MCP_PREFIX

__all__ = [
    "JS_WHITESPACE",
    "ParsedToolName",
    "QueryTerms",
    "js_split_whitespace",
    "js_trim",
    "parse_query_terms",
    "parse_tool_name",
    "word_boundary_pattern",
]

JS_WHITESPACE: Final = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""ECMAScript's ``\\s`` (what the seed's ``trim()`` and ``split(/\\s+/)`` use), not ``str.isspace``."""

_JS_SPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")
_CAMEL = re.compile(r"([a-z])([A-Z])")


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
