"""A file put into a directory git takes for a repository, whatever its name (PERM-15).

A bare repository (``git clone --bare``, ``mirror``, ``x.git``) is a git directory under any name:
its ``config`` and ``hooks/`` run code at the next git command there. A program given the
directory itself as its destination (``cp config mirror``, ``mv -t mirror f``, ``install f
mirror/.``, ``ln -f``), or a link to it made earlier on the line (``ln -s mirror L; cp f L/``),
puts the file inside. Composed: the repository's name x how the destination is spelled x the
program; and a name a git command writes from a commit (which may be a tracked link) written
through by a later part. Bash in a sandbox judges which lines write the repository's files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    assert_asked_not_run,
    assert_protected_write_asks,
    run_line_in_bypass,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires

_NAMES = ("mirror", "backup.git", "deps", "Repo")
_SPELLINGS = ("{r}", "{r}/", "{r}/.", "./{r}", "{r}//", "$PWD/{r}")
# How a program puts ``config`` (or ``pre-commit``, for hooks) into the directory ``{d}``.
_WRITERS = (
    "cp {f} {d}",
    "cp -t {d} {f}",
    "cp --target-directory={d} {f}",
    "cp --targ={d} {f}",
    "mv {f} {d}",
    "mv -t {d} {f}",
    "install -m 644 {f} {d}",
    "ln -f {f} {d}",
    "ln -s {r} L && cp {f} L/",
    "ln -s {r} L; cat {f} >> L/{f}",
    "ln -sf ./{r} L && install -m 755 -t L {f}",
)
# A bare repository as git's setup code finds one: objects/, refs/ and a HEAD naming a branch.
_BARE = {
    "HEAD": "ref: refs/heads/main\n",
    "objects/info/.keep": "",
    "refs/heads/.keep": "",
    "hooks/.keep": "",
}


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(_NAMES),
    spelling=st.sampled_from(_SPELLINGS),
    writer=st.sampled_from(_WRITERS),
    hook=st.booleans(),
)
@example(name="mirror", spelling="{r}", writer="cp {f} {d}", hook=False)
@example(name="backup.git", spelling="{r}/", writer="ln -s {r} L && cp {f} L/", hook=True)
def test_a_file_put_into_a_repository_under_any_name_asks(
    new_harness: Callable[[], Any], name: str, spelling: str, writer: str, hook: bool
) -> None:
    """PERM-15: a program given a bare repository's directory (any name, any spelling, or a link made to it on the line) as its destination asks in bypassPermissions.

    ``cp config mirror`` overwrites ``mirror/config``; ``ln -s mirror L; cp pre-commit L/hooks``...
    Composed as the module says; the filesystem judges which lines write the repository's file.
    """
    directory = spelling.format(r=name)
    file = "pre-commit" if hook else "config"
    into = f"{directory.rstrip('/')}/hooks" if hook and "{r}" not in writer.split("&&")[0] else directory
    if hook and writer.startswith("ln -s"):
        into = f"{name}/hooks"
    line = writer.format(f=file, d=into, r=f"{name}/hooks" if hook else name)
    files = {f"{name}/{path}": text for path, text in _BARE.items()}
    files[file] = "[core]\n\tfsmonitor = echo pwned\n" if file == "config" else "#!/bin/sh\necho pwned\n"
    target = f"{name}/hooks/{file}" if hook else f"{name}/{file}"
    assert_protected_write_asks(new_harness(), line, target, " (a repository under another name)", files)


_TRACKED_LINK = (
    "git checkout -q -b side && ln -s .git/hooks lk && git add lk && git commit -qm link && "
    "git checkout -q - && rm -f lk && printf 'x\\n' > f.txt"
)


def _repository_tracking_a_link() -> Path:
    """A repository whose branch ``side`` tracks ``lk -> .git/hooks``, checked out on another branch."""
    place = fresh_dir()
    environment = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
                   "GIT_COMMITTER_EMAIL": "a@b"}  # fmt: skip
    for command in ("git init -q . && git commit -q --allow-empty -m base", _TRACKED_LINK):
        subprocess.run(["bash", "-c", command], cwd=place, env=environment, check=True, capture_output=True)
    return place


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=12, deadline=None)
@given(
    checkout=st.sampled_from(
        (
            "git restore -s side lk",
            "git restore --source=side lk",
            "git checkout side -- lk",
            "git checkout side lk",
        )
    ),
    write=st.sampled_from(
        ("cp f.txt lk/pre-commit", "cat f.txt > lk/pre-commit", "tee lk/pre-commit < f.txt")
    ),
)
def test_a_path_through_a_name_git_writes_from_a_commit_asks(
    new_harness: Callable[[], Any], checkout: str, write: str
) -> None:
    """PERM-15: a later part that writes through a name a git command writes from a commit (a tracked link to ``.git/hooks``) asks.

    ``git restore -s side lk && cp f lk/pre-commit``: the branch tracks ``lk -> .git/hooks``; the
    filesystem judges which lines write the hook.
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    line = f"{checkout} && {write}"
    work, judged = _repository_tracking_a_link(), _repository_tracking_a_link()
    assume(".git/hooks/pre-commit" in ths.written_paths(line, judged))
    run = run_line_in_bypass(new_harness(), line, work)
    assert_asked_not_run(run, f"{line!r} writes .git/hooks/pre-commit through a link git checks out")
