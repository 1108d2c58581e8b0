"""Files that run code later by class: what a shell start-up file sources or puts on PATH (PERM-15).

A file a shell start-up file sources, and a program put in a directory the start-up puts on ``PATH``,
in a home made for the draw, as bash itself (``HOME=h bash -i``/``-l``) says the file is run or searched.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import edit_tool, host_answering, run_calls, shell_tool
from pytest_toolharness.adapters import requires

# Ways a start-up file sources a file ({f}: the file under $HOME) or puts a directory on PATH ({d}).
_SOURCING = (
    '. "$HOME/{f}"',
    "source ~/{f}",
    '[ -f "$HOME/{f}" ] && . "$HOME/{f}"',
    'if [ -s "${{HOME}}/{f}" ]; then\n  \\. "${{HOME}}/{f}"\nfi',
)
_ON_PATH = (
    'export PATH="$HOME/{d}:$PATH"',
    "PATH=$HOME/{d}:$PATH",
    'if [ -d "$HOME/{d}" ] ; then\n    PATH="${{HOME}}/{d}:$PATH"\nfi',
    'PATH="/usr/local/bin:$HOME/{d}:$PATH"; export PATH',
)
_SOURCED = (".cargo/env", ".config/shell/mine.sh", ".nvm/nvm.sh", ".sdkman/bin/sdkman-init.sh")
_PATH_DIRECTORIES = (".cargo/bin", ".local/bin", "bin", ".pyenv/shims", ".npm-global/bin")
# bash(1) INVOCATION: an interactive shell reads ~/.bashrc; a login shell reads the first of
# ~/.bash_profile, ~/.bash_login, ~/.profile.
_STARTUP = {".bashrc": "-ic", ".bash_profile": "-lc", ".profile": "-lc"}


def _bash_runs(home: Path, startup: str, script: str) -> str:
    """What ``script`` prints in the bash ``HOME=home`` starts with ``startup`` read."""
    environment = {"HOME": str(home), "PATH": "/usr/bin:/bin", "TERM": "dumb"}
    done = subprocess.run(
        ["bash", _STARTUP[startup], script],
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    return done.stdout


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    startup=st.sampled_from(sorted(_STARTUP)),
    kind=st.sampled_from(["sourced", "on PATH"]),
    member=st.integers(0, 4),
    way=st.integers(0, 3),
    via=st.sampled_from(["edit", "redirection", "tee", "cd"]),
)
@example(startup=".bashrc", kind="sourced", member=0, way=0, via="edit")
@example(startup=".profile", kind="on PATH", member=1, way=2, via="redirection")
def test_what_the_shell_start_up_runs_is_never_written_unasked(
    new_harness: Callable[[], Any], startup: str, kind: str, member: int, way: int, via: str
) -> None:
    r"""PERM-15: a file a shell start-up file sources, or a program in a directory it puts on PATH, asks in bypassPermissions.

    Composed: a home (a directory holding a start-up file, as ``HOME=h bash`` makes it) x its
    start-up file (``.bashrc``, ``.bash_profile``, ``.profile``) x the way it sources (``.``,
    ``source``, ``\.``, under ``[ -f ]`` or ``if``) or extends ``PATH`` (``export``, ``${HOME}``,
    among other entries) x the file or directory x how it is written (a file tool, ``>>``, ``tee
    -a``, ``cd`` to its directory first). Bash is the judge: with the member written as ``echo RAN``,
    the start-up runs it (sourced) or finds the program first (on PATH).
    """
    root = fresh_dir()
    home = root / "h"
    if kind == "sourced":
        name = _SOURCED[member % len(_SOURCED)]
        line, written = _SOURCING[way].format(f=name), name
    else:
        name = _PATH_DIRECTORIES[member % len(_PATH_DIRECTORIES)]
        line, written = _ON_PATH[way].format(d=name), f"{name}/git"
    (home / written).parent.mkdir(parents=True, exist_ok=True)
    (home / startup).write_text(f"# start-up\n{line}\n")
    # Bash is the judge: the member as written runs at start-up, or is the program found first.
    oracle = root / "oracle"
    shutil.copytree(home, oracle)
    (oracle / written).write_text("echo RAN\n")
    os.chmod(oracle / written, 0o755)
    printed = _bash_runs(oracle, startup, "git 2>/dev/null; true" if kind == "on PATH" else "true")
    assert "RAN" in printed, f"bash does not run {written} from {line!r} in {startup}: {printed!r}"
    relative = f"h/{written}"
    head, _, tail = relative.rpartition("/")
    command = {
        "redirection": f"echo pwned >> {shlex.quote(relative)}",
        "tee": f"echo pwned | tee -a {shlex.quote(relative)}",
        "cd": f"cd {shlex.quote(head)} && echo pwned >> {shlex.quote(tail)}",
    }.get(via)
    tool, call = (
        (edit_tool(), ("Edit", {"file_path": relative}))
        if command is None
        else (shell_tool(), ("Bash", {"command": command}))
    )
    run = run_calls(
        new_harness(), [tool], [call], mode="bypassPermissions", host=host_answering("deny"), cwd=root
    )
    assert run.ran() == 0, f"{via} of {relative!r} ({line!r} in {startup}) ran unasked: {run.describe()}"
    assert len(run.asked) == 1, f"{via} of {relative!r} ({line!r} in {startup}) must ask: {run.describe()}"
