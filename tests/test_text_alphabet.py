"""The suite's text strategies never use Hypothesis's default alphabet (``codec="utf-8"``).

That alphabet costs about 1.8 s in each new process (Hypothesis encodes every code point), so in
a fresh checkout both xdist workers paid it; :func:`ths.utf8_characters` is the same set, built
from the Unicode tables.
"""

from __future__ import annotations

import ast
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from pytest_toolharness import strategies as ths

_ROOT = Path(__file__).resolve().parent.parent
_SOURCES = sorted([*(_ROOT / "conformance").rglob("*.py"), *(_ROOT / "pytest_toolharness").rglob("*.py")])


def _least(strategy: st.SearchStrategy[str], at_least: int) -> int:
    """The smallest code point at or above ``at_least`` that ``strategy`` draws (Hypothesis shrinks to it)."""
    found = find(strategy, lambda c: ord(c) >= at_least, settings=settings(max_examples=5000, database=None))
    return ord(found)


def test_utf8_characters_are_every_code_point_but_the_surrogates() -> None:
    """Up to the surrogates, across them (the next one drawn is U+E000), and beyond the BMP."""
    assert _least(ths.utf8_characters(), 0xD7FF) == 0xD7FF
    assert _least(ths.utf8_characters(), 0xD800) == 0xE000
    assert _least(ths.utf8_characters(), 0x10000) == 0x10000
    assert _least(st.characters(), 0xD800) == 0xD800, "the check can tell an alphabet with surrogates"
    # Python's own tables and codec: category Cs is exactly what UTF-8 can't encode.
    cs = [i for i in range(sys.maxunicode + 1) if unicodedata.category(chr(i)) == "Cs"]
    assert cs == list(range(0xD800, 0xE000))
    with pytest.raises(UnicodeEncodeError):
        chr(0xD800).encode("utf-8")


@given(ths.utf8_characters())
def test_every_utf8_character_round_trips(character: str) -> None:
    assert character.encode("utf-8").decode("utf-8") == character


def _called_name(call: ast.Call) -> str:
    function = call.func
    return function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")


def _default_alphabet_calls(source: Path) -> list[str]:
    """``text(...)`` without an alphabet, ``from_regex(...)`` without ``alphabet=``, ``characters(codec=...)``."""
    found = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name, keywords = _called_name(node), {keyword.arg for keyword in node.keywords}
        if (
            (name == "text" and not node.args and "alphabet" not in keywords)
            or (name == "from_regex" and "alphabet" not in keywords)
            or (name == "characters" and "codec" in keywords)
        ):
            label = source.relative_to(_ROOT) if source.is_relative_to(_ROOT) else source.name
            found.append(f"{label}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_the_scan_sees_a_default_alphabet(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "st.text(max_size=3)\nst.from_regex('a+')\nst.characters(codec='ascii')\nst.text('ab')\n"
    )
    assert [line.split(":")[1] for line in _default_alphabet_calls(sample)] == ["1", "2", "3"]


def test_no_strategy_of_the_suite_uses_the_default_alphabet() -> None:
    assert len(_SOURCES) > 50, "the scan found too few sources to mean anything"
    found = [call for source in _SOURCES for call in _default_alphabet_calls(source)]
    assert found == [], "pass alphabet=ths.utf8_characters() (or a narrower one)"


def test_a_pattern_draws_with_the_alphabet() -> None:
    strategy = st.from_regex(r"[a-z]{2,4}", fullmatch=True, alphabet=ths.utf8_characters())

    @given(strategy)
    def check(word: str) -> None:
        assert 2 <= len(word) <= 4
        assert word.isascii()
        assert word.islower()

    check()
