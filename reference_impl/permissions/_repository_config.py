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
from reference_impl.permissions._program_model import is_plain_git_key

__all__ = ["ConfiguredCommand", "configured_commands", "git_directories"]

_MAX_HOOK_BYTES = 65536
_GIT_MOVING_OPTIONS = ("-C", "--git-dir", "--work-tree")


@dataclass(frozen=True, slots=True)
class ConfiguredCommand:
    """A command git may run in a directory: ``where`` it is named (a key and its file, a hook) and its text.

    ``workspace`` tells whether it comes from the repository itself (its own configuration, a hook):
    what the workspace can write, unlike the user's global or the system configuration.
    """

    where: str
    text: str
    workspace: bool = True


# Keys whose value is a path git reads (includes are followed by ``--includes`` itself).
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
    every combination is a place; ``git -C DIR``, ``--git-dir``, ``--work-tree`` move git further.
    """
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
            if target is None or target.startswith("-"):
                return None
            here |= {posixpath.normpath(posixpath.join(d, target)) for d in here}
            if len(here) > 16:
                return None
    places: set[str] = set()
    for git in gits:
        moved = sorted(here)
        words = list(git[1:])
        for index, word in enumerate(words):
            if word is None:
                return None  # a run-time word may be an option that moves git
            name, _, value = word.partition("=")
            if name in _GIT_MOVING_OPTIONS:
                target = value if value else (words[index + 1] if index + 1 < len(words) else None)
                if target is None:
                    return None
                moved = [posixpath.normpath(posixpath.join(d, target)) for d in moved]
            elif not word.startswith("-"):
                break  # the subcommand: its own options don't move git
        places.update(moved)
    return sorted(places)


_CACHE: dict[str, tuple[tuple[str, ...], tuple[object, ...], tuple[ConfiguredCommand, ...] | None]] = {}
_ALWAYS_WATCHED = ("~/.gitconfig", "~/.config/git/config", "/etc/gitconfig")


def configured_commands(directory: str) -> tuple[ConfiguredCommand, ...] | None:
    """Every command git's configuration and hooks name for a git run in ``directory`` (None: unreadable)."""
    if not os.path.isdir(directory):
        return ()  # made by the line itself: what the line writes is read elsewhere (_line_writes)
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


def _read(directory: str, watched: list[str]) -> tuple[ConfiguredCommand, ...] | None:
    """What git says there; ``watched`` gets every file and directory the answer rests on."""
    listed = _git(directory, "config", "--list", "-z", "--show-origin", "--show-scope", "--includes")
    if listed is None or listed.returncode not in (0, 1):  # 1: no configuration at all
        return None
    found, hooks_path = _listed_commands(listed.stdout, directory, watched)
    located = _git(directory, "rev-parse", "--absolute-git-dir", "--show-toplevel")
    if located is not None and located.returncode == 0:
        lines = located.stdout.decode("utf-8", "surrogateescape").splitlines()
        git_dir = lines[0] if lines else ""
        top = lines[1] if len(lines) > 1 else directory
        hooks = (
            posixpath.join(top, os.path.expanduser(hooks_path))
            if hooks_path
            else posixpath.join(git_dir, "hooks")
        )
        watched.extend((git_dir, posixpath.join(git_dir, "config"), hooks))
        found.extend(_hooks(hooks, watched))
        submodules = _submodule_commands(git_dir, directory, watched)
        if submodules is None:
            return None
        found.extend(submodules)
    return tuple(found)


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
        commands, hooks_path = _listed_commands(listed.stdout, directory, watched, repository_file=True)
        found.extend(commands)
        watched.extend((module, config))
        found.extend(
            _hooks(os.path.expanduser(hooks_path) if hooks_path else posixpath.join(module, "hooks"), watched)
        )
    return found


def _listed_commands(
    stdout: bytes, directory: str, watched: list[str], *, repository_file: bool = False
) -> tuple[list[ConfiguredCommand], str | None]:
    """The commands a ``git config --list -z --show-origin --show-scope`` names, and its core.hooksPath.

    ``repository_file``: the listing is of a file inside the repository (a submodule's config).
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
        if (
            is_plain_git_key(key)
            or lowered in _PATH_KEYS
            or lowered.startswith("includeif.")
            or not value.strip()
        ):
            continue
        where = f"{key} ({scope}, {origin.removeprefix('file:')})"
        workspace = repository_file or scope in ("local", "worktree")
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
