"""Spellings of a path composed from segments that the filesystem resolves, judged by the filesystem (PERM-11).

:func:`build_path_maze` lays out a directory in which one file (:data:`MAZE_TARGET`) can be reached
many ways (it may be nested: ``.git/config``): a symbolic link to it (``alias``), a hard link (``hard``, or
none), a link to each directory it is in (``into0``), a link to the directory itself
(``here``), a subdirectory with a link back up (``sub/back``), a link out of the tree
(``elsewhere``). :func:`path_spellings` composes a path from a start (nothing, the maze's absolute
path, ``/proc/self/root`` or the opener's own ``/proc/self/cwd`` before it, ``..`` out and back in) and segments (``./``, ``//``,
``sub/../``, ``here/``, ``sub/back/``, ``elsewhere/../``), ending in one of the names of the file.
Some spellings reach the file, some reach another one or nothing (``elsewhere/..`` is ``/`` to the
kernel, the maze's directory to a lexical normaliser): :func:`same_file` is the judge, the
filesystem's own answer.
"""

from __future__ import annotations

import itertools
import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

__all__ = [
    "MAZE_TARGET",
    "PathMaze",
    "bash_word_values",
    "build_path_maze",
    "expanded_spellings",
    "path_spellings",
    "same_file",
]

MAZE_TARGET = "secret.env"
"""The file a deny rule protects in the maze."""

_SEGMENTS = ("./", ".//", "sub/../", "here/", "sub/back/", "sub//..//", "elsewhere/../", "nosuch/../")
_LINK_NAMES = ("alias", "hard", "sub/back/alias")


@dataclass(frozen=True)
class PathMaze:
    """A directory built by :func:`build_path_maze`: ``root`` holds ``root / name``."""

    root: Path
    name: str = MAZE_TARGET

    @property
    def target(self) -> Path:
        """The protected file."""
        return self.root / self.name


def build_path_maze(directory: Path, name: str = MAZE_TARGET, *, hard_link: bool = True) -> PathMaze:
    """Lay out the maze in ``directory`` around the file ``name`` (relative, may be nested: ``.git/config``).

    Without ``hard_link`` the file has one name only (a hard link is a clue a checker may lean on);
    a nested file's directories each get a symbolic link too (``into1`` -> ``.git``).
    """
    (directory / name).parent.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text("TOKEN=not-for-the-model\n", encoding="utf-8")
    (directory / "alias").symlink_to(name)
    if hard_link:
        os.link(directory / name, directory / "hard")
    for index, folder in enumerate(_folders(name)):
        (directory / f"into{index}").symlink_to(folder)
    (directory / "here").symlink_to(".")
    (directory / "sub").mkdir()
    (directory / "sub" / "back").symlink_to("..")
    (directory / "elsewhere").symlink_to(directory.parent)
    return PathMaze(directory.resolve(), name)


def same_file(maze: PathMaze, spelled: str) -> bool:
    """Whether ``spelled`` (relative to the maze's root, or absolute) opens the maze's protected file."""
    path = Path(spelled) if spelled.startswith("/") else maze.root / spelled
    if spelled.startswith("/proc/"):
        # /proc/self is the opening process: ask one that runs in the maze's root, as the call does.
        compared = ["test", spelled, "-ef", str(maze.target)]
        return subprocess.run(compared, cwd=maze.root, check=False).returncode == 0
    try:
        return os.path.samefile(path, maze.target)
    except OSError:
        return False


@st.composite
def _spelling(draw: st.DrawFn, root: str | None, name: str) -> str:
    start = ""
    if root is not None:
        start = draw(
            st.sampled_from(
                (
                    "",
                    f"{root}/",
                    f"/proc/self/root{root}/",
                    # The opening process's own directory (the call's, the maze's root): the kernel
                    # reads /proc/self in that process, never in the checker's.
                    "/proc/self/cwd/",
                    "/proc/thread-self/cwd/",
                    f"{root}/../{os.path.basename(root)}/",
                    f"{root}//",
                )
            )
        )
    segments = draw(st.lists(st.sampled_from(_SEGMENTS), max_size=3))
    through_folders = tuple(
        f"into{index}/{name[len(folder) + 1 :]}" for index, folder in enumerate(_folders(name))
    )
    return (
        start
        + "".join(segments)
        + draw(st.sampled_from((name, f"here/{name}", *_LINK_NAMES, *through_folders)))
    )


def _folders(name: str) -> list[str]:
    """The directories of a nested ``name``, deepest first (``.git/hooks/x``: ``.git/hooks``, ``.git``)."""
    return [str(parent) for parent in Path(name).parents if str(parent) != "."]


def path_spellings(root: str | None = None, name: str = MAZE_TARGET) -> st.SearchStrategy[str]:
    """Paths to the protected file ``name`` of a maze, composed (relative; with ``root``, absolute ones too).

    Shrinks toward ``name`` itself. Judge each with :func:`same_file`.
    """
    return _spelling(root, name)


# Bash turns each of these into the path it wraps (or, for a glob, into whatever matches).
_EXPANSIONS = ("pieces", "$PWD", "default value", "command substitution", "glob")
# How one piece of a word is quoted; empty quotes may stand between pieces (or before the first).
_QUOTINGS = ("plain", "single", "double", "ansi-c", "backslashes")
_EMPTY_QUOTES = ("", "''", '""', "$''")


def _quoted(draw: st.DrawFn, text: str) -> str:
    quoting = draw(st.sampled_from(_QUOTINGS))
    if quoting == "single":
        return "'" + text.replace("'", "'\\''") + "'"
    if quoting == "double":
        return '"' + "".join("\\" + c if c in '\\"$`' else c for c in text) + '"'
    if quoting == "ansi-c":
        return "$'" + "".join(f"\\x{byte:02x}" for byte in text.encode()) + "'"
    if quoting == "backslashes":
        return "".join("\\" + c for c in text)
    return shlex.quote(text)


@st.composite
def _pieces(draw: st.DrawFn, path: str) -> str:
    """``path`` cut into pieces, each quoted its own way, with empty quotes between (one bash word).

    The cuts are drawn as fractions of the length, and a cut may repeat (an empty piece): the draws
    are the same whatever the path's length, so a path that changes between runs (a temporary
    directory's) replays the same example.
    """
    cuts = sorted(round(f * len(path)) for f in draw(st.lists(st.floats(0, 1), max_size=3)))
    bounds = [0, *cuts, len(path)]
    word = ""
    for start, end in itertools.pairwise(bounds):
        word += draw(st.sampled_from(_EMPTY_QUOTES)) + _quoted(draw, path[start:end])
    return word


@st.composite
def _expanded(draw: st.DrawFn, path: str) -> str:
    form = draw(st.sampled_from(_EXPANSIONS))
    if form == "$PWD" and not path.startswith("/"):
        return f'"$PWD"/{draw(_pieces(path))}'
    if form == "default value":
        return f'"${{TOOLHARNESS_UNSET:-{path}}}"'
    if form == "command substitution":
        return f'"$(printf %s {shlex.quote(path)})"'
    if form == "glob" and path and path[-1] not in "/.":
        return draw(_pieces(path[:-1])) + "?" if len(path) > 1 else "?"
    return draw(_pieces(path)) if path else "''"


def expanded_spellings(path: str) -> st.SearchStrategy[str]:
    r"""Bash words that expand to ``path`` (or, globbed, to what matches it), for a command line.

    Cut into pieces, each quoted its own way (plain, ``'...'``, ``"..."``, ``$'\xNN'``, a backslash
    before each character) with empty quotes between or before them (``''\s'ub'/...``: pieces a
    grammar may read as separate words), prefixed with ``"$PWD"``, as a ``${UNSET:-path}`` default, as
    ``"$(printf %s path)"``, or with its last character a ``?`` glob.
    Judge each with :func:`bash_word_values`: bash's own expansion.
    """
    return _expanded(path)


def bash_word_values(word: str, cwd: Path) -> list[str]:
    """What bash expands ``word`` to in ``cwd``: the fields, as bash gives them to a command."""
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", f"printf '%s\\0' {word}"],
        cwd=cwd,
        capture_output=True,
        timeout=10,
        check=False,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PWD": str(cwd)},
    )
    return [field.decode("utf-8", "surrogateescape") for field in done.stdout.split(b"\0")[:-1]]
