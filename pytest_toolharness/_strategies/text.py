"""Text strategies' alphabet: every character UTF-8 can encode, cheap to build in a new process."""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["utf8_characters"]

# The same set as ``st.characters(codec="utf-8")``, the default alphabet of ``st.text()`` and
# ``st.from_regex``, but from the Unicode category tables: Hypothesis builds the codec's table by
# encoding all 1,114,112 code points, about 1.8 s in every new process (each xdist worker) unless a
# ``.hypothesis`` directory from an earlier run holds it, and the tables take a tenth of that.
_UTF8_CHARACTERS = st.characters(exclude_categories=["Cs"])


def utf8_characters() -> st.SearchStrategy[str]:
    """One character that UTF-8 encodes: any code point but a surrogate, what ``st.text()`` draws.

    Pass it as the alphabet of ``st.text`` and ``st.from_regex``: the same examples as their
    default, without its cost at the start of every process.
    """
    return _UTF8_CHARACTERS
