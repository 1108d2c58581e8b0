"""Deny rules on a program named only when bash runs it, in text a program the harness does not read hands to a shell (PERM-17).

``sqlite3 :memory: '.shell $(printf nu)ke'`` runs ``nuke``: sqlite3 hands the rest of its ``.shell``
line to ``sh``, which makes the name when it runs. No reading of the line's text finds ``nuke`` in
it, so an allow rule on sqlite3 can't vouch that the deny rule on ``nuke`` is not met. The line is
composed (a program that hands text to a shell: sqlite3's ``.shell``/``.system``, gdb's ``shell``,
vim's ``!``; inline, as its input, or from a file it is given x a spelling that makes the name when
it runs: a command substitution, backquotes, a default value, an empty variable inside the name),
run for real with a ``nuke`` on PATH that leaves a mark, and kept where the mark shows it ran; with
``Bash(nuke:*)`` denied and the program allowed, the harness must not run it unasked.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

# (program, its shell command's prefix, the line with ``{text}`` in single quotes or ``{file}``).
_CARRIERS = (
    ("sqlite3", ".shell ", "sqlite3 :memory: '{text}'"),
    ("sqlite3", ".system ", "sqlite3 :memory: '{text}'"),
    ("sqlite3", ".shell ", "sqlite3 :memory: <<< '{text}'"),
    ("sqlite3", ".system ", "sqlite3 -init {file} :memory: 'select 1;'"),
    ("sqlite3", ".shell ", "sqlite3 :memory: < {file}"),
    ("gdb", "shell ", "gdb -batch -nx -ex '{text}'"),
    ("gdb", "shell ", "gdb -batch -nx -x {file}"),
    ("vim", "!", "vim -es -N -u NONE -c '{text}' -c q"),
)
# ``nuke`` spelled so that the shell makes the name when it runs (none holds a single quote).
_BUILT = (
    "$(printf nu)ke",
    "`printf nu`ke",
    "${x:-nuke}",
    "n${x}uke",
    "$(echo ekun | rev)",
    '"$(printf nu)"ke',
)
_NUKE = "#!/bin/sh\necho ran > NUKED\n"


def _project(work: Path, text: str) -> None:
    (work / "t.cmd").write_text(text + "\n", encoding="utf-8")
    (work / "bin").mkdir()
    (work / "bin" / "nuke").write_text(_NUKE, encoding="utf-8")
    (work / "bin" / "nuke").chmod(0o755)


@st.composite
def _built_names(draw: st.DrawFn) -> tuple[str, str, str]:
    """``(program, line, file text)``: an installed program handed a shell command whose name bash builds."""
    installed = [carrier for carrier in _CARRIERS if shutil.which(carrier[0])]
    program, prefix, line = draw(st.sampled_from(installed), label="carrier")
    text = prefix + draw(st.sampled_from(_BUILT), label="name")
    return program, line.format(text=text, file="t.cmd"), text


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=20, deadline=None)
@given(case=_built_names())
@example(case=("sqlite3", "sqlite3 :memory: '.shell $(printf nu)ke'", ".shell $(printf nu)ke"))
@example(case=("sqlite3", "sqlite3 :memory: < t.cmd", ".shell ${x:-nuke}"))
def test_a_deny_holds_on_a_name_a_shell_builds_for_an_unread_program(
    new_harness: Callable[[], Any], case: tuple[str, str, str]
) -> None:
    """PERM-17: a program the harness does not read, allowed by a rule, does not vouch for a shell command whose name bash makes when it runs.

    Composed: sqlite3 (``.shell``, ``.system``; inline, input, ``-init``, ``< file``), gdb (``-ex``,
    ``-x``), vim (``-c '!...'``) x six ways bash makes ``nuke`` when it runs; the real program judges
    (``nuke`` leaves a mark; a line where it does not is discarded). ``Bash(nuke:*)`` denied, the program allowed.
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the judge needs bubblewrap (apt-get install bubblewrap)")
    program, line, text = case
    judged, work = fresh_dir(), fresh_dir()
    for place in (judged, work):
        _project(place, text)
    assume("NUKED" in ths.written_paths(f"export PATH=$PWD/bin:$PATH; {line}", judged, timeout=20.0))
    rules = [RuleSpec("Bash(nuke:*)", "deny"), RuleSpec(f"Bash({program}:*)", "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    assert run.ran() == 0, f"{line!r} runs nuke (it ran for real), yet ran unasked: {run.describe()}"
