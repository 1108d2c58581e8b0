"""The code a Python program resolves, read as the engine decides (PERM-17, PERM-15).

The red team's cases (a sourceless ``.pyc``, a cached file compiled from other code, a standard
library module shadowed through another's import, a doctest text file pytest collects) and fresh ones
of the same principle (a namespace package's bytecode, ``-m`` of a package whose ``__main__`` is
bytecode, a zip with text before it, a script named without ``.py``, standard input) ask under a deny
rule; an everyday project whose caches Python wrote itself stays allowed.
"""

from __future__ import annotations

import io
import marshal
import os
import py_compile
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from reference_impl.permissions._python_resolution import (
    PYTHON_CODE,
    doctest_code,
    imported_names,
    loaded_modules,
    startup_code,
)
from tests.test_rules import BASH

_RUNS_RM = 'import os\nos.system("rm x")\n'
_TAG = sys.implementation.cache_tag


def _decide(line: str, cwd: Path, allow: str | None = None) -> str:
    rules = [parse_rule("Bash(rm:*)", "deny", "projectSettings")]
    if allow is not None:
        rules.append(parse_rule(allow, "allow", "userSettings"))
    context = PermissionContext(mode="bypassPermissions", rules=tuple(rules), cwd=cwd)
    return decide_permission(BASH, {"command": line}, context).behavior


def _bytecode(tmp_path: Path, code: str, invalidation: str = "timestamp") -> bytes:
    source = tmp_path / "staged_source.py"
    source.write_text(code)
    mode = py_compile.PycInvalidationMode[invalidation.upper()]
    compiled = py_compile.compile(str(source), cfile=str(tmp_path / "staged.pyc"), invalidation_mode=mode)
    source.unlink()
    assert compiled is not None
    return Path(compiled).read_bytes()


def _project(root: Path, files: dict[str, str | bytes]) -> Path:
    work = root / "work"
    for relative, content in files.items():
        path = work / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return work


def _zip(code: str, prefix: bytes = b"") -> bytes:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("__main__.py", code)
    return prefix + archive.getvalue()


@pytest.mark.parametrize(
    ("case", "line"),
    [
        ("sourceless module", "python3 t.py"),
        ("stale unchecked cache", "python3 t.py"),
        ("shadowed through the standard library", "python3 t.py"),
        ("doctest text file", "pytest"),
        ("doctest text file", "python3 -m pytest -q"),
        ("namespace package bytecode", "python3 t.py"),
        ("package main bytecode", "python3 -m pkg"),
        ("zip after text", "python3 t.py"),
        ("script without .py", "python3 tool"),
        ("standard input", "python3 - < s.txt"),
        ("built name in a conftest", "python3 -m pytest"),
        ("docstring with --doctest-modules", "pytest -q"),
        ("package named to unittest", "python3 -m unittest pkg"),
        ("package a script imports from its arguments", "python3 t.py pkg"),
        ("namespace module named to unittest", "python3 -m unittest pkg.tool"),
        ("namespace module named to unittest", "python3 -Bm unittest pkg.tool"),
    ],
)
def test_code_python_loads_that_the_engine_did_not_read_asks(tmp_path: Path, case: str, line: str) -> None:
    """PERM-17: what Python loads for the program is its code: unread (or running rm), it asks."""
    cases: dict[str, dict[str, str | bytes]] = {
        "sourceless module": {"t.py": "import mod\n", "mod.pyc": _bytecode(tmp_path, _RUNS_RM)},
        "stale unchecked cache": {
            "t.py": "import mod\n",
            "mod.py": "VALUE = 1\n",
            f"__pycache__/mod.{_TAG}.pyc": _bytecode(tmp_path, _RUNS_RM, "unchecked_hash"),
        },
        "shadowed through the standard library": {"t.py": "import subprocess\n", "threading.py": _RUNS_RM},
        "doctest text file": {"test_a.txt": '>>> import os; os.system("rm x")\n0\n'},
        "namespace package bytecode": {
            "t.py": "import pkg.mod\n",
            "pkg/mod.pyc": _bytecode(tmp_path, _RUNS_RM),
        },
        "package main bytecode": {"pkg/__init__.py": "", "pkg/__main__.pyc": _bytecode(tmp_path, _RUNS_RM)},
        "zip after text": {"t.py": _zip(_RUNS_RM, b"print('hello')\n")},
        "script without .py": {"tool": 'import os\nos.system("r" + "m x")\n'},
        "standard input": {"s.txt": "import subprocess\n", "threading.py": _RUNS_RM},
        "built name in a conftest": {"conftest.py": 'import os\nos.system("r" + "m x")\n'},
        # unittest imports the package the line names: its __init__ alone makes it a regular package.
        "package named to unittest": {"pkg/__init__.py": _RUNS_RM},
        # unittest.main(module=None) imports the names of its argv: a regular package is read unnamed.
        "package a script imports from its arguments": {
            "t.py": "import unittest\nunittest.main(module=None)\n",
            "pkg/__init__.py": _RUNS_RM,
        },
        "namespace module named to unittest": {"pkg/tool.py": _RUNS_RM},
        "docstring with --doctest-modules": {
            "pytest.ini": "[pytest]\naddopts = --doctest-modules\n",
            "lib.py": '"""Lib.\n\n>>> import os; os.system("rm x")\n0\n"""\n',
        },
    }
    work = _project(tmp_path, cases[case])
    assert _decide(line, work, allow=f"Bash({line.split()[0]}:*)") != "allow", case


def test_a_cache_whose_header_fits_the_source_but_holds_other_code_is_not_read(tmp_path: Path) -> None:
    """PERM-17: a timestamp header forged to carry the source's time and size is no match: the code is compared."""
    work = _project(tmp_path, {"t.py": "import mod\n", "mod.py": "VALUE = 1\n"})
    data = bytearray(_bytecode(tmp_path, _RUNS_RM))
    info = (work / "mod.py").stat()
    data[8:12] = (int(info.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
    data[12:16] = (info.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    (work / "__pycache__").mkdir()
    (work / "__pycache__" / f"mod.{_TAG}.pyc").write_bytes(bytes(data))
    sources, unread = loaded_modules([str(work)], {"mod"})
    assert unread, sources
    assert "mod" in unread[0], unread
    assert _decide("python3 t.py", work) == "ask"


@pytest.mark.parametrize("source", ["VALUE = (\n", "def f(:\n    pass\n", "\x00"])
def test_a_cache_beside_a_source_that_does_not_compile_is_not_its_code(tmp_path: Path, source: str) -> None:
    """PERM-17: a source Python can't compile has no code to compare a cache with: the cache (which Python
    runs, its header matching) is not read, so the line asks. Judged by python3 itself: it runs the cache."""
    work = _project(tmp_path, {"t.py": "import mod\n", "mod.py": source})
    data = bytearray(_bytecode(tmp_path, "print('CACHED')\n"))
    info = (work / "mod.py").stat()
    data[8:12] = (int(info.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
    data[12:16] = (info.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    (work / "__pycache__").mkdir()
    (work / "__pycache__" / f"mod.{_TAG}.pyc").write_bytes(bytes(data))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}  # the suite's own (conftest)
    ran = subprocess.run(
        [sys.executable, "t.py"], cwd=work, env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert "CACHED" in ran.stdout, ran  # Python runs the cache, not the broken source
    sources, unread = loaded_modules([str(work)], {"mod"})
    assert unread, sources


def test_an_everyday_project_with_the_caches_python_wrote_stays_allowed(tmp_path: Path) -> None:
    """PERM-17 (control): caches Python compiled from these very sources are their code: no ask."""
    work = _project(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/core.py": "import json\n\n\ndef load(text):\n    return json.loads(text)\n",
            "script.py": "from app.core import load\n\nprint(load('1'))\n",
            "tests/test_core.py": "from app.core import load\n\n\ndef test_load():\n    assert load('2') == 2\n",
            "tests/test_notes.txt": "Notes\n\n>>> 1 + 1\n2\n",
        },
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    subprocess.run([sys.executable, "script.py"], cwd=work, env=env, check=True, capture_output=True)
    subprocess.run([sys.executable, "-O", "script.py"], cwd=work, env=env, check=True, capture_output=True)
    assert any((work / "app" / "__pycache__").iterdir())
    for line in ("python3 script.py", "python3 -m pytest -q", "pytest -q tests"):
        assert _decide(line, work, allow=f"Bash({line.split()[0]}:*)") == "allow", line


@pytest.mark.parametrize(
    "path",
    [
        "{home}/.local/lib/python3.11/site-packages/x.pth",
        "~/.local/lib/python3.11/site-packages/x.pth",
        "$HOME/.local/lib/python3.11/site-packages/usercustomize.py",
        "{home}/../{base}/.local/lib/python3.11/site-packages/x.pth",
        "/usr/lib/python3/dist-packages/evil.pth",
        "./sitecustomize.py",
        ".venv/lib/python3.12/site-packages/requests.py",
    ],
)
def test_python_startup_code_is_a_protected_write(tmp_path: Path, path: str) -> None:
    """PERM-15: a site directory's files and the customize modules are written only when asked."""
    home = os.path.expanduser("~")
    spelled = path.format(home=home, base=os.path.basename(home))
    assert _decide(f"echo 'import os' > {spelled}", tmp_path) == "ask"
    assert _decide(f"cp /etc/hostname {spelled}", tmp_path) == "ask"


def test_doctest_code_is_the_examples_alone() -> None:
    """The examples and their continuations are code; prose and expected output are not."""
    text = "Prose.\n\n>>> for i in range(2):\n...     print(i)\n0\n1\n>>> import os\n"
    assert doctest_code(text) == "for i in range(2):\n    print(i)\n\nimport os"


@pytest.mark.parametrize(
    "code",
    [
        "x = 1; import pkg.tool",
        "if True: import pkg.tool",
        "try: from pkg.tool import run\nexcept ImportError: pass",
        "import \\\n    pkg.tool",
        "import os, \\\n    pkg",
    ],
)
def test_an_import_is_found_however_its_statement_is_spelled(code: str) -> None:
    """PERM-17: after ``;``, as a one-line block's body, continued on the next line: still an import.

    The names decide which namespace directories are read: one missed is code Python runs unread.
    """
    assert "pkg" in imported_names(code)


def test_caches_python_never_loads_are_not_unread_code(tmp_path: Path) -> None:
    """The cache of a module since deleted, or a stray file in ``__pycache__``: Python loads neither."""
    work = _project(
        tmp_path,
        {
            "t.py": "import json\n",
            f"__pycache__/gone.{_TAG}.pyc": _bytecode(tmp_path, _RUNS_RM),
            "__pycache__/NOTES": "x",
        },
    )
    assert loaded_modules([str(work)], set()) == ([str(work / "t.py")], [])


def test_the_users_startup_code_is_read_unless_too_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``.pth`` file's import lines are read; one past 256 KiB is not (None: code not read)."""
    site = tmp_path / ".local/lib/python3.11/site-packages"
    site.mkdir(parents=True)
    (site / "a.pth").write_text("import os\n./vendored\n")
    (site / "b.pth").write_text("import os\n" + "#" * 262_144)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert startup_code() == [
        (f"{PYTHON_CODE}{site}/a.pth (Python runs its import lines at startup)", "import os"),
        (f"{PYTHON_CODE}{site}/b.pth (Python runs its import lines at startup)", None),
    ]


def test_a_pytest_cache_is_compared_with_pytests_own_rewriting(tmp_path: Path) -> None:
    """PERM-17: pytest loads its assertion-rewrite cache by its header alone; a forged body behind a true
    header runs (found by a helper: ``pytest -q`` ran it past a deny rule). The cache pytest wrote itself
    is read as the test's code; the same header before other code is unread, and the line is refused."""
    (tmp_path / "test_a.py").write_text("def test_a():\n    x = 1\n    assert x == 1\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_a.py"]
    subprocess.run(command, cwd=tmp_path, env=env, check=True, capture_output=True)
    (cache,) = (tmp_path / "__pycache__").glob("test_a.*-pytest-*.pyc")
    assert _decide("pytest -q", tmp_path, allow="Bash(pytest:*)") == "allow"
    forged = compile('open("forged-ran", "w").close()\n', str(tmp_path / "test_a.py"), "exec")
    cache.write_bytes(cache.read_bytes()[:16] + marshal.dumps(forged))
    assert _decide("pytest -q", tmp_path, allow="Bash(pytest:*)") != "allow"
    # The oracle of what runs: pytest itself loads the forged body (it checks the header only).
    subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, check=False)
    assert (tmp_path / "forged-ran").exists(), "pytest did not load the forged cache: the test proves nothing"


def _zipped(name: str, code: str) -> bytes:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr(name, code)
    return archive.getvalue()


@pytest.mark.parametrize(
    ("ini", "text"),
    [
        ("pytest.ini", "[pytest]\npythonpath = deps.zip\n"),
        ("pytest.ini", "[pytest]\npythonpath =\n    src\n    deps.zip\n"),
        ("tox.ini", "[pytest]\npythonpath = deps.zip\n"),
        ("setup.cfg", "[tool:pytest]\npythonpath = deps.zip\n"),
        ("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["src", "deps.zip"]\n'),
        ("pytest.ini", "[pytest]\naddopts = -o pythonpath=deps.zip\n"),
    ],
)
def test_a_zip_on_pytests_pythonpath_is_code_not_read(tmp_path: Path, ini: str, text: str) -> None:
    """PERM-17: a zip (or egg) pytest's ``pythonpath`` puts on ``sys.path``: the code it imports there is not read."""
    work = _project(
        tmp_path,
        {
            ini: text,
            "src/__init__.py": "",
            "deps.zip": _zipped("helper.py", _RUNS_RM),
            "test_a.py": "import helper\n",
        },
    )
    assert _decide("python3 -m pytest -q", work, "Bash(python3 -m pytest:*)") == "ask"


def test_a_directory_on_pytests_pythonpath_is_read_as_the_projects_modules(tmp_path: Path) -> None:
    """PERM-17: a directory on pytest's ``pythonpath`` (outside the tree it collects): its modules are read."""
    for name, helper, decision in (("evil", _RUNS_RM, "ask"), ("clean", "VALUE = 1\n", "allow")):
        files = {"pytest.ini": "[pytest]\npythonpath = ../shared\n", "test_a.py": "import helper\n"}
        work = _project(tmp_path / name, files)
        (tmp_path / name / "shared").mkdir()
        (tmp_path / name / "shared" / "helper.py").write_text(helper)
        assert _decide("python3 -m pytest -q", work, "Bash(python3 -m pytest:*)") == decision
