"""Racing the exec check (SBX-7): what the check saw must be what runs, whatever another thread does meanwhile.

The attacker, in the sandbox under ``Bash(touch:*)``, starts an allowed program (``true``) again and
again while a thread of its own swaps what the exec names: it flips the path in memory the spawned
child shares with it (``posix_spawn`` is a ``CLONE_VM`` child: the parent's other threads keep
running in its memory), or renames ``touch`` over the path and back. A check that reads the call's
arguments and then lets the kernel read them again loses this race within a few tries; a check of
the image after the exec (the kernel has committed, no other thread is left) can't.
"""

from __future__ import annotations

import asyncio
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from reference_impl import PermissionContext, SandboxedShell, parse_rule
from reference_impl.sandbox import SandboxSettings, sandbox_problem

pytestmark = pytest.mark.skipif(sandbox_problem() is not None, reason=sandbox_problem() or "")

TRIES = 60
"""Spawns per run: the unchecked race was won within 1-20 tries on a 2-core machine."""

_ATTACKER = r"""
import ctypes, os, sys, threading
mode, tries = sys.argv[1], int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
path = ctypes.create_string_buffer(b"./a")
argv = (ctypes.c_char_p * 3)(b"t", b"M", None)
envp = (ctypes.c_char_p * 1)(None)
done = False
def flip():
    while not done:
        if mode == "memory":
            ctypes.memmove(ctypes.addressof(path) + 2, b"b", 1)
            ctypes.memmove(ctypes.addressof(path) + 2, b"a", 1)
        else:
            for source in ("denied", "allowed"):
                os.link(source, "swap")
                os.rename("swap", "a")
flipper = threading.Thread(target=flip)
flipper.start()
spawned = 0
for _ in range(tries):
    pid = ctypes.c_int()
    if libc.posix_spawn(ctypes.byref(pid), path, None, None, argv, envp) == 0:
        spawned += 1
        os.waitpid(pid.value, 0)
    if os.path.exists("M"):
        break
done = True
flipper.join()
print(f"spawned {spawned}")
"""

# mode -> the shell's setup of ./a (allowed) and ./b (touch) before the attacker runs
SETUPS = {
    "memory": "ln -s {allowed} a && ln -s {touch} b",
    "rename": "cp {allowed} allowed && ln allowed a && cp {touch} denied",
}


def _run(command: str, deny: tuple[str, ...], work: Path) -> str:
    work.mkdir()
    (work / "tmp").mkdir()
    rules = tuple(parse_rule(text, "deny", "localSettings") for text in deny)
    shell = SandboxedShell(
        SandboxSettings(enabled=True), PermissionContext(rules=rules, cwd=work), temp_dir=work / "tmp"
    )
    done = asyncio.run(shell.run({"command": command}, cwd=work, timeout=120, abort=asyncio.Event()))
    return done.output


@pytest.mark.parametrize("mode", sorted(SETUPS))
def test_a_racing_thread_never_runs_the_denied_program(tmp_path: Path, mode: str) -> None:
    """SBX-7: under ``Bash(touch:*)`` in the sandbox, a thread that swaps the exec's path (in shared
    memory, or by renaming ``touch`` over it) while an allowed program is spawned ``TRIES`` times never
    gets ``touch`` to run; the same attacker with ``touch`` itself as the allowed program does create
    the marker (the attack is real and the spawns happen).
    """
    touch, true = shutil.which("touch"), shutil.which("true")
    if touch is None or true is None:
        pytest.skip("touch and true are needed")
    attacker = shlex.join([sys.executable, "-c", _ATTACKER, mode, str(TRIES)])
    control = SETUPS[mode].format(allowed=shlex.quote(touch), touch=shlex.quote(touch))
    setup = SETUPS[mode].format(allowed=shlex.quote(true), touch=shlex.quote(touch))
    free = _run(f"{control} && {attacker}", (), tmp_path / "free")
    assert (tmp_path / "free" / "M").exists(), f"suite error: the attacker starts nothing: {free!r}"
    ruled = _run(f"{setup} && {attacker}", ("Bash(touch:*)",), tmp_path / "ruled")
    assert "spawned" in ruled, f"suite error: the attacker did not run: {ruled!r}"
    assert not (tmp_path / "ruled" / "M").exists(), f"{mode}: touch ran under Bash(touch:*): {ruled!r}"
