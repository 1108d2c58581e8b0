"""Protected files written by programs whose use of their words the harness does not read (PERM-15).

``vim -es '+w .git/hooks/pre-commit'``, ``sqlite3 :memory: '.output .mcp.json'``, an ed or Tcl script on
standard input, a CMake script file, ``socat - OPEN:.git/config``: each program decides what its words
mean, and writes what one names. So do programs told where to write by the environment
(``GIT_TRACE=$PWD/.git/x git status``, ``TMPDIR=.git/hooks mktemp``), and ``xargs``, which gives its
command the words of its input. The line is composed (a writer of those kinds x how the path reaches
it x the protected file), run for real in a bubblewrap sandbox and kept only where the filesystem
shows the protected file written; in bypassPermissions the harness must ask. Writers whose program
is not installed are not drawn; without bubblewrap these tests skip.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import PROTECTED_TARGETS, assert_protected_write_asks
from pytest_toolharness.adapters import requires

# (program that must be installed, line writing ``{p}``; ``{d}``/``{n}``: its directory and name).
# ``{q}`` is the path as the program's own words spell it.
_WRITERS = (
    ("vim", "vim -es '+w {p}' '+q' /dev/null"),
    ("vim", "vim -es -c 'w {p}' -c q /dev/null"),
    ("ex", "ex -s -c 'w {p}' -c q /dev/null"),
    ("ed", "printf 'a\\nx\\n.\\nw {p}\\nq\\n' | ed -s"),
    ("ed", "ed -s <<'EOF'\na\nx\n.\nw {p}\nq\nEOF"),
    ("sqlite3", "sqlite3 :memory: '.output {p}' 'select 1;'"),
    ("sqlite3", "sqlite3 :memory: \"vacuum into '{p}'\""),
    ("sqlite3", "sqlite3 :memory: '.once {p}' 'select 2;'"),
    ("tclsh", "echo 'set f [open {p} w]; puts $f x; close $f' | tclsh"),
    ("cmake", "printf 'file(WRITE {p} x)\\n' > w.cmake && cmake -P w.cmake"),
    ("socat", "echo x | socat -u - OPEN:{p},creat"),
    ("gdb", "gdb -batch -nx -ex 'shell echo x > {p}'"),
    ("git", "GIT_TRACE=$PWD/{p} git status"),
    ("git", "GIT_TRACE2=$PWD/{p} git status"),
    ("mktemp", "TMPDIR={d} mktemp"),
    ("node", "NODE_V8_COVERAGE={d} node -e 1"),
    ("xargs", "echo {p} | xargs touch"),
    ("xargs", "printf '%s\\n' {p} > list && xargs -a list touch"),
    ("xargs", "echo {p} | xargs -I % sh -c 'echo x > %'"),
)


@st.composite
def _unread_writes(draw: st.DrawFn) -> tuple[str, str]:
    """``(line, target)``: an installed writer of the kinds above, given the protected file."""
    installed = [line for program, line in _WRITERS if shutil.which(program)]
    line = draw(st.sampled_from(installed), label="writer")
    target = draw(st.sampled_from(PROTECTED_TARGETS), label="target")
    directory = target.rpartition("/")[0] or "."
    return line.format(p=target, d=directory), target


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=30, deadline=None)
@given(case=_unread_writes())
@example(case=("echo .git/hooks/pre-commit | xargs touch", ".git/hooks/pre-commit"))
@example(case=("TMPDIR=.git/hooks mktemp", ".git/hooks"))
def test_a_protected_file_written_by_a_program_the_harness_does_not_read_asks(
    new_harness: Callable[[], Any], case: tuple[str, str]
) -> None:
    """PERM-15: a protected file written by a program from its own words, its input, a script file or the environment asks in bypassPermissions.

    Composed: an editor's, sqlite3's, Tcl's, CMake's, socat's or gdb's own commands naming the file,
    an environment variable telling git, mktemp or node where to write, ``xargs`` given it on its
    input x the protected file; the real program in a sandbox judges (a line that writes no
    protected file is discarded).
    """
    line, target = case
    assert_protected_write_asks(new_harness(), line, target, " by a program's own use of its words")
