"""The code a Python program loads, found by Python's own search rules (PERM-17).

A program's code is what the program resolves, not what its script names: ``import subprocess``
imports ``threading`` too, and a ``threading.py`` beside the script (``sys.path[0]``: the script's
real directory, or the working directory for ``-m``, ``-c`` and standard input) is found before the
standard library's. So every module a ``sys.path[0]`` directory offers under a name Python may
import is the program's code: each top-level module, every module of each regular package, and the
modules of a namespace directory whose name the program's code imports. What Python loads there that
is not the source the engine reads is not read (asked about under a deny rule the code could meet):

- bytecode without its source (``mod.pyc``, which Python loads when no ``mod.py`` is beside it);
- an extension module (``mod.cpython-311-x86_64-linux-gnu.so``, ``mod.so``): machine code;
- a cached ``__pycache__/mod.<tag>.pyc`` (or under ``PYTHONPYCACHEPREFIX``, when the environment sets
  it) that does not hold the code of the ``mod.py`` beside it:
  unmarshalled and compared with the source compiled here when it is this interpreter's bytecode (a
  header forged to carry the source's size and time is no match), its header checked as Python
  checks it (size and time, or the source's hash) for another interpreter's.

Python also runs code at startup from its site directories (``site-packages``, ``dist-packages`` and
the user's ``~/.local/lib/pythonX.Y/site-packages``): the ``import`` lines of every ``.pth`` file and
the ``sitecustomize`` and ``usercustomize`` modules. Writing there is guarded (:data:`SITE_DIRECTORIES`,
:data:`STARTUP_MODULES`, used by the protected paths); the user's own site directory, which any
command may fill, is read as code before each Python run. pytest runs the examples of its doctest
text files (``test*.txt``, ``--doctest-glob``) and, given ``--doctest-modules``, of every module's
docstrings: :func:`doctest_code` is their code.
"""

from __future__ import annotations

import ast
import fnmatch
import glob
import importlib.util
import marshal
import os
import posixpath
import re
import stat
import tomllib
from types import CodeType

__all__ = [
    "PYTHON_CODE",
    "SITE_DIRECTORIES",
    "STARTUP_MODULES",
    "doctest_code",
    "doctest_files",
    "imported_names",
    "loaded_modules",
    "path_entries",
    "pytest_pythonpath",
    "startup_code",
    "unread_code",
]

PYTHON_CODE = "python code: "
"""How the ``where`` of a text that is Python code, whatever its file is named (a doctest, a ``.pth``), begins."""

SITE_DIRECTORIES = frozenset({"site-packages", "dist-packages"})
"""Directories Python imports installed code from, and whose ``.pth`` files it runs at startup."""

STARTUP_MODULES = frozenset({"sitecustomize.py", "usercustomize.py"})
"""Modules Python's ``site`` imports at every start, from any directory on its path."""

_MAX_ENTRIES = 4_000
_MAX_MODULES = 400
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# ``import a.b, c``, ``from a.b import c`` where a statement starts: a line, after ``;`` or a block's ``:``.
_IMPORTED = re.compile(r"(?:^|[;:])[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import\b|import[ \t]+([\w., \t]+))", re.M)
_PYC_NAME = re.compile(r"(?P<module>[A-Za-z_]\w*)\.(?P<tag>[\w.-]+?)(?:\.opt-(?P<opt>\d))?\.pyc")
_BYTECODE_CACHE: dict[tuple[int, int, int, int, int, int], bool] = {}


def path_entries(script: str | None, cwd: str) -> list[str]:
    """``sys.path[0]`` for a run: the script's directory (as written and resolved), or ``cwd``.

    Python puts the directory of the script's real path first (a symlinked script imports beside its
    target); a directory or zip given as the script is itself the entry.
    """
    if script is None:
        return [cwd]
    full = posixpath.normpath(posixpath.join(cwd, script))
    if posixpath.isdir(full):
        return list(dict.fromkeys([full, os.path.realpath(full)]))
    return list(dict.fromkeys([posixpath.dirname(full), posixpath.dirname(os.path.realpath(full))]))


def loaded_modules(entries: list[str], imported: set[str]) -> tuple[list[str], list[str]]:
    """The source files Python may load from ``entries`` (``sys.path`` directories), and why some code is not read.

    ``imported``: the top-level names the program's code is known to import, which decide which
    namespace directories (no ``__init__``) are followed; it grows with the names the modules found
    import. Returns (source paths to read as Python, reasons for code that can't be read).
    """
    sources: list[str] = []
    unread: list[str] = []
    walked = 0
    for entry in dict.fromkeys(entries):
        pending: list[str] = [entry]
        namespaces: dict[str, str] = {}
        while pending:
            directory = pending.pop()
            names = _listing(directory)
            walked += len(names)
            if walked > _MAX_ENTRIES or len(sources) > _MAX_MODULES:
                return sources, [*unread, f"more modules under {entry} than are read"]
            top = directory == entry
            found, dirs, why = _directory_modules(directory, names)
            unread += why
            for path in found:
                sources.append(path)
                imported |= _imported_names(path)
            for name in dirs:
                sub = posixpath.join(directory, name)
                if not top or _is_package(sub):
                    pending.append(sub)
                else:
                    namespaces[name] = sub
            # A namespace directory is found only under a name nothing else on the path offers, so
            # only when the program imports that name: followed once the code read so far names it.
            while not pending and (chosen := sorted(n for n in namespaces if n in imported)):
                pending += [namespaces.pop(n) for n in chosen]
    return sources, unread


def _directory_modules(directory: str, names: list[str]) -> tuple[list[str], list[str], list[str]]:
    """One directory's source modules, its subdirectories a dotted name reaches, and its unread code."""
    sources, dirs, unread = [], [], []
    present = set(names)
    for name in sorted(names):
        path = posixpath.join(directory, name)
        stem = name.split(".", 1)[0]
        if name == "__pycache__":
            unread += _stale_bytecode(directory, path, present)
            continue
        if not _IDENTIFIER.fullmatch(stem):
            continue
        if posixpath.isdir(path):
            if "." not in name:
                dirs.append(name)
        elif name == stem + ".py":
            sources.append(path)
        elif name == stem + ".pyc" and stem + ".py" not in present:
            unread.append(f"{path} is bytecode without its source, which Python loads as {stem}")
        elif name.endswith(".so") or name.endswith(".pyd"):
            unread.append(f"{path} is an extension module (machine code) Python loads as {stem}")
    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    if prefix and sources:
        # Python then reads and writes every cache under the prefix, at the source directory's own path.
        mirrored = posixpath.join(prefix, os.path.realpath(directory).lstrip("/"))
        unread += _stale_bytecode(directory, mirrored, present)
    return sources, dirs, unread


def unread_code(directory: str, names: list[str]) -> list[str]:
    """Why code Python may load from ``directory`` (listing ``names``) is not read: bytecode, machine code."""
    return _directory_modules(directory, names)[2]


def _is_package(directory: str) -> bool:
    return any(
        n == "__init__.py" or (n.startswith("__init__.") and n.endswith((".pyc", ".so")))
        for n in _listing(directory)
    )


def _stale_bytecode(directory: str, cache: str, present: set[str]) -> list[str]:
    """The cached bytecode in ``cache`` that is not the code of the source beside it (Python loads it instead)."""
    unread = []
    for name in sorted(_listing(cache)):
        match = _PYC_NAME.fullmatch(name)
        if match is None or match.group("module") + ".py" not in present:
            continue  # Python loads a cached file only for a source it finds
        source = posixpath.join(directory, match.group("module") + ".py")
        pyc = posixpath.join(cache, name)
        optimize = int(match.group("opt") or 0)
        # pytest's own caches hold its rewritten assertions: compared with pytest's own rewriting.
        if not _bytecode_matches(pyc, source, optimize, tag=match.group("tag")):
            unread.append(f"{pyc} is cached bytecode that is not the code of {source}, and Python runs it")
    return unread


def _bytecode_matches(pyc: str, source: str, optimize: int, *, tag: str) -> bool:
    """Whether the cached ``pyc`` holds the code of ``source`` as Python would check it, or more strictly."""
    try:
        pyc_info, source_info = os.stat(pyc), os.stat(source)
    except OSError:
        return False
    if not stat.S_ISREG(pyc_info.st_mode) or pyc_info.st_size > 4 * 262_144:
        return False
    key = (pyc_info.st_ino, pyc_info.st_size, pyc_info.st_mtime_ns, source_info.st_ino, source_info.st_size,
           source_info.st_mtime_ns)  # fmt: skip
    if key in _BYTECODE_CACHE:
        return _BYTECODE_CACHE[key]
    if len(_BYTECODE_CACHE) >= 1024:
        _BYTECODE_CACHE.clear()
    _BYTECODE_CACHE[key] = matches = _matches(pyc, source, source_info, optimize, tag)
    return matches


def _pytest_code(text: bytes, source: str, tag: str) -> CodeType | None:
    """The code pytest's assertion rewriting makes of ``text``, when the pytest here is the one ``tag`` names.

    pytest loads a cache of its own only when the tag names its version, and checks the header alone:
    a forged body behind a true header runs. Its rewriting, not a copy of it, says what the body must
    be; another version's rewriting (or none here) can't say, so the cache is not read (None).
    """
    try:
        import _pytest
        from _pytest.assertion.rewrite import rewrite_asserts
    except ImportError:
        return None
    if not tag.endswith(f"-pytest-{_pytest.__version__}"):
        return None
    try:
        tree = ast.parse(text, filename=source)
        rewrite_asserts(tree, text, source, None)
        return compile(tree, source, "exec", dont_inherit=True)
    except Exception:  # pytest's rewriting is not ours to trust to succeed: unread, never allowed
        return None


def _matches(pyc: str, source: str, source_info: os.stat_result, optimize: int, tag: str) -> bool:
    try:
        with open(pyc, "rb") as handle:
            data = handle.read()
        with open(source, "rb") as handle:
            text = handle.read()
    except OSError:
        return False
    if len(data) < 16:
        return False
    ours = data[:4] == importlib.util.MAGIC_NUMBER
    flags = int.from_bytes(data[4:8], "little")
    if flags == 0:
        header = data[8:12] == (int(source_info.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") and data[
            12:16
        ] == (source_info.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    elif flags in (1, 3) and ours:
        header = data[8:16] == importlib.util.source_hash(text)
    else:
        return False  # another interpreter's hash, or flags Python does not write
    if not header or not ours:
        return header
    try:
        # Unmarshalling builds the objects without running any; code objects compare by their code,
        # constants and names, not their file name.
        cached = marshal.loads(data[16:])
        if "-pytest-" in tag:
            return bool(cached == _pytest_code(text, source, tag))
        return bool(cached == compile(text, source, "exec", dont_inherit=True, optimize=optimize))
    except (ValueError, EOFError, TypeError, SyntaxError, RecursionError, MemoryError):
        return False


def _imported_names(path: str) -> set[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(262_144)
    except OSError:
        return set()
    return imported_names(text)


def imported_names(text: str) -> set[str]:
    """The top-level names Python code imports (``import a.b, c``, ``from a.b import c``), however spelled."""
    names: set[str] = set()
    for match in _IMPORTED.finditer(re.sub(r"\\\r?\n", " ", text)):  # ``\\`` ending a line joins the next
        dotted = [match.group(1)] if match.group(1) else re.split(r"[ \t]*,[ \t]*", match.group(2))
        names |= {d.split()[0].split(".")[0] for d in dotted if d.split()}
    return names


def startup_code() -> list[tuple[str, str | None]]:
    """(where, Python code) Python runs at startup from the user's site directories: ``.pth`` import lines, customize modules.

    None for code that can't be read (a file too large or unreadable, bytecode or machine code of a
    customize module).
    """
    found: list[tuple[str, str | None]] = []
    home = os.path.expanduser("~")
    for directory in sorted(glob.glob(posixpath.join(glob.escape(home), ".local/lib/python*/site-packages"))):
        for name in sorted(_listing(directory)):
            path = posixpath.join(directory, name)
            if name.endswith(".pth"):
                text = _text(path)
                lines = [line for line in (text or "").splitlines() if re.match(r"import[ \t]", line)]
                if text is None or lines:
                    found.append((f"{PYTHON_CODE}{path} (Python runs its import lines at startup)",
                                  None if text is None else "\n".join(lines)))  # fmt: skip
            elif name.split(".", 1)[0] in ("sitecustomize", "usercustomize"):
                text = _text(path) if name.endswith(".py") else None
                found.append((f"{PYTHON_CODE}{path} (Python imports it at startup)", text))
    return found


_PYTHONPATH_KEY = re.compile(r"^[ \t]*pythonpath[ \t]*[=:][ \t]*(.*)$", re.MULTILINE)
_PYTHONPATH_OPTION = re.compile(r"(?:-o[ \t]*|--override-ini[= \t]+)['\"]?pythonpath=([^'\"\s]+)")


def pytest_pythonpath(ini_files: list[tuple[str, str]], options: str, cwd: str) -> list[str]:
    """The paths pytest puts first on ``sys.path`` (its ``pythonpath`` setting), each as a full path.

    From every ini file read (``pytest.ini``, ``tox.ini``, ``setup.cfg``: the key and its indented
    continuation lines; ``pyproject.toml``'s ``[tool.pytest.ini_options]``, a list or a string), relative
    to that file's directory, and ``-o pythonpath=...`` in ``options``, relative to ``cwd``. Read in any
    section: a superset.
    """
    found: list[str] = []
    for path, text in ini_files:
        base = posixpath.dirname(path)
        values: list[str] = []
        if path.endswith(".toml"):
            try:
                table = tomllib.loads(text).get("tool", {}).get("pytest", {}).get("ini_options", {})
            except (tomllib.TOMLDecodeError, AttributeError):
                table = {}
            value = table.get("pythonpath", []) if isinstance(table, dict) else []
            values = value.split() if isinstance(value, str) else [str(v) for v in value]
        for match in _PYTHONPATH_KEY.finditer(text):
            rest = text[match.end() :].split("\n")[1:]
            continued = [line for line in _indented(rest)]
            values += (
                " ".join([match.group(1), *continued])
                .replace("[", " ")
                .replace("]", " ")
                .replace(",", " ")
                .replace('"', " ")
                .split()
            )
        found += [posixpath.normpath(posixpath.join(base, v)) for v in values]
    found += [posixpath.normpath(posixpath.join(cwd, v)) for v in _PYTHONPATH_OPTION.findall(options)]
    return list(dict.fromkeys(found))


def _indented(lines: list[str]) -> list[str]:
    """The continuation lines of an ini value: the indented ones right after it."""
    taken = []
    for line in lines:
        if not line[:1].isspace() or not line.strip():
            break
        taken.append(line.strip())
    return taken


def doctest_files(directory: str, names: list[str], options: str) -> list[str]:
    """The text files of ``directory`` whose examples pytest runs as doctests (``test*.txt``, ``--doctest-glob``)."""
    patterns = ["test*.txt", *re.findall(r"--doctest-glob(?:=|\s+)['\"]?([^\s'\"]+)", options)]
    return [
        posixpath.join(directory, n)
        for n in sorted(names)
        if not n.endswith(".py") and any(fnmatch.fnmatch(n, p) for p in patterns)
    ]


def doctest_code(text: str) -> str:
    """The Python code of the doctest examples in ``text`` (``>>>`` lines and their ``...`` continuations)."""
    lines: list[str] = []
    for line in text.splitlines():
        stripped = line.lstrip()
        if stripped.startswith((">>>", "...")) and (len(stripped) == 3 or stripped[3] in " \t"):
            lines.append(stripped[4:])
        elif lines and lines[-1] != "":
            lines.append("")  # an example's end: its expected output is no code
    # Each example parsed alone would be exact; together, an indented continuation keeps its block.
    return "\n".join(lines)


def _text(path: str) -> str | None:
    try:
        if os.stat(path).st_size > 262_144:
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _listing(directory: str) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []
