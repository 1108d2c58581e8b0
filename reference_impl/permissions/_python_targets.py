"""What Python code runs, evaluates and writes, read from its syntax tree (PERM-15, PERM-17).

Reading code for a literal name is not knowing what it runs: ``os.system("r" + "m x")`` names no
program, yet runs one. Every call of an API that starts a program, evaluates code or opens a file for
writing (the os, subprocess, pty, builtins, ... functions whose documentation says so, see
:data:`RUNS`, :data:`EVALUATES`, :data:`WRITES`) must have its target given as a literal constant;
any way of reaching such an API by a built name (``getattr``, ``__import__``, ``importlib``,
``globals()``, a dunder attribute, a module passed around, a star import, an aliased import of one of
its functions) makes the code's targets unknown. ``eval``/``exec`` of a literal string are read as
the code they hold.
"""

from __future__ import annotations

import ast
import shlex
from dataclasses import dataclass, field

from reference_impl.permissions._stdlib_catalogue import at_import, member_capability, method_capability

__all__ = ["EVALUATES", "MOVES", "RUNS", "WRITES", "PythonTargets", "python_targets"]

# Functions that start a program: qualified name -> how their arguments name it ("shell": the first
# argument is shell text; "argv": the literal words are the command, and each string is also read as
# shell text, the stricter reading).
RUNS: dict[str, str] = {
    **dict.fromkeys(("os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput"), "shell"),
    **dict.fromkeys(("asyncio.create_subprocess_shell", "platform.popen", "commands.getoutput"), "shell"),
    **dict.fromkeys(
        ("subprocess." + f for f in ("run", "call", "check_call", "check_output", "Popen")), "argv"
    ),
    **dict.fromkeys(
        (
            f"os.{f}"
            for f in [
                "execl",
                "execle",
                "execlp",
                "execlpe",
                "execv",
                "execve",
                "execvp",
                "execvpe",
                "spawnl",
                "spawnle",
                "spawnlp",
                "spawnlpe",
                "spawnv",
                "spawnve",
                "spawnvp",
                "spawnvpe",
                "posix_spawn",
                "posix_spawnp",
                "startfile",
            ]
        ),
        "argv",
    ),
    **dict.fromkeys(("pty.spawn", "asyncio.create_subprocess_exec", "webbrowser.open"), "argv"),
}
"""Functions that start a program, mined from the documentation of os, subprocess, pty, asyncio."""

EVALUATES = frozenset(
    {"eval", "exec", "compile", "__import__", "breakpoint", "execfile"}
    | {"importlib.import_module", "importlib.__import__", "importlib.reload", "runpy.run_path"}
    | {"runpy.run_module", "code.interact", "code.InteractiveConsole", "code.InteractiveInterpreter"}
    | {"codeop.compile_command", "timeit.timeit", "timeit.repeat", "timeit.Timer", "cProfile.run"}
    | {"cProfile.runctx", "profile.run", "profile.runctx", "pdb.run", "pdb.runeval", "pdb.runcall"}
    | {"pickle.loads", "pickle.load", "pickle.Unpickler", "marshal.loads", "marshal.load", "shelve.open"}
    | {"types.FunctionType", "types.CodeType", "ctypes.CDLL", "ctypes.cdll", "ctypes.PyDLL"}
    | {"ctypes.pythonapi", "ctypes.util", "os.fork", "os.forkpty", "builtins.eval", "builtins.exec"}
    | {"sys.modules", "importlib.util", "zipimport.zipimporter", "site.addsitedir", "sys.path_hooks"}
)
"""Functions that run code given as data (a string, bytes, a file, a library), or a name built in it."""

# Functions that write a file: qualified name -> index of the path argument they write.
WRITES: dict[str, int] = {
    **dict.fromkeys(("open", "io.open", "codecs.open", "os.open", "builtins.open", "gzip.open"), 0),
    **dict.fromkeys(("bz2.open", "lzma.open", "tarfile.open", "zipfile.ZipFile", "sqlite3.connect"), 0),
    **dict.fromkeys(("dbm.open", "fileinput.input", "logging.FileHandler", "os.mkfifo", "os.mknod"), 0),
    **dict.fromkeys(("os.truncate", "os.chmod", "os.chown", "os.remove", "os.unlink", "os.utime"), 0),
    **dict.fromkeys(("os.mkdir", "os.makedirs", "os.rmdir", "os.removedirs", "shutil.rmtree"), 0),
    **dict.fromkeys(("os.rename", "os.renames", "os.replace", "os.link", "os.symlink"), 1),
    **dict.fromkeys(("shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree"), 1),
    **dict.fromkeys(("shutil.move", "shutil.copymode", "shutil.copystat", "os.copy_file_range"), 1),
}
"""Functions that create or change the file their path argument names (documentation of os, io, shutil)."""

# Methods of path objects that write the path they are called on (pathlib's documentation).
_PATH_WRITES = frozenset(
    {"write_text", "write_bytes", "touch", "mkdir", "symlink_to", "hardlink_to", "link_to", "chmod"}
    | {"unlink", "rmdir", "rename", "replace", "open", "lchmod"}
)
_PATH_TYPES = frozenset({"Path", "PosixPath", "PurePath", "pathlib.Path", "pathlib.PosixPath"})
# Functions that change the process's working directory (os, contextlib): a relative path the code
# writes, or a command it runs, is then relative to the directory they name.
MOVES = frozenset({"os.chdir", "os.fchdir", "contextlib.chdir"})
# Modules whose functions run, evaluate or write (a reference to one not followed by an attribute is
# the module passed around: anything may then be called on it).
_CAPABLE_MODULES = frozenset(
    {name.rsplit(".", 1)[0] for name in (*RUNS, *EVALUATES, *WRITES) if "." in name}
    | {"builtins", "sys", "importlib", "pathlib", "ctypes", "operator", "inspect", "gc", "multiprocessing"}
)
# Built-ins that look a name up at run time, or hand out the tables of names.
_BY_NAME = frozenset({"getattr", "vars", "globals", "locals", "dir", "setattr", "delattr"})
_HARMLESS_DUNDERS = frozenset({"__name__", "__file__", "__doc__", "__version__", "__main__", "__init__"})


@dataclass
class PythonTargets:
    """The literal commands and written paths found, and why some target is only known when it runs."""

    runs: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    built: str | None = None
    writes_built: str | None = None
    moves: list[str | None] = field(default_factory=list)
    """The directories the code changes to, or starts programs in (``cwd=``); None: one built when it runs."""
    handed: list[str] = field(default_factory=list)
    """Literal strings given to a function the lists do not know as only reading (``extractall(".git")``):
    each may be a path it writes."""

    def unknown(self, why: str, *, write: bool = False) -> None:
        """Note why a target is built: a write's (``write``) or a program's or code's (also any write)."""
        if self.writes_built is None:
            self.writes_built = why
        if self.built is None and not write:
            self.built = why


def _literal(node: ast.AST) -> str | bytes | int | float | bool | list[object] | None:
    """``node``'s value when it is a literal constant (a string, a number, a list or tuple of them)."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, (str, bytes, int, float, bool)) or value is None:
            return value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _literal(node.operand)
        return operand if isinstance(operand, (int, float)) else _NOT_LITERAL
    if isinstance(node, ast.Dict) and None not in node.keys:
        node = ast.List(elts=[*(k for k in node.keys if k is not None), *node.values])
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_literal(item) for item in node.elts]
        if all(item is not _NOT_LITERAL for item in items):
            return list(items)
    return _NOT_LITERAL


_NOT_LITERAL: list[object] = []  # a sentinel: identity-compared, never a literal's value


def _strings(value: object) -> list[str]:
    if isinstance(value, bytes):
        return [value.decode("utf-8", "replace")]
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


class _Reader:
    """One pass over a tree's nodes, imports first (a name is bound before the call using it runs)."""

    def __init__(self, tree: ast.AST, found: PythonTargets, depth: int) -> None:
        self.found, self.depth = found, depth
        self.uses_paths = any(isinstance(n, ast.Name) and n.id in _PATH_TYPES for n in ast.walk(tree))
        self.modules: dict[str, str] = {}  # local name -> module it is bound to
        self.functions: dict[str, str] = {}  # local name -> qualified function imported as it
        self.callees: set[int] = set()  # ids of nodes that are a call's function, checked there
        self.receivers: set[int] = set()  # ids of module names used as an attribute's object
        self.derived: set[str] = set()  # local names bound to what a capable standard member made
        self.annotations: set[int] = set()  # ids of nodes in annotations: types, not values used
        self.environment: list[str] = []  # literal values the code puts in the environment
        self.handed: list[str] = []  # literal strings given to functions that may write what they name
        self.environment_built = False  # a value it puts there that is built when it runs

    # Imports bind names: modules by their (alias) name, functions of capable modules by their own.
    def import_(self, node: ast.Import) -> None:
        for alias in node.names:
            self._imported(alias.name)
            top = alias.name.split(".")[0]
            self.modules[alias.asname or top] = alias.name if alias.asname else top

    def import_from(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        self._imported(module)
        for alias in node.names:
            qualified = f"{module}.{alias.name}"
            self._imported(qualified)
            if alias.name == "*" and module.split(".")[0] in _CAPABLE_MODULES | {"os", "subprocess"}:
                self.found.unknown(f"'from {module} import *' binds names the code may call by any spelling")
            elif qualified in _CAPABLE_MODULES or alias.name in _CAPABLE_MODULES:
                self.modules[alias.asname or alias.name] = qualified
            elif _is_capability(qualified) and alias.asname not in (None, alias.name):
                self.found.unknown(f"{qualified} is imported under another name ({alias.asname})")
            else:
                self.functions[alias.asname or alias.name] = qualified

    def _imported(self, module: str) -> None:
        if at_import(module):
            self.found.unknown(f"importing {module} runs a program or code (the standard library's own code)")

    def qualified(self, node: ast.AST) -> str | None:
        """The qualified name ``node`` refers to (``sp.run`` -> ``subprocess.run``), when it is a name."""
        if isinstance(node, ast.Name):
            if node.id in self.functions:
                return self.functions[node.id]
            return self.modules.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return f"{base}.{node.attr}" if base is not None else None
        return None

    def imported(self, node: ast.AST) -> str | None:
        """``node``'s qualified name when its root is a name an import binds (``pydoc.pipepager``)."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and (root.id in self.modules or root.id in self.functions):
            return self.qualified(node)
        return None

    def capable(self, node: ast.AST) -> str | None:
        """Why ``node`` is, or was made by, a standard-library member that may start a program or run code.

        The standard library's own source says which (:mod:`_stdlib_catalogue`); an object one of
        them made (``loop``, ``ctx``, ``t = trace.Trace()``) is of a class the reader does not know.
        """
        if isinstance(node, (ast.Await, ast.Starred)):
            return self.capable(node.value)
        if isinstance(node, (ast.Call, ast.Subscript)):
            return self.capable(node.func if isinstance(node, ast.Call) else node.value)
        if isinstance(node, (ast.Name, ast.Attribute)) and _dotted(node) in self.derived:
            return f"{_dotted(node)} is an object a standard-library member that may start a program or run code made"
        name = self.imported(node)
        why = member_capability(name) if name is not None else None
        if why is None and isinstance(node, ast.Attribute):
            return self.capable(node.value)
        return why

    def derive(self, targets: list[ast.expr], value: ast.AST) -> None:
        """Names bound to what a capable member made are such objects too (``ctx = mp.get_context()``)."""
        if self.capable(value) is not None:
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, (ast.Name, ast.Attribute)):
                        self.derived.add(_dotted(node))

    def call(self, node: ast.Call) -> None:
        name = self.qualified(node.func)
        self._moves(name, node)
        self._handed(node)
        if name is None and isinstance(node.func, ast.Attribute):
            name = f"?.{node.func.attr}"  # a method of an object only known when it runs
        if name is not None:
            self._call(name, node)
        if name is None or not _listed(name):
            self._standard_call(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _PATH_WRITES:
            self._path_method(node.func, node)

    def _moves(self, name: str | None, node: ast.Call) -> None:
        """``os.chdir(D)``, ``subprocess.run(..., cwd=D)``: where the code's relative paths then lead."""
        given = [k.value for k in node.keywords if k.arg == "cwd"]
        if name in MOVES:
            given += node.args[:1] or [ast.Name(id="?")]
        if any(k.arg is None for k in node.keywords):
            given.append(ast.Name(id="?"))  # ``**options`` may hold a cwd
        for value in given:
            literal = _literal(value)
            self.found.moves += _strings(literal)[:1] if isinstance(literal, (str, bytes)) else [None]

    def _handed(self, node: ast.Call) -> None:
        """The literal strings a call gives a function that may write what they name (unknown: it may)."""
        func = node.func
        # A module's function by its qualified name, a built-in by its own, a method of any other
        # object (``c.read``, ``f(x).extractall``) by its name alone.
        name = self.imported(func) or (
            func.id
            if isinstance(func, ast.Name)
            else f"?.{func.attr}"
            if isinstance(func, ast.Attribute)
            else None
        )
        if name is not None and (_listed(name) or _only_reads(name)):
            return  # judged as its API says (a write's path, a command), or a function that only reads
        values = [*node.args, *(k.value for k in node.keywords if k.arg != "cwd")]
        for value in values:
            literal = _literal(value)
            if literal is not _NOT_LITERAL:
                self.handed += _strings(literal)
        at = _INTO_WORKING_DIRECTORY.get(name.rpartition(".")[2] if name else "")
        if at is not None and len(node.args) <= at and not {k.arg for k in node.keywords} & _DESTINATIONS:
            self.handed.append(".")  # ``extractall()``: into the working directory, by default

    def _standard_call(self, node: ast.Call) -> None:
        """A call the lists above do not name, of what may start a program or run code: its values must be literal.

        Its literal strings are read as the stricter of what they may be: a command, and code.
        """
        func = node.func
        why = self.capable(func)
        if why is None and isinstance(func, ast.Attribute) and method_capability(func.attr):
            why = f".{func.attr}() is a method by which the standard library starts a program or runs code"
        callee = self.imported(func) or ""
        if callee.rpartition(".")[0] in _SEARCH_PATHS:
            self.found.unknown(
                f"{callee}: the modules the code then imports are found where the engine does not look"
            )
        environment = callee in _ENVIRONMENT_WRITES
        if why is None and not environment:
            return
        args = self._args(node)
        keywords = [_literal(k.value) for k in node.keywords if k.arg is not None]
        built = args is None or any(k is _NOT_LITERAL for k in keywords)
        strings = [] if built else [t for v in (*(args or ()), *keywords) for t in _strings(v)]
        if environment:
            self.environment += strings
            self.environment_built |= built
            return
        if built:
            self.found.unknown(f"{why}, and is given a value built when the code runs")
            return
        for text in strings:
            self.found.runs.append(text)
            if self.depth < 4 and _parses(text):
                _read(text, self.found, self.depth + 1)

    def assigned(self, node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> None:
        """``os.environ[k] = v``: what the code puts in the environment programs it starts read."""
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if self.imported(target.value if isinstance(target, ast.Subscript) else target) in _SEARCH_PATHS:
                self.found.unknown(
                    "the code sets sys.path: the modules it imports are found where the engine does not look"
                )
            if isinstance(target, ast.Subscript) and self.imported(target.value) == "os.environ":
                value = _literal(node.value) if node.value is not None else _NOT_LITERAL
                self.environment += _strings(value)
                self.environment_built |= value is _NOT_LITERAL or isinstance(node, ast.AugAssign)

    def finish(self) -> None:
        """What the code puts in the environment: read as commands, or unknown when built.

        It names programs the standard library starts (``BROWSER``, ``PAGER``), in this file's code or
        any other the process runs.
        """
        self.found.handed += self.handed
        if self.environment_built:
            self.found.unknown(
                "the code puts a value built when it runs in the environment of the programs it starts"
            )
        self.found.runs += self.environment

    def _args(self, node: ast.Call) -> list[object] | None:
        """The call's positional arguments as literals; None when one (or a ``*``/``**`` one) is not."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        values: list[object] = [_literal(a) for a in node.args]
        return None if any(v is _NOT_LITERAL for v in values) else values

    def _keyword(self, node: ast.Call, name: str) -> object:
        found = next((k.value for k in node.keywords if k.arg == name), None)
        return None if found is None else _literal(found)

    def _call(self, name: str, node: ast.Call) -> None:
        if name in _DATA_ONLY:
            return  # a standard-library parser of data that shares a name with one that runs code
        short = name.rsplit(".", 1)[-1]
        if name in RUNS or short in _RUN_METHODS:
            args = self._args(node)
            extra = [self._keyword(node, k) for k in ("args", "executable")]
            if args is None or any(v is _NOT_LITERAL for v in extra):
                self.found.unknown(f"{name} is given a command built when the code runs")
                return
            words = [s for value in (*args, *extra) for s in _strings(value)]
            if name.startswith(("os.exec", "os.posix_spawn")) and len(words) > 1:
                words = [words[0], *words[2:]]  # the program's path, then its arguments after argv[0]
            # One string is shell text (or a program's name); several are a program and its arguments.
            self.found.runs.append(words[0] if len(words) == 1 else shlex.join(words))
        elif name in EVALUATES or short in _EVALUATE_METHODS:
            args = self._args(node)
            code = args[0] if args else None
            evaluated = name in ("eval", "exec", "compile", "builtins.eval", "builtins.exec")
            if evaluated and isinstance(code, str) and self.depth < 4:
                _read(code, self.found, self.depth + 1)  # a literal string of code: read as code
                return
            self.found.unknown(f"{name} runs code or loads a name only known when it runs")
        elif name in WRITES:
            self._write(name, node)
        elif name in _BY_NAME:
            args = self._args(node)
            key = args[1] if args and len(args) > 1 else None
            if (
                name in ("getattr", "setattr", "delattr")
                and isinstance(key, str)
                and not _risky_attribute(key)
            ):
                return
            self.found.unknown(f"{name}() looks a name up when the code runs")

    def _write(self, name: str, node: ast.Call) -> None:
        at = WRITES[name]
        if name in ("open", "io.open", "codecs.open", "builtins.open", "os.fdopen"):
            mode = (
                node.args[1]
                if len(node.args) > 1
                else next((k.value for k in node.keywords if k.arg == "mode"), None)
            )
            literal_mode = _literal(mode) if mode is not None else "r"
            if isinstance(literal_mode, str) and not set(literal_mode) & set("wax+"):
                return  # opened for reading
        target: ast.AST | None = node.args[at] if len(node.args) > at else None
        if target is None:
            target = next(
                (k.value for k in node.keywords if k.arg in ("file", "dst", "path", "filename")), None
            )
        value = _literal(target) if target is not None else _NOT_LITERAL
        if isinstance(value, (str, bytes)):
            self.found.writes.extend(_strings(value))
        else:
            self.found.unknown(f"{name} writes a file whose name is built when the code runs", write=True)

    def _path_method(self, func: ast.Attribute, node: ast.Call) -> None:
        receiver = func.value
        if (
            isinstance(receiver, ast.Call)
            and self.qualified(receiver.func) in _PATH_TYPES
            and (args := self._args(receiver)) is not None
            and args
            and all(isinstance(a, str) for a in args)
        ):
            self.found.writes.append("/".join(str(a) for a in args))
            if func.attr in ("rename", "replace", "symlink_to", "hardlink_to") and node.args:
                value = _literal(node.args[0])
                if isinstance(value, str):
                    self.found.writes.append(value)
                else:
                    self.found.unknown(
                        f"{func.attr} moves a file to a name built when the code runs", write=True
                    )
            return
        if func.attr in ("open", "replace", "rename", "chmod", "unlink", "mkdir") and not self.uses_paths:
            return  # no path type in the code: ``str.replace``, a file object's ``open``...
        self.found.unknown(f".{func.attr}() writes a path only known when the code runs", write=True)

    def attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("__") and node.attr not in _HARMLESS_DUNDERS:
            self.found.unknown(f"the code reaches {node.attr}, which leads to any name")
        name = self.qualified(node)
        if name in MOVES and id(node) not in self.callees:
            self.found.moves.append(None)  # ``cd = os.chdir``: called with anything
        if name is not None and _is_capability(name) and id(node) not in self.callees:
            self.found.unknown(
                f"{name} is referred to without being called on literals", write=_writes_only(name)
            )
        else:
            self._passed(node)

    def _passed(self, node: ast.Name | ast.Attribute) -> None:
        """A capable standard member handed on (``handler=CGIHTTPRequestHandler``): called with anything."""
        if id(node) in self.callees or id(node) in self.annotations or id(node) in self.receivers:
            return
        name = self.imported(node)
        why = member_capability(name) if name is not None else None
        if why is not None:
            self.found.unknown(f"{why}, and is referred to without being called on literals")

    def name(self, node: ast.Name) -> None:
        name = self.qualified(node)
        if node.id.startswith("__") and node.id not in _HARMLESS_DUNDERS:
            self.found.unknown(f"the code reaches {node.id}, which leads to any name")
        elif (
            name is not None
            and (_is_capability(name) or node.id in _BY_NAME)
            and id(node) not in self.callees
        ):
            self.found.unknown(
                f"{name} is referred to without being called on literals", write=_writes_only(name)
            )
        elif (
            node.id in self.modules
            and self.modules[node.id].split(".")[0] in _CAPABLE_MODULES | {"os", "subprocess"}
            and id(node) not in self.receivers
        ):
            self.found.unknown(f"the module {self.modules[node.id]} is passed around")
        elif node.id in self.functions:
            self._passed(node)


# How code puts values in the environment of the programs it starts (``os.environ[k] = v`` too).
# The lists Python finds modules by: code changing them imports what the engine does not follow.
_SEARCH_PATHS = frozenset({"sys.path", "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache"})
_ENVIRONMENT_WRITES = frozenset(
    {"os.putenv", "os.environ.update", "os.environ.setdefault", "os.environb.update"}
)


def _listed(name: str) -> bool:
    """Whether a call of ``name`` is judged by the lists above (its arguments read as their API says)."""
    short = name.rsplit(".", 1)[-1]
    return (
        name in RUNS
        or name in EVALUATES
        or name in WRITES
        or name in _BY_NAME
        or name in _DATA_ONLY
        or short in _RUN_METHODS
        or short in _EVALUATE_METHODS
    )


def _dotted(node: ast.AST) -> str:
    return ast.unparse(node)


def _parses(text: str) -> bool:
    """Whether a literal string is Python code (one that is not can't be evaluated: it finds nothing)."""
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


# Functions (and methods of objects the reader does not know) that only compute or read: a path
# literal given to one names nothing it writes. Any other function may write what a literal names
# (``tarfile.open(a).extractall(".git")``, ``logging.basicConfig(filename=...)``): judged as a write.
_READS_ONLY = frozenset(
    {"print", "len", "str", "repr", "int", "float", "bool", "bytes", "list", "dict", "set", "tuple"}
    | {"frozenset", "sorted", "min", "max", "sum", "any", "all", "isinstance", "format", "hash", "ord"}
    | {"chr", "range", "enumerate", "zip", "map", "filter", "reversed", "iter", "next", "abs", "round"}
    | {"os.getenv", "os.environ.get", "os.stat", "os.lstat", "os.listdir", "os.scandir", "os.access"}
    | {"os.walk", "os.getcwd", "os.fspath", "os.fsencode", "os.fsdecode", "shutil.which", "sys.exit"}
    | {"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "Path", "PurePath", "PosixPath"}
    | {"sys.stdout.write", "sys.stderr.write", "shlex.split", "shlex.quote", "shlex.join"}
)
_READS_ONLY_MODULES = frozenset(
    {"os.path", "posixpath", "re", "json", "fnmatch", "glob", "string", "textwrap", "math", "time"}
    | {"datetime", "hashlib", "base64", "urllib.parse", "collections", "itertools", "functools"}
)
_READS_ONLY_METHODS = frozenset(
    {"join", "split", "rsplit", "splitlines", "strip", "lstrip", "rstrip", "replace", "startswith"}
    | {"endswith", "format", "format_map", "encode", "decode", "lower", "upper", "title", "count"}
    | {"index", "find", "rfind", "partition", "rpartition", "get", "setdefault", "pop", "items", "keys"}
    | {"values", "append", "extend", "insert", "remove", "add", "update", "exists", "is_dir", "is_file"}
    | {"is_symlink", "stat", "lstat", "resolve", "absolute", "relative_to", "with_suffix", "with_name"}
    | {"with_stem", "joinpath", "match", "glob", "rglob", "iterdir", "read", "readline", "readlines"}
    | {"read_text", "read_bytes", "search", "fullmatch", "sub", "findall", "finditer", "group", "loads"}
    | {"dumps", "write", "writelines", "flush", "close", "sort", "info", "debug", "warning", "error"}
    | {"critical", "exception", "getLogger", "isoformat", "strftime", "hexdigest", "digest"}
)


# What writes into the working directory when not told where (the standard library's signatures:
# ``TarFile.extractall(path=".")``, ``ZipFile.extractall(path=None)``, ``shutil.unpack_archive(
# filename, extract_dir=None)``): the name -> the position of the destination argument.
_INTO_WORKING_DIRECTORY = {"extractall": 0, "extract": 1, "unpack_archive": 1}
_DESTINATIONS = frozenset({"path", "extract_dir"})


def _only_reads(name: str) -> bool:
    """Whether a function (a qualified name, or ``?.method``) only computes or reads, as far as the reader knows."""
    if name.startswith("?."):
        return name[2:] in _READS_ONLY_METHODS
    module = name.rpartition(".")[0]
    return name in _READS_ONLY or module in _READS_ONLY_MODULES


def _writes_only(name: str) -> bool:
    return name in WRITES and name not in RUNS and name not in EVALUATES


def _is_capability(name: str) -> bool:
    return name in RUNS or name in EVALUATES or name in WRITES


# Names of run/evaluate functions distinctive enough to be known on any object (``m.system(x)`` where
# ``m`` came out of ``sys.modules``); ``run``, ``call``, ``open``, ``load`` are too common for that.
_GENERIC = frozenset(
    {"run", "call", "open", "load", "Timer", "util", "reload", "input", "interact", "compile"}
)
# The standard library's parsers of data whose names a loader of code also has (``pickle.loads``):
# only what they name exactly is theirs (``json`` itself, when the project shadows it, is read as code).
_DATA_ONLY = frozenset({"json.loads", "json.load", "tomllib.loads", "tomllib.load", "plistlib.loads"})
_RUN_METHODS = frozenset(n.rsplit(".", 1)[-1] for n in RUNS) - _GENERIC
_EVALUATE_METHODS = frozenset(n.rsplit(".", 1)[-1] for n in EVALUATES) - _GENERIC
_RISKY_ATTRIBUTES = _RUN_METHODS | _EVALUATE_METHODS | {"modules", "chdir", "fchdir"}


def _risky_attribute(name: str) -> bool:
    return name in _RISKY_ATTRIBUTES or (name.startswith("__") and name not in _HARMLESS_DUNDERS)


def _read(code: str, found: PythonTargets, depth: int) -> None:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        found.unknown("the code is not Python the engine parses")
        return
    reader = _Reader(tree, found, depth)
    nodes = list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            reader.import_(node)
        elif isinstance(node, ast.ImportFrom):
            reader.import_from(node)
        elif isinstance(node, ast.Call):
            reader.callees.add(id(node.func))
            if isinstance(node.func, ast.Attribute):
                reader.callees.add(id(node.func.value))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            reader.receivers.add(id(node.value))
        annotation = (
            node.annotation
            if isinstance(node, (ast.arg, ast.AnnAssign))
            else node.returns
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            else None
        )
        if annotation is not None:
            reader.annotations |= {id(n) for n in ast.walk(annotation)}
            text = annotation.value if isinstance(annotation, ast.Constant) else None
            if isinstance(text, str) and depth < 4 and _parses(text):
                _read(
                    text, found, depth + 1
                )  # a string annotation is code ``typing.get_type_hints`` evaluates
    for _ in range(2):  # twice: an object made from one made before (``p = ctx.Process()``)
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                reader.derive(node.targets if isinstance(node, ast.Assign) else [node.target], node.value)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                reader.derive([node.optional_vars], node.context_expr)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                reader.derive([node.target], node.iter)
    for node in nodes:
        if isinstance(node, ast.Call):
            reader.call(node)
        elif isinstance(node, ast.Attribute):
            reader.attribute(node)
        elif isinstance(node, ast.Name):
            reader.name(node)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            reader.assigned(node)
    reader.finish()


def python_targets(code: str) -> PythonTargets:
    """The literal commands ``code`` runs and paths it writes, and why some target is built at run time."""
    found = PythonTargets()
    _read(code, found, 0)
    return found
