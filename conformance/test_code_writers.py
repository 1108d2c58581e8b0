"""Protected files written by any standard-library function the code calls, not only those a list names (PERM-15).

``python3 -c 'import logging; logging.basicConfig(filename=".git/config")'`` and
``readline.write_history_file(".git/hooks/pre-commit")`` write protected files through functions
that no list of file-writing APIs typed in by hand holds. The writers are mined from the standard
library itself: every public function of a standard module whose signature takes one path-like
parameter and nothing else required, and a few composed idioms (an archive the code makes, then
extracts; a ``file://`` download), each kept only where Python, run in a bubblewrap sandbox,
actually writes the path given. The property draws a writer, how the code names it (imported, aliased,
from-imported) and how it passes the path (by keyword, by position), and the protected file; the
harness must ask in bypassPermissions. Without bubblewrap these tests skip.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import io
import shutil
import sys
import warnings
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import PROTECTED_TARGETS, assert_protected_write_asks
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires

# Modules that open windows, browsers or start servers when imported or called.
_UNSAFE = frozenset(
    {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "webbrowser", "pydoc"}
)
_PATH_PARAMETERS = frozenset(
    {
        "path",
        "file",
        "filename",
        "dst",
        "dest",
        "target",
        "outfile",
        "fname",
        "logfile",
        "filepath",
        "file_name",
    }
)
# Composed idioms ``{p}``: the protected file; ``{d}``, ``{n}``: its directory and name. The code
# makes what the call needs first (an archive holding ``{n}``, a file to download).
_IDIOMS = (
    'import tarfile, io; t = tarfile.open("a.tar", "w"); i = tarfile.TarInfo("{n}"); i.size = 1; '
    't.addfile(i, io.BytesIO(b"x")); t.close(); tarfile.open("a.tar").extractall("{d}")',
    'import zipfile; z = zipfile.ZipFile("a.zip", "w"); z.writestr("{n}", "x"); z.close(); '
    'zipfile.ZipFile("a.zip").extractall("{d}")',
    'import zipfile, shutil; z = zipfile.ZipFile("a.zip", "w"); z.writestr("{n}", "x"); z.close(); '
    'shutil.unpack_archive("a.zip", "{d}")',
    'import urllib.request; open("a", "w").write("x"); '
    'urllib.request.urlretrieve("file://" + __import__("os").path.abspath("a"), "{p}")',
)
# node's functions outside its fs module that write a file named to them.
_PREAMBLES = {
    "python3": ("", 'import os; os.system("true"); ', 'import subprocess; subprocess.run(["true"]); '),
    "node": ("", 'require("child_process").execSync("true"); ', 'const n = "os"; require(n); '),
    "perl": ("", "`true`; ", 'system("true"); ', "qx(true); "),
}
_PERL_IDIOMS = ('open(my $f, ">", "{p}")', 'open(F, ">>{p}")')
_NODE_IDIOMS = ('process.report.writeReport("{p}")', 'require("v8").writeHeapSnapshot("{p}")')
# A tree the project holds (``tmpl/`` with the protected file in it) copied into the project's root:
# no word of the code names the protected file.
_TREE_COPIES = (
    ("python3", 'import shutil; shutil.copytree("tmpl", ".", dirs_exist_ok=True)'),
    ("python3", 'import shutil; shutil.copytree("tmpl/", "./", dirs_exist_ok=True)'),
    ("node", 'require("fs").cpSync("tmpl", ".", {{recursive: true}})'),
    # The project's archive holding the protected file, extracted where no word says: the working directory.
    ("python3", 'import zipfile; zipfile.ZipFile("a.zip").extractall()'),
    ("python3", 'import shutil; shutil.unpack_archive("a.zip")'),
    ("python3", 'import zipfile; z = zipfile.ZipFile("a.zip"); [z.extract(m) for m in z.namelist()]'),
)


def _candidates() -> list[tuple[str, str, str]]:
    """``(module, function, parameter)``: public standard functions taking one path and nothing else required.

    ``parameter`` is the path's keyword ("" when it is positional-only).
    """
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module_name in sorted(sys.stdlib_module_names):
            if module_name.startswith("_") or module_name in _UNSAFE:
                continue
            try:
                module = importlib.import_module(module_name)
            except Exception:  # a module this platform lacks, or one failing to import here
                continue
            for name in sorted(getattr(module, "__all__", None) or dir(module)):
                function = getattr(module, name, None)
                if name.startswith("_") or not (inspect.isfunction(function) or inspect.isbuiltin(function)):
                    continue
                try:
                    parameters = list(inspect.signature(function).parameters.values())
                except (TypeError, ValueError):
                    continue
                paths = [p for p in parameters if p.name in _PATH_PARAMETERS]
                required = [
                    p
                    for p in parameters
                    if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                ]
                if len(paths) == 1 and all(p is paths[0] for p in required):
                    # A positional-only parameter has no keyword: it is given by position ("").
                    found.append(
                        (
                            module_name,
                            name,
                            "" if paths[0].kind == paths[0].POSITIONAL_ONLY else paths[0].name,
                        )
                    )
    return found


@functools.cache
def _writers() -> tuple[tuple[str, str, str], ...]:
    """The candidates that Python, run for real, makes write the file given; idioms as ``("", idiom, interpreter)``."""
    kept = []
    probe = ".git/hooks/pre-commit"
    for module, function, parameter in _candidates():
        given = f'{parameter}="{probe}"' if parameter else f'"{probe}"'
        line = f"python3 -c 'import {module}; {module}.{function}({given})'"
        work = fresh_dir()
        (work / ".git" / "hooks").mkdir(parents=True)
        if probe in ths.written_paths(line, work, timeout=5.0):
            kept.append((module, function, parameter))
    kept += [("", idiom, "python3") for idiom in _IDIOMS]
    if shutil.which("node"):
        kept += [("", idiom, "node") for idiom in _NODE_IDIOMS]
    if shutil.which("perl"):
        kept += [("", idiom, "perl") for idiom in _PERL_IDIOMS]
    return tuple(kept)


@st.composite
def _writing_lines(draw: st.DrawFn) -> tuple[str, str]:
    """``(line, target)``: Python code calling a mined writer, named and given the path in a drawn spelling."""
    target = draw(st.sampled_from(PROTECTED_TARGETS), label="target")
    directory, _, name = target.rpartition("/")
    module, function, parameter = draw(st.sampled_from(_writers()), label="writer")
    interpreter = parameter if not module else "python3"
    # Statements before the write that the reader takes specially (a command the code runs, a module
    # named only when it runs): the write after them is read all the same.
    preamble = draw(st.sampled_from(_PREAMBLES.get(interpreter, _PREAMBLES["python3"])), label="before")
    if not module:
        code = function.format(p=target, d=directory, n=name)
        if parameter in ("node", "perl"):
            return f"{parameter} -e '{preamble}{code}'", target
    else:
        keyword = [f'{parameter}="{target}"'] if parameter else []
        argument = draw(st.sampled_from([*keyword, f'"{target}"']), label="argument")
        code = draw(
            st.sampled_from(
                [
                    f"import {module}; {module}.{function}({argument})",
                    f"import {module} as m; m.{function}({argument})",
                    f"from {module} import {function}; {function}({argument})",
                    f"from {module} import {function} as w; w({argument})",
                    f'import os; os.chdir("{directory}"); import {module}; {module}.{function}("{name}")',
                ]
            ),
            label="spelling",
        )
    return f"python3 -c '{preamble}{code}'", target


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=30, deadline=None)
@given(case=_writing_lines())
@example(
    case=(
        """python3 -c 'import logging; logging.basicConfig(filename=".git/config"); logging.error(1)'""",
        ".git/config",
    )
)
# A sample of session 39: perl's reading stopped at a backquoted command, so the write after it went unread.
@example(case=("""perl -e '`true`; open(F, ">>.git/hooks/pre-commit")'""", ".git/hooks/pre-commit"))
def test_a_protected_file_written_by_any_standard_function_asks(
    new_harness: Callable[[], Any], case: tuple[str, str]
) -> None:
    """PERM-15: code that writes a protected file through a standard-library function no list names asks in bypassPermissions.

    Drawn: a writer mined from the standard library (a function taking one path, kept where Python
    writes it for real; an archive extracted, a ``file://`` download) x statements before it that run a
    command or load a module named at run time x how the code names it x how
    it passes the path (keyword, position, relative after ``os.chdir``) x the protected file; Python
    in a sandbox judges (a line that writes no protected file is discarded).
    """
    line, target = case
    assert_protected_write_asks(new_harness(), line, target, " through a standard function")


@st.composite
def _tree_copies(draw: st.DrawFn) -> tuple[str, str]:
    """``(line, target)``: code copying the project's ``tmpl/`` tree (or extracting its ``a.zip``), which holds the protected file, into its root."""
    installed = [(program, code) for program, code in _TREE_COPIES if shutil.which(program)]
    program, code = draw(st.sampled_from(installed), label="copy")
    target = draw(st.sampled_from(PROTECTED_TARGETS), label="target")
    flag = "-c" if program == "python3" else "-e"
    return f"{program} {flag} '{code.format()}'", target


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=12, deadline=None)
@given(case=_tree_copies())
def test_a_protected_file_copied_in_with_a_tree_asks(
    new_harness: Callable[[], Any], case: tuple[str, str]
) -> None:
    """PERM-15: code copying a tree that holds a protected file into the project's root asks in bypassPermissions.

    No word of the code names the file: the project's ``tmpl/`` (or ``a.zip``) holds it, and
    ``shutil.copytree`` or node's ``cpSync`` copies it over the root's (which holds ``.git``), or an
    extraction given no destination writes it into the working directory. Python or node in a sandbox
    judges (a line that writes no protected file is discarded).
    """
    line, target = case
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as made:
        made.writestr(target, "planted\n")
    files: dict[str, str | bytes] = {f"tmpl/{target}": "planted\n", "a.zip": archive.getvalue()}
    assert_protected_write_asks(new_harness(), line, target, " by copying a tree into the root", files)
