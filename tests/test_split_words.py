"""Words the grammar splits where bash reads one: the reader fails closed (PERM-15, PERM-16)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl import PermissionContext, decide_permission
from reference_impl.permissions._bash_reader import split_command
from tests.test_rules import BASH

# tree-sitter-bash gives ``''\sub`` as two pieces (a raw string, then a word), bash one word; and it
# reads ``[c]d`` inside a group as a syntax error, taking the write after it along.
_SPLIT_TARGETS = [r"echo x > ''\sub/../.git/config", r"echo x >> ''\.git/config", r"printf x > ''\.bashrc"]
_UNREAD_WRITES = ["{ [x]y; echo x > .git/config; }", "touch cd; { [c]d .git && echo pwned > config; }"]


@pytest.mark.parametrize("line", _SPLIT_TARGETS)
def test_a_redirection_target_the_grammar_splits_is_a_write_only_known_when_it_runs(line: str) -> None:
    """The target bash writes is not the piece the grammar names: the write's target is unknown."""
    command = split_command(line)
    assert None in command.writes, (line, command.writes)
    assert not command.confident


@pytest.mark.parametrize("line", _SPLIT_TARGETS + _UNREAD_WRITES)
def test_a_protected_write_the_grammar_misreads_is_asked_in_bypass_mode(line: str, tmp_path: Path) -> None:
    """PERM-15: bypassPermissions never auto-allows a line whose writes the grammar could not read."""
    (tmp_path / "sub").mkdir()
    (tmp_path / ".git").mkdir()
    decision = decide_permission(
        BASH, {"command": line}, PermissionContext(mode="bypassPermissions", rules=(), cwd=tmp_path)
    )
    assert decision.behavior == "ask", (line, decision)


# Command words the grammar gives as pieces (no blank between them): bash reads each as one word.
_SPLIT_WORDS = {
    r"''\rm -rf x": ("rm", "-rf", "x"),
    r"cp a ''\.git/config": ("cp", "a", ".git/config"),
    "cp /etc/hostname ''\".git\"$'\\x2f\\x63'\"\"\\o\\n\\fig": ("cp", "/etc/hostname", ".git/config"),
    "tee -a ''$'\\x2e'bashrc": ("tee", "-a", ".bashrc"),
    "echo $(ls)''x": ("echo", None),
    # After a quoted piece the grammar gives an escaped ``$`` as an unnamed token, not a piece.
    "chmod ';;'\\$": ("chmod", ";;$"),
    "echo 'a'\\$ x": ("echo", "a$", "x"),
    'echo "a"\\$': ("echo", "a$"),
    "rm $\"\"';'": ("rm", ";"),  # ``$""`` (a locale string) before the piece, not a ``$``
}


@pytest.mark.parametrize(("line", "argv"), list(_SPLIT_WORDS.items()))
def test_pieces_with_nothing_between_them_are_one_word(line: str, argv: tuple[str | None, ...]) -> None:
    """The reader joins the pieces of a word as bash does (a piece only known at run time makes it so)."""
    assert split_command(line).parts[-1].argv == argv


@pytest.mark.parametrize(
    "line",
    [
        "cp /etc/hostname ''\".git\"$'\\x2f\\x63'\"\"\\o\\n\\fig",
        'echo pwned | tee -a "${UNSET:-.git/config}"',
        "echo pwned | tee -a .bashr?",
        'sort -o "$F" /etc/hostname',
        "sed 's/a/b/w .git/config' f",
    ],
)
def test_a_program_writing_a_word_only_known_at_run_time_is_asked_in_bypass_mode(
    line: str, tmp_path: Path
) -> None:
    """PERM-15: a program's output named by an expansion, a glob or its own script is no known safe path."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("", encoding="utf-8")
    (tmp_path / ".bashrc").write_text("", encoding="utf-8")
    decision = decide_permission(
        BASH, {"command": line}, PermissionContext(mode="bypassPermissions", rules=(), cwd=tmp_path)
    )
    assert decision.behavior == "ask", (line, decision)


# A word's pieces in each of bash's quotings (the texts hold no quote of their own kind).
_PIECE_TEXTS = st.text(alphabet="ab-.;$ x", max_size=3)


def _piece(text: str, how: str) -> str:
    if how == "plain":
        return "".join(c if c in "ab-.x" else f"\\{c}" for c in text)
    if how == "single":
        return f"'{text}'"
    if how == "double":
        return '"' + text.replace("$", "\\$") + '"'
    if how == "locale":
        return '$"' + text.replace("$", "\\$") + '"'
    return "$'" + text + "'"


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(
        st.lists(
            st.tuples(_PIECE_TEXTS, st.sampled_from(["plain", "single", "double", "locale", "ansi"])),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=3,
    )
)
@example(words=[[("-", "plain"), ("ab", "locale")]])
@example(words=[[("-", "plain"), ("", "locale")], [("x", "single")]])
@example(words=[[("-", "plain")], [("", "locale")]])
def test_a_word_of_quoted_pieces_is_read_as_bash_reads_it(words: list[list[tuple[str, str]]]) -> None:
    """PERM-16: each word the reader gives (None: known only at run time) is the word bash passes, judged by bash.

    Pieces in every quoting glued together, a locale string (``$"..."``) after a plain piece among them.
    """
    spelled = [("".join(_piece(text, how) for text, how in word)) or "''" for word in words]
    line = "printf '%s\\0' " + " ".join(spelled)
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", line], capture_output=True, timeout=10, check=True
    )
    passed = done.stdout.decode().split("\0")[:-1]
    command = split_command(line)
    if any(part.argv == (None,) for part in command.parts):
        # A word the grammar skips (``- $""``: no token holds the ``-``): the line is declared unread.
        assert not command.confident, (line, command)
        return
    read = command.parts[-1].argv[2:]
    assert len(read) == len(passed), (line, read, passed)
    for mine, bashs in zip(read, passed, strict=True):
        assert mine is None or mine == bashs, (line, read, passed)
