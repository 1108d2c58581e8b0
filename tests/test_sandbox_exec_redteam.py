"""A red team of the exec check (SBX-7), from the principle "a denied program does not run however it was started".

Each attempt is a way of starting ``touch`` that the SBX-7 property does not draw: other programs
that start programs (``env -S``, ``make``, ``awk``'s ``system()``, ``script``, a git alias, a ``#!``
line through ``env``, Node's ``child_process``, ``posix_spawn``), other system calls and ABIs
(``execveat`` on a directory descriptor, a C program's ``execv``, the i386 ``int 0x80`` entry), a
copy with its build-ID note removed. Each runs twice in the sandbox, with no rule (it must create the
marker: the attempt is real) and under ``Bash(touch:*)`` (it must not). What still gets through is
an expected failure naming the finding, as ``docs/sandbox.md`` ("What it can't see") says.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from reference_impl import PermissionContext, SandboxedShell, parse_rule
from reference_impl.sandbox import SandboxSettings, sandbox_problem

pytestmark = pytest.mark.skipif(sandbox_problem() is not None, reason=sandbox_problem() or "")


def _py(code: str) -> str:
    return shlex.join([sys.executable, "-c", code])


_I386_EXECVE = r"""#include <stdint.h>
char path[] = "/usr/bin/touch", a0[] = "t", a1[] = "M";
uint32_t argv[3];
int main(void) {
  int r;
  argv[0] = (uint32_t)(uintptr_t)a0; argv[1] = (uint32_t)(uintptr_t)a1; argv[2] = 0;
  __asm__ volatile("int $0x80" : "=a"(r) : "a"(11), "b"(path), "c"(argv), "d"(0) : "memory");
  return -r;
}
"""

_C_EXECV = '#include <unistd.h>\nint main(void){char*a[]={"y","M",0};execv("/usr/bin/touch",a);return 1;}\n'

# name -> (programs it needs, the command)
ATTEMPTS: dict[str, tuple[tuple[str, ...], str]] = {
    "env -S": ((), "env -S 'touch M'"),
    "make recipe": (("make",), "printf 'all:\\n\\ttouch M\\n' > Makefile && make -s"),
    "awk system()": (("awk",), "awk 'BEGIN{system(\"touch M\")}'"),
    "script -c": (("script",), "script -qc 'touch M' /dev/null"),
    "git alias": (("git",), "git -c alias.x='!touch M' x"),
    "#!/usr/bin/env touch": ((), "printf '#!/usr/bin/env touch\\n' > s && chmod +x s && ./s M"),
    "node child_process": (("node",), 'node -e \'require("child_process").execFileSync("touch", ["M"])\''),
    "posix_spawn": ((), _py("import os; os.waitpid(os.posix_spawn('/usr/bin/touch', ['t', 'M'], {}), 0)")),
    "execveat on a directory descriptor": (
        (),
        _py(
            "import ctypes, os; libc = ctypes.CDLL(None); d = os.open('/usr/bin', os.O_RDONLY);"
            " argv = (ctypes.c_char_p * 3)(b'x', b'M', None); libc.syscall(322, d, b'touch', argv, None, 0)"
        ),
    ),
    "a C program's execv": (("gcc",), f"printf '%s' {shlex.quote(_C_EXECV)} > e.c && gcc -o e e.c && ./e"),
    "i386 int 0x80": (
        ("gcc",),
        f"printf '%s' {shlex.quote(_I386_EXECVE)} > i.c && gcc -no-pie -o i i.c && ./i",
    ),
    "a copy without its build-ID note": (
        ("objcopy",),
        "objcopy --remove-section .note.gnu.build-id /usr/bin/touch t && chmod +x t && ./t M",
    ),
}

UNNAMED = frozenset({"i386 int 0x80"})
"""Refused by the filter itself (every syscall of another ABI fails), before any rule is consulted."""

GETS_THROUGH = {
    "a copy without its build-ID note": "another program to the check: no inode, build ID or content in common",
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


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(reason=GETS_THROUGH[name], strict=True))
        if name in GETS_THROUGH
        else name
        for name in ATTEMPTS
    ],
)
def test_a_denied_program_does_not_run_however_it_was_started(tmp_path: Path, name: str) -> None:
    """SBX-7: under ``Bash(touch:*)`` in the sandbox, ``touch`` started this way does not run, and the
    result names the rule (unless the filter refused the call unjudged); with no rule the same command
    creates the marker.
    """
    needs, command = ATTEMPTS[name]
    missing = [program for program in needs if shutil.which(program) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} is not installed")
    free = _run(command, (), tmp_path / "free")
    assert (tmp_path / "free" / "M").exists(), f"suite error: {name} does not start touch at all: {free!r}"
    ruled = _run(command, ("Bash(touch:*)",), tmp_path / "ruled")
    assert not (tmp_path / "ruled" / "M").exists(), f"{name}: touch ran under Bash(touch:*): {ruled!r}"
    if name not in UNNAMED:
        assert "Bash(touch:*)" in ruled, ruled


_SCRIPT_PROGRAM = "#!/bin/sh\necho ran > M\n"  # does its work with the shell's own redirection

SCRIPT_ATTEMPTS = {
    "a shell given the script": "sh bin/nuke",
    "bash given the script with an option": "bash -e bin/nuke",
    "a copy of the script run by a shell": "cp bin/nuke other && sh ./other",
    "the script sourced in a shell string": "bash -c '. bin/nuke'",
    "a Makefile recipe sourcing it": "printf 'x:\\n\\t. bin/nuke\\n' > Makefile && make -s x",
}


@pytest.mark.parametrize("name", sorted(SCRIPT_ATTEMPTS))
def test_a_denied_script_does_not_run_however_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """SBX-7: a program a rule names that is a script on ``PATH`` (``Bash(nuke:*)``) does not run when a
    shell reads it instead of the kernel starting it: given as a shell's script, copied, or sourced in
    a shell string or a Makefile recipe (never exec'd itself). Without the rule it runs."""
    command = SCRIPT_ATTEMPTS[name]
    if "make" in command and shutil.which("make") is None:
        pytest.skip("make is not installed")
    outputs = {}
    for case, deny in (("free", ()), ("ruled", ("Bash(nuke:*)",))):
        work = tmp_path / case
        (work / "bin").mkdir(parents=True)
        (work / "bin" / "nuke").write_text(_SCRIPT_PROGRAM)
        (work / "bin" / "nuke").chmod(0o755)
        monkeypatch.setenv("PATH", f"{work / 'bin'}:{os.environ['PATH']}")
        outputs[case] = _run_in(command, deny, work)
    assert (tmp_path / "free" / "M").exists(), (
        f"suite error: {name} does not run the script: {outputs['free']!r}"
    )
    assert not (tmp_path / "ruled" / "M").exists(), (
        f"{name}: the script ran under Bash(nuke:*): {outputs['ruled']!r}"
    )


def _run_in(command: str, deny: tuple[str, ...], work: Path) -> str:
    (work / "tmp").mkdir()
    rules = tuple(parse_rule(text, "deny", "localSettings") for text in deny)
    shell = SandboxedShell(
        SandboxSettings(enabled=True), PermissionContext(rules=rules, cwd=work), temp_dir=work / "tmp"
    )
    done = asyncio.run(shell.run({"command": command}, cwd=work, timeout=120, abort=asyncio.Event()))
    return done.output
