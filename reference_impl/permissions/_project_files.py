"""What a project's own files, as they are on disk, make a project tool run (PERM-17).

``npm test`` runs ``package.json``'s ``pretest``, ``test`` and ``posttest`` scripts; ``make`` runs its
Makefile's recipes (and the files it includes; ``-C DIR`` and ``-f FILE`` choose another); ``./scripts/test.sh``
(or ``bash scripts/test.sh``) its own text; ``python3 -m json.tool`` imports ``./json`` before the
standard library's when the project has one, and a Python script, module or ``-c`` code imports the
project's own modules beside it (followed, as Python finds them first). The engine trusts a project's
code as read (a recipe may do anything), but a deny or ask rule whose program such a file *names* may
apply: the text is read, at decision time, as the command lines it holds, and matched like the line
itself; the commands *it* holds that read project files are read in turn (the rules module decides).

Cached per file, keyed by its identity (inode, size, modification time): a changed file is read again.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import stat
import zipfile
from collections.abc import Iterable, Sequence

from reference_impl.permissions._interpreter_options import interpreter_run, script_files
from reference_impl.permissions._make_expansion import ASSIGNMENT
from reference_impl.permissions._make_expansion import expanded_recipes as _expanded_recipes
from reference_impl.permissions._make_remaking import remade_makefiles
from reference_impl.permissions._module_search import (
    NOT_READ,
    loads_modules,
    make_include_dirs,
    make_included,
    program_loaded,
    script_loaded,
)
from reference_impl.permissions._paths import cd_directories, cd_is_physical, chdir_directory
from reference_impl.permissions._program_model import unread_program
from reference_impl.permissions._project_hooks import (
    RUSTUP_PROXIES,
    cargo_runs_project_code,
    npm_command,
    npm_hooks,
    npm_spec_from_source,
    pip_builds_local_project,
    pip_command,
    pip_spec_from_source,
    runs_unread_project_code,
    rustup_toolchain_from_project,
    shim_version_from_project,
    version_manager_shim,
)
from reference_impl.permissions._project_runners import (
    installed_script,
    runner_name,
    runner_reason,
    wrapped_commands,
)
from reference_impl.permissions._python_resolution import (
    PYTHON_CODE,
    doctest_code,
    doctest_files,
    imported_names,
    loaded_modules,
    path_entries,
    pytest_pythonpath,
    startup_code,
    unread_code,
)
from reference_impl.permissions._wrapped_commands import is_wrapper, wrapper_directories

__all__ = [
    "NOT_READ",
    "PYTHON_CODE",
    "line_directories",
    "project_commands",
    "reads_project_files",
    "runs_make",
    "script_commands",
]

SHELL_TEXT = "shell: "
"""How the ``where`` of a text that is shell, as it runs, begins (a script, an npm script, a recipe as make
expands it): one whose program is only known when it runs may run anything."""

_MAX_BYTES = 262_144
_NPM = frozenset({"npm", "pnpm", "yarn", "bun"})
_NPX = frozenset({"npx"})
_PIP = frozenset({"pip", "pip3"})
# Tools whose documented job is to build or run the project's own code (their hooks: _project_hooks).
_BUILDERS = frozenset({"cargo", "tox", "nox", "poetry"})
_MAKE = frozenset({"make", "gmake"})
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_PYTEST = frozenset({"pytest", "py.test"})
# Directories pytest does not collect from by default (its ``norecursedirs``), nor the engine read.
_NOT_COLLECTED = frozenset(
    {"build", "dist", "node_modules", "venv", "CVS", "_darcs", "{arch}", "__pycache__"}
)
_MAX_TREE = 2_000
_MAX_PYTEST_FILES = 400
_PYTEST_INI = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_PYTEST_INI_NOTE = "(pytest may import it)"

_CACHE: dict[str, tuple[tuple[int, int, int], str | None]] = {}


def runs_make(program: str) -> bool:
    """Whether ``program`` (a name or a path) is make."""
    return posixpath.basename(program) in _MAKE


def reads_project_files(argv: Sequence[str | None]) -> bool:
    """Whether :func:`project_commands` may find anything for ``argv`` (cheap, and the same for every cwd)."""
    if not argv or argv[0] is None:
        return False
    name = posixpath.basename(argv[0])
    return (
        "/" in argv[0]
        or name in _NPM
        or name in _NPX
        or name in _PIP
        or re.sub(r"[0-9.]+$", "", name) in _PIP
        or name in _BUILDERS
        or name == "uv"
        or name in RUSTUP_PROXIES
        or version_manager_shim(name, os.environ.get("PATH", "")) is not None
        or name in _MAKE
        or name in _PYTEST
        or (name.startswith("python") and any(w in ("-m", "-c") for w in argv[1:2]))
        or _runs_unread_file(name, argv[1:])
        or loads_modules(name)
        or _unread_language(name)
        or runner_name(name) is not None
    )


# Interpreters of programming languages whose code (and the files it loads) the engine does not read.
_UNREAD_LANGUAGES = frozenset(
    {"ruby", "irb", "php", "lua", "luajit", "tclsh", "wish", "expect", "Rscript", "julia", "deno", "guile"}
    | {"racket", "groovy", "scala", "pwsh"}
)


def _unread_language(program: str) -> bool:
    """Whether ``program`` runs code of a language the engine does not read (``ruby``, ``php8.2``)."""
    return re.sub(r"[0-9.]+$", "", posixpath.basename(program)) in _UNREAD_LANGUAGES


def _runs_unread_file(name: str, args: Sequence[str | None]) -> bool:
    """Whether an interpreter runs a module, or a file its options leave unknown (``python3 -Bm a``)."""
    python = re.sub(r"[0-9.]+$", "", name) in ("python", "pypy")
    run = interpreter_run(name, args) if args or python else None
    # Python's module, inline code and standard input import from the working directory.
    return run is not None and (
        run.kind == "unknown"
        or (python and (run.kind in ("module", "input") or (run.kind == "inline" and bool(run.code))))
    )


def project_commands(
    argv: Sequence[str | None], cwd: str, environment: Sequence[str] = (), depth: int = 0
) -> list[tuple[str, str]]:
    """(where, text) of what ``argv``'s program would run from the project's files in ``cwd``.

    ``environment``: the ``NAME=value`` words the line puts in the program's environment (make's
    variables read them). A runner of the project's own code (``rspec``, ``gradle``, ``go test``,
    ``python3 -m invoke``) runs it unread; a launcher (``poetry run X``, ``npx X``) runs ``X``, read as
    ``X`` is (``depth``: launchers followed so far).
    """
    if not argv or argv[0] is None:
        return []
    return _runners(argv, cwd, environment, depth) + _tool_commands(argv, cwd, environment)


def _runners(
    argv: Sequence[str | None], cwd: str, environment: Sequence[str], depth: int
) -> list[tuple[str, str]]:
    """What a runner of the project's own code runs (unread), and what the command a launcher starts reads."""
    if argv[0] is None or "/" in argv[0]:
        return []
    name = posixpath.basename(argv[0])
    words = [w for w in argv[1:] if w is not None]
    if name.startswith("python") and words[:1] == ["-m"] and len(words) > 1:
        name, words = words[1], words[2:]  # ``python3 -m invoke test``: the module's program
    why = runner_reason(name, words, cwd)
    found = [(why, NOT_READ)] if why is not None else []
    if any(w is None for w in argv[1:]) and runner_name(name) is not None:
        found.append((f"{name} is given words only known when it runs", NOT_READ))
    for inner in wrapped_commands(name, words):
        if depth >= 4:
            return [*found, (f"{name} runs launchers nested deeper than the engine reads", NOT_READ)]
        script = (
            installed_script(inner[0], cwd) if name in ("poetry", "uv", "pdm", "pipenv", "hatch") else None
        )
        found += [(script, NOT_READ)] if script is not None else []
        found += project_commands(inner, cwd, environment, depth + 1)
    return found


def _tool_commands(
    argv: Sequence[str | None], cwd: str, environment: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """What a project tool the engine reads the files of runs from them (npm, make, pytest, pip, python)."""
    assert argv[0] is not None
    if "/" in argv[0]:
        return script_commands(argv[0], cwd)
    name = posixpath.basename(argv[0])
    words = [w for w in argv[1:] if w is not None]
    # The program a toolchain or version manager's proxy runs may be one a project file names.
    toolchain = rustup_toolchain_from_project(words, cwd) if name in RUSTUP_PROXIES else None
    toolchain = toolchain or shim_version_from_project(name, cwd)
    if toolchain is not None:
        return [(toolchain, NOT_READ)]
    if name in _NPM:
        return _npm_scripts(words, cwd, exact=name != "npm")
    if name in _NPX:
        return _npm_bins([w for w in words if not w.startswith("-")][:1], cwd)
    if re.sub(r"[0-9.]+$", "", name) in _PIP:
        return _pip(words, cwd)
    if name == "cargo":
        return _cargo(words, cwd)
    if name in _BUILDERS:
        why = runs_unread_project_code(name, words, cwd)
        return [(why, NOT_READ)] if why is not None else _package_specs(name, words, cwd)
    if name == "uv":
        operands = [w for w in words if not w.startswith("-")]
        if operands[:1] == ["pip"]:
            return _pip(words[words.index("pip") + 1 :], cwd)  # ``uv pip install ./x``: pip's own reading
        return _package_specs(name, words, cwd)
    if name.startswith("python") and words[:1] == ["-m"] and words[1:2] == ["pip"]:
        return _pip(words[2:], cwd)
    if name.startswith("python") and words[:1] == ["-m"] and words[1:2] == ["build"]:
        return [(str(runs_unread_project_code("build", words[2:], cwd)), NOT_READ)]
    if name in _MAKE:
        return _makefiles(words, cwd, environment)
    if name in _PYTEST:
        return _pytest_files(words, cwd)
    if name.startswith("python") and words[:2] == ["-m", "pytest"]:
        # Its tests' code, and a ``pytest`` package of the project's own, which ``-m`` finds first.
        return (
            _pytest_files(words[2:], cwd)
            + _shadowing_modules(["pytest"], cwd)
            + _python_program([cwd], ["import pytest"], set())
        )
    if name.startswith("python") and words[:1] == ["-c"] and len(words) > 1:
        return _python_imports(words[1], cwd, set()) + _python_program([cwd], [words[1]], set())
    if name.startswith("python") and words[:2] == ["-m", "doctest"]:
        return (
            _doctest_files(words[2:], cwd)
            + _shadowing_modules(["doctest"], cwd)
            + _python_program(
                [cwd], ["import doctest", *_named_imports(w for w in words[2:] if w.endswith(".py"))], set()
            )
        )
    if name.startswith("python") and words[:1] == ["-m"] and len(words) > 1:
        return _shadowing_modules(words[1].split("."), cwd) + _python_program(
            [cwd], [f"import {words[1]}", *_named_imports(words[2:])], set()
        )
    if _unread_language(name) and unread_program(name, words) is None and any(w[:1] != "-" for w in words):
        # ``ruby -I. t.rb``: its script, and what it loads by its own search path, are not read (inline
        # code, ``-r``, are the program model's: unread, vouched for only by a rule naming them).
        return [(f"the code {name} runs, in a language the engine does not read", NOT_READ)]
    run = interpreter_run(name, argv[1:])
    if run is not None and run.kind == "module" and run.module:
        # ``python3 -Bm a``, ``python3 -u -m a``
        return _shadowing_modules(run.module.split("."), cwd) + _python_program(
            [cwd], [f"import {run.module}", *_named_imports(words)], set()
        )
    if (
        run is not None
        and (run.kind == "input" or (run.kind == "inline" and run.code))
        and name.startswith("python")
    ):
        # Code given on the line or read from standard input imports from the working directory.
        return _python_program([cwd], [c or "" for c in run.code], set())
    if run is not None and run.kind == "unknown":
        # Its options are not all ones the engine reads: which file it runs is not known.
        return [(f"the file {name} runs, after options the engine does not read", NOT_READ)]
    # node and perl load modules as they find them (``-I``, ``use lib``, node_modules, ``NODE_OPTIONS``).
    return program_loaded([name, *words], cwd) if loads_modules(name) else []


def _doctest_files(words: Sequence[str], cwd: str) -> list[tuple[str, str]]:
    """The examples ``python -m doctest FILE...`` runs from each file not named ``.py`` (a text file of examples).

    doctest's own options (``python -m doctest -h``): ``-o``/``--option`` takes a value, ``-v``, ``-f`` none;
    ``--`` ends them. An abbreviated ``--opt X`` reads X as a file: missing, it is not read (asked).
    """
    found: list[tuple[str, str]] = []
    rest, options = list(words), True
    while rest:
        word = rest.pop(0)
        if options and word == "--":
            options = False
        elif options and word in ("-o", "--option"):
            rest[:1] = []
        elif (options and word.startswith("-")) or word.endswith(".py"):
            continue
        else:
            path = posixpath.join(cwd, word)
            text = _read(path)
            found.append(
                (
                    f"{PYTHON_CODE}the doctest examples of {path} (python -m doctest runs them)",
                    NOT_READ if text is None else doctest_code(text),
                )
            )
    return found


def _named_imports(words: Iterable[str]) -> list[str]:
    """The modules a module run from the line may import by the names its words give (``-m unittest a.b``).

    As ``import`` lines, every word taken for a name (``a.b``, ``a/b.py``: ``a``): which namespace
    directories are read (an option or a value that names none follows nothing).
    """
    return [f"import {word}" for word in words]


def _shadowing_modules(parts: list[str], cwd: str) -> list[tuple[str, str]]:
    """``-m a.b`` imports package ``a`` (its __init__), then runs ``a/b.py``: the project's, when it has them."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    main = posixpath.join(cwd, *parts, "__main__.py")  # ``-m pkg`` runs the package's __main__
    for depth in range(1, len(parts) + 2):
        for path in _module_files(cwd, parts[:depth]) if depth <= len(parts) else (main, main):
            text = _read(path)
            if text is not None and path not in seen:
                seen.add(path)
                found.append((f"the project's {path} (it shadows any module named {parts[0]})", text))
                found += _python_imports(text, posixpath.dirname(path), seen, cwd)
    return found


def _pytest_files(words: list[str], cwd: str) -> list[tuple[str, str]]:
    """The Python files pytest may import and run: every ``.py`` file of the trees it collects from, its ini files.

    pytest imports each ``conftest.py`` and every test module (``python_files`` may name any file),
    the plugins ``-p`` names (also through ``-o addopts=...`` or an ini file's ``addopts``), and what
    they import: the project's code runs, so its text is read, in the working directory and in the
    paths given on the line. Past the reading limits (files, or a tree too large to walk), not read.
    """
    roots = [
        cwd,
        *(
            posixpath.join(cwd, w)
            for w in words
            if not w.startswith("-") and posixpath.exists(posixpath.join(cwd, w))
        ),
    ]
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    walked = 0
    # What pytest is told on the line, in its ini files and in PYTEST_ADDOPTS: doctest options, plugins.
    told = " ".join([*words, os.environ.get("PYTEST_ADDOPTS", "")])
    texts: list[str] = [told]
    ini_files: list[tuple[str, str]] = []
    listings: list[tuple[str, list[str]]]
    for root in dict.fromkeys(roots):
        if not posixpath.isdir(root):
            paths, listings = [root], []
        else:
            paths, listings = [], []
            for directory, subdirectories, files in os.walk(root):
                walked += len(subdirectories) + len(files)
                if walked > _MAX_TREE:
                    return [*found, (f"a tree under {root} too large to read", NOT_READ)]
                subdirectories[:] = [
                    d
                    for d in subdirectories
                    if not d.startswith(".") and d not in _NOT_COLLECTED and not d.endswith(".egg")
                ]
                paths += [
                    posixpath.join(directory, f) for f in files if f.endswith(".py") or f in _PYTEST_INI
                ]
                listings.append((directory, [*files, *(["__pycache__"] if posixpath.isdir(
                    posixpath.join(directory, "__pycache__")) else [])]))  # fmt: skip
        for path in sorted(paths):
            if path in seen:
                continue
            if len(seen) >= _MAX_PYTEST_FILES:
                return [*found, ("more Python files than are read", NOT_READ)]
            seen.add(path)
            text = _read(path)
            if text is None and posixpath.isfile(path):
                found.append((f"{path} (too large to read) {_PYTEST_INI_NOTE}", NOT_READ))
            elif text is None:
                continue
            elif path.endswith(".py"):
                # Read as code: what a module pytest imports runs, it runs by any spelling.
                found.append((f"the project's module {path} {_PYTEST_INI_NOTE}", text))
            else:
                texts.append(text)
                ini_files.append((path, text))
                found.append((f"{path} {_PYTEST_INI_NOTE}", text))
        # What pytest's imports load beside the files it collects that is not their source, and the
        # examples of the text files it collects as doctests.
        options = " ".join(texts)
        for directory, names in listings:
            found += [(why, NOT_READ) for why in unread_code(directory, names)]
            for path in doctest_files(directory, names, options):
                text = _read(path)
                found.append(
                    (f"{PYTHON_CODE}the doctest examples of {path} (pytest runs them)",
                     NOT_READ if text is None else doctest_code(text))
                )  # fmt: skip
    if "doctest-modules" in " ".join(texts):
        # Each module's docstring examples run too: read wherever they stand in the module.
        found += [
            (
                f"{PYTHON_CODE}the doctest examples of {where.split()[3]} (--doctest-modules)",
                doctest_code(text),
            )
            for where, text in list(found)
            if where.startswith("the project's module ") and text != NOT_READ and ">>>" in text
        ]
    found += [(where, NOT_READ if text is None else text) for where, text in startup_code()]
    found += _pytest_path_entries(ini_files, " ".join(texts), cwd, found)
    # ``-p NAME`` (on the line, in ``-o addopts=...`` or an ini file): the project's module of that name.
    options = " ".join([*words, *(text for where, text in found if where.endswith(_PYTEST_INI_NOTE))])
    for name in re.findall(r"(?:^|[\s=\'\"])-p\s*([\w.]+)", options):
        for path in _module_files(cwd, name.split(".")):
            text = _read(path)
            if text is not None and path not in seen:
                seen.add(path)
                found.append((f"{path} (pytest -p {name})", text))
    return found


def _pytest_path_entries(
    ini_files: list[tuple[str, str]], options: str, cwd: str, found: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """What pytest may import from the paths its ``pythonpath`` setting puts first on ``sys.path``.

    A directory's modules, as Python finds them there; anything else Python imports from (a zip, an
    egg, a wheel: any file) holds code the engine does not read.
    """
    entries = pytest_pythonpath(ini_files, options, cwd)
    code = [text for where, text in found if where.startswith("the project's module ") and text != NOT_READ]
    directories = [e for e in entries if posixpath.isdir(e)]
    unread = [
        (
            f"{e} on pytest's pythonpath is not a directory (a zip, an egg): Python imports its code, not read here",
            NOT_READ,
        )
        for e in entries
        if posixpath.exists(e) and not posixpath.isdir(e)
    ]
    return unread + (_python_program(directories, code, set()) if directories else [])


_DIRECTORY_BUILTINS = frozenset({"cd", "pushd"})


def line_directories(commands: Iterable[Sequence[str | None]], cwd: str) -> list[str] | None:
    """The directories a line's commands may run in: ``cwd`` and where its ``cd``/``pushd`` lead; None if unknown.

    Read without order (a superset): each ``cd DIR`` with a literal DIR, from each directory found.
    ``cd`` alone goes home; ``cd -``, ``pushd +N``, a DIR only known at run time, a relative DIR while
    ``CDPATH`` is set, or a command whose program is only known at run time: unknown (None). A wrapper
    running its command elsewhere (``env -C DIR``, ``sudo -D DIR``) moves too; one choosing its own
    directory (``chroot``, a login shell) is unknown.
    """
    moves: list[tuple[str, bool | None]] = []  # (DIR, cd's -P; None: a program's own chdir)
    for argv in commands:
        words = list(argv)
        while words and words[0] in ("builtin", "command"):
            words.pop(0)
        if not words or words[0] is None:
            return None
        if is_wrapper(posixpath.basename(words[0])):
            # ``env -C DIR cmd``, ``sudo -D DIR cmd``: the command, and the paths it is given, are in DIR.
            chosen = wrapper_directories(posixpath.basename(words[0]), tuple(words[1:]))
            if any(d is None or "$" in d or "`" in d for d in chosen):
                return None
            moves += [(os.path.expanduser(d), None) for d in chosen if d is not None]
            continue
        if words[0] not in _DIRECTORY_BUILTINS:
            continue
        operands = [w for w in words[1:] if w is None or w == "-" or not w.startswith("-")]
        physical = words[0] == "cd" and cd_is_physical(words[1:])
        if not operands:
            moves.append((os.path.expanduser("~"), physical))
            continue
        target = operands[0]
        if target is None or target == "-" or target[:1] in ("+",) or "$" in target or "`" in target:
            return None
        if (
            not target.startswith(("/", "./", "../"))
            and target not in (".", "..")
            and os.environ.get("CDPATH")
        ):
            return None
        moves.append((os.path.expanduser(target), physical))
    directories = [cwd]
    for _ in range(len(moves)):
        # ``..`` after a link climbs from the link's target for the kernel, from the link for bash's cd.
        grown = [
            landed
            for d in directories
            for move, physical in moves
            for landed in (
                [chdir_directory(d, move)] if physical is None else cd_directories(d, move, physical=physical)
            )
        ]
        directories = list(dict.fromkeys([*directories, *grown]))[:_MAX_MODULES]
    return directories


def script_commands(path: str, cwd: str, runner: str | None = None) -> list[tuple[str, str]]:
    """A script file run by its path (``./scripts/test.sh``, or given to a shell): its text, when it is text.

    A Python script (``.py``, or a ``python`` first line) also brings the project modules it imports.
    Given to an interpreter (``runner``), the path is the file that interpreter opens for it: a
    directory's ``__main__.py`` or ``index.js``, node's name without its extension.
    """
    if runner is not None and _unread_language(runner):
        # ``ruby t.rb``: code whose loads (``require_relative``, ``-I``) the engine does not follow.
        return [(f"the script {path}, in {runner}'s language, which the engine does not read", NOT_READ)]
    if runner is not None and re.sub(r"[0-9.]+$", "", runner) in ("python", "pypy"):
        # Whatever its name or first line, the file is the program's Python (or bytecode, or a zip).
        full = posixpath.join(cwd, path)
        files = [posixpath.join(cwd, f) for f in script_files(runner, path, cwd)]
        return [
            item
            for file in files
            for item in _python_script(posixpath.relpath(file, cwd), file, _read(file), cwd, full)
        ]
    if runner is not None:
        return [item for file in script_files(runner, path, cwd) for item in script_commands(file, cwd)]
    full = posixpath.join(cwd, path)
    text = _read(full)
    if text is None or "\0" in text[:4096]:
        return []
    if path.endswith(".py") or "python" in text.partition("\n")[0]:
        return _python_script(path, full, text, cwd)
    first = text.partition("\n")[0]
    if path.endswith((".js", ".mjs", ".cjs", ".pl", ".pm")) or any(p in first for p in ("node", "perl")):
        # Read as code, with the modules it loads as its interpreter finds them.
        return [(f"the script {path}", text), *script_loaded(path, text, cwd)]
    names = [posixpath.basename(w) for w in first[2:].split() if not w.startswith("-")]
    program = names[1:2] if names[:1] == ["env"] else names[:1]
    if first.startswith("#!") and any(_unread_language(name) for name in program):
        return [(f"the script {path}, in a language the engine does not read ({first})", NOT_READ)]
    return [(f"{SHELL_TEXT}the script {path}", text)]


def _python_script(
    path: str, full: str, text: str | None, cwd: str, given: str | None = None
) -> list[tuple[str, str]]:
    """A Python script's code: its text, the modules it imports, all Python may load beside it, startup code.

    ``given``: the path the line gives the interpreter (a directory, a zip: its own ``sys.path[0]``).
    Bytecode, a zip (Python runs any file that is a zip archive, text before it or not) or a file
    that is not there to read is code the engine does not read.
    """
    entries = path_entries(posixpath.relpath(given or full, cwd), cwd)
    if text is None and not posixpath.exists(full):
        return []  # Python finds nothing to run (a file the line writes first is the line's to judge)
    if text is None or "\0" in text[:4096] or zipfile.is_zipfile(full):
        return [(f"the script {path}, which is not Python source (bytecode or a zip)", NOT_READ)]
    return [
        (f"the script {path}", text),
        *_python_imports(text, posixpath.dirname(full) or cwd, {full}),
        *_python_program(entries, [text], {full}),
    ]


def _python_program(entries: list[str], code: Iterable[str], seen: set[str]) -> list[tuple[str, str]]:
    """What Python may load for a program whose ``sys.path[0]`` is one of ``entries``, beyond ``seen``.

    Every module found there under a name Python may import, code found there it can't be read
    (bytecode without source, stale caches, extension modules), and the user's startup code.
    """
    imported: set[str] = set()
    for text in code:
        imported |= imported_names(text)
    sources, unread = loaded_modules(entries, imported)
    found = [(why, NOT_READ) for why in unread]
    for path in sources:
        if path in seen:
            continue
        seen.add(path)
        module = _read(path)
        found.append(
            (f"the project's module {path} (Python may load it)", NOT_READ if module is None else module)
        )
    return found + [(where, NOT_READ if text is None else text) for where, text in startup_code()]


_REQUIRE = re.compile(
    r"""(?:require\s*\(\s*|import\s*\(\s*|\bfrom\s+|^\s*import\s+)['"](\.{1,2}/[^'"]+)['"]""", re.MULTILINE
)


def _node_requires(text: str, directory: str, seen: set[str]) -> list[tuple[str, str]]:
    """The project's files that JavaScript code requires or imports by a relative path, followed in turn."""
    found: list[tuple[str, str]] = []
    pending = [(text, directory)]
    while pending and len(seen) <= _MAX_MODULES:
        code, here = pending.pop()
        for relative in _REQUIRE.findall(code):
            base = posixpath.normpath(posixpath.join(here, relative))
            for path in (
                base,
                *(base + ext for ext in (".js", ".mjs", ".cjs", ".json")),
                posixpath.join(base, "index.js"),
            ):
                module = _read(path)
                if module is None or path in seen:
                    continue
                seen.add(path)
                found.append((f"the project's module {path} (required)", module))
                pending.append((module, posixpath.dirname(path)))
                break
    if pending:
        found.append(("more project modules than are read", NOT_READ))
    return found


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import\b|import[ \t]+([\w., \t]+))", re.MULTILINE)
_MAX_MODULES = 64


def _module_files(directory: str, parts: Sequence[str]) -> tuple[str, str]:
    base = posixpath.join(directory, *parts)
    return base + ".py", posixpath.join(base, "__init__.py")


def _python_imports(
    text: str, directory: str, seen: set[str], cwd: str | None = None
) -> list[tuple[str, str]]:
    """The project's modules that Python code imports (found beside it first), followed in turn.

    ``import a.b, c`` and ``from a import b`` look for ``a.py``/``a/__init__.py`` (and ``a/b.py``)
    in ``directory`` (and ``cwd``): Python finds a script's neighbours before the standard library.
    More than ``_MAX_MODULES`` files: what is left is not read (the caller asks: see the rules module).
    """
    found: list[tuple[str, str]] = []
    pending = [(text, directory)]
    while pending and len(seen) <= _MAX_MODULES:
        code, here = pending.pop()
        for match in _IMPORT.finditer(code):
            names = [match.group(1)] if match.group(1) else re.split(r"[ \t]*,[ \t]*", match.group(2))
            for name in names:
                dotted = name.split()[0] if name.split() else ""
                base = here if dotted.startswith(".") else None
                parts = [p for p in dotted.lstrip(".").split(".") if p]
                roots = [base] if base is not None else list(dict.fromkeys(d for d in (here, cwd) if d))
                for root in roots:
                    for depth in range(1, len(parts) + 1):
                        for path in _module_files(root, parts[:depth]):
                            module = _read(path)
                            if module is None or path in seen:
                                continue
                            seen.add(path)
                            found.append((f"the project's module {path} (imported)", module))
                            pending.append((module, posixpath.dirname(path)))
    if pending:
        found.append(("more project modules than are read", NOT_READ))
    return found


def _makefiles(words: list[str], cwd: str, environment: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The recipes and variable values of the Makefiles ``make`` reads, the ones they include too.

    Each recipe also in the form make runs it, its variables expanded (:func:`_expanded_recipes`);
    a Makefile make reads from elsewhere than a file (``-f -``, a process substitution) is not read.
    With an ``environment`` from the line, in both forms make may run them: the Makefile's own
    variables winning over it, and it winning over them (``make -e``, ``e`` in ``MAKEFLAGS``).
    """
    directory, chosen, index = cwd, [], 0
    assigned = [w for w in words if ASSIGNMENT.match(w)]
    while index < len(words):
        word = words[index]
        value = words[index + 1] if index + 1 < len(words) else ""
        long_name = word.partition("=")[0]
        if long_name.startswith("--") and len(long_name) > 3:
            # GNU make takes any unambiguous prefix of a long option: --dir, --fi, --makef.
            for full in ("--directory", "--file", "--makefile"):
                if full.startswith(long_name):
                    word = full + word[len(long_name) :]
                    break
        if word in ("-C", "--directory", "-f", "--file", "--makefile"):
            index += 1
        elif word.startswith(("--directory=", "--file=", "--makefile=")):
            word, _, value = word.partition("=")
        elif word.startswith(("-C", "-f")) and len(word) > 2:
            word, value = word[:2], word[2:]
        else:
            index += 1
            continue
        index += 1
        if word in ("-C", "--directory"):
            directory = posixpath.join(directory, value)
        else:
            chosen.append(value)
    names = [posixpath.join(directory, f) for f in chosen] or [
        posixpath.join(directory, m) for m in _MAKEFILES
    ]
    include_dirs = make_include_dirs(words, directory)
    found: list[tuple[str, str]] = []
    if chosen and any(not _regular(path) for path in names):
        # Standard input, a pipe, a descriptor, or a file the line may write before make reads it.
        found.append(
            ("a Makefile that is no regular file yet (standard input, a pipe, written by the line)", NOT_READ)
        )
    seen: set[str] = set()
    texts: list[str] = []
    # Every makefile make reads or includes, there or not: of the default names, the first there (or
    # all of them, each of which make tries to make).
    first = list(names) if chosen else [p for p in names if _regular(p)][:1]
    makefiles, given = first or list(names), set(names)
    while names and len(seen) <= _MAX_MODULES:
        path = names.pop(0)
        if path not in given:
            makefiles.append(path)
        text = _read(path)
        if text is None or path in seen:
            continue
        seen.add(path)
        texts.append(text)
        found.append((f"recipe in {path}", "\n".join(_recipe_lines(text))))
        if _CHANGES_HOW_RECIPES_RUN.search(text):
            found.append((f"{path} sets the shell, PATH or recipe prefix its recipes run with", NOT_READ))
        if _UNEVALUATED.search(text):
            found.append(
                (f"{path} makes text or commands with $(eval), $(file) or a computed $(shell)", NOT_READ)
            )
        # Each included makefile as make finds it: here, in the -I directories, in make's default ones.
        included, unread = make_included(text, path, directory, include_dirs)
        names += included
        found += unread
    if names:
        found.append(("more included Makefiles than are read", NOT_READ))
    if os.environ.get("MAKEFILES"):
        found.append(("the Makefiles MAKEFILES names", NOT_READ))
    # A makefile a rule can make is remade, then read again: its text is what the recipe writes.
    found += [(why, NOT_READ) for why in remade_makefiles(makefiles, texts, words, directory, environment)]
    # make's built-in rule ``%: %.sh`` makes a program of each shell script beside the Makefile.
    found += [
        (f"{SHELL_TEXT}{name} (make's built-in rule %: %.sh makes a program of it)", text)
        for name in sorted(_listing(directory))
        if name.endswith(".sh") and (text := _read(posixpath.join(directory, name))) is not None
    ][:_MAX_MODULES]
    if texts:
        where = f"{SHELL_TEXT}recipes of {posixpath.join(directory, 'Makefile') if not chosen else ', '.join(chosen)} as make expands them"
        readings = (
            [(assigned, environment), ([*environment, *assigned], ())] if environment else [(assigned, ())]
        )
        for command_line, below in readings:
            expanded = _expanded_recipes(texts, command_line, below)
            found.append((where, NOT_READ if expanded is None else "\n".join(expanded)))
    return found


# SHELL, .SHELLFLAGS and PATH change what a recipe line runs; .RECIPEPREFIX which lines are recipes.
_CHANGES_HOW_RECIPES_RUN = re.compile(
    r"^[ \t]*(?:(?:export|override)[ \t]+)*(?:SHELL|\.SHELLFLAGS|PATH|\.RECIPEPREFIX|BASH_ENV|ENV)[ \t]*[:+?!]*=",
    re.MULTILINE,
)
# Parse-time code the engine does not evaluate: $(eval) and $(file) make Makefile text of their own,
# a $(shell) of a computed command runs what only make knows.
_UNEVALUATED = re.compile(r"\$[({](?:eval|file)[ \t]|\$[({]shell[ \t][^\n]*\$[({]")


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _npm_scripts(words: list[str], cwd: str, exact: bool = False) -> list[tuple[str, str]]:
    """The package.json scripts (and defaults, and programs of node_modules/.bin) an npm command runs.

    Which scripts each command runs is npm's own documentation's (:mod:`_project_hooks`): ``npm
    install`` its install and prepare scripts, ``npm run x`` ``prex``, ``x`` and ``postx``. yarn, pnpm
    and bun (``exact``) take no abbreviations, and a name that is not a command of theirs runs the
    script of that name (both are read: a superset); alone, they install.
    """
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        if option in ("--prefix", "-C"):
            # The package of another directory: its package.json is the one read.
            value = value if equals else (words[index + 1] if index + 1 < len(words) else "")
            cwd = posixpath.join(cwd, value)
        elif option in (
            "--workspaces",
            "-ws",
            "--workspace",
            "-w",
            "--include-workspace-root",
            "--global",
            "-g",
        ):
            return [(f"packages npm {word} chooses", NOT_READ)]
    words = [
        w
        for i, w in enumerate(words)
        if not (i > 0 and words[i - 1] in ("--prefix", "-C"))
        and w.partition("=")[0] not in ("--prefix", "-C")
    ]
    operands = [w for w in words if not w.startswith("-")] or ["install"]
    command = npm_command(operands[0]) if not exact or npm_command(operands[0]) == operands[0] else None
    if command == "exec":
        return _npm_bins(operands[1:2], cwd)
    # A package named on the line from a path, an archive, a URL or a repository: its own lifecycle
    # scripts run (and git, ssh fetch a repository), none of which is in the project's files.
    installing = (command or operands[0]) in _NPM_INSTALLING or operands[:2] == ["cache", "add"]
    specs = _npm_specs(words)[2 if operands[:1] == ["cache"] else 1 :]
    source = next((spec for spec in specs if npm_spec_from_source(spec, cwd)), None) if installing else None
    if source is not None:
        why = f"{operands[0]} {source} installs a package from a path, an archive or a repository: its scripts run"
        return [(why, NOT_READ)]
    scripts_run: list[str] = []
    defaults: tuple[tuple[str, str], ...] = ()
    for hooks in (
        npm_hooks(command, operands[1] if command == "run" and len(operands) > 1 else None)
        if command is not None
        else None,
        npm_hooks("run", operands[0]) if exact and command != "run" else None,
    ):
        if hooks is not None:
            scripts_run += hooks.scripts
            defaults += hooks.defaults
    if not scripts_run:
        return []
    # npm runs the scripts of the nearest package.json, here or in a directory above.
    while _read(posixpath.join(cwd, "package.json")) is None and posixpath.dirname(cwd) not in (cwd, ""):
        cwd = posixpath.dirname(cwd)
    text = _read(posixpath.join(cwd, "package.json"))
    if text is None:
        return []
    try:
        package = json.loads(text)
        scripts = package.get("scripts") or {}
    except (ValueError, AttributeError):
        return [("package.json (unreadable)", text)]
    if not isinstance(scripts, dict):
        return []
    found = [
        (f"{SHELL_TEXT}package.json script {key!r}", str(scripts[key]))
        for key in dict.fromkeys(scripts_run)
        if key in scripts
    ]
    # A file npm finds in the package makes a default script (server.js: ``node server.js``), its text too.
    for file, run in defaults:
        default = posixpath.join(cwd, file)
        contents = _read(default)
        if contents is not None:
            found += [
                (f"{SHELL_TEXT}npm's default script for {file}", run),
                (f"{default} ({run} reads it)", contents),
            ]
    if any(e in scripts_run for e in ("install", "prepare", "dependencies")) and _local_dependencies(package):
        found.append(
            ("the scripts of dependencies on disk (file:, link:, git), which npm runs too", NOT_READ)
        )
    if (
        "install" in scripts_run
        and os.path.isdir(posixpath.join(cwd, "node_modules"))
        and command == "rebuild"
    ):
        found.append(
            ("the install scripts of every package in node_modules, which npm rebuild runs", NOT_READ)
        )
    if found and _npm_configured(cwd):
        found.append(("npm's configuration (.npmrc, npm_config_*) sets how its scripts run", NOT_READ))
    # npm puts the package's node_modules/.bin first on PATH: a program of that name is the project's.
    return found + _npm_bins(re.findall(r"[\w.+-]+", " ".join(t for _, t in found)), cwd)


# The commands of npm (dereffed) and of yarn, pnpm and bun that install the packages they are given.
_NPM_INSTALLING = frozenset(
    {
        "install",
        "install-test",
        "install-ci-test",
        "update",
        "link",
        "pack",
        "add",
        "i",
        "up",
        "upgrade",
        "global",
    }
)
# npm options whose value is the next word (not a package spec).
_NPM_VALUES = frozenset(
    {"--registry", "--cache", "--tag", "--save-prefix", "--omit", "--include", "--loglevel"}
)


def _npm_specs(words: list[str]) -> list[str]:
    """The operands of an npm command line: its command, then the packages it is given."""
    return [
        w
        for i, w in enumerate(words)
        if not w.startswith("-") and not (i > 0 and words[i - 1] in _NPM_VALUES)
    ]


def _local_dependencies(package: object) -> bool:
    """Whether package.json depends on a package on disk or in git, whose own scripts npm runs when installing."""
    if not isinstance(package, dict):
        return False
    specs = [
        str(spec)
        for key in ("dependencies", "devDependencies", "optionalDependencies", "bundleDependencies")
        if isinstance(package.get(key), dict)
        for spec in package[key].values()
    ]
    return (
        any(re.match(r"(?:file:|link:|git|github:|\.|/|~)", spec) for spec in specs)
        or "workspaces" in package
    )


def _npm_bins(names: Iterable[str], cwd: str) -> list[tuple[str, str]]:
    """The package's own programs (``node_modules/.bin``, here or above) among ``names``: what npm and npx run."""
    directory = cwd
    while not os.path.isdir(posixpath.join(directory, "node_modules")) and posixpath.dirname(
        directory
    ) not in (
        directory,
        "",
    ):
        directory = posixpath.dirname(directory)
    bins = posixpath.join(directory, "node_modules", ".bin")
    shadowing = sorted(set(names) & set(_listing(bins)))
    found = [item for name in shadowing for item in script_commands(posixpath.join(bins, name), cwd)]
    return found + [
        (f"{bins}/{name} (not readable)", NOT_READ)
        for name in shadowing
        if _read(posixpath.join(bins, name)) is None
    ]


def _pip(words: list[str], cwd: str) -> list[tuple[str, str]]:
    """What pip building a project on disk runs: its build backend (``setup.py``, in-tree hooks) runs, not read."""
    command = pip_command(words)  # past the values of pip's own options (``pip --log f install .``)
    why = pip_builds_local_project(command, words, cwd) if command is not None else None
    return [(why, NOT_READ)] if why is not None else []


def _package_specs(name: str, words: list[str], cwd: str) -> list[tuple[str, str]]:
    """A package the line names from a path, an archive or a repository, whose build code runs.

    ``uv add ./x``, ``uv tool install git+https://...``, ``poetry add ../lib``, ``uv run --with ./x``.
    """
    operands = [w for w in words if not w.startswith("-")]
    if operands[:1] not in (["add"], ["tool"], ["run"], ["sync"], ["install"]):
        return []
    source = next((w for w in operands[1:] if w != "install" and pip_spec_from_source(w, cwd)), None)
    if source is None and any(
        w.startswith(("--with", "--from", "--path", "--git", "--editable")) for w in words
    ):
        source = next(w for w in words if w.startswith(("--with", "--from", "--path", "--git", "--editable")))
    if source is None:
        return []
    return [
        (
            f"{name} {operands[0]} {source} installs a package from a path, an archive or a repository",
            NOT_READ,
        )
    ]


def _cargo(words: list[str], cwd: str) -> list[tuple[str, str]]:
    """What cargo compiling (or running) the package whose manifest it finds: its build code runs, not read."""
    command = next((w for w in words if not w.startswith(("-", "+"))), None)
    manifest = any(w.startswith(("--manifest-path", "--path")) for w in words)
    directory = cwd
    while not manifest:
        manifest = os.path.isfile(posixpath.join(directory, "Cargo.toml"))
        if posixpath.dirname(directory) in (directory, ""):
            break
        directory = posixpath.dirname(directory)
    why = cargo_runs_project_code(command, cwd, words) if command is not None and manifest else None
    return [(why, NOT_READ)] if why is not None else []


# npm settings that change what a script runs: the shell it runs in, options every node gets.
_NPM_RUNNERS = re.compile(
    r"^[ \t]*(?:script-shell|shell|node-options|ignore-scripts|script_shell|node_options)[ \t]*=",
    re.MULTILINE | re.IGNORECASE,
)


def _npm_configured(cwd: str) -> bool:
    """Whether an ``.npmrc`` npm reads here (the project's, the user's) or the environment sets how scripts run."""
    if any(
        re.fullmatch(r"npm_config_(script_shell|shell|node_options)", k, re.IGNORECASE) for k in os.environ
    ):
        return True
    for path in (
        posixpath.join(cwd, ".npmrc"),
        os.path.expanduser("~/.npmrc"),
        os.environ.get("NPM_CONFIG_USERCONFIG", ""),
    ):
        text = _read(path) if path else None
        if text is not None and _NPM_RUNNERS.search(text):
            return True
    return False


def _listing(directory: str) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


def _recipe_lines(text: str) -> list[str]:
    """A Makefile's recipe lines (a tab first, ``@``/``-``/``+`` prefixes taken off), and its variable values."""
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("\t"):
            lines.append(line.lstrip("\t").lstrip("@-+ "))
        elif "=" in line and not line.lstrip().startswith("#"):
            lines.append(line.split("=", 1)[1])
    return lines


def _read(path: str) -> str | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None  # a device or pipe (/dev/stdin) is never read: it may block, and it is no project file
    key = (info.st_ino, info.st_size, info.st_mtime_ns)
    cached = _CACHE.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    text: str | None = None
    if info.st_size <= _MAX_BYTES:
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            text = None
    if len(_CACHE) >= 512:
        _CACHE.clear()
    _CACHE[path] = (key, text)
    return text
