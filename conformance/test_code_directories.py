"""Protected files written by interpreter code after it changes its own directory (PERM-15).

``python3 -c 'import os; os.chdir(".git"); open("config", "a")'`` names no protected path, yet writes
``.git/config``: the code moved before it wrote. A program's working directory is state its code may
change (``os.chdir``, ``contextlib.chdir``, ``os.fchdir``, ``process.chdir``, Perl's ``chdir``) or hand
to a program it starts (``subprocess.run(..., cwd=D)``, child_process's ``{cwd}``). The line is
composed (the language x how its code moves x how it then writes x the protected file), run for
real in a bubblewrap sandbox, and kept only where the filesystem shows the protected file written;
in bypassPermissions the harness must ask, and not run it. Without bubblewrap these tests skip.
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

# Per language: the line (``{code}`` holds no single quote), how the code moves to ``{d}`` before
# ``{w}``, and how ``{w}`` writes the name ``{n}`` where it then is. Moves that start a program in
# ``{d}`` carry the write themselves (``{shell}``: shell text writing ``{n}``).
_LANGUAGES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "python": (
        "python3 -c '{code}'",
        (
            'import os; os.chdir("{d}"); {w}',
            'import os as o; o.chdir("{d}"); {w}',
            'from os import chdir; chdir("{d}"); {w}',
            'from os import chdir as cd; cd("{d}"); {w}',
            'import contextlib\nwith contextlib.chdir("{d}"):\n    {w}',
            'import os; move = os.chdir; move("{d}"); {w}',
            'import os; getattr(os, "chdir")("{d}"); {w}',
            'import os; os.fchdir(os.open("{d}", os.O_RDONLY)); {w}',
            'import os; [os.chdir(part) for part in "{d}".split("/")]; {w}',
            'import os; os.chdir("{d}" + ""); {w}',
            'exec("import os; os.chdir(\\"{d}\\")"); {w}',
            'import subprocess; subprocess.run("{shell}", shell=True, cwd="{d}")',
            'import subprocess as sp; sp.check_call(["sh", "-c", "{shell}"], cwd="{d}")',
            'import subprocess; options = {{"cwd": "{d}"}}; subprocess.run("{shell}", shell=True, **options)',
        ),
        (
            'open("{n}", "a").write("x")',
            'import pathlib; pathlib.Path("{n}").write_text("x")',
            'import os; os.system("{shell}")',
            'import subprocess; subprocess.run(["sh", "-c", "{shell}"])',
        ),
    ),
    "node": (
        "node -e '{code}'",
        (
            'process.chdir("{d}"); {w}',
            'process["chdir"]("{d}"); {w}',
            'const p = process; p.chdir("{d}"); {w}',
            'eval("process.chdir(\\"{d}\\")"); {w}',
            'require("child_process").execSync("{shell}", {{cwd: "{d}"}})',
            'const cwd = "{d}"; require("child_process").execSync("{shell}", {{cwd}})',
            'require("child_process").spawnSync("sh", ["-c", "{shell}"], {{"cwd": "{d}"}})',
        ),
        (
            'require("fs").appendFileSync("{n}", "x")',
            'require("fs").writeFileSync("{n}", "x")',
            'require("child_process").execSync("{shell}")',
        ),
    ),
    "perl": (
        "perl -e '{code}'",
        (
            'chdir "{d}"; {w}',
            "chdir q({d}); {w}",
            'CORE::chdir("{d}"); {w}',
            'chdir $_ for split m{{/}}, "{d}"; {w}',
        ),
        (
            'open(F, ">>", "{n}"); print F "x"; close F;',
            'system("{shell}");',
            "`{shell}`;",
        ),
    ),
}
_EXTENSIONS = {"python": "py", "node": "js", "perl": "pl"}


@st.composite
def _moving_lines(draw: st.DrawFn) -> tuple[str, str] | tuple[str, str, dict[str, str]]:
    """``(line, target[, files])``: code of a drawn language that moves into the target's directory, then writes it.

    Inline, or as the project's script file the interpreter is given (``files``).
    """
    # Only the interpreters installed here can judge (a skip would leave the others unchecked).
    installed = [name for name in sorted(_LANGUAGES) if shutil.which(_LANGUAGES[name][0].split()[0])]
    language = draw(st.sampled_from(installed), label="language")
    line, moves, writes = _LANGUAGES[language]
    target = draw(st.sampled_from(PROTECTED_TARGETS), label="target")
    directory, _, name = target.rpartition("/")
    shell = f"echo x >> {name}"
    move = draw(st.sampled_from(moves), label="move")
    write = draw(st.sampled_from(writes), label="write")
    code = move.format(d=directory, w=write.format(n=name, shell=shell), shell=shell)
    if draw(st.booleans(), label="script file"):
        # The same code as the project's script file the interpreter is given.
        name = f"w.{_EXTENSIONS[language]}"
        return f"{line.split()[0]} {name}", target, {name: code + "\n"}
    return line.format(code=code), target


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(case=_moving_lines())
@example(case=("""python3 -c 'import os; os.chdir(".git"); open("config", "a").write("x")'""", ".git/config"))
@example(
    case=(
        """python3 -c 'import subprocess; subprocess.run("echo x >> pre-commit", shell=True, cwd=".git/hooks")'""",
        ".git/hooks/pre-commit",
    )
)
@example(case=("""perl -e 'chdir q(.claude); open(F, ">>", "settings.json")'""", ".claude/settings.json"))
# A script file of the project does the same.
@example(case=("python3 w.py", ".git/config", {"w.py": 'import os\nos.chdir(".git")\nopen("config", "a")\n'}))
def test_a_protected_file_written_after_the_code_moves_asks(
    new_harness: Callable[[], Any], case: tuple[str, str] | tuple[str, str, dict[str, str]]
) -> None:
    """PERM-15: interpreter code that changes its directory (or starts a program elsewhere) and then writes a protected file asks in bypassPermissions.

    Composed: python, node or perl, inline or as the project's script file x a move (``chdir`` by each spelling, aliased, looked up by
    name, through a descriptor, built, evaluated; a ``cwd`` given to the program it starts) x a
    write (a file API, a shell command it runs) x the protected file; the interpreter, run in a
    sandbox, judges (a line that writes no protected file is discarded).
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    line, target, *files = case
    assert_protected_write_asks(new_harness(), line, target, " after its code moved", *files)
