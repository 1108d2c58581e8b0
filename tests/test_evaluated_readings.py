"""Text bash reads again as code, where the line shows none (PERM-17); bash judges.

Two readings of ``reference_impl.permissions._evaluated`` that session 37's red team found missing:
a declaration's value that is ``(...)`` once its quotes are gone, which bash reads again as an
array's elements when the variable is (or is made) an array, and a ``$`` the parser keeps literal at
the end of a brace expansion's alternative, which brace expansion joins to the text after the
braces (``{$,}{x@P}`` is ``${x@P}``). Each drawn line holds ``echo 101 >&2`` where bash may run it: when
bash prints ``101``, the reader must not list the line as plain commands (an opaque part: every deny
rule may apply to it, no allow rule does); when it does not, a line the reader can read stays
readable, so the reading does not ask about every declaration.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._bash_reader import split_command
from tests._bash_runs import bash_run

_BUILTINS = ("declare", "typeset", "export", "readonly", "local")
_FLAGS = ("", "-a", "-A", "-ag", "-ax", "-r", "-g", "-a --")
# The value as written: ``(...)`` once its quotes are gone, or not; code in it, or only words.
_VALUES = (
    "'(`echo 101 >&2`)'",
    "'($(echo 101 >&2))'",
    '"(\\$(echo 101 >&2))"',
    "'([1]=$(echo 101 >&2))'",
    "'( $(echo 101 >&2) )'",
    "'(a b)'",
    "'a b'",
    "'($(echo 101 >&2)) '",
    "'x($(echo 101 >&2))'",
)
# What comes before: nothing, an array already made, a scalar.
_BEFORE = ("", "x=(); ", "x=1; ", "x=(1); ")


def _printed(line: str, tmp_path_factory: pytest.TempPathFactory) -> bool:
    """Whether bash, running ``line`` in a scratch directory, prints ``101`` (to its error output: a
    substitution's output is the value it makes)."""
    return "101" in bash_run(line, tmp_path_factory).stderr.split()


def _opaque(line: str) -> bool:
    return any(part.argv == (None,) for part in split_command(line).parts)


@st.composite
def _declarations(draw: st.DrawFn) -> str:
    builtin = draw(st.sampled_from(_BUILTINS))
    flags = draw(st.sampled_from(_FLAGS))
    declaration = f"{builtin} {flags} x{draw(st.sampled_from(['=', '+=']))}{draw(st.sampled_from(_VALUES))}"
    line = draw(st.sampled_from(_BEFORE)) + " ".join(declaration.split(" ")).replace("  ", " ")
    # ``local`` only inside a function.
    return f"f() {{ {line}; }}; f" if builtin == "local" else line


@settings(max_examples=150, deadline=None)
@given(line=_declarations())
@example(line="declare -a x='(`echo 101 >&2`)'")
@example(line="x=(); declare x='($(echo 101 >&2))'")
@example(line="export -a x='($(echo 101 >&2))'")
@example(line="export x='($(echo 101 >&2))'")
@example(line="x=(); readonly x='($(echo 101 >&2))'")
def test_a_value_bash_reads_again_as_an_array_is_opaque(
    line: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """PERM-17: a declaration's ``(...)`` value bash expands as an array's elements makes the line opaque."""
    if _printed(line, tmp_path_factory):
        assert _opaque(line), (
            f"bash runs the code in {line!r}, yet the reader lists {split_command(line).parts}"
        )


@pytest.mark.parametrize(
    "line",
    [
        "declare x='(a b)'",
        "export x='($(echo 101 >&2))'",
        "x=(1); export x='($(echo 101 >&2))'",
        "declare -r x='(a)'",
        "typeset x='a b'",
    ],
)
def test_values_bash_keeps_as_data_stay_readable(line: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """PERM-17's other side: a value bash does not read again (no array, or ``export`` without ``-a``) is data."""
    assert not _printed(line, tmp_path_factory)
    assert not _opaque(line), split_command(line).problems


# A ``$`` bash's parser keeps literal where brace expansion may join it to what follows.
_BRACE_DOLLARS = (
    "{$,}",
    "{,$}",
    "{a,$}",
    "{a$,b}",
    '{"",$}',
    "{$,$}",
    "{{$,},}",
    "{\\$,}",
    "'{$,}'",
    '"{$,}"',
)
_AFTER = (
    ("x='$(echo 101 >&2)'", "{x@P}"),
    ("x='a[$(echo 101 >&2)]'", "[x]"),
    ("x='a[$(echo 101 >&2)]'; b=(1)", "{b[x]}"),
    ("x='a[$(echo 101 >&2)]'; y=yy", "{y:x}"),
    ("x=1", "{x}"),
)


@settings(max_examples=100, deadline=None)
@given(braces=st.sampled_from(_BRACE_DOLLARS), after=st.sampled_from(_AFTER), quoted=st.booleans())
def test_an_expansion_brace_expansion_makes_is_opaque(
    braces: str, after: tuple[str, str], quoted: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """PERM-17: where brace expansion joins a literal ``$`` to the text after the braces and bash runs code, the line is opaque."""
    setter, text = after
    line = f"{setter}; : {braces}{text}" if not quoted else f'{setter}; : "{braces}{text}"'
    if _printed(line, tmp_path_factory):
        assert _opaque(line), (
            f"bash runs the code in {line!r}, yet the reader lists {split_command(line).parts}"
        )


@pytest.mark.parametrize(
    "line", ["echo {a,b}$ foo", "echo 'cost: $5' {a,b}", "echo {a,b} $ {c,d}", "echo a$ {x}"]
)
def test_a_dollar_brace_expansion_cannot_join_stays_readable(line: str) -> None:
    """A literal ``$`` with nothing after the braces to join, or no braces before it, keeps the line readable."""
    assert not _opaque(line), split_command(line).problems


@pytest.mark.parametrize(
    "line",
    [
        "declare -a x='(`echo 101 >&2`)'",
        "x='$(echo 101 >&2)'; : {$,}{x@P}",
        "x=(); typeset x+='($(echo 101 >&2))'",
    ],
)
def test_the_red_teams_lines_run_and_are_opaque(line: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The judge sees bash run them (the properties above are not vacuous), and the reader does not list them."""
    assert _printed(line, tmp_path_factory)
    assert _opaque(line)
