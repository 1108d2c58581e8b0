"""Spellings of a path composed from segments that the filesystem resolves, judged by the filesystem (PERM-11).

:func:`build_path_maze` lays out a directory in which one file (:data:`MAZE_TARGET`) can be reached
many ways: a symbolic link to it (``alias``), a hard link (``hard``), a link to the directory itself
(``here``), a subdirectory with a link back up (``sub/back``), a link out of the tree
(``elsewhere``). :func:`path_spellings` composes a path from a start (nothing, the maze's absolute
path, ``/proc/self/root`` before it, ``..`` out and back in) and segments (``./``, ``//``,
``sub/../``, ``here/``, ``sub/back/``, ``elsewhere/../``), ending in one of the names of the file.
Some spellings reach the file, some reach another one or nothing (``elsewhere/..`` is ``/`` to the
kernel, the maze's directory to a lexical normaliser): :func:`same_file` is the judge, the
filesystem's own answer.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

__all__ = ["MAZE_TARGET", "PathMaze", "build_path_maze", "path_spellings", "same_file"]

MAZE_TARGET = "secret.env"
"""The file a deny rule protects in the maze."""

_SEGMENTS = ("./", ".//", "sub/../", "here/", "sub/back/", "sub//..//", "elsewhere/../", "nosuch/../")
_NAMES = (MAZE_TARGET, "alias", "hard", "here/" + MAZE_TARGET, "sub/back/alias")


@dataclass(frozen=True)
class PathMaze:
    """A directory built by :func:`build_path_maze`: ``root`` holds ``root / MAZE_TARGET``."""

    root: Path

    @property
    def target(self) -> Path:
        """The protected file."""
        return self.root / MAZE_TARGET


def build_path_maze(directory: Path) -> PathMaze:
    """Lay out the maze in ``directory`` (which must exist and be empty of these names)."""
    (directory / MAZE_TARGET).write_text("TOKEN=not-for-the-model\n", encoding="utf-8")
    (directory / "alias").symlink_to(MAZE_TARGET)
    os.link(directory / MAZE_TARGET, directory / "hard")
    (directory / "here").symlink_to(".")
    (directory / "sub").mkdir()
    (directory / "sub" / "back").symlink_to("..")
    (directory / "elsewhere").symlink_to(directory.parent)
    return PathMaze(directory.resolve())


def same_file(maze: PathMaze, spelled: str) -> bool:
    """Whether ``spelled`` (relative to the maze's root, or absolute) opens the maze's protected file."""
    path = Path(spelled) if spelled.startswith("/") else maze.root / spelled
    try:
        return os.path.samefile(path, maze.target)
    except OSError:
        return False


@st.composite
def _spelling(draw: st.DrawFn, root: str | None) -> str:
    start = ""
    if root is not None:
        start = draw(
            st.sampled_from(
                (
                    "",
                    f"{root}/",
                    f"/proc/self/root{root}/",
                    f"{root}/../{os.path.basename(root)}/",
                    f"{root}//",
                )
            )
        )
    segments = draw(st.lists(st.sampled_from(_SEGMENTS), max_size=3))
    return start + "".join(segments) + draw(st.sampled_from(_NAMES))


def path_spellings(root: str | None = None) -> st.SearchStrategy[str]:
    """Paths to the protected file of a maze, composed (relative; with ``root``, absolute ones too).

    Shrinks toward :data:`MAZE_TARGET` itself. Judge each with :func:`same_file`.
    """
    return _spelling(root)
