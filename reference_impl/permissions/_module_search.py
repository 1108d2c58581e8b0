"""The files a program loads as code, found by the program's own search rules (PERM-17).

A program's code is what the *program* resolves, not what a line names: ``node t.js`` runs every
module ``t.js`` requires or imports, found as node finds it (a relative path, with the extensions and
``index`` files node tries; a bare name in ``node_modules`` here or in any directory above, then in
``NODE_PATH``; a package's ``exports``, ``main`` or ``index.js``; ``#name`` through the nearest
``package.json``'s ``imports``; ``NODE_OPTIONS``'s ``--require``/``--import``/``--loader``, and those of
an ``--env-file``); ``perl`` runs every module it loads from ``@INC`` (``-I``, ``use lib``,
``PERL5LIB``/``PERLLIB``, ``PERL5OPT``, ``-M``/``-m``/``-d:``, switches on the ``#!`` line, ``.pmc``
before ``.pm``), ``require``/``do`` of a file; ``make`` reads every makefile it includes, searched in
its directory, its ``-I``/``--include-dir`` directories (``MAKEFLAGS``'s too) and its default ones.

Each file found is returned with its text to be judged as code (the rules module reads it); what the
program would load but the engine cannot read (a name it does not find, a binary addon, a directory
only known when it runs, code that changes the search path itself) is returned as :data:`NOT_READ`:
asked about under a deny rule the code could meet. A module of the installation (perl's own
``@INC``, node's built-in modules) is the program's own, not the project's: not read.
"""

from __future__ import annotations

import glob
import json
import os
import posixpath
import re
import shlex
import stat
from collections.abc import Iterable, Sequence

from reference_impl.permissions._interpreter_options import interpreter_run
from reference_impl.permissions._make_expansion import DOLLAR, expand

__all__ = [
    "NOT_READ",
    "loads_modules",
    "make_include_dirs",
    "make_included",
    "node_loaded",
    "program_loaded",
    "script_loaded",
]

NOT_READ = "\0"
"""The text of a (where, text) pair standing for code the program loads that the engine does not read."""

Found = list[tuple[str, str]]

_MAX_FILES = 64
_MAX_BYTES = 262_144

# node's built-in modules, as node 20's ``require("module").builtinModules`` lists them (``node:`` names
# any of them, and the few only reachable with it: ``node:test``, ``node:sea``, ``node:sqlite``).
_NODE_BUILTINS = frozenset(
    {
        "_http_agent",
        "_http_client",
        "_http_common",
        "_http_incoming",
        "_http_outgoing",
        "_http_server",
        "_stream_duplex",
        "_stream_passthrough",
        "_stream_readable",
        "_stream_transform",
        "_stream_wrap",
        "_stream_writable",
        "_tls_common",
        "_tls_wrap",
        "assert",
        "assert/strict",
        "async_hooks",
        "buffer",
        "child_process",
        "cluster",
        "console",
        "constants",
        "crypto",
        "dgram",
        "diagnostics_channel",
        "dns",
        "dns/promises",
        "domain",
        "events",
        "fs",
        "fs/promises",
        "http",
        "http2",
        "https",
        "inspector",
        "inspector/promises",
        "module",
        "net",
        "os",
        "path",
        "path/posix",
        "path/win32",
        "perf_hooks",
        "process",
        "punycode",
        "querystring",
        "readline",
        "readline/promises",
        "repl",
        "stream",
        "stream/consumers",
        "stream/promises",
        "stream/web",
        "string_decoder",
        "sys",
        "timers",
        "timers/promises",
        "tls",
        "trace_events",
        "tty",
        "url",
        "util",
        "util/types",
        "v8",
        "vm",
        "wasi",
        "worker_threads",
        "zlib",
    }
)
# What node tries after a name given without its extension (``require("./a")``), then in a directory.
_NODE_EXTENSIONS = ("", ".js", ".json", ".node", ".cjs", ".mjs")
# The code node runs of a file by its extension; ``.json`` is data, ``.node`` a binary addon.
_NODE_CODE = (".js", ".cjs", ".mjs")
# A module named by a literal: ``require("x")``, ``import("x")``, ``import ... from "x"``, ``export ... from
# "x"``, ``import "x"``. Not what a comment or a string holds alone: reading more is never looser.
_NODE_SPECIFIER = re.compile(
    r"""(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\b(?:import|export)\b[^'"`;()]*?\bfrom\s*|\bimport\s*)"""
    r"""(['"`])([^'"`\n]+)\1"""
)
# node's options that load a module before the script (also read from NODE_OPTIONS).
_NODE_PRELOADS = frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader"})


def _read(path: str) -> str | None:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_BYTES:
            return None
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return None


def _family(program: str) -> str:
    return re.sub(r"[0-9.]+$", "", posixpath.basename(program))


def loads_modules(program: str) -> bool:
    """Whether ``program`` (a name or a path) is one whose loaded modules are searched here (node, perl)."""
    return _family(program) in ("node", "nodejs", "perl")


def program_loaded(argv: Sequence[str], cwd: str) -> Found:
    """What an interpreter's command line loads beside its script: its options' modules, its code's imports."""
    family = _family(argv[0])
    args = list(argv[1:])
    run = interpreter_run(argv[0], args)
    if run is None or run.kind == "unknown":
        return []
    options = args[: run.at] if run.kind == "script" and run.at is not None else args
    script = args[run.at] if run.kind == "script" and run.at is not None and run.at < len(args) else None
    codes = [c for c in run.code if c is not None] if run.kind == "inline" else []
    if family == "perl":
        return _perl_line(options, script, codes, cwd)
    if family in ("node", "nodejs"):
        return _node_line(options, codes, cwd)
    return []


def script_loaded(path: str, text: str, cwd: str) -> Found:
    """The modules a script file loads (run by its path, or given to its interpreter), by its language."""
    directory = posixpath.dirname(posixpath.join(cwd, path)) or cwd
    first = text.partition("\n")[0]
    if path.endswith(_NODE_CODE) or (first.startswith("#!") and "node" in first):
        return node_loaded(text, directory, cwd, {posixpath.normpath(posixpath.join(cwd, path))})
    if path.endswith((".pl", ".pm")) or (first.startswith("#!") and "perl" in first):
        return _perl_line([], path, [], cwd)
    return []


# --- node ------------------------------------------------------------------------------------------


def _node_line(options: Sequence[str], codes: Sequence[str], cwd: str) -> Found:
    """The modules node preloads (``NODE_OPTIONS``, an ``--env-file``'s) and what inline code loads."""
    found: Found = []
    preloads = _node_preloads(shlex.split(os.environ.get("NODE_OPTIONS", ""), posix=True))
    for index, word in enumerate(options):
        option, equals, value = word.partition("=")
        if option in ("--env-file", "--env-file-if-exists"):
            file = value if equals else (options[index + 1] if index + 1 < len(options) else "")
            text = _read(posixpath.join(cwd, file))
            if text is None:
                continue
            for line in text.splitlines():
                name, _, setting = line.strip().removeprefix("export ").partition("=")
                if name.strip() == "NODE_PATH":
                    found.append((f"{file} sets NODE_PATH, where node then looks for modules", NOT_READ))
                elif name.strip() == "NODE_OPTIONS":
                    try:
                        preloads += _node_preloads(shlex.split(setting.strip().strip("'\"")))
                    except ValueError:
                        found.append((f"{file} sets NODE_OPTIONS node reads", NOT_READ))
    seen: set[str] = set()
    preloaded = [item for s in preloads for item in _node_resolved(s, cwd, seen, "a module node preloads")]
    found += [(where, text) for _, where, text in preloaded]
    for code in [*codes, *(text for path, _, text in preloaded if path)]:
        found += node_loaded(code, cwd, cwd, seen)
    return found


def _node_preloads(words: Sequence[str]) -> list[str]:
    """The modules ``--require``/``-r``/``--import``/``--loader`` name among node's options."""
    found: list[str] = []
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        if option in _NODE_PRELOADS:
            found.append(value if equals else (words[index + 1] if index + 1 < len(words) else ""))
    return [f for f in found if f]


def node_loaded(text: str, directory: str, cwd: str, seen: set[str]) -> Found:
    """Every file node loads for code ``text`` in ``directory`` by a literal name, each followed in turn."""
    found: Found = []
    pending = [(text, directory)]
    while pending:
        code, here = pending.pop()
        for _, specifier in _NODE_SPECIFIER.findall(code):
            if "${" in specifier:
                continue  # a template built when it runs: the code reader says so
            for path, where, module in _node_resolved(specifier, here, seen, "node loads it"):
                found.append((where, module))
                if path:
                    pending.append((module, posixpath.dirname(path)))
            if len(seen) > _MAX_FILES:
                return [*found, ("more modules than are read", NOT_READ)]
    return found


def _node_resolved(specifier: str, here: str, seen: set[str], why: str) -> list[tuple[str, str, str]]:
    """(path, where, text) of each code file node loads for one specifier in ``here`` not seen yet.

    The path is empty for what is not read: a name node finds nowhere here, a binary addon.
    """
    files = _node_files(specifier, here)
    if files is None:
        return [("", f"{specifier!r}, which node finds only when it runs ({why})", NOT_READ)]
    found: list[tuple[str, str, str]] = []
    # node loads a module by its real path (a pnpm link to .pnpm/...): its own requires resolve from there.
    for path in map(os.path.realpath, files):
        if path in seen or path.endswith(".json"):
            continue  # read already, or data
        seen.add(path)
        text = _read(path) if path.endswith(_NODE_CODE) else None
        if text is None:
            what = "a binary addon" if path.endswith(".node") else "a file node runs as code"
            found.append(("", f"{path}, {what} the engine does not read ({why})", NOT_READ))
        else:
            found.append((path, f"the project's module {path} ({why})", text))
    return found


def _node_files(specifier: str, here: str) -> list[str] | None:
    """The files node may load for ``specifier`` from ``here``; [] for a built-in, None when not found."""
    if specifier.startswith("node:") or specifier in _NODE_BUILTINS:
        return []
    if specifier.startswith("file://"):
        specifier = specifier.removeprefix("file://")
    if specifier.startswith(("./", "../", "/")) or specifier in (".", ".."):
        return _file_or_directory(posixpath.join(here, specifier))
    if specifier.startswith("#"):
        return _package_imports(specifier, here)
    if ":" in specifier.split("/")[0]:
        return None  # ``data:``, ``http:``: code the line does not hold
    parts = specifier.split("/")
    count = 2 if specifier.startswith("@") else 1
    name, subpath = "/".join(parts[:count]), "/".join(parts[count:])
    directory = here
    while True:
        package = posixpath.join(directory, "node_modules", name)
        if posixpath.isdir(package) or (not subpath and _node_file(package)):
            return _package_files(package, subpath)
        own = _read(posixpath.join(directory, "package.json"))
        if own is not None and _json(own).get("name") == name and "exports" in _json(own):
            return _package_files(directory, subpath)  # a package requiring itself by its own name
        parent = posixpath.dirname(directory)
        if parent == directory or not parent:
            break
        directory = parent
    home = os.path.expanduser("~")
    searched = [
        *os.environ.get("NODE_PATH", "").split(":"),
        f"{home}/.node_modules",
        f"{home}/.node_libraries",
    ]
    for root in filter(None, searched):
        package = posixpath.join(root, name)
        if posixpath.exists(package) or _node_file(package):
            return _package_files(package, subpath)
    return None


def _node_file(base: str) -> bool:
    return any(posixpath.isfile(base + extension) for extension in _NODE_EXTENSIONS)


def _json(text: str) -> dict[str, object]:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _file_or_directory(base: str) -> list[str] | None:
    """A file node loads for a path: the path, with an extension, or a directory's ``main`` or ``index``.

    As node's ``LOAD_AS_DIRECTORY``: ``main`` is a file (an extension node tries) or the ``index`` of a
    directory, whose own ``package.json`` node does not read; a ``main`` found nowhere falls back to
    the directory's ``index``.
    """
    found = _node_as_file(base)
    if found is not None or not posixpath.isdir(base):
        return found
    main = _json(_read(posixpath.join(base, "package.json")) or "").get("main")
    if isinstance(main, str) and main:
        target = posixpath.join(base, main)
        found = _node_as_file(target) or _node_index(target)
        if found:
            return found
    return _node_index(base)


def _node_as_file(base: str) -> list[str] | None:
    for extension in _NODE_EXTENSIONS:
        if posixpath.isfile(base + extension):
            return [base + extension]
    return None


def _node_index(directory: str) -> list[str] | None:
    for extension in (".js", ".json", ".node"):
        if posixpath.isfile(posixpath.join(directory, "index" + extension)):
            return [posixpath.join(directory, "index" + extension)]
    return None


def _targets(value: object) -> list[str] | None:
    """Every path an ``exports``/``imports`` entry may map to, under any condition (None: a shape not read)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        found: list[str] = []
        for item in value:
            more = _targets(item)
            if more is None:
                return None
            found += more
        return found
    if isinstance(value, dict):
        return _targets(list(value.values()))
    return None


def _mapped(mapping: object, key: str) -> list[str] | None:
    """The targets ``exports``/``imports`` give ``key`` (``"./sub"``, ``"#x"``), patterns (``./*``) too."""
    if not isinstance(mapping, dict) or not any(k.startswith((".", "#")) for k in mapping):
        return _targets(mapping) if key == "." else []  # exports of "." alone: a string or conditions
    if key in mapping:
        return _targets(mapping[key])
    for pattern, value in mapping.items():
        before, star, after = pattern.partition("*")
        if star and key.startswith(before) and key.endswith(after) and len(key) >= len(pattern) - 1:
            stem = key[len(before) : len(key) - len(after)]
            targets = _targets(value)
            return None if targets is None else [t.replace("*", stem) for t in targets]
    return []  # not exported: node refuses to load it


def _package_files(package: str, subpath: str) -> list[str] | None:
    """The files a package gives for ``subpath`` (``""``: the package): its ``exports``, else ``main``/``index``."""
    data = _json(_read(posixpath.join(package, "package.json")) or "")
    if "exports" in data:
        targets = _mapped(data["exports"], f"./{subpath}" if subpath else ".")
        if targets is None:
            return None
        files = [
            f
            for t in targets
            if t.startswith("./")
            for f in _file_or_directory(posixpath.join(package, t)) or []
        ]
        return files if files or not targets else None
    return _file_or_directory(posixpath.join(package, subpath) if subpath else package)


def _package_imports(specifier: str, here: str) -> list[str] | None:
    """``#name``: the nearest ``package.json``'s ``imports`` (a path in the package, or another package)."""
    directory = here
    while _read(posixpath.join(directory, "package.json")) is None:
        parent = posixpath.dirname(directory)
        if parent == directory or not parent:
            return None
        directory = parent
    targets = _mapped(_json(_read(posixpath.join(directory, "package.json")) or "").get("imports"), specifier)
    if not targets:
        return None
    files: list[str] = []
    for target in targets:
        more = _node_files(target, directory) if not target.startswith("#") else None
        if more is None:
            return None
        files += more
    return files


# --- perl ------------------------------------------------------------------------------------------

# ``use``/``no``/``require`` of a module by its bare name; ``use parent``/``base``/``if`` name theirs
# in strings; ``require``/``do`` of a file by a quoted path.
_PERL_USE = re.compile(r"\b(?:use|no|require)\s+([A-Za-z_]\w*(?:::\w+)*)")
_PERL_NAMED = re.compile(r"\buse\s+(?:parent|base|if|aliased|autouse|ok)\b([^;]*)")
_PERL_FILE = re.compile(r"""\b(?:require|do)\s*\(?\s*(['"])([^'"\n$@]+)\1""")
_PERL_LIB = re.compile(r"\buse\s+lib\b([^;]*);")
# Code that changes where perl looks for modules when it runs.
_PERL_INC = re.compile(r"@INC\b|\$INC\s*\[|\blib\s*->\s*import\b|\buse\s+local::lib\b|\bINC\s*\(")
_PERL_STRING = re.compile(r"""'([^'\\]*)'|"([^"\\$@]*)"|\bqw\s*[(\[{/<]([^)\]}/>]*)""")
_FINDBIN = re.compile(r"""^"\$(?:FindBin::)?(?:Real)?Bin([^"$@]*)"$""")


def _perl_switches(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """The ``-I`` directories and the ``-M``/``-m``/``-d:`` modules of perl's switches."""
    dirs: list[str] = []
    modules: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if not word.startswith("-") or word == "--":
            continue
        if word.startswith("-I"):
            value = word[2:] or (words[index] if index < len(words) else "")
            index += 0 if word[2:] else 1
            dirs.append(value)
        elif word.startswith(("-M", "-m")):
            name = (word[2:] or (words[index] if index < len(words) else "")).lstrip("-")
            modules.append(re.split(r"[=\s]", name, maxsplit=1)[0])
        elif word.startswith("-d") and ":" in word:
            modules.append("Devel::" + re.split(r"[=\s]", word.partition(":")[2], maxsplit=1)[0])
    return dirs, modules


def _perl_line(options: Sequence[str], script: str | None, codes: Sequence[str], cwd: str) -> Found:
    """The modules and files perl loads for a command line: its switches', its script's, its code's."""
    found: Found = []
    script_text = _read(posixpath.join(cwd, script)) if script is not None else None
    shebang = (script_text or "").partition("\n")[0]
    switches = list(options)
    if shebang.startswith("#!") and "perl" in shebang:
        switches += shebang.split()[1:]  # perl reads the switches of its ``#!`` line too
    environment = os.environ.get("PERL5OPT", "") if "-T" not in switches else ""
    dirs, modules = _perl_switches([*switches, *environment.split()])
    library = os.environ.get("PERL5LIB", os.environ.get("PERLLIB", ""))
    dirs += [d for d in library.split(":") if d]
    after = ["."] if os.environ.get("PERL_USE_UNSAFE_INC") == "1" else []
    script_directory = posixpath.dirname(posixpath.join(cwd, script)) if script is not None else cwd
    seen: set[str] = set()
    texts = [*(t for t in (script_text,) if t is not None), *codes]
    pending = list(texts)
    for module in modules:
        found += _perl_module(module, dirs, after, cwd, seen, pending)
    while pending:
        code = pending.pop()
        libraries = _perl_libraries(code, script_directory)
        if libraries is None:
            return [*found, ("use lib of a directory only known when perl runs", NOT_READ)]
        dirs = [*libraries, *dirs]
        if _PERL_INC.search(code):
            return [*found, ("code that changes where perl looks for modules (@INC)", NOT_READ)]
        names = _PERL_USE.findall(code)
        for match in _PERL_NAMED.findall(code):
            names += [s for s in _perl_strings(match) if re.fullmatch(r"[A-Za-z_]\w*(?:::\w+)*", s)]
        for name in names:
            found += _perl_module(name, dirs, after, cwd, seen, pending)
        for _, path in _PERL_FILE.findall(code):
            found += _perl_file(path, dirs, after, cwd, seen, pending)
        if len(seen) > _MAX_FILES:
            return [*found, ("more modules than are read", NOT_READ)]
    return found


def _perl_strings(text: str) -> list[str]:
    return [w for a, b, c in _PERL_STRING.findall(text) for w in ((a or b).split() if not c else c.split())]


def _perl_libraries(code: str, directory: str) -> list[str] | None:
    """The directories ``use lib`` puts first in @INC; None when one is only known when perl runs.

    ``use lib "$FindBin::Bin/../lib"`` (and ``$RealBin``, ``$Bin`` imported) is the script's directory.
    """
    found: list[str] = []
    for arguments in _PERL_LIB.findall(code):
        rest = arguments
        for bin_form in re.findall(r'"\$(?:FindBin::)?(?:Real)?Bin[^"$@]*"', arguments):
            match = _FINDBIN.match(bin_form)
            assert match is not None
            found.append(directory + match.group(1))
            rest = rest.replace(bin_form, "")
        literal = _perl_strings(rest)
        if re.sub(r"""'[^'\\]*'|"[^"\\$@]*"|\bqw\s*[(\[{/<][^)\]}/>]*[)\]}/>]|[\s,()]""", "", rest):
            return None  # a variable, a call, an interpolated string
        found += literal
    return found


def _perl_module(
    name: str, dirs: Sequence[str], after: Sequence[str], cwd: str, seen: set[str], pending: list[str]
) -> Found:
    relative = name.replace("::", "/") + ".pm"
    return _perl_file(relative, dirs, after, cwd, seen, pending, module=name)


def _perl_file(
    relative: str,
    dirs: Sequence[str],
    after: Sequence[str],
    cwd: str,
    seen: set[str],
    pending: list[str],
    module: str | None = None,
) -> Found:
    """The file perl loads for a module or a ``require``/``do`` path: the first @INC directory holding it.

    A module perl's own @INC holds is the installation's (not read); ``Foo.pmc`` is loaded before ``Foo.pm``.
    """
    if relative.startswith(("/", "./", "../")):
        candidates = [posixpath.join(cwd, relative)]
    else:
        candidates = [
            posixpath.join(cwd, directory, relative + extension)
            for directory in (*dirs, *after)
            for extension in ("c", "")
            if module is not None or not extension
        ]
    for path in candidates:
        path = posixpath.normpath(path)
        if not posixpath.isfile(path):
            continue
        if path in seen:
            return []
        seen.add(path)
        text = _read(path)
        if text is None:
            return [(f"{path}, which perl loads (not readable)", NOT_READ)]
        pending.append(text)
        return [(f"the project's module {path} (perl loads it)", text)]
    return []


# --- make ------------------------------------------------------------------------------------------

# Where GNU make looks for an included makefile after its directory and the ``-I`` ones.
_MAKE_DEFAULT_DIRS = ("/usr/local/include", "/usr/gnu/include", "/usr/include")
_MAKE_INCLUDE = re.compile(r"^[ \t]*(?:-|s)?include[ \t]+(.+)$", re.MULTILINE)
_MAKE_LOAD = re.compile(r"^[ \t]*-?load[ \t]+\S", re.MULTILINE)


def make_include_dirs(words: Sequence[str], directory: str) -> list[str]:
    """The include directories of make: ``-I DIR``, ``-IDIR``, ``--include-dir[=]DIR`` (any unambiguous prefix).

    From the line and from ``MAKEFLAGS`` in the environment (make reads its options there too), in order.
    """
    flags = os.environ.get("MAKEFLAGS", "").split()
    found: list[str] = []
    for source in (list(words), flags):
        index = 0
        while index < len(source):
            word = source[index]
            index += 1
            option, equals, value = word.partition("=")
            if len(option) > 3 and "--include-dir".startswith(option):
                if not equals:
                    value = source[index] if index < len(source) else ""
                    index += 1
            elif word.startswith("-I") and not word.startswith("--"):
                value = word[2:]
                if not value:
                    value = source[index] if index < len(source) else ""
                    index += 1
            else:
                continue
            found.append(posixpath.join(directory, value))
    return found


def make_included(
    text: str, path: str, directory: str, include_dirs: Sequence[str]
) -> tuple[list[str], Found]:
    """The makefiles ``text`` includes, as make finds them, and what it loads that is not read.

    A relative name is looked for in make's directory, then each include directory, then make's
    default ones; a glob is expanded there; a name found nowhere is given in make's directory, where
    a rule may make it (its recipe is read with the others; what it writes is the caller's to judge). ``load`` loads a shared object: not read.
    """
    unread: Found = []
    if _MAKE_LOAD.search(text):
        unread.append((f"{path} loads a shared object into make (load)", NOT_READ))
    names: list[str] = []
    for match in _MAKE_INCLUDE.finditer(text):
        included = expand(match.group(1), {}, {}, 0) if "$" in match.group(1) else match.group(1)
        if included is None or DOLLAR in included:
            unread.append((f"{path} includes files named only when make runs", NOT_READ))
            continue
        for name in included.split("#", 1)[0].split():
            # A name found nowhere is one make may make (in its directory) and then read.
            names += _make_search(name, directory, include_dirs) or (
                [] if glob.has_magic(name) else [posixpath.join(directory, name)]
            )
    return names, unread


def _make_search(name: str, directory: str, include_dirs: Iterable[str]) -> list[str]:
    if name.startswith("/"):
        return sorted(glob.glob(name)) if glob.has_magic(name) else [name]
    for root in (directory, *include_dirs, *_MAKE_DEFAULT_DIRS):
        full = posixpath.join(root, name)
        matched = (
            sorted(glob.glob(full)) if glob.has_magic(name) else [full] if posixpath.isfile(full) else []
        )
        if matched:
            return matched
    return []
