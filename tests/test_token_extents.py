"""Where bash ends a token, as ``reference_impl.permissions._token_extents`` finds it (PERM-16, PERM-17); bash judges.

Composed lines of ``${...}`` expansions (patterns holding braces, quotes, escapes, ``$'...'`` and
nested expansions, quoted or not) and here-documents (body lines ending in none to four
backslashes, the delimiter quoted or not), each followed by ``echo N >&2`` commands. Bash's error
output says which of those commands it ran (a here-document's body goes to the standard output,
so a command held in a body is never counted). The reader must list every one bash runs or make
the line opaque, and, where it reads the line (no opaque part), list exactly those: a check that
ends a token elsewhere than bash is caught in both directions.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._bash_reader import split_command
from tests._bash_runs import bash_run

_PATTERN_PIECES = ("a", "{", "}", "'}'", '"}"', "\\}", "$'}'", "${y}", "${y:-}", "$'\\\\'", "${y:-${z}}", "'")
_OPERATORS = ("#", "%", ":-", "/", "-")


@st.composite
def _expansion_lines(draw: st.DrawFn) -> str:
    pattern = "".join(draw(st.lists(st.sampled_from(_PATTERN_PIECES), min_size=1, max_size=3)))
    word = "${x" + draw(st.sampled_from(_OPERATORS)) + pattern + "}"
    if draw(st.booleans()):
        word = f'"{word}"'
    tail = draw(st.sampled_from(["", " #'", ' #"', " #}"]))
    return f": {word}; echo 101 >&2; echo 102 >&2{tail}"


@st.composite
def _here_document_lines(draw: st.DrawFn) -> str:
    delimiter = draw(st.sampled_from(["EOF", "'EOF'", "\\EOF", '"EOF"']))
    backslashes = "\\" * draw(st.integers(min_value=0, max_value=4))
    body = draw(st.sampled_from(["a", "", " ", "$y", "\\"])) + backslashes
    return f"cat <<{delimiter}\n{body}\nEOF\necho 101 >&2\nEOF\necho 102 >&2"


def _ran(line: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[set[str], bool]:
    r"""The numbers of the ``echo N >&2`` commands bash runs of ``line``, and whether bash refused some of it.

    A syntax error (a quote that never closes: ``${x#{'}}``) keeps bash from running the command it
    is in, which the reader may still list (it lists more, never less); a failed expansion (``bad
    substitution``: ``"${x:-$'\\'}"`` becomes ``${x:-\}`` once the ``$'...'`` is read) ends the
    line when it runs, only known then.
    """
    done = bash_run(line, tmp_path_factory)
    ran = {word for word in done.stderr.split() if word in ("101", "102")}
    return ran, any(error in done.stderr for error in ("bad substitution", "syntax error", "unexpected EOF"))


def _listed(line: str) -> tuple[set[str], bool]:
    """The numbers of the ``echo N`` commands the reader lists, and whether the line has an opaque part."""
    parts = split_command(line).parts
    listed = {
        p.argv[1] for p in parts if len(p.argv) == 2 and p.argv[0] == "echo" and p.argv[1] in ("101", "102")
    }
    return listed, any(part.argv == (None,) for part in parts)


@settings(max_examples=300, deadline=None)
@given(line=st.one_of(_expansion_lines(), _here_document_lines()))
@example(line=": ${x#'}'}; echo 101 >&2; echo 102 >&2")
@example(line=": ${x:-${y:-${z}}}; echo 101 >&2; echo 102 >&2")
@example(line="cat <<EOF\na\\\\\\\nEOF\necho 101 >&2\nEOF\necho 102 >&2")
def test_the_reader_ends_tokens_where_bash_does(line: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """PERM-17: every command bash runs is listed or the line is opaque; a line read without doubt lists exactly what bash runs."""
    ran, failed = _ran(line, tmp_path_factory)
    listed, opaque = _listed(line)
    if opaque:
        return  # every deny rule may apply to it, and no allow rule does
    assert ran <= listed, f"bash runs {sorted(ran)} of {line!r}; the reader lists only {sorted(listed)}"
    if not failed:
        assert listed == ran, f"bash runs {sorted(ran)} of {line!r}; the reader lists {sorted(listed)}"


@pytest.mark.parametrize(
    "line",
    [
        ": ${x#'}'}; echo 101 >&2",
        ": ${a:-${b}}; echo 101 >&2",
        ': "${a:-${b:-c}}"; echo 101 >&2',
        ": ${a:-${b:-${c}}} ${d:-${e}}; echo 101 >&2",
        "cat <<EOF\na\\\\\nEOF\necho 101 >&2",
    ],
)
def test_tokens_bash_and_the_grammar_end_alike_keep_the_line_readable(
    line: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """PERM-16: nested expansions, quoted braces in a pattern, an escaped backslash before a body's newline: read, not opaque."""
    assert _ran(line, tmp_path_factory) == ({"101"}, False)
    assert _listed(line) == ({"101"}, False), split_command(line).problems


def test_an_unclosed_expansion_in_a_long_line_is_answered() -> None:
    """A ``${`` bash never closes, far into a long line: the scan ends at the line's end (PERM-14)."""
    line = ": ${x#\\}" + " a" * 300
    assert split_command(line).parts
