"""The directory a wrapper runs its command in (``reference_impl.permissions._wrapped_commands``, PERM-15).

Paths on the wrapped command's line resolve there: a wrapper that picks a directory of its own runs
the command somewhere the engine does not know, so a relative write there is a write outside the
working directory (asked about even in acceptEdits). Where the real program is here, it judges.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from reference_impl.permissions._wrapped_commands import wrapper_directories

# (wrapper line, the directories its command runs in: None is one the engine can't know), from each
# program's manual: chroot runs the command at the new root's "/"; pkexec in the target user's home
# unless --keep-cwd (newer polkit; an older one refuses the option); systemd-run in the service's
# directory; su - and sudo -i start a login shell in the user's home; env -C and sudo -D move to the
# one named.
_WRAPPERS = [
    (("chroot", ["/", "touch", "x"]), [None]),
    (("pkexec", ["touch", "x"]), [None]),
    (("pkexec", ["--keep-cwd", "touch", "x"]), [None]),
    (("systemd-run", ["touch", "x"]), [None]),
    (("su", ["-", "root", "-c", "touch x"]), [None]),
    (("env", ["-C", "/srv", "touch", "x"]), ["/srv"]),
    (("env", ["touch", "x"]), []),
    (("nice", ["touch", "x"]), []),
]


@pytest.mark.parametrize(
    ("line", "directories"), _WRAPPERS, ids=[" ".join([n, *a]) for (n, a), _ in _WRAPPERS]
)
def test_a_wrapper_that_picks_its_own_directory_gives_an_unknown_one(
    line: tuple[str, list[str]], directories: list[str | None]
) -> None:
    """PERM-15: chroot, pkexec, systemd-run and login shells run the command somewhere unknown; env -C where it says."""
    name, args = line
    assert wrapper_directories(name, tuple(args)) == directories


@pytest.mark.skipif(shutil.which("chroot") is None or os.geteuid() != 0, reason="chroot needs root")
def test_chroot_runs_its_command_at_the_new_roots_top() -> None:
    """The real chroot: its command's working directory is ``/`` of the new root, not the caller's."""
    done = subprocess.run(["chroot", "/", "pwd"], cwd="/tmp", capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "/"
