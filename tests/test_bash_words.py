"""The reader's word helpers against bash itself: globs, brace and tilde expansion; here-document delimiters.

``is_globby`` says whether bash may expand a word into something else (a glob, a brace expansion, a
tilde): when it says no, bash must give back the word's own value, one word, whatever the directory
holds (``failglob`` makes an unquoted pattern that matches nothing an error, so an empty directory
shows every pattern). ``heredoc_delimiter`` says which line ends a here-document: bash must end it
exactly there. Words are drawn from the characters that matter (quotes, backslashes, pattern and
brace characters, a tilde), so a quote's end, an escape's width and a piece after a quote are met.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._bash_words import heredoc_delimiter, is_globby

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="no bash on PATH: bash is the judge of these words")

_PIECES = st.sampled_from(
    ["a", "b", "E", "O", "*", "?", "[", "]", "{", "}", ",", "~", "\\", "'", '"', "-", "x"]
)
_WORDS = st.lists(_PIECES, min_size=1, max_size=8).map("".join)


@pytest.fixture(scope="module")
def empty_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory that stays empty: the commands only print."""
    return tmp_path_factory.mktemp("empty")


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert BASH is not None
    return subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent-home"},
    )


@settings(max_examples=300, deadline=None)
@given(word=_WORDS)
@example(word='"a"*')  # a pattern character after a double-quoted piece
@example(word="\\a*")  # after an escaped character
@example(word="'a'?")
def test_a_word_that_is_not_globby_is_its_own_value_to_bash(word: str, empty_dir: Path) -> None:
    """When ``is_globby`` says no, bash (``failglob``, an empty directory) expands the word to one word, unchanged.

    PERM-16: a command name bash may expand is asked about; a word taken as literal must be literal.
    """
    if is_globby(word):
        return
    plain = _bash(f"printf '<%s>' {word}", empty_dir)
    if plain.returncode != 0:
        return  # not one complete word to bash (a quote it closes elsewhere): nothing to compare
    globbing = _bash(f"shopt -s failglob; printf '<%s>' {word}", empty_dir)
    assert globbing.returncode == 0, (word, globbing.stderr)
    assert globbing.stdout.count("<") == 1, (word, globbing.stdout)
    assert not globbing.stdout.startswith("</nonexistent-home"), (word, globbing.stdout)


_DELIMITER_PIECES = st.sampled_from(["E", "O", "F", "x", "'", '"', "\\", "-", "_"])


@settings(max_examples=300, deadline=None)
@given(word=st.lists(_DELIMITER_PIECES, min_size=1, max_size=7).map("".join))
@example(word="\\EOF")
@example(word="'E'OF")
@example(word='E"O"F')
@example(word="E\\O'F'")
def test_a_here_documents_delimiter_is_where_bash_ends_it(word: str, empty_dir: Path) -> None:
    """``heredoc_delimiter(word)`` is the line that ends ``cat <<word``'s body for bash (None: not claimed).

    PERM-16/17: the reader reads the body's end where bash does, so no command hides in or after it.
    """
    delimiter = heredoc_delimiter(word)
    if delimiter is None or "\n" in delimiter:
        return
    done = _bash(f"cat << {word}\nbody\n{delimiter}\necho after", empty_dir)
    assert done.stdout == "body\nafter\n", (word, delimiter, done.stdout, done.stderr)
