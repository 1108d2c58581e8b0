"""Deny rules against the code a Python program resolves by its own search rules (PERM-17, PERM-15).

A Python program's code is not its script's text alone: Python finds every module it imports (the
standard library's own imports too: ``import subprocess`` imports ``threading``) in the script's
directory first, loads bytecode without its source, runs a cached ``__pycache__`` file whose header
fits the source whatever code it holds, runs a zip whatever text comes before it; pytest runs the
examples of its doctest files, and loads its own assertion-rewrite cache of a test module or a conftest
by the header alone. Each case plants such code running a denied program (a marker writer
on ``PATH``), asks the harness to run an everyday Python line under an allow rule for it, and, when
the harness runs it unasked, runs the line for real: the denied program must not have run. Real
``python3`` is the judge: a drawn case that does not run the denied program is no attempt.

Python's startup code (a site directory's ``.pth`` files and modules, ``sitecustomize``,
``usercustomize``) is guarded from the other side: writing it asks, however the path is spelled.
"""

from __future__ import annotations

import importlib.util
import io
import json
import marshal
import os
import py_compile
import shlex
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conformance._controls import run_for_real
from conformance._python_carriers import pythonpath_zip, standard_library_carrier
from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import host_answering, run_calls, shell_tool
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import PERMISSION_MODES, RuleSpec

_DENIED = "nuke"
_TAG = sys.implementation.cache_tag

# A module the script imports, and a module Python then looks for: itself, or one the standard
# library imports in turn (found in the script's directory before the standard library's).
_IMPORTS = (
    ("import helper", "helper"),
    ("import subprocess", "threading"),
    ("import subprocess", "signal"),
    ("import tempfile", "random"),
    ("import tempfile", "shutil"),
    ("import shutil", "fnmatch"),
    ("import logging", "traceback"),
    ("import logging", "string"),
    ("import argparse", "gettext"),
    ("import json", "json"),
    ("import csv", "csv"),
    ("from urllib import parse", "urllib"),
)
# Where the module is: a name of _IMPORTS beside the script, a module of a namespace directory (no
# ``__init__``), or of a namespace directory inside a regular package.
_LAYOUTS = {
    "beside the script": None,
    "in a namespace directory": ("import pkg.tool", "pkg"),
    "in a namespace directory inside a package": ("import pkg.sub.tool", "pkg.sub"),
}
# How the script spells its import statement: alone on its line, after another statement, as a
# one-line block's body, continued on the next line.
_SPELLINGS = ("{}", "x = 1; {}", "if True: {}", "continued")

# Files beside the program's modules that Python never loads: a dotfile, names no import can spell (sorted
# before the modules), a stray file and the cache of a module since deleted in ``__pycache__``.
_IGNORED = (".env", "0_notes.txt", "README-dev.md", "__pycache__/NOTES", f"__pycache__/gone.{_TAG}.pyc")


@dataclass
class PythonCase:
    """Files a Python program resolves, the line that runs it, and what carries the denied program."""

    files: dict[str, str | bytes]
    line: str
    how: str
    compiled: list[tuple[str, str, str]] = field(default_factory=list)
    """(module source path, its cached bytecode's path, the invalidation) to compile after the files."""
    evil: str = ""
    """The code a cache holds instead of its source's."""
    pytest_caches: list[tuple[str, str]] = field(default_factory=list)
    """(module source path, what pytest's assertion-rewrite cache of it holds) to make after the files."""


def _evil(data: st.DataObject, bin_dir: str) -> str:
    inner = data.draw(
        st.sampled_from([_DENIED, f"{_DENIED} --all", f"{bin_dir}/{_DENIED}", f"'{_DENIED}'"]),
        label="denied program spelled",
    )
    call = data.draw(
        st.sampled_from(
            [
                f"os.system({inner!r})",
                f"os.system({inner[:2]!r} + {inner[2:]!r})",
                f"__import__('subprocess').run({inner!r}, shell=True)",
            ]
        ),
        label="how the code runs it",
    )
    return f"import os\n{call}\n"


def _module_files(name: str, code: str | bytes, package: bool) -> dict[str, str | bytes]:
    """The module ``name`` as a file, or as a package (its ``__init__``; ``pkg`` with its ``tool``).

    ``pkg.sub``: a namespace directory inside the regular package ``pkg``, holding ``tool``.
    """
    if name == "pkg":
        return {"pkg/__init__.py": code, "pkg/tool.py": ""} if package else {"pkg/tool.py": code}
    if name == "pkg.sub":
        return {"pkg/__init__.py": "", f"pkg/sub/tool{'/__init__' if package else ''}.py": code}
    return {f"{name}/__init__.py": code} if package else {f"{name}.py": code}


def _module_path(name: str) -> tuple[str, dict[str, str | bytes]]:
    """Where the module Python finds for ``name`` is, without its suffix, and the package files around it."""
    if name == "pkg.sub":
        return "pkg/sub/tool", {"pkg/__init__.py": ""}
    return ("pkg/tool" if name == "pkg" else name), {}


def _bytecode(source: str) -> bytes:
    """The bytecode Python caches for ``source``, in a sourceless ``.pyc``'s layout (timestamp header)."""
    work = fresh_dir()
    work.mkdir(parents=True, exist_ok=True)
    (work / "m.py").write_text(source)
    py_compile.compile(str(work / "m.py"), cfile=str(work / "m.pyc"), doraise=True)
    return (work / "m.pyc").read_bytes()


def _resolved(data: st.DataObject, evil: str) -> PythonCase:
    """A script whose import Python resolves to code beside it: a module, bytecode, a stale cache."""
    layout = _LAYOUTS[data.draw(st.sampled_from(sorted(_LAYOUTS)), label="where the module is")]
    statement, name = layout or data.draw(
        st.sampled_from(_IMPORTS), label="import, and the module Python finds"
    )
    spelling = data.draw(st.sampled_from(_SPELLINGS), label="the import spelled")
    statement = (
        statement.replace(" ", " \\\n    ", 1) if spelling == "continued" else spelling.format(statement)
    )
    how = data.draw(
        st.sampled_from(["module", "package", "bytecode without source", "stale cache"]),
        label="what Python loads",
    )
    files: dict[str, str | bytes] = {}
    compiled: list[tuple[str, str, str]] = []
    module, around = _module_path(name)
    if how in ("module", "package"):
        files.update(_module_files(name, evil, how == "package" or name == "urllib"))
    elif how == "bytecode without source":
        files.update({**around, f"{module}.pyc": _bytecode(evil)})
    else:
        source = f"{module}.py"
        # Python runs a cache whose header fits without compiling its source: one that parses but does
        # not compile (a ``return`` left outside its function mid-edit) does not stop it.
        text = data.draw(st.sampled_from(["VALUE = 1\n", "VALUE = 1\nreturn VALUE\n"]), label="source")
        files.update({**around, source: text})
        invalidation = data.draw(
            st.sampled_from(["unchecked hash", "checked hash of the source", "timestamp of the source"]),
            label="cache invalidation",
        )
        folder, _, stem = source.rpartition("/")
        cache = f"{folder + '/' if folder else ''}__pycache__/{stem[:-3]}.{_TAG}.pyc"
        compiled.append((source, cache, invalidation))  # its code: ``evil``
    for ignored in data.draw(st.lists(st.sampled_from(_IGNORED), unique=True), label="files Python ignores"):
        # Beside the module Python loads (a nested module's directory too), in the listing's order first.
        folder = module.rpartition("/")[0]
        files[f"{folder + '/' if folder else ''}{ignored}"] = b"\0" if ignored.endswith(".pyc") else "x\n"
    # Where the script is and how the line runs it: sys.path[0] is its real directory, or the cwd.
    where = data.draw(
        st.sampled_from(["beside", "by its path", "symlinked", "after cd", "-m", "-c", "options first"]),
        label="how the line runs it",
    )
    script = f"{statement}\n"
    if where in ("by its path", "after cd"):
        files = {f"tools/{k}": v for k, v in files.items()}
        compiled = [(f"tools/{s}", f"tools/{c}", i) for s, c, i in compiled]
        files["tools/run.py"] = script
        line = "python3 tools/run.py" if where == "by its path" else "cd tools && python3 run.py"
    elif where == "symlinked":
        files = {f"real/{k}": v for k, v in files.items()}
        compiled = [(f"real/{s}", f"real/{c}", i) for s, c, i in compiled]
        files["real/run.py"] = script
        files["run.py"] = "->real/run.py"  # a symbolic link
        line = "python3 run.py"
    elif where == "-m":
        files["run.py"] = script
        line = "python3 -m run"
    elif where == "-c":
        line = f"python3 -c {shlex.quote(statement)}"
    else:
        files["run.py"] = script
        line = "python3 -B -u run.py" if where == "options first" else "python3 run.py"
    return PythonCase(files, line, f"{how} for {name!r} ({statement}), {where}", compiled, evil)


def _zip_script(data: st.DataObject, evil: str) -> PythonCase:
    """A script that is a zip archive, text before it or not: Python runs the archive's ``__main__``."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("__main__.py", evil)
    prefix = data.draw(
        st.sampled_from([b"", b"print('hello')\n", b"#!/usr/bin/env python3\n"]), label="text before"
    )
    name = data.draw(st.sampled_from(["app.pyz", "app.py", "app"]), label="script name")
    return PythonCase({name: prefix + archive.getvalue()}, f"python3 {name}", f"a zip archive as {name}")


def _doctests(data: st.DataObject, evil: str) -> PythonCase:
    """Doctest examples pytest runs: its text files (``test*.txt``, ``--doctest-glob``), module docstrings."""
    example = "".join(f">>> {line}\n" for line in evil.splitlines()) + "0\n"
    shape = data.draw(
        st.sampled_from(["text file", "text file by --doctest-glob", "docstring with --doctest-modules"]),
        label="doctest",
    )
    files: dict[str, str | bytes] = {}
    options = ""
    if shape == "text file":
        files[data.draw(st.sampled_from(["test_a.txt", "tests/test_notes.txt"]), label="file")] = example
    elif shape == "text file by --doctest-glob":
        files["docs/usage.rst"] = "Usage\n=====\n\n" + example
        options = "--doctest-glob='*.rst'"
    else:
        files["lib.py"] = f'"""The library.\n\n{example}"""\n'
        options = "--doctest-modules"
    if options and data.draw(st.booleans(), label="in pytest.ini"):
        files["pytest.ini"] = f"[pytest]\naddopts = {options}\n"
        options = ""
    base = data.draw(
        st.sampled_from(["python3 -m pytest -q", "pytest -q", "python3 -m pytest"]), label="line"
    )
    return PythonCase(files, f"{base} {options}".strip(), f"pytest's {shape}")


# What pytest's assertion-rewrite cache of a module (``__pycache__/<module>.<tag>-pytest-<version>.pyc``)
# holds behind the header pytest wrote for its source: pytest's own rewriting of the source, or other
# code; under the tag of the pytest that runs, or of another version (which that pytest does not load).
_FORGED = ("other code", "the source's code, then other code")
_PYTEST_CACHES = (
    *_FORGED,
    "pytest's own",
    "pytest's own, another pytest's tag",
    "other code, another pytest's tag",
)


def _pytest_cache(data: st.DataObject, evil: str) -> PythonCase:
    """A test module and a conftest whose assertion-rewrite caches pytest wrote: one holds other code.

    pytest loads its cache of a module it rewrites (a test module, a conftest) by the header alone. The
    carrier's cache holds other code (alone, or after the source's) under this pytest's tag; the other
    module's cache, when there is one, is drawn from every kind.
    """
    folder = data.draw(st.sampled_from(["", "tests/"]), label="where the tests are")
    test = f"{folder}test_{data.draw(st.sampled_from(['a', 'core']), label='test module')}.py"
    conftest = data.draw(st.sampled_from(["", "conftest.py", f"{folder}conftest.py"]), label="conftest")
    files: dict[str, str | bytes] = {test: "def test_a():\n    x = 1\n    assert x == 1\n"}
    modules = [test]
    if conftest:
        files[conftest] = "import sys\n\nassert sys.version_info >= (3,)\n"
        modules.append(conftest)
    carrier = data.draw(st.sampled_from(modules), label="the cache pytest runs")
    forged = data.draw(st.sampled_from(_FORGED), label="what it holds")
    caches = [(carrier, forged)]
    caches += [
        (m, data.draw(st.sampled_from(_PYTEST_CACHES), label=f"{m}'s cache")) for m in modules if m != carrier
    ]
    base = data.draw(
        st.sampled_from(["pytest -q", "python3 -m pytest -q", "python3 -m pytest", f"pytest -q {test}"]),
        label="line",
    )
    how = ", ".join(f"{module}'s cache: {held}" for module, held in caches)
    return PythonCase(files, base, f"pytest's rewrite caches ({how})", evil=evil, pytest_caches=caches)


def _standard_library(data: st.DataObject, evil: str) -> PythonCase:
    """Test code or a script running the denied program through a standard-library API no list names."""
    files, line, how = standard_library_carrier(data, _DENIED)
    return PythonCase(dict(files), line, how)


def _set_up(data: st.DataObject, evil: str) -> PythonCase:
    """Code that sets up what the standard library then runs: the environment, sys.path, an annotation."""
    files, line, how = standard_library_carrier(data, _DENIED, set_up=True)
    return PythonCase(dict(files), line, how)


def _pythonpath_zip(data: st.DataObject, evil: str) -> PythonCase:
    """A zip or egg on pytest's ``pythonpath`` setting, holding the module a test imports."""
    files, line, how = pythonpath_zip(data, evil)
    return PythonCase(files, line, how)


_MECHANISMS: dict[str, Callable[[st.DataObject, str], PythonCase]] = {
    "resolved import": _resolved,
    "zip script": _zip_script,
    "doctest": _doctests,
    "pytest cache": _pytest_cache,
    "standard library": _standard_library,
    "standard library, set up": _set_up,
    "pytest pythonpath": _pythonpath_zip,
}


def _compile_cache(work: Path, source: str, cache: str, invalidation: str, evil: str) -> None:
    """Cache ``evil`` (other code than ``source`` holds) under a header Python accepts for ``source``."""
    target = work / cache
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = {
        "unchecked hash": py_compile.PycInvalidationMode.UNCHECKED_HASH,
        "checked hash of the source": py_compile.PycInvalidationMode.CHECKED_HASH,
        "timestamp of the source": py_compile.PycInvalidationMode.TIMESTAMP,
    }[invalidation]
    staged = work.parent / "evil_staged.py"
    staged.write_text(evil)
    py_compile.compile(str(staged), cfile=str(target), invalidation_mode=mode, doraise=True)
    staged.unlink()
    data = bytearray(target.read_bytes())
    real = work / source
    if invalidation == "checked hash of the source":
        data[8:16] = importlib.util.source_hash(real.read_bytes())
    elif invalidation == "timestamp of the source":
        info = real.stat()
        data[8:12] = (int(info.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
        data[12:16] = (info.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    target.write_bytes(bytes(data))


def _make_pytest_caches(work: Path, caches: list[tuple[str, str]], evil: str, env: dict[str, str]) -> None:
    """Pytest writes its caches of the project's modules (run for real); then each is made what was drawn.

    Only the header is kept from pytest's cache for "other code" (the body: ``evil`` as Python compiles
    it); "another pytest's tag" renames the cache to a version that is not this pytest's.
    """
    writing = {k: v for k, v in env.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    warm = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    subprocess.run(warm, cwd=work, env=writing, capture_output=True, timeout=120, check=False)
    for module, held in caches:
        folder, _, name = module.rpartition("/")
        (cache,) = (work / folder / "__pycache__").glob(f"{name[:-3]}.*-pytest-*.pyc")
        if "other code" in held:
            code = ((work / module).read_text() if held.startswith("the source") else "") + evil
            forged = compile(code, str(work / module), "exec", dont_inherit=True)
            cache.write_bytes(cache.read_bytes()[:16] + marshal.dumps(forged))
        if held.endswith("another pytest's tag"):
            tag, _, version = cache.name.rpartition("-pytest-")
            cache.rename(cache.with_name(f"{tag}-pytest-{int(version.split('.')[0]) + 1}.0.0.pyc"))


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.parametrize("mechanism", sorted(_MECHANISMS))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_the_code_python_resolves(
    new_harness: Callable[[], Any], data: st.DataObject, mechanism: str, mode: str
) -> None:
    """PERM-17: a denied program run by code Python (or pytest) resolves for the program never runs unasked.

    Drawn: the resolution mechanism (a module or package Python finds beside the script, under the
    name the script imports or one the standard library imports in turn, ``threading`` for ``import
    subprocess``, or in a namespace directory, inside a regular package or not; the import statement
    after ``;``, in a one-line block or continued; bytecode without its source; a ``__pycache__`` file
    holding other code under a header Python accepts: unchecked hash, the source's hash, the source's
    size and time, its source one that parses but does not compile; files beside it Python ignores,
    listed before it; a script that is a zip archive, text before it or not; pytest's doctest text
    files, ``--doctest-glob``,
    ``--doctest-modules`` on the line or in ``pytest.ini``; pytest's assertion-rewrite cache of a test
    module or a conftest, written by pytest, then holding other code (alone or after the source's)
    behind pytest's own header, beside the other module's cache as pytest wrote it, forged, or renamed
    to another pytest version's tag; a standard-library API that starts a program or evaluates code
    no list names, in a test module or a script: ``pydoc.pipepager``, ``webbrowser.get``, ``BROWSER``
    then ``import antigravity``, an event loop's ``subprocess_shell``, a multiprocessing context's
    executable, a ``logging.config`` factory, ``imaplib.IMAP4_stream``, ``trace.Trace().run`` of a
    string, ``doctest.run_docstring_examples``, the program named literally, split or reversed; a zip,
    egg or wheel on pytest's ``pythonpath`` in each ini file, continued or in ``addopts``, holding the
    module or package a test imports; what other code sets up: ``BROWSER`` put in the environment by
    a conftest or a module the script imports, ``sys.path`` pointed at a zip the code wrote, a string
    annotation ``typing.get_type_hints`` evaluates), where the script is and how the line
    runs it (beside, by its path, through a symbolic link to it, after ``cd``, ``-m``, ``-c``,
    options first), how the code spells the denied program, the allow rule, the mode. Real
    ``python3`` is the judge.
    """
    root = fresh_dir()
    work, bin_dir = root / "work", root / "bin"
    bin_dir.mkdir(parents=True)
    case = _MECHANISMS[mechanism](data, _evil(data, str(bin_dir)))
    marker = root / "ran"
    (bin_dir / _DENIED).write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\n")
    (bin_dir / _DENIED).chmod(0o755)
    for relative, content in case.files.items():
        path = work / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str) and content.startswith("->"):
            path.symlink_to(work / content[2:])
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    for source, cache, invalidation in case.compiled:
        _compile_cache(work, source, cache, invalidation, case.evil)
    search = os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    # pytest's doctests are its own: the plugins installed beside it only slow the judge down.
    env = {
        **os.environ,
        "PATH": search,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    if case.pytest_caches:
        _make_pytest_caches(work, case.pytest_caches, case.evil, env)
    words = case.line.split()
    allow = data.draw(
        st.sampled_from(list(dict.fromkeys([f"Bash({words[0]}:*)", f"Bash({' '.join(words[:2])}:*)"]))),
        label="allow rule",
    )
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(allow, "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": case.line})], rules=rules, mode=mode, cwd=work
    )
    run_for_real(case.line, work, env)
    assume(marker.exists())  # the planted code really runs the denied program
    listing = {k: (v if isinstance(v, str) else f"<{len(v)} bytes>") for k, v in case.files.items()}
    assert run.ran() == 0, (
        f"{case.line!r} under {allow} ran unasked ({mode}); for real it runs {_DENIED} through "
        f"{case.how}\nfiles: {json.dumps(listing, indent=1)}"
    )


# A project as everyday work leaves it: modules, tests, caches Python wrote for exactly these sources.
_EVERYDAY_PROJECT = {
    "app/__init__.py": "",
    "app/core.py": "import json\n\n\ndef load(text):\n    return json.loads(text)\n",
    "script.py": "import sys\n\nfrom app.core import load\n\nprint(load(sys.argv[1] if len(sys.argv) > 1 else '1'))\n",
    "tests/test_core.py": "from app.core import load\n\n\ndef test_load():\n    assert load('2') == 2\n",
    "tests/test_notes.txt": "Notes\n\n>>> 1 + 1\n2\n",
    "conftest.py": "import sys\n",
}


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=6, deadline=None)
@given(
    line=st.sampled_from(["python3 script.py", "python3 -m pytest -q", "python3 -B script.py 3", "pytest -q"])
)
def test_everyday_python_with_its_own_caches_stays_allowed(new_harness: Callable[[], Any], line: str) -> None:
    """PERM-17 (control): a project whose ``__pycache__`` holds what Python compiled from its sources stays allowed.

    The project's modules, tests and a doctest file name no denied program; Python itself (and
    pytest: its assertion-rewrite caches of the test module and the conftest) wrote the caches beside
    them. Under ``Bash(nuke:*)`` deny and an allow rule for the line,
    the harness runs it.
    """
    work = fresh_dir() / "work"
    for relative, text in _EVERYDAY_PROJECT.items():
        (work / relative).parent.mkdir(parents=True, exist_ok=True)
        (work / relative).write_text(text)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    for warm in (
        "python3 script.py",
        "python3 -m pytest -q -p no:cacheprovider",
        "python3 -O -c 'import app.core'",
    ):
        subprocess.run(["bash", "-c", warm], cwd=work, env=env, capture_output=True, timeout=120)
    assert any((work / "app" / "__pycache__").iterdir()), "python3 wrote its caches"
    # pytest's assertion-rewrite caches too: its own header before its own rewriting of the source.
    assert list(work.glob("**/__pycache__/*-pytest-*.pyc")), "pytest wrote its rewrite caches"
    words = line.split()
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(f"Bash({words[0]}:*)", "allow")]
    done = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    assert done.ran() == 1, f"{line!r} in an everyday project was not allowed: {done.describe()}"


# Python's startup code: a site directory's .pth files (their import lines run at every start) and
# modules, sitecustomize and usercustomize.
_STARTUP_FILES = ("x.pth", "usercustomize.py", "sitecustomize.py", "requests.py")
_SITE_DIRECTORIES = (
    ".local/lib/python3.11/site-packages",  # the user's own, under HOME
    "project/.venv/lib/python3.12/site-packages",
    "project/venv/lib/python3/dist-packages",
)
_STARTUP_WRITES = (
    "echo 'import os' > {p}",
    "printf 'import os\\n' >> {p}",
    "cp /etc/hostname {p}",
    "echo 'import os' | tee {p}",
    "ln -sf /etc/hostname {p}",
    "install -m 644 /etc/hostname {p}",
)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    site=st.sampled_from(_SITE_DIRECTORIES),
    name=st.sampled_from(_STARTUP_FILES),
    write=st.sampled_from(_STARTUP_WRITES),
    mode=st.sampled_from(["default", "bypassPermissions"]),
)
def test_python_startup_files_are_never_written_unasked(
    new_harness: Callable[[], Any], data: st.DataObject, site: str, name: str, write: str, mode: str
) -> None:
    """PERM-15: a write that lands in a Python site directory (a ``.pth``, a module) asks, however spelled.

    Drawn: the site directory (the user's ``~/.local/lib/pythonX.Y/site-packages``, a venv's
    ``site-packages`` or ``dist-packages``), the file (a ``.pth``, ``usercustomize``,
    ``sitecustomize``, a module shadowing an installed one), the writer (a redirection, ``cp``,
    ``tee``, ``ln -s``, ``install``) and the path's spelling: absolute, ``~/``, ``$HOME/``,
    ``${HOME}/``, through ``..``, a symbolic link to the site directory, relative after ``cd``. HOME
    is a fresh directory; bash, run there for real, is the judge of where the write lands.
    """
    home = fresh_dir() / "home"
    (home / site).mkdir(parents=True)
    (home / "link").symlink_to(home / site)
    (home / "project").mkdir(exist_ok=True)
    target = home / site / name
    spelled = data.draw(
        st.sampled_from(
            [
                (str(target), ""),
                (f"~/{site}/{name}", ""),
                (f"$HOME/{site}/{name}", ""),
                (f"${{HOME}}/{site}/{name}", ""),
                (f"../{site}/{name}", ""),
                (f"{home}/project/../{site}/{name}", ""),
                (f"{home}/link/{name}", ""),
                (f"link/{name}", "cd ~ && "),
                (name, f"cd {shlex.quote(str(home / site))} && "),
                (
                    f"{site.rpartition('/')[2]}/{name}",
                    f"cd {shlex.quote(str(home / site.rpartition('/')[0]))} && ",
                ),
            ]
        ),
        label="path",
    )
    path, move = spelled
    quoted = path if path.startswith(("~", "$")) else shlex.quote(path)
    command = move + write.format(p=quoted)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        run = run_calls(
            new_harness(),
            [shell_tool()],
            [("Bash", {"command": command})],
            rules=[RuleSpec("Bash", "allow")],
            mode=mode,
            host=host_answering("deny"),
            cwd=home / "project",
        )
    # Bash is the judge of where the write lands (HOME is the fresh one): only then is it an attempt.
    env = {**os.environ, "HOME": str(home)}
    subprocess.run(["bash", "-c", command], cwd=home / "project", env=env, capture_output=True, timeout=30)
    assume(os.path.lexists(target))
    assert run.ran() == 0, f"{command!r} ran unasked in {mode}, and it writes Python's startup code {target}"
