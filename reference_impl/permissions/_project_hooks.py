"""The code a project defines that a tool's subcommand runs, as the tool's own documentation says (PERM-17).

A program whose documented behaviour is to run code the project defines runs whatever that code
runs: ``npm install`` its ``preinstall``/``install``/``postinstall``/``prepare`` scripts, ``npm pack``
``prepack``/``prepare``/``postpack``, ``npm run x`` ``prex``/``x``/``postx``; ``pip install .`` (or
``pip wheel ./d``, ``-e .``, a requirements file naming a local path) the project's build backend
(``setup.py``, an in-tree PEP 517 backend); ``cargo build``/``check``/``run``/``test`` the package's
build script, its proc macros, and the programs ``.cargo/config.toml`` names (``build.rustc-wrapper``,
``[target.*].runner``). The engine reads what it can (npm's scripts: see the project files module);
what it can't read fully (arbitrary Python or Rust build code) is *not read*, so asked about under a
deny or ask rule, never allowed.

Which subcommands run which hooks is not typed in here: ``project_hooks.json`` beside this module is
mined from the tools' documentation on the machine (npm's ``scripts`` page and each command's page,
pip's usage lines, cargo's manual pages: :mod:`~reference_impl.permissions._grammar_mining`).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "HOOKS_FILE",
    "PIP_DESTINATIONS",
    "RUSTUP_PROXIES",
    "NpmHooks",
    "cargo_runs_project_code",
    "npm_command",
    "npm_hooks",
    "npm_spec_from_source",
    "pip_builds_local_project",
    "pip_command",
    "pip_local_finders",
    "pip_option_values",
    "pip_spec_from_source",
    "runs_unread_project_code",
    "rustup_toolchain_from_project",
    "shim_version_from_project",
    "version_manager_shim",
]

HOOKS_FILE = Path(__file__).with_name("project_hooks.json")
USER_DEFINED = "<user-defined>"
"""How npm's documentation names the script ``npm run`` is given, inside an event's name (``pre<user-defined>``)."""


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(HOOKS_FILE.read_text(encoding="utf-8"))
    return data


def npm_command(word: str) -> str | None:
    """The npm command ``word`` as npm derefs it: camelCase, exact, alias, unique abbreviation, alias chain."""
    npm = _catalogue()["npm"]
    commands: list[str] = npm["commands"]
    aliases: dict[str, str] = npm["aliases"]
    if re.search(r"[A-Z]", word):
        word = re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), word)
    if word in commands:
        return word
    if word in aliases:
        return aliases[word]
    names = [*commands, *aliases]
    matches = [n for n in names if n.startswith(word)]
    found = matches[0] if len(matches) == 1 or word in matches else None
    while found in aliases:
        found = aliases[found]
    return found


@dataclass(frozen=True, slots=True)
class NpmHooks:
    """The package.json scripts an npm command runs, and the files whose presence makes it run a default."""

    scripts: tuple[str, ...]
    defaults: tuple[tuple[str, str], ...]
    """(file in the package root, the command npm runs for it when the package defines no script of that event)."""


def npm_hooks(command: str, script: str | None) -> NpmHooks | None:
    """The scripts npm ``command`` (already dereffed) runs, ``script`` being ``npm run``'s; None if it runs none.

    A command whose page documents ``ignore-scripts`` runs package scripts; one the ``scripts`` page's
    operation order does not list may run any lifecycle script, so all of them are read. A command
    that changes node_modules runs ``dependencies`` (and its ``pre``/``post``) after it.
    """
    npm = _catalogue()["npm"]
    order: dict[str, list[str]] = npm["order"]
    events = list(order.get(command, ()))
    if command in npm["runs_scripts"] and command not in order:
        events = sorted({e for names in order.values() for e in names if USER_DEFINED not in e})
    if command in npm["reifies"]:
        events += ["predependencies", "dependencies", "postdependencies"]  # after a change to node_modules
    if not events:
        return None
    named = [
        e if USER_DEFINED not in e else e.replace(USER_DEFINED, script or "")
        for e in events
        if script or USER_DEFINED not in e
    ]
    defaults = tuple((file, run) for event, (file, run) in npm["defaults"].items() if event in named and run)
    return NpmHooks(tuple(dict.fromkeys(named)), defaults)


def _operands(words: Sequence[str], with_value: frozenset[str]) -> list[str]:
    found: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in with_value:
            skip = True
        elif not word.startswith("-"):
            found.append(word)
    return found


# pip's options whose value is a requirement or a project: ``-e PATH``, ``-r FILE``, ``-c FILE``.
_PIP_VALUES = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target", "--prefix", "--root",
     "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--src", "--upgrade-strategy",
     "--python-version", "--platform", "--implementation", "--abi", "--no-binary", "--only-binary",
     "-d", "--dest", "-w", "--wheel-dir", "--progress-bar", "--root-user-action", "--report",
     "--log", "--cache-dir", "--proxy", "--timeout", "--retries", "--exists-action", "--trusted-host",
     "--cert", "--client-cert", "--python", "--config-settings", "-C", "--global-option", "--build-option",
     "--use-feature", "--use-deprecated", "--keyring-provider"}
)  # fmt: skip
_ARCHIVE = re.compile(r"\.(?:zip|tar|tar\.gz|tgz|tar\.bz2|tbz|tar\.xz|txz|tar\.lz|whl)$")


def _local(requirement: str, cwd: str) -> bool:
    """Whether pip reads ``requirement`` as a project on disk (a path, an archive, a file: URL)."""
    if requirement.startswith(("file:", ".", "/", "~")) or "/" in requirement or _ARCHIVE.search(requirement):
        return not requirement.endswith(".whl")  # a built wheel runs no build code
    return os.path.isdir(posixpath.join(cwd, requirement))  # pip may take a bare directory name too


def pip_spec_from_source(requirement: str, cwd: str) -> bool:
    """Whether a requirement installs from a path, an archive or a repository (its build code runs)."""
    return _local(requirement, cwd)


# npm-package-arg's registry specs: a name (scoped or not), with a version, range or tag, or an
# ``npm:`` alias of one. Anything else is a path, an archive, a URL or a repository (``user/repo``
# is GitHub's), whose package's own lifecycle scripts npm runs (git, ssh fetch a repository).
_NPM_NAME = r"(?:@[A-Za-z0-9][\w.~-]*/)?[A-Za-z0-9][\w.~-]*"
_NPM_REGISTRY_SPEC = re.compile(rf"{_NPM_NAME}(?:@(?:npm:{_NPM_NAME}(?:@[^/:]*)?|[^/:]*))?")
_NPM_TARBALL = re.compile(r"\.(?:tgz|tar|tar\.gz)$", re.IGNORECASE)


def npm_spec_from_source(spec: str, cwd: str) -> bool:
    """Whether npm (yarn, pnpm, bun) installs ``spec`` from a path, an archive, a URL or a repository.

    Only a registry spec (``lodash``, ``@types/node@^20``, ``x@npm:y@1``) is not; a registry-looking
    name that is a directory here or a tarball's name (``x.tgz``) is one on disk (fail closed).
    """
    if not _NPM_REGISTRY_SPEC.fullmatch(spec) or _NPM_TARBALL.search(spec):
        return True
    return os.path.isdir(posixpath.join(cwd, spec))


def pip_command(words: Sequence[str]) -> str | None:
    """The subcommand in pip's own ``words``: their first operand, past the values of pip's options.

    ``pip --cache-dir c install .`` installs: ``c`` is ``--cache-dir``'s value, not the command.
    """
    operands = _operands(words, _PIP_VALUES)
    return operands[0] if operands else None


# pip's options (optparse: a long one may be abbreviated, short ones clustered) whose value names
# code pip runs: an interpreter it runs itself again under (any command), or a place it finds
# distributions in, whose sdists' build backends run; and where ``install`` puts what it installs.
_PIP_NAMED_CODE = ("--python", "--find-links", "--index-url", "--extra-index-url")
PIP_DESTINATIONS = ("--target", "--prefix", "--root")
_PIP_EXACT = frozenset({"--pre", "--python", "--root"})  # whole options that also begin a longer one
_PIP_SHORT = {"f": "--find-links", "i": "--index-url", "t": "--target"}
_PIP_SHORT_VALUES = "rcetdwCif"  # pip's short options that take a value (the rest of a cluster is it)


def pip_option_values(words: Sequence[str], wanted: Sequence[str]) -> list[tuple[str, str]]:
    """Each ``(option, value)`` among ``wanted`` long options in pip's ``words``, as pip's optparse reads them.

    ``--find-links=d``, ``--find-l d`` (a unique abbreviation, or an ambiguous one: pip refuses it,
    so taking it is failing closed), ``-f d``, ``-fd``, ``-qf d`` (a cluster of flags).
    """
    found: list[tuple[str, str]] = []
    for index, word in enumerate(words):
        following = words[index + 1] if index + 1 < len(words) else ""
        if word.startswith("--") and word != "--":
            option, equals, value = word.partition("=")
            if option in wanted:
                name: str | None = option
            else:
                prefixing = option not in _PIP_EXACT
                name = next((w for w in wanted if prefixing and w.startswith(option)), None)
            if name is not None:
                found.append((name, value if equals else following))
        elif word.startswith("-") and not word.startswith("--"):
            for at, letter in enumerate(word[1:], start=1):
                if letter in _PIP_SHORT_VALUES:
                    short = _PIP_SHORT.get(letter, "")
                    if short in wanted:
                        found.append((short, word[at + 1 :] or following))
                    break
    return found


def pip_local_finders(words: Sequence[str]) -> list[str]:
    """The places on disk pip's ``words`` tell it to find distributions in (``-f d``, ``-i file:///x``)."""
    return [
        value
        for _, value in pip_option_values(words, _PIP_NAMED_CODE[1:])
        if re.match(r"https?://", value, re.IGNORECASE) is None
    ]


_SDIST = re.compile(r"\.(?:zip|tar|tar\.gz|tgz|tar\.bz2|tbz|tar\.xz|txz|tar\.lz)$", re.IGNORECASE)


def _finds_sdists(location: str, cwd: str) -> bool:
    """Whether pip may find an sdist at ``location``: a directory holding one, or a page or index it can't list."""
    path = re.sub(r"^file:(?://[^/]*)?", "", location)
    full = posixpath.join(cwd, os.path.expanduser(path))
    if os.path.isdir(full):
        try:
            names = os.listdir(full)
        except OSError:
            return True
        # A ``--find-links`` directory's archives are its candidates; an index's pages may link anywhere.
        return any(_SDIST.search(n) or n.endswith((".html", ".htm")) or "." not in n for n in names)
    return os.path.lexists(full)  # a page of links (or an index's): not read


def pip_builds_local_project(command: str, words: Sequence[str], cwd: str, depth: int = 0) -> str | None:
    """Why pip ``command`` with ``words`` builds a project on disk (its build backend runs), or None.

    ``--python X`` (any command) runs pip again under X. The subcommands whose usage takes a
    ``<local project path>`` build one: a path operand, ``-e``, a requirements file (``-r``,
    nested) holding either, or a name found in a local ``--find-links``/``--index-url`` place.
    """
    for _, value in pip_option_values(words, _PIP_NAMED_CODE[:1]):
        return f"pip --python {value} runs pip again under {value}"
    for value in pip_local_finders(words) if command in _catalogue()["pip"]["builds_local"] else ():
        if _finds_sdists(value, cwd):
            return f"pip {command} builds the sdists it finds in {value} (their build backends run)"
    pip = _catalogue()["pip"]
    if command not in pip["builds_local"]:
        return None
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        if option in ("-e", "--editable") or (word.startswith("-e") and not word.startswith("--")):
            return f"pip {command} {word} builds a project on disk in place"
        if option in ("-r", "--requirement", "-c", "--constraint") or re.fullmatch(r"-[rc]\S+", word):
            path = value if equals else word[2:] if len(word) > 2 and not word.startswith("--") else None
            path = path if path is not None else (words[index + 1] if index + 1 < len(words) else "")
            why = _requirement_file(command, posixpath.join(cwd, path), cwd, depth)
            if why is not None:
                return why
    for operand in _operands(list(words), _PIP_VALUES)[1:]:
        if _local(operand, cwd):
            return f"pip {command} {operand} runs {operand}'s build code (setup.py, its build backend)"
    return None


_MAX_CHARS = 262_144
"""How much of a requirements file or a cargo configuration the engine reads; a longer one is not read."""


def _requirement_file(command: str, path: str, cwd: str, depth: int) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(_MAX_CHARS + 1)
    except OSError:
        return f"pip {command} reads requirements from {path}, which the engine can't read"
    if len(text) > _MAX_CHARS:  # pip reads it to its end: what comes after may name a project on disk
        return f"pip {command} reads requirements from {path}, longer than the engine reads"
    if depth > 4:
        return f"pip {command}'s requirement files nest deeper than the engine reads"
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if words[0].startswith("-"):
            why = pip_builds_local_project(command, [command, *words], posixpath.dirname(path), depth + 1)
        else:
            why = f"{path} names {words[0]}" if _local(words[0], posixpath.dirname(path)) else None
        if why is not None:
            return f"pip {command} builds a project on disk ({why})"
    return None


_CARGO_PROGRAM_KEYS = re.compile(
    r"^[ \t]*(?:rustc|rustc-wrapper|rustc-workspace-wrapper|rustdoc|runner|linker|ar|credential-provider|"
    r"global-credential-providers|credential-process)[ \t]*=|^[ \t]*\[(?:alias|target\.|build)",
    re.MULTILINE,
)


def _cargo_configs(cwd: str) -> list[str]:
    """The cargo configuration files cargo reads in ``cwd``: each ancestor's ``.cargo/config(.toml)``, CARGO_HOME's."""
    found: list[str] = []
    directory = posixpath.abspath(cwd)
    homes = [os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo")]
    while True:
        homes.append(posixpath.join(directory, ".cargo"))
        parent = posixpath.dirname(directory)
        if parent == directory:
            break
        directory = parent
    for home in dict.fromkeys(homes):
        found += [
            p
            for p in (posixpath.join(home, "config.toml"), posixpath.join(home, "config"))
            if os.path.isfile(p)
        ]
    return found


# cargo subcommands that never resolve the dependency graph (so fetch no git dependency).
_CARGO_NO_RESOLVE = frozenset(
    {"help", "version", "new", "init", "search", "locate-project", "login", "logout", "owner", "yank"}
)
_CARGO_GIT_CLI = re.compile(r"git-fetch-with-cli[ \t]*=[ \t]*true", re.IGNORECASE)
_CARGO_GIT_DEPENDENCY = re.compile(r"^[^#\n]*\bgit[ \t]*=|source[ \t]*=[ \t]*\"git\+", re.MULTILINE)


def _cargo_fetches_with_git(
    command: str, cwd: str, configs: list[str], words: Sequence[str] = ()
) -> str | None:
    """Why cargo ``command`` may start git (and ssh) to fetch a git dependency, or None.

    With ``net.git-fetch-with-cli`` (a configuration file, ``CARGO_NET_GIT_FETCH_WITH_CLI``) cargo
    fetches a git dependency (``git = ...`` in the manifest, ``git+`` in Cargo.lock, ``--git``) with
    the git program, which starts ssh for an ssh URL; without it cargo's own library fetches.
    """
    if command in _CARGO_NO_RESOLVE:
        return None
    cli = os.environ.get("CARGO_NET_GIT_FETCH_WITH_CLI", "").lower() == "true" or "--config" in words
    for path in configs:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                cli = cli or _CARGO_GIT_CLI.search(handle.read(_MAX_CHARS)) is not None
        except OSError:
            cli = True  # unread: it may say so
    if not cli:
        return None
    if any(w == "--git" or w.startswith("--git=") for w in words):
        return f"cargo {command} --git fetches with the git program (net.git-fetch-with-cli): git and ssh run"
    directory = posixpath.abspath(cwd)
    while True:
        for name in ("Cargo.toml", "Cargo.lock"):
            try:
                with open(posixpath.join(directory, name), encoding="utf-8", errors="replace") as handle:
                    if _CARGO_GIT_DEPENDENCY.search(handle.read(_MAX_CHARS)):
                        return (
                            f"cargo {command} fetches {posixpath.join(directory, name)}'s git dependencies "
                            "with the git program (net.git-fetch-with-cli): git and ssh run"
                        )
            except OSError:
                continue
        if posixpath.dirname(directory) == directory:
            return None
        directory = posixpath.dirname(directory)


def cargo_runs_project_code(command: str, cwd: str, words: Sequence[str] = ()) -> str | None:
    """Why cargo ``command`` runs code the project defines, which the engine does not read, or None.

    A subcommand whose manual page has Compilation Options compiles the package: its build script,
    its dependencies' build scripts and proc macros run (``run``, ``test`` and ``bench`` run the
    package itself); a subcommand without a manual page is taken to compile. A configuration file
    naming a program (``build.rustc-wrapper``, ``target.*.runner``, an alias) may run it for any.
    """
    cargo = _catalogue()["cargo"]
    command = cargo["aliases"].get(command, command)
    configs = _cargo_configs(cwd)
    fetching = _cargo_fetches_with_git(command, cwd, configs, words)
    if fetching is not None:
        return fetching
    for path in configs:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(_MAX_CHARS + 1)
            if len(text) > _MAX_CHARS:  # cargo reads it to its end
                return f"{path} is longer than the engine reads"
            if _CARGO_PROGRAM_KEYS.search(text):
                return f"{path} names programs cargo runs"
        except OSError:
            return f"{path} could not be read"
    if command in cargo["documented"] and command not in cargo["compiles"]:
        return None
    return f"cargo {command} compiles the package: its build scripts and proc macros run"


def runs_unread_project_code(program: str, words: Sequence[str], cwd: str) -> str | None:
    """Why ``program`` with ``words`` (its options and operands) runs project code the engine can't read, or None.

    Beside the documented builds above: ``python -m build`` (a PEP 517 frontend: the project's build
    backend runs), ``tox`` and ``nox`` (they install the project and run the commands and Python
    sessions its files define), ``poetry install``/``build``/``shell`` (its build backend). ``poetry run
    CMD`` runs CMD in the project's environment: it is not a build, and is judged as poetry's
    subcommand like any other the engine does not read (asked under a deny rule it could meet).
    """
    if program in ("tox", "nox"):
        return f"{program} installs the project and runs what its configuration defines"
    if program == "build":
        return "python -m build runs the project's build backend (setup.py, an in-tree backend)"
    if program == "poetry":
        sub = next((w for w in words if not w.startswith("-")), None)
        if sub in ("install", "build", "shell"):
            return f"poetry {sub} runs the project's scripts or its build backend"
    return None


# The programs rustup installs as proxies (``~/.cargo/bin/cargo`` is rustup itself): each runs the
# toolchain rustup picks for the directory, which a project's toolchain file may name by its path.
RUSTUP_PROXIES = frozenset(
    {"cargo", "rustc", "rustdoc", "rustfmt", "cargo-fmt", "cargo-clippy", "clippy-driver", "rust-gdb",
     "rust-gdbgui", "rust-lldb", "rust-analyzer", "rls", "cargo-miri"}
)  # fmt: skip
_TOOLCHAIN_FILES = ("rust-toolchain", "rust-toolchain.toml")


def _names_a_path(toolchain: object) -> bool:
    return not isinstance(toolchain, str) or re.search(r"[/\\]|^[.~]", toolchain.strip()) is not None


def rustup_toolchain_from_project(words: Sequence[str], cwd: str) -> str | None:
    """Why a rustup proxy run in ``cwd`` may run a toolchain the project holds, or None.

    rustup's overrides (its book, "Overrides"): ``+TOOLCHAIN`` on the line, else the first
    ``rust-toolchain`` or ``rust-toolchain.toml`` from ``cwd`` up, whose ``[toolchain] path`` (or a
    legacy file's one line) may be a directory: its ``bin/cargo`` is what runs. A toolchain named by
    a path, or a file the engine can't read, is code the engine does not read.
    """
    plus = next((w for w in words[:1] if w.startswith("+")), None)
    if plus is not None:
        return f"{plus} names a toolchain by its path" if _names_a_path(plus[1:]) else None
    directory = posixpath.abspath(cwd)
    while True:
        for name in _TOOLCHAIN_FILES:
            path = posixpath.join(directory, name)
            if not os.path.lexists(path):
                continue
            try:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read(_MAX_CHARS + 1)
            except (OSError, UnicodeDecodeError):
                return f"rustup reads the toolchain from {path}, which the engine can't read"
            try:
                table = tomllib.loads(text).get("toolchain")
                toolchain = table.get("path", table.get("channel")) if isinstance(table, dict) else None
            except tomllib.TOMLDecodeError:
                toolchain = None
            if toolchain is None and name == "rust-toolchain" and "[" not in text and len(text.split()) == 1:
                toolchain = text.strip()  # the legacy form: one line, a channel or a path
            if toolchain is None or len(text) > _MAX_CHARS or _names_a_path(toolchain):
                return f"rustup runs the toolchain {path} names, which may be the project's own programs"
            return None  # the first file found is the one rustup reads
        if posixpath.dirname(directory) == directory:
            return None
        directory = posixpath.dirname(directory)


# Version managers whose shims (the program found on PATH) run the version a project file picks, and
# those files. asdf and mise take ``path:DIR`` (a directory's bin/ runs); rbenv, nodenv and goenv
# versions are directory names; mise's own files also set the environment and run its hooks, so any
# of them is not read. pyenv refuses a version outside its versions directory (pyenv-version-file-read).
_SHIM_FILES: dict[str, tuple[str, ...] | None] = {
    "/.asdf/shims/": (".tool-versions",),
    "/mise/shims/": None,
    "/.rbenv/shims/": (".ruby-version",),
    "/.nodenv/shims/": (".node-version",),
    "/.goenv/shims/": (".go-version",),
}
_MISE_FILES = (".tool-versions", "mise.toml", ".mise.toml", "mise.local.toml", ".config/mise.toml", ".mise")


@lru_cache(maxsize=256)
def version_manager_shim(name: str, path: str) -> str | None:
    """The version manager whose shim ``name`` is on ``path`` (a PATH), or None."""
    found = shutil.which(name, path=path)
    resolved = os.path.realpath(found) if found is not None else ""
    return next((m for m in _SHIM_FILES if m in (found or "") or m in resolved), None)


def shim_version_from_project(name: str, cwd: str) -> str | None:
    """Why the shim ``name`` run in ``cwd`` may run a program a project file names by path, or None."""
    manager = version_manager_shim(name, os.environ.get("PATH", ""))
    if manager is None:
        return None
    files = _SHIM_FILES[manager]
    directory = posixpath.abspath(cwd)
    while True:
        for file in files or _MISE_FILES:
            path = posixpath.join(directory, file)
            if not os.path.lexists(path):
                continue
            if files is None:
                return f"{name} is mise's shim, and mise reads {path} (versions, environment, hooks)"
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(_MAX_CHARS)
            except OSError:
                return f"{name} is a version manager's shim, and {path} can't be read"
            if re.search(r"(?:^|\s)(?:path:|ref:)|[/\\]|\.\.", text):
                return f"{name} is a version manager's shim, and {path} names a version by its path"
            return None
        if posixpath.dirname(directory) == directory:
            return None
        directory = posixpath.dirname(directory)
