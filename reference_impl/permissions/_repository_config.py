"""What a repository's git configuration and hooks, as they are on disk, may make git run (PERM-17).

``git status`` runs ``core.fsmonitor``; ``git diff --ext-diff`` and ``git log -p`` run
``diff.external`` and textconv drivers; ``git add`` runs clean filters; ``git commit`` its hooks;
``git st`` an alias ``!cmd``. The command line shows none of it: it is in the configuration git
reads where it runs (every scope, includes followed) and in the hooks directory. So for each git
command of a line the engine finds the directories it may run in (the working directory, each
``cd`` and ``-C`` on the line), asks git itself what its configuration says there (``git config
--list``, which runs nothing it names), and lists every command it names: a value of a key that is
not plain data (an alias's ``!`` command, or the git subcommand it renames), and every executable
hook, by its resolved path and, for a script, its text. The rules module matches deny and ask
rules against them (a match *may* apply: git runs them only for some subcommands, so it asks).

Conditional includes (``[includeIf "onbranch:o"]``, ``hasconfig:remote.*.url:U``, ``gitdir:``,
``gitdir/i:``) are followed whatever their condition, recursively: the line itself may meet a
condition before git reads it (``git checkout o && git status``, ``git remote add z U && git
status``), and git's own answer only says what holds now. An include the engine cannot read (a
path form it can't resolve, a file git can't parse) fails closed; one missing now is a file git
reads as soon as something creates it, so it is one of the files :func:`configuration_rewritten`
watches the line for, with ``core.hooksPath`` and included files in the work tree, which a
``git checkout`` on the same line rewrites.

Results are cached per directory, keyed by the identity (inode, size, modification time) of every
configuration file git named and of the hooks directory's entries: a changed file is read again.
A directory git can't read answers None, and the caller fails closed.
"""

from __future__ import annotations

import os
import posixpath
import shlex
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from reference_impl.permissions._bash_reader import split_command
from reference_impl.permissions._derived_names import GitTreeMove
from reference_impl.permissions._git_started import GIT_SIGNATURE_PROGRAMS
from reference_impl.permissions._line_writes import known_words, program_targets, program_writes
from reference_impl.permissions._paths import cd_directories, cd_is_physical, chdir_directory
from reference_impl.permissions._program_model import is_plain_git_key
from reference_impl.permissions._wrapped_commands import is_wrapper, unwrap, wrapper_directories

__all__ = [
    "ConfiguredCommand",
    "configuration_rewritten",
    "configured_commands",
    "git_directories",
    "git_own_paths",
]

_MAX_HOOK_BYTES = 65536
_GIT_MOVING_OPTIONS = ("-C", "--git-dir", "--work-tree")
# git's global options whose value may be the next word (git.c): that word is no subcommand.
_GIT_VALUE_OPTIONS = ("-c", "--config-env", "--namespace", "--super-prefix", "--attr-source")
_MAX_INCLUDED_FILES = 32
_MAX_INCLUDE_DEPTH = 10  # git's own limit


@dataclass(frozen=True, slots=True)
class ConfiguredCommand:
    """A command git may run in a directory: ``where`` it is named (a key and its file, a hook) and its text.

    ``workspace`` tells whether it comes from the repository itself (its own configuration, a hook):
    what the workspace can write, unlike the user's global or the system configuration.
    """

    where: str
    text: str
    workspace: bool = True


@dataclass(frozen=True, slots=True)
class _Reading:
    """What git's configuration in one directory names: the commands, and the files git reads beyond its directory.

    ``read_paths``: files outside the git directory git reads as configuration or runs (included
    files, present or not; ``core.hooksPath``); ``top``: the work tree they may lie in.
    """

    commands: tuple[ConfiguredCommand, ...]
    read_paths: tuple[str, ...] = ()
    top: str | None = None
    git_dirs: tuple[str, ...] = ()  # the git directory and the common one (a worktree's, a separate one)


@dataclass(frozen=True, slots=True)
class _Include:
    """An ``include.path`` or ``includeIf.<condition>.path`` entry: its value and the file that holds it."""

    value: str
    origin: str | None  # None: not a file (the command line, a blob)
    workspace: bool


# Keys whose value is a path git reads (includes are followed below, whatever their condition).
_PATH_KEYS = frozenset(
    [
        "core.hookspath",
        "core.worktree",
        "core.excludesfile",
        "core.attributesfile",
        "commit.template",
        "include.path",
    ]
)


def git_directories(command: str, commands: Iterable[Sequence[str | None]], cwd: Path) -> list[str] | None:
    """The directories the git commands among ``commands`` may run in; None when one is only known at run time.

    ``commands`` are every command ``command`` runs, nested ones too.

    Each ``cd``/``pushd`` on the line may or may not have happened (a subshell's does not last), so
    every combination is a place; a wrapper's ``env -C DIR``, ``sudo -D DIR`` and ``git -C DIR``,
    ``--git-dir``, ``--work-tree`` move git further.
    """
    commands = list(commands)
    gits = [argv for argv in commands if argv and posixpath.basename(argv[0] or "") == "git"]
    if not gits:
        return []
    parts = split_command(command).parts
    here: set[str] = {str(cwd)}
    for part in parts:
        argv = part.argv
        if argv[:1] in (("cd",), ("pushd",)) or argv[:2] in (("builtin", "cd"), ("command", "cd")):
            target = (
                argv[-1] if len(argv) > (2 if argv[0] in ("builtin", "command") else 1) else str(Path.home())
            )
            if target is None or target.startswith(("-", "+")) or "CDPATH" in command:
                return None  # the stack; or ``cd sub`` searching a $CDPATH the line sets
            if target.startswith(("~-", "~+")):
                return None  # $OLDPWD, $PWD: a loop may set them
            physical = argv[0] == "cd" or argv[1:2] == ("cd",)
            physical = physical and cd_is_physical(argv[argv.index("cd") + 1 :])
            here |= {
                landed
                for d in here
                for t in _tilde_forms(target)
                for landed in cd_directories(d, t, physical=physical)
            }
            if len(here) > 16:
                return None
    for words in commands:
        # ``env -C DIR git``, ``sudo -D DIR git``: a wrapper's own chdir moves the git it runs.
        base = posixpath.basename(words[0] or "") if words else ""
        for target in wrapper_directories(base, tuple(words[1:])) if is_wrapper(base) else ():
            if target is None or "$" in target or "`" in target:
                return None
            here |= {chdir_directory(d, t) for d in here for t in _tilde_forms(target)}
            if len(here) > 16:
                return None
    places: set[str] = set()
    for git in gits:
        moved = sorted(here)
        words = list(git[1:])
        skip = False
        for index, word in enumerate(words):
            if skip:
                skip = False  # an option's value, not the subcommand
                continue
            if word is None:
                return None  # a run-time word may be an option that moves git
            name, _, value = word.partition("=")
            if name in _GIT_MOVING_OPTIONS:
                target = value if value else (words[index + 1] if index + 1 < len(words) else None)
                if target is None:
                    return None
                moved = [chdir_directory(d, t) for d in moved for t in _tilde_forms(target)]
                skip = not value
            elif name in _GIT_VALUE_OPTIONS:
                skip = not value
            elif not word.startswith("-"):
                break  # the subcommand: its own options don't move git
        places.update(moved)
    return sorted(places)


def _tilde_forms(word: str) -> set[str]:
    """The directories a word may name: bash expands an unquoted leading ``~``, a quoted one is a name."""
    return {word, os.path.expanduser(word)}


_CACHE: dict[str, tuple[tuple[str, ...], tuple[object, ...], _Reading | None]] = {}
_ALWAYS_WATCHED = ("~/.gitconfig", "~/.config/git/config", "/etc/gitconfig")


def configured_commands(directory: str) -> tuple[ConfiguredCommand, ...] | None:
    """Every command git's configuration and hooks name for a git run in ``directory`` (None: unreadable)."""
    reading = _reading(directory)
    return None if reading is None else reading.commands


def _reading(directory: str) -> _Reading | None:
    if not os.path.isdir(directory):
        return _Reading(())  # made by the line itself: what the line writes is read elsewhere (_line_writes)
    cached = _CACHE.get(directory)
    if cached is not None and cached[1] == _identity(cached[0]):
        return cached[2]
    watched: list[str] = [posixpath.join(directory, ".git"), *map(os.path.expanduser, _ALWAYS_WATCHED)]
    found = _read(directory, watched)
    if len(_CACHE) >= 256:
        _CACHE.clear()
    paths = tuple(dict.fromkeys(watched))
    _CACHE[directory] = (paths, _identity(paths), found)
    return found


def git_own_paths(directory: str) -> tuple[str, ...] | None:
    """The places git in ``directory`` reads as its own (PERM-15) whatever their names: its directory, the common one, included files, ``core.hooksPath``.

    None: git can't read its configuration there.
    """
    reading = _reading(directory)
    return None if reading is None else (*reading.git_dirs, *reading.read_paths)


def configuration_rewritten(command: str, directory: str, places: Sequence[str]) -> str | None:
    """Why a part of ``command`` may change what git in ``directory`` reads as configuration or runs as hooks.

    The files git reads there beyond its own directory (``.git/``, ``~/.gitconfig`` are watched by
    _line_writes): included files, whatever the include's condition and whether they exist yet, and
    a ``core.hooksPath`` directory. A part before git that writes one (by a path it names, resolved
    in each of ``places``; one only known when it runs may be any), or restores tracked content
    (``git checkout o``) over one that lies in the work tree, makes the engine's reading stale.
    """
    reading = _reading(directory)
    if reading is None or not reading.read_paths:
        return None
    line = split_command(command)
    last_git = max(
        (
            i
            for i, part in enumerate(line.parts)
            if any(posixpath.basename(w or "") == "git" for w in part.argv)
        ),
        default=-1,
    )
    written: list[str | None] = list(line.writes)  # redirections: in any order, to fail closed
    tracked = False
    for part in line.parts[:last_git]:
        # A name the program derives (a backup, a copied tree, an archive's members) is taken as unknown;
        # git moving the working tree restores tracked files (``tracked`` below).
        written.extend(
            t if t is None or isinstance(t, str) else None
            for t in program_targets(known_words(part))
            if not isinstance(t, GitTreeMove)
        )
        argv: Sequence[str | None] | None = part.argv
        while argv and argv[0] is not None:
            base = posixpath.basename(argv[0])
            why = program_writes(base, tuple(argv[1:]))[1] if base == "git" else None
            tracked = tracked or (why is not None and why.startswith("git writes tracked"))
            argv = unwrap(base, tuple(argv[1:])) if is_wrapper(base) else None
    for path in reading.read_paths:
        if tracked and reading.top is not None and _within(path, reading.top):
            return f"a part restores tracked files in {reading.top}, where git reads {path}"
        for word in written:
            if word is None:
                return f"a part writes a file only known when it runs, which may be {path}, read by git"
            expanded = os.path.expanduser(word)
            for place in (*places, directory):
                target = posixpath.normpath(posixpath.join(place, expanded))
                if _within(path, target) or _within(target, path):
                    return f"a part writes {word}, and git reads {path}"
    return None


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _git(directory: str, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(
            ["git", "-C", directory, *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _read(directory: str, watched: list[str]) -> _Reading | None:
    """What git says there; ``watched`` gets every file and directory the answer rests on."""
    listed = _git(directory, "config", "--list", "-z", "--show-origin", "--show-scope", "--includes")
    if listed is None or listed.returncode not in (0, 1):  # 1: no configuration at all
        return None
    includes: list[_Include] = []
    found, hooks_path = _listed_commands(listed.stdout, directory, watched, includes=includes)
    included = _included_commands(includes, directory, watched)
    if included is None:
        return None
    found.extend(included[0])
    read_paths, other_hooks = included[1], included[2]
    top: str | None = None
    git_dirs: list[str] = []
    located = _git(directory, "rev-parse", "--absolute-git-dir", "--show-toplevel")
    if located is not None and located.returncode == 0:
        lines = located.stdout.decode("utf-8", "surrogateescape").splitlines()
        git_dir = lines[0] if lines else ""
        top = lines[1] if len(lines) > 1 else None
        watched.extend((git_dir, posixpath.join(git_dir, "config")))
        common = _git(directory, "rev-parse", "--path-format=absolute", "--git-common-dir")
        common_dir = common.stdout.decode("utf-8", "surrogateescape").strip() if common is not None else ""
        git_dirs.extend(d for d in (git_dir, common_dir) if d)
        # The hooks git runs now, and those an include it may read later points it to.
        for named in dict.fromkeys([hooks_path or "", *other_hooks]):
            hooks = (
                posixpath.normpath(posixpath.join(top or directory, os.path.expanduser(named)))
                if named
                else posixpath.join(git_dir, "hooks")
            )
            if named:
                read_paths.append(hooks)
            watched.append(hooks)
            found.extend(_hooks(hooks, watched))
        submodules = _submodule_commands(git_dir, directory, watched)
        if submodules is None:
            return None
        found.extend(submodules)
    return _Reading(tuple(found), tuple(dict.fromkeys(read_paths)), top, tuple(dict.fromkeys(git_dirs)))


def _include_target(include: _Include) -> str | None:
    """The file an include names, resolved as git resolves it (``~``, relative to the including file); None: not resolvable here."""
    value = include.value
    if value.startswith("~"):
        expanded = os.path.expanduser(value)
        if expanded.startswith("~"):
            return None  # ``~user/`` of no user known here
        value = expanded
    elif value.startswith("%("):
        return None  # ``%(prefix)/``: git's install prefix, known to git alone
    if not posixpath.isabs(value):
        if include.origin is None:
            return None
        value = posixpath.join(posixpath.dirname(include.origin), value)
    return posixpath.normpath(value)


def _included_commands(
    includes: list[_Include], directory: str, watched: list[str]
) -> tuple[list[ConfiguredCommand], list[str], list[str]] | None:
    """What every included file names, whatever its include's condition, and every file included.

    git's own listing follows only the includes whose condition holds now; the line may meet the
    others before git reads them (``git checkout o``, ``git remote add``), so each is read too,
    recursively. A file missing now is listed but names nothing yet; one the engine can't resolve
    or git can't parse answers None (fail closed). Also the ``core.hooksPath`` values they set.
    """
    listed_files = {posixpath.normpath(w) for w in watched}
    found: list[ConfiguredCommand] = []
    targets: list[str] = []
    hooks_paths: list[str] = []
    pending = [(include, 1) for include in includes]
    while pending:
        include, depth = pending.pop(0)
        target = _include_target(include)
        if target is None or depth > _MAX_INCLUDE_DEPTH or len(targets) >= _MAX_INCLUDED_FILES:
            return None
        if target in targets:
            continue
        targets.append(target)
        watched.append(target)
        real = os.path.realpath(target)
        if real != target:
            targets.append(real)  # a link into the work tree is rewritten by a checkout there
        if target in listed_files or not os.path.lexists(target):
            continue  # already in git's own listing, or nothing there yet
        listed = _git(
            directory,
            "config",
            "--file",
            target,
            "--no-includes",
            "--list",
            "-z",
            "--show-origin",
            "--show-scope",
        )
        if listed is None or listed.returncode not in (0, 1):
            return None
        nested: list[_Include] = []
        commands, hooks_path = _listed_commands(
            listed.stdout, directory, watched, repository_file=include.workspace, includes=nested
        )
        found.extend(commands)
        hooks_paths.extend([hooks_path] if hooks_path else [])
        pending.extend((_Include(n.value, target, include.workspace), depth + 1) for n in nested)
    return found, targets, hooks_paths


_MAX_SUBMODULES = 16


def _submodule_commands(git_dir: str, directory: str, watched: list[str]) -> list[ConfiguredCommand] | None:
    """What the submodules' own configurations and hooks name (``git status`` recurses into them)."""
    found: list[ConfiguredCommand] = []
    configs = []
    for root, subdirectories, files in os.walk(posixpath.join(git_dir, "modules")):
        if "config" in files and "HEAD" in files:
            configs.append(root)
            subdirectories[:] = [d for d in subdirectories if d == "modules"]  # nested submodules only
        if len(configs) > _MAX_SUBMODULES:
            return None
    for module in configs:
        config = posixpath.join(module, "config")
        listed = _git(directory, "config", "--file", config, "--list", "-z", "--show-origin", "--show-scope")
        if listed is None or listed.returncode not in (0, 1):
            return None
        includes: list[_Include] = []
        commands, hooks_path = _listed_commands(
            listed.stdout, directory, watched, repository_file=True, includes=includes
        )
        found.extend(commands)
        included = _included_commands(includes, directory, watched)
        if included is None:
            return None
        found.extend(included[0])
        watched.extend((module, config))
        found.extend(
            _hooks(os.path.expanduser(hooks_path) if hooks_path else posixpath.join(module, "hooks"), watched)
        )
    return found


def _listed_commands(
    stdout: bytes,
    directory: str,
    watched: list[str],
    *,
    repository_file: bool = False,
    includes: list[_Include] | None = None,
) -> tuple[list[ConfiguredCommand], str | None]:
    """The commands a ``git config --list -z --show-origin --show-scope`` names, and its core.hooksPath.

    ``repository_file``: the listing is of a file inside the repository (a submodule's config).
    ``includes`` gets every include it lists, whatever its condition.
    """
    fields = stdout.decode("utf-8", "surrogateescape").split("\0")
    found: list[ConfiguredCommand] = []
    hooks_path: str | None = None
    for scope, origin, entry in zip(fields[0::3], fields[1::3], fields[2::3], strict=False):
        key, _, value = entry.partition("\n")
        if origin.startswith("file:"):
            watched.append(posixpath.join(directory, origin.removeprefix("file:")))
        lowered = key.lower()
        if lowered == "core.hookspath":
            hooks_path = value
        workspace = repository_file or scope in ("local", "worktree")
        if includes is not None and (
            lowered == "include.path" or (lowered.startswith("includeif.") and lowered.endswith(".path"))
        ):
            path = (
                posixpath.join(directory, origin.removeprefix("file:"))
                if origin.startswith("file:")
                else None
            )
            includes.append(_Include(value, path, workspace))
        if lowered == "log.showsignature" and value.strip().lower() in ("true", "yes", "on", "1"):
            # Every log, show, whatchanged verifies signatures, starting the signature's program.
            where = f"{key} ({scope}, {origin.removeprefix('file:')})"
            found += [ConfiguredCommand(where, program, workspace) for program in GIT_SIGNATURE_PROGRAMS]
        if (
            is_plain_git_key(key)
            or lowered in _PATH_KEYS
            or lowered.startswith("includeif.")
            or not value.strip()
        ):
            continue
        where = f"{key} ({scope}, {origin.removeprefix('file:')})"
        if lowered.startswith("alias."):
            text = value[1:] if value.startswith("!") else "git " + value
            found.append(ConfiguredCommand(where, text, workspace))
        elif (
            value.lower() not in ("true", "false", "yes", "no", "on", "off")
            and not value.lstrip("-").isdigit()
        ):
            found.append(ConfiguredCommand(where, value, workspace))
    return found, hooks_path


def _hooks(hooks: str, watched: list[str]) -> list[ConfiguredCommand]:
    """Every executable hook: as the program it resolves to, and a script's text."""
    found: list[ConfiguredCommand] = []
    try:
        names = sorted(os.listdir(hooks))
    except OSError:
        return found
    for name in names:
        path = posixpath.join(hooks, name)
        if name.endswith(".sample") or not os.path.isfile(path) or not os.access(path, os.X_OK):
            continue
        where = f"hook {path}"
        real = os.path.realpath(path)
        watched.extend((path, real))
        found.append(ConfiguredCommand(where, shlex.quote(real)))
        try:
            with open(path, "rb") as handle:
                head = handle.read(_MAX_HOOK_BYTES + 1)
        except OSError:
            continue
        if head.startswith(b"#!") and len(head) <= _MAX_HOOK_BYTES and b"\0" not in head:
            found.append(ConfiguredCommand(where, head.decode("utf-8", "replace")))
    return found


def _identity(paths: Sequence[str]) -> tuple[object, ...]:
    """What must not change for a cached answer to hold: each watched file's inode, size and time."""
    identity: list[object] = [os.environ.get(name) for name in ("HOME", "XDG_CONFIG_HOME", "GIT_DIR")]
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            identity.append(None)
            continue
        identity.append((stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return tuple(identity)
