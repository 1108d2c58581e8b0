"""Deny rules on what a program runs from a file it is given, where the harness does not read the program (PERM-17).

``sqlite3 -init i.sql`` runs i.sql's ``.system nuke``; ``gdb -x g`` its ``shell nuke``; ``ssh -F cfg``
its ``ProxyCommand nuke``; ``sqlite3 db < s.sql`` its input; ``gcc @opts`` a ``-wrapper nuke`` in the options file, ``gcc -specs=s`` a
linker the specs name. An allow rule on the program is trust in the program, not in every file it
may be handed: a deny rule on what the file runs must still be asked about. The line is composed
(an installed program x the way it is given the file x the file's spelling), run for real with a
``nuke`` on PATH that leaves a mark, and kept where the mark shows ``nuke`` ran; the harness, with
``Bash(nuke:*)`` denied and the program allowed, must not run the line unasked.
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

# (program, the file it is given, what the file holds, the line; ``{f}`` spells the file's name).
_LOADS = (
    ("sqlite3", "i.sql", ".system nuke\n", "sqlite3 -init {f} :memory: 'select 1;'"),
    ("sqlite3", "s.sql", ".shell nuke\n", "sqlite3 :memory: '.read {f}'"),
    ("sqlite3", "s.sql", ".system nuke\n", "sqlite3 :memory: < {f}"),
    ("gdb", "g.gdb", "shell nuke\n", "gdb -batch -nx -x {f}"),
    ("gdb", "g.gdb", "shell nuke\n", "gdb -batch -nx --command={f}"),
    ("ssh", "sc", "Host x\n  ProxyCommand nuke\n", "ssh -F {f} -o BatchMode=yes x true"),
    ("gcc", "opts", "-wrapper nuke\n", "gcc @{f} -c m.c"),
    ("gcc", "s.specs", "*linker:\nnuke\n", "gcc -specs={f} m.c -o m"),
)
_SOURCE = "int main(void) { return 0; }\n"
_NUKE = "#!/bin/sh\necho ran > NUKED\n"


def _project(work: Path, name: str, text: str) -> None:
    (work / name).write_text(text, encoding="utf-8")
    (work / "m.c").write_text(_SOURCE, encoding="utf-8")
    (work / "bin").mkdir()
    (work / "bin" / "nuke").write_text(_NUKE, encoding="utf-8")
    (work / "bin" / "nuke").chmod(0o755)


@st.composite
def _file_loads(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """``(program, file, text, line)``: an installed program given a file that runs ``nuke``."""
    installed = [load for load in _LOADS if shutil.which(load[0])]
    program, name, text, line = draw(st.sampled_from(installed), label="load")
    spelled = draw(st.sampled_from([name, f"./{name}"]), label="spelling")
    return program, name, text, line.format(f=spelled)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=20, deadline=None)
@given(case=_file_loads())
@example(case=("sqlite3", "i.sql", ".system nuke\n", "sqlite3 -init i.sql :memory: 'select 1;'"))
def test_a_deny_on_what_a_file_given_to_an_unread_program_runs_holds(
    new_harness: Callable[[], Any], case: tuple[str, str, str, str]
) -> None:
    """PERM-17: a program the harness does not read, allowed by a rule naming it, is not trusted with a file it is given that runs a denied program.

    Composed: sqlite3 (``-init``, ``.read``, ``< file``), gdb (``-x``, ``--command=``), ssh (``-F``), gcc
    (``@file``, ``-specs=``) x the file's spelling; the real program judges (it runs ``nuke``, which
    leaves a mark; a line where it does not is discarded). ``Bash(nuke:*)`` denied, the program allowed.
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the judge needs bubblewrap (apt-get install bubblewrap)")
    program, name, text, line = case
    judged, work = fresh_dir(), fresh_dir()
    for place in (judged, work):
        _project(place, name, text)
    assume("NUKED" in ths.written_paths(f"export PATH=$PWD/bin:$PATH; {line}", judged, timeout=20.0))
    rules = [RuleSpec("Bash(nuke:*)", "deny"), RuleSpec(f"Bash({program}:*)", "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    assert run.ran() == 0, (
        f"{line!r} runs nuke from {name} (it ran for real), yet ran unasked: {run.describe()}"
    )
