"""Every way a model may name one file, with the kernel as judge of which file each names (PERM-11, PERM-15).

A path rule, the working-directory check and the protected paths judge the file a call opens, not
the text the model wrote. :func:`file_scene` builds a small filesystem (a home holding the project,
a directory outside it, links across the boundary both ways); :func:`spelled_paths` draws a spelling
of a file there, composed: a route to it (its real place, or through any link whose target holds it),
then a form (absolute, relative to the working directory, from the home as ``~/``, with ``.`` and
doubled slashes, climbing with ``..`` out of a directory the route passed, which the kernel takes
*after* following a link). :func:`where_it_opens` asks the kernel which file a spelling opens; a
property expects by that answer, never by the text.

``~`` means the home directory, which a harness reads from ``HOME``: :func:`home_set_to` points it
at the scene's home for the length of a run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir

__all__ = ["FileScene", "file_scene", "home_set_to", "spelled_paths", "where_it_opens"]


@dataclass(frozen=True)
class FileScene:
    """A home holding the project (the working directory), a directory beside it, links across."""

    home: Path
    cwd: Path
    outside: Path
    links: tuple[tuple[Path, Path], ...]
    """(link, the directory it points to): into the outside from the project, into the project from
    the outside and from the home, and to the home from the project."""


def file_scene() -> FileScene:
    """A fresh scene: ``home/project`` (cwd, with ``src/``), ``outside/``, and four directory links."""
    root = fresh_dir()
    home, outside = root / "home", root / "outside"
    cwd = home / "project"
    (cwd / "src").mkdir(parents=True)
    outside.mkdir()
    links = (
        (cwd / "shared", outside),  # inside by its name, outside where it leads
        (outside / "back", cwd),  # outside by its name, the project where it leads
        (home / "current", cwd),
        (cwd / "up", home),
    )
    for link, directory in links:
        link.symlink_to(directory, target_is_directory=True)
    return FileScene(home=home, cwd=cwd, outside=outside, links=links)


@contextmanager
def home_set_to(home: Path) -> Iterator[None]:
    """``HOME`` is ``home`` inside the block (how every POSIX program, and a harness, expands ``~``)."""
    before = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        yield
    finally:
        if before is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = before


def where_it_opens(spelled: str, scene: FileScene) -> Path | None:
    """The real path of the file ``spelled`` opens from the scene's working directory (the kernel's answer).

    ``~`` is expanded from the scene's home first, as a harness expands it; ``None`` when the kernel
    can't reach the file's directory (a ``..`` after a name that does not exist there).
    """
    text = str(scene.home) + spelled[1:] if spelled == "~" or spelled.startswith("~/") else spelled
    full = os.path.join(scene.cwd, text)
    directory = os.path.dirname(full)
    if not os.path.isdir(directory):
        return None
    return Path(os.path.realpath(directory)) / os.path.basename(full)


def _routes(target: Path, scene: FileScene) -> list[Path]:
    """Absolute paths that open ``target``: itself, and through each link whose directory holds it."""
    routes = [target]
    for link, directory in scene.links:
        if target.is_relative_to(directory):
            routes.append(link / target.relative_to(directory))
    return routes


@st.composite
def spelled_paths(draw: st.DrawFn, target: Path, scene: FileScene) -> str:
    """A spelling of ``target`` (a file in ``scene``) that opens it, as a model may write it.

    The route (real, or through a link) x the form (absolute, relative to the working directory,
    ``~/``) x blanks in the path's text the kernel ignores (``./``, ``//``), or a climb with ``..``
    right after a directory of the route and back into it. Every drawn spelling is checked to open
    ``target`` (:func:`where_it_opens`).
    """
    route = draw(st.sampled_from(_routes(target, scene)), label="route")
    forms = ["absolute", "relative"]
    if route.is_relative_to(scene.home):
        forms.append("home")
    form = draw(st.sampled_from(forms), label="form")
    base = {"absolute": Path("/"), "home": scene.home, "relative": scene.cwd}[form]
    parts = list(
        route.relative_to(base).parts if form != "relative" else Path(os.path.relpath(route, base)).parts
    )
    spelled: list[str] = []
    for index, part in enumerate(parts):
        spelled.append(part)
        if index < len(parts) - 1 and part != ".." and draw(st.integers(0, 3), label="detour") == 0:
            # Out of the directory just named and back in: the kernel climbs from where a link led.
            spelled += ["..", Path(os.path.realpath(base.joinpath(*spelled))).name]
    text = "/".join(spelled)
    if "/" in text and draw(st.booleans(), label="doubled slash"):
        cut = draw(st.sampled_from([i for i, c in enumerate(text) if c == "/"]), label="doubled at")
        text = text[:cut] + "/" + text[cut:]
    if form == "relative" and draw(st.booleans(), label="leading ./"):
        text = "./" + text
    result = {"absolute": "/", "home": "~/", "relative": ""}[form] + text
    if where_it_opens(result, scene) != Path(os.path.realpath(target)):
        raise RuntimeError(f"suite fault: the spelling {result!r} does not open {target} in {scene}")
    return result
