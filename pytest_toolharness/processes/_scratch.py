"""Scratch directories removed at exit: in parallel, and only once.

A run of the suite leaves thousands of small files and directories in its scratch directories
(sessions, hook programs, recorded requests). Removed one entry at a time, on a disk that makes
each unlink wait (mounted with ``discard``, or busy with other jobs), that took a worker many
seconds at exit, while the xdist controller waited for it (and killed it after 10 s).

- :func:`remove_tree` removes a tree with several threads, one subtree each (the waits overlap).
- :func:`remove_at_exit` removes a directory when the process exits, unless it lies under a root
  given to :func:`defer_removal_under`: an xdist worker's scratch is inside the controller's run
  directory, which the controller removes once the workers are gone.
- :func:`remove_in_background` hands a tree to a detached ``rm -rf``: the controller's run directory
  goes that way, so the run's report is not held up by removing what its examples wrote.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

__all__ = ["defer_removal_under", "remove_at_exit", "remove_in_background", "remove_tree"]

_THREADS = 8
# Split the tree until there are about this many subtrees to hand out.
_SUBTREES = 64
_deferred: list[Path] = []


def _children(directory: Path) -> list[Path]:
    try:
        with os.scandir(directory) as entries:
            return [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything in it (errors ignored), several subtrees at a time."""
    subtrees = [path]
    while len(subtrees) < _SUBTREES:
        expanded = [child for tree in subtrees for child in _children(tree)]
        if len(expanded) <= len(subtrees):
            break
        subtrees = expanded
    if subtrees != [path]:
        try:
            with ThreadPoolExecutor(_THREADS, thread_name_prefix="toolharness-rmtree") as pool:
                list(pool.map(lambda tree: shutil.rmtree(tree, ignore_errors=True), subtrees))
        except RuntimeError:
            # At interpreter exit (an atexit removal) no new thread may start: remove serially.
            pass
    shutil.rmtree(path, ignore_errors=True)


def defer_removal_under(root: Path) -> None:
    """From now on, :func:`remove_at_exit` leaves whatever is under ``root`` to whoever removes ``root``."""
    _deferred.append(root.resolve())


def _remove_unless_deferred(path: Path) -> None:
    resolved = path.resolve()
    if any(root == resolved or root in resolved.parents for root in _deferred):
        return
    remove_tree(path)


def remove_at_exit(path: Path) -> None:
    """Remove ``path`` when the process exits (see :func:`defer_removal_under`)."""
    atexit.register(_remove_unless_deferred, path)


# sh returns as soon as rm is started in the background, so nothing is left for this process to wait
# for (a Popen still running at exit would warn); rm lives on as an orphan.
_DETACHED_RM = '"$0" -rf -- "$1" </dev/null >/dev/null 2>&1 &'


def remove_in_background(path: Path) -> None:
    """Remove ``path`` in a detached process, so this one need not wait; here if none can start."""
    sh, rm = shutil.which("sh"), shutil.which("rm")
    if sh is not None and rm is not None:
        try:
            started = subprocess.run(
                [sh, "-c", _DETACHED_RM, rm, str(path)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            pass
        else:
            if started.returncode == 0:
                return
    remove_tree(path)
