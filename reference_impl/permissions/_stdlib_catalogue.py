"""Which standard-library functions may start a program or evaluate code, mined from its source (PERM-17).

A list of the standard library's program-starting functions typed in by hand is never complete
(``pydoc.pipepager``, ``webbrowser.get``, ``pipes.Template``, ``imaplib.IMAP4_stream``, an event
loop's ``subprocess_shell``...). The standard library's own source says it: a function (or class, or
module-level value) *may start a program* when its code reaches one of the operating system's ways
to start one (``os.system``, ``os.popen``, ``os.exec*``, ``os.spawn*``, ``os.posix_spawn*``,
``_posixsubprocess``, Windows' ``CreateProcess``), and *may evaluate code* when it reaches
``exec``, ``eval``, ``__import__``, ``importlib.import_module``/``reload``, ``runpy.run_*`` or the
importer's own ``_imp`` loaders; directly or through another such member of any standard module
(a fixed point over the references of every top-level definition). A class is such a member when
any of its methods is; a method name is kept too (:data:`CATALOGUE`'s ``methods``), for calls on
an object whose class the reader does not know. What the mining can't see (a member made at run
time, ``multiprocessing``'s ``globals().update``) is not proven pure: :func:`member_capability`
answers for the whole module then.

Ten internal evaluations are vetted as no way in for a caller's code (:data:`VETTED`): each
evaluates text the standard library builds from identifiers it validates (``namedtuple``'s fields,
a dataclass's ``__init__``), from its own package (``encodings``), or from annotations
(``typing.ForwardRef``, ``inspect.get_annotations``), whose strings the program holds as literals.

``python -m reference_impl.permissions._stdlib_catalogue`` rewrites ``stdlib_capabilities.json``
from the running interpreter's standard library; ``tests/test_stdlib_catalogue.py`` checks it.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CATALOGUE_FILE", "VETTED", "at_import", "member_capability", "method_capability", "mine"]

CATALOGUE_FILE = Path(__file__).with_name("stdlib_capabilities.json")

RUNS, EVALUATES = "runs", "evaluates"

VETTED = frozenset(
    {
        ("collections", "namedtuple"),  # field names checked to be identifiers
        ("dataclasses", "_create_fn"),  # methods written from a class's field names
        ("typing", "ForwardRef"),  # a string annotation the program's source holds
        ("inspect", "get_annotations"),  # the same, with eval_str=True
        ("inspect", "_signature_fromstr"),  # a builtin's own __text_signature__
        ("unittest.mock", "_set_signature"),  # a signature copied from a function, named funcopy
        ("gettext", "c2py"),  # a plural formula, tokenized and checked to be arithmetic
        ("encodings", "search_function"),  # imports only within the encodings package
        ("sysconfig", "_init_posix"),  # imports the interpreter's own _sysconfigdata module
        ("dbm", "open"),  # imports dbm.gnu, dbm.ndbm or dbm.dumb, by whichdb's fixed names
    }
)
"""(module, member) whose evaluation is of text the standard library makes itself, not a caller's code."""

_IMPORT_VETTED = frozenset(
    {
        "importlib._bootstrap._setup",  # the import system Python already runs, set up again
        "warnings._processoptions",  # the -W options and PYTHONWARNINGS of the line that starts Python
        "platform.system",  # uname(): os.uname() on a POSIX system; a program only on Windows
    }
)
"""Calls a module makes when it is imported that run nothing the importing code chose."""

_SKIPPED = frozenset(
    {"site-packages", "dist-packages", "test", "tests", "idlelib", "lib2to3", "__pycache__", "turtledemo"}
    | {"tkinter", "ensurepip", "distutils"}
)


def _primitive(name: str) -> str | None:
    """Whether the qualified ``name`` is one of the interpreter's own ways to start a program or run code."""
    module, _, attr = name.rpartition(".")
    if module in ("os", "posix", "nt") and (
        attr in ("system", "popen", "posix_spawn", "posix_spawnp", "startfile")
        or attr.startswith(("exec", "spawn"))
    ):
        return RUNS
    if module == "_posixsubprocess" or name in ("_posixsubprocess", "_winapi.CreateProcess"):
        return RUNS
    if name in ("exec", "eval", "__import__", "builtins.exec", "builtins.eval", "builtins.__import__"):
        return EVALUATES
    if name in ("importlib.import_module", "importlib.__import__", "importlib.reload"):
        return EVALUATES
    if name in ("runpy.run_module", "runpy.run_path", "runpy._run_code"):
        return EVALUATES
    if module == "_imp" and attr.startswith(("exec_", "create_", "init_frozen", "get_frozen")):
        return EVALUATES
    return None


def _module_name(root: str, path: str) -> str:
    relative = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
    return relative.removesuffix(".__init__")


class _Module:
    """One module's bindings, top-level names, star imports, and the references of each definition."""

    def __init__(self, name: str, path: str, tree: ast.Module) -> None:
        self.name = name
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        self.bound: dict[str, str] = {}
        self.stars: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    self.bound[alias.asname or top] = alias.name if alias.asname else top
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - node.level + 1] if node.level > 1 else parts
                    base = ".".join([*parts, *([node.module] if node.module else [])])
                for alias in node.names:
                    if alias.name == "*":
                        self.stars.append(base)
                    else:
                        self.bound[alias.asname or alias.name] = f"{base}.{alias.name}"
        # Every name the module defines first: a definition may refer to one defined below it.
        self.names: set[str] = {name for statement in tree.body for name, _ in _definitions(statement)}
        self.names |= {
            alias.asname or alias.name
            for statement in tree.body
            if isinstance(statement, ast.ImportFrom)
            for alias in statement.names
            if alias.name != "*"
        }
        self.members: dict[str, set[str]] = {}
        classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
        self.top: set[str] = set()  # what its code refers to when it is imported
        self.methods: list[tuple[str, set[str], bool]] = []
        for statement in tree.body:
            for defined, code in _definitions(statement):
                self.members.setdefault(defined, set()).update(self._references(code))
            if isinstance(statement, ast.ImportFrom):
                # A name imported from another module is that module's member, under this name too.
                for alias in statement.names:
                    if alias.name != "*" and (alias.asname or alias.name) in self.bound:
                        self.members.setdefault(alias.asname or alias.name, set()).add(
                            self.bound[alias.asname or alias.name]
                        )
            # The functions its code calls when it is imported (making an object of a class is not
            # calling what the class may do).
            self.top |= {
                called
                for child in _walk(statement, executed_only=True)
                if isinstance(child, ast.Call)
                and (called := self._qualified(child.func)) is not None
                and called.rpartition(".")[2] not in classes
            }
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for method in node.body:
                    if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.methods.append((method.name, self._references(method), _abstract(method)))

    def _qualified(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            if node.id in self.bound:
                return self.bound[node.id]
            return f"{self.name}.{node.id}" if node.id in self.names else node.id
        if isinstance(node, ast.Attribute):
            base = self._qualified(node.value)
            return f"{base}.{node.attr}" if base is not None else None
        return None

    def _references(self, node: ast.AST | None, *, executed_only: bool = False) -> set[str]:
        """The qualified names ``node`` refers to; ``executed_only``: not inside a function it defines."""
        found: set[str] = set()
        for child in _walk(node, executed_only) if node is not None else ():
            if isinstance(child, (ast.Name, ast.Attribute)):
                name = self._qualified(child)
                if name is not None:
                    found.add(name)
        return found


def _definitions(statement: ast.stmt) -> list[tuple[str, ast.AST | None]]:
    """The names a top-level statement binds, each with the code that makes it (``if``/``try`` blocks too)."""
    found: list[tuple[str, ast.AST | None]] = []
    for node in _walk(statement, executed_only=True):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [
                (t.id, node.value) for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)
            ]
    return found


def _walk(node: ast.AST, executed_only: bool) -> list[ast.AST]:
    """``node``'s nodes; ``executed_only``: not the bodies of functions, nor ``if __name__ == "__main__"``."""
    if not executed_only:
        return list(ast.walk(node))
    found: list[ast.AST] = []
    pending = [node]
    while pending:
        current = pending.pop()
        found.append(current)
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue  # defined, not run (a class body's own statements are read as the class's)
        if isinstance(current, ast.If) and "__main__" in ast.dump(current.test):
            continue  # run as a script, not when imported
        pending += ast.iter_child_nodes(current)
    return found


def _abstract(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a method only says it is to be overridden (a docstring, ``pass``, ``...``, a ``raise``)."""
    return all(
        isinstance(s, (ast.Pass, ast.Raise))
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in method.body
    )


def mine(root: str | None = None) -> dict[str, object]:
    """The catalogue of the standard library under ``root`` (the running interpreter's by default)."""
    root = root or sysconfig.get_paths()["stdlib"]
    modules: dict[str, _Module] = {}
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d not in _SKIPPED and "." not in d)
        for file in sorted(files):
            if not file.endswith(".py"):
                continue
            path = os.path.join(directory, file)
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    tree = ast.parse(handle.read())
            except (SyntaxError, ValueError, OSError):
                continue
            name = _module_name(root, path)
            modules[name] = _Module(name, path, tree)

    def member_of(name: str) -> tuple[str, str] | None:
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in modules:
                return module, parts[cut]
        return None

    kinds: dict[tuple[str, str], set[str]] = {}
    # Methods by the package defining them: ``self.m(...)`` reaches the ``m`` of a subclass, which
    # the standard library defines in the same package (asyncio's loops, multiprocessing's contexts).
    package_methods: dict[tuple[str, str], set[str]] = {}

    def reached(module: _Module, references: set[str]) -> set[str]:
        found = {kind for r in references if (kind := _primitive(r)) is not None}
        package = module.name.split(".")[0]
        for reference in references:
            other = member_of(reference)
            if other is not None:
                found |= kinds.get(other, set())
            head, _, method = reference.partition(".")
            if head in ("self", "cls") and "." not in method and (package, method) not in package_plain:
                found |= package_methods.get((package, method), set())
        return found

    # A method name some (not abstract) definition of which in the package is not (yet) known to reach
    # anything is not dispatched to: ``self.run()`` is not known to be the ``run`` that starts a program.
    unproven = {
        (module.name, index): (module.name.split(".")[0], method)
        for module in modules.values()
        for index, (method, _, abstract) in enumerate(module.methods)
        if not abstract
    }
    package_plain = set(unproven.values())
    changed = True
    while changed:  # a member reaching another that may, may too
        changed = False
        for module in modules.values():
            package = module.name.split(".")[0]
            for index, (method, references, _) in enumerate(module.methods):
                kind = reached(module, references)
                if kind and not kind <= package_methods.get((package, method), set()):
                    package_methods.setdefault((package, method), set()).update(kind)
                    changed = True
                if kind:
                    unproven.pop((module.name, index), None)
            for member, references in module.members.items():
                key = (module.name, member)
                kind = set() if key in VETTED else reached(module, references)
                if kind and not kind <= kinds.get(key, set()):
                    kinds.setdefault(key, set()).update(kind)
                    changed = True
        package_plain = set(unproven.values())

    # Methods by name: defined capable somewhere, and whether some other function or method of that
    # name is not (a generic name, ``run``, ``open``: then only an object known to come from a capable
    # member counts). A method that only says it is to be overridden is neither.
    capable_methods: dict[str, set[str]] = {}
    plain: set[str] = set()
    for module in modules.values():
        for method, references, abstract in module.methods:
            kind = reached(module, references)
            if kind:
                capable_methods.setdefault(method, set()).update(kind)
            elif not abstract:
                plain.add(method)
        plain |= {m for m in module.names if (module.name, m) not in kinds}
    catalogue_modules: dict[str, dict[str, object]] = {}
    for module in modules.values():
        stars = _star_closure(module.name, modules)
        capable = {
            member: sorted(kind) for name in stars for (owner, member), kind in kinds.items() if owner == name
        }
        if capable:
            names = sorted(
                {n for name in stars for n in modules[name].names}
                | set(module.bound)
                | {n for name in stars for star in modules[name].stars for n in _builtin_names(star)}
            )
            catalogue_modules[module.name] = {"capable": dict(sorted(capable.items())), "names": names}
    return {
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "modules": dict(sorted(catalogue_modules.items())),
        "methods": {n: sorted(k) for n, k in sorted(capable_methods.items()) if not n.startswith("__")},
        "generic_methods": sorted(n for n in capable_methods if n in plain and not n.startswith("__")),
        "at_import": sorted(
            m.name
            for m in modules.values()
            if reached(m, m.top - _IMPORT_VETTED) and m.name not in _started_with()
        ),
        "all_modules": sorted(modules),
    }


def _started_with() -> set[str]:
    """The modules this Python has imported when it starts (importing one again runs nothing)."""
    shown = subprocess.run(
        [sys.executable, "-I", "-c", "import sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(shown.stdout.split())


def _builtin_names(module: str) -> list[str]:
    """The names of a module built into the interpreter (``posix``, which ``os`` star-imports): no code runs."""
    if module not in sys.builtin_module_names:
        return []
    return [n for n in dir(importlib.import_module(module)) if not n.startswith("__")]


def _star_closure(name: str, modules: dict[str, _Module]) -> list[str]:
    """``name`` and the modules its ``from m import *`` lines bring names from, in turn."""
    found, pending = [name], list(modules[name].stars)
    while pending:
        star = pending.pop()
        if star in modules and star not in found:
            found.append(star)
            pending += modules[star].stars
    return found


@dataclass(frozen=True)
class _Catalogue:
    capable: dict[str, dict[str, list[str]]]  # module -> its capable members and what each may do
    names: dict[str, frozenset[str]]  # module (with capable members) -> every name it defines
    methods: frozenset[str]
    generic: frozenset[str]
    at_import: frozenset[str]
    modules: frozenset[str]


@functools.cache
def _catalogue() -> _Catalogue:
    data = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))
    return _Catalogue(
        {m: e["capable"] for m, e in data["modules"].items()},
        {m: frozenset(e["names"]) for m, e in data["modules"].items()},
        frozenset(data["methods"]),
        frozenset(data["generic_methods"]),
        frozenset(data["at_import"]),
        frozenset(data["all_modules"]),
    )


def member_capability(qualified: str) -> str | None:
    """Why calling the standard-library member ``qualified`` (``pydoc.pipepager``) may run a program or code.

    None when the catalogue proves it pure: a member of a module with no capable member, or one it
    defines and the mining finds pure. A member the module does not define where it is read (made at
    run time) of a module that has capable members is not proven pure.
    """
    primitive = _primitive(qualified)
    if primitive is not None:
        return f"{qualified} may {_verb(primitive)}"
    catalogue = _catalogue()
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module, member = ".".join(parts[:cut]), parts[cut]
        if module not in catalogue.modules:
            continue
        capable = catalogue.capable.get(module, {})
        if member in capable:
            verbs = " and ".join(_verb(k) for k in capable[member])
            return f"{module}.{member} may {verbs} (the standard library's own code)"
        if not capable or member in catalogue.names[module]:
            return None
        return (
            f"{module}.{member} is made when {module} runs, which has members that start programs or run code"
        )
    return None


def method_capability(method: str) -> bool:
    """Whether a method of that name may start a program or run code on an object of any class.

    A name no pure function or method of the standard library shares (``subprocess_shell``, not
    ``run``): a generic one counts only on an object known to come from a capable member.
    """
    catalogue = _catalogue()
    return method in catalogue.methods and method not in catalogue.generic


def at_import(module: str) -> bool:
    """Whether importing the standard module ``module`` itself runs a program or code (``antigravity``)."""
    return module in _catalogue().at_import


def _verb(kind: str) -> str:
    return "start a program" if kind == RUNS else "run code given as data"


if __name__ == "__main__":
    CATALOGUE_FILE.write_text(json.dumps(mine(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
