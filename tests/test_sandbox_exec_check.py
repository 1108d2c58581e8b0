"""The sandbox's exec check (SBX-7): the judge's names for a program, the filter, the supervisor failing closed."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_impl import PermissionContext, SandboxedShell, parse_rule
from reference_impl.sandbox import SandboxSettings, sandbox_problem
from reference_impl.sandbox._exec_guard import ExecAttempt
from reference_impl.sandbox._exec_loader import ARCHITECTURES, filter_program
from reference_impl.sandbox._exec_rules import ExecJudge, build_id, exec_judge

needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None, reason=sandbox_problem() or "")


def _judge(*rules: tuple[str, str]) -> ExecJudge:
    return exec_judge(
        [parse_rule(text, behavior, "localSettings") for text, behavior in rules], os.environ["PATH"]
    )


@pytest.fixture
def opened() -> Iterator[list[int]]:
    fds: list[int] = []
    yield fds
    for fd in fds:
        os.close(fd)


def _attempt(opened: list[int], path: str, *argv: str, cwd: str = ".") -> ExecAttempt:
    try:
        fd: int | None = os.open(path if path.startswith("/") else os.path.join(cwd, path), os.O_RDONLY)
    except OSError:
        fd = None
    if fd is not None:
        opened.append(fd)
    return ExecAttempt(path, argv or (path,), fd, "", cwd)


def test_names_by_path_argv0_inode_and_content(tmp_path: Path, opened: list[int]) -> None:
    """A program is judged by its path's name, argv[0], and any rule-named file it is (inode or bytes)."""
    judge = _judge(("Bash(rm:*)", "deny"))
    rm = shutil.which("rm")
    assert rm is not None
    assert judge(_attempt(opened, rm, "rm", "-f", "x")) is not None
    assert (
        judge(_attempt(opened, "/bin/true", "rm", "x")) is not None
    )  # argv[0], as a multi-call binary reads it
    link = tmp_path / "innocent"
    link.symlink_to(rm)
    copy = tmp_path / "copy"
    shutil.copy(rm, copy)
    for spelled in (link, copy):
        reason = judge(_attempt(opened, str(spelled), "innocent", "-rf", "d"))
        assert reason is not None
        assert "Bash(rm:*)" in reason
    longer = tmp_path / "longer"
    longer.write_bytes(copy.read_bytes() + b"\0")  # other bytes, the same build ID
    assert judge(_attempt(opened, str(longer), "longer", "d")) is not None
    fd = os.open(rm, os.O_RDONLY)
    opened.append(fd)
    ident = build_id(fd)
    assert ident is not None
    rebuilt = tmp_path / "rebuilt"  # documented: a copy with another build ID is another program
    rebuilt.write_bytes(copy.read_bytes().replace(ident, bytes(b ^ 0xFF for b in ident)))
    assert judge(_attempt(opened, str(rebuilt), "rebuilt", "d")) is None
    assert judge(_attempt(opened, "/bin/true", "true")) is None


def test_rules_written_with_a_path_match_the_path_as_given(tmp_path: Path, opened: list[int]) -> None:
    """``Bash(./deploy.sh:*)`` holds when ``./deploy.sh`` is exec'd by that path; other scripts run."""
    judge = _judge(("Bash(./deploy.sh:*)", "deny"))
    script = tmp_path / "deploy.sh"
    script.write_text("#!/bin/sh\necho deployed\n")
    assert judge(_attempt(opened, "./deploy.sh", "./deploy.sh", "prod", cwd=str(tmp_path))) is not None
    assert judge(_attempt(opened, "./build.sh", "./build.sh", cwd=str(tmp_path))) is None


def test_scripts_and_the_dynamic_loader_are_judged_by_what_they_run(
    tmp_path: Path, opened: list[int]
) -> None:
    """A ``#!`` line is judged as the kernel runs it; ``ld.so PROGRAM`` as PROGRAM."""
    judge = _judge(("Bash(rm -f:*)", "deny"))
    script = tmp_path / "cleanup"
    script.write_text("#!/usr/bin/rm -f\n")
    assert judge(_attempt(opened, str(script), "./cleanup", "x")) is not None
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\necho hi\n")
    assert judge(_attempt(opened, str(plain), "./plain")) is None
    loaders = [p for p in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1") if os.path.exists(p)]
    if loaders:
        assert (
            judge(_attempt(opened, loaders[0], loaders[0], "--argv0", "x", "/usr/bin/rm", "-f", "y"))
            is not None
        )
        assert judge(_attempt(opened, loaders[0], loaders[0], "/bin/true")) is None
        renamed = tmp_path / "runner"  # the loader under a name no pattern knows: its inode and build ID
        shutil.copy(loaders[0], renamed)
        assert judge(_attempt(opened, str(renamed), "./runner", "/usr/bin/rm", "-f", "y")) is not None


@pytest.mark.parametrize(
    ("rule", "argv", "refused"),
    [
        ("Bash(rm -rf:*)", ("rm", "-fr", "d"), True),
        ("Bash(rm -rf:*)", ("rm", "--recursive", "--force", "d"), True),
        ("Bash(rm -rf:*)", ("rm", "d", "-r", "-f"), True),
        ("Bash(rm -rf:*)", ("rm", "-f", "d"), False),
        ("Bash(git push:*)", ("git", "-C", ".", "push", "o", "main"), True),
        ("Bash(git push:*)", ("git", "--git-dir=.git", "--work-tree=.", "push"), True),
        ("Bash(git push:*)", ("git", "-C", ".", "status"), False),
    ],
)
def test_argv_is_judged_as_the_program_reads_it(
    opened: list[int], rule: str, argv: tuple[str, ...], refused: bool
) -> None:
    """SBX-7: a deny rule naming options or a subcommand meets the real argv in any spelling the program reads alike.

    git does ``push`` in-process, so the exec check sees ``git -C . push``: only reading the argv
    as git does tells that it pushes.
    """
    path = shutil.which(argv[0])
    if path is None:
        pytest.skip(f"{argv[0]} is not installed")
    verdict = _judge((rule, "deny"))(_attempt(opened, path, *argv))
    assert (verdict is not None) is refused, verdict
    if refused:
        assert rule in (verdict or "")


def test_ask_rules_refuse_unless_the_call_met_them(opened: list[int]) -> None:
    """An ask rule refuses where nobody can be asked, unless the static reading of the call certainly met it."""
    judge = _judge(("Bash(rm:*)", "ask"))
    attempt = _attempt(opened, "/usr/bin/rm", "rm", "x")
    refused = judge.for_command("sh run.sh")(attempt)
    assert refused is not None
    assert "nobody can be asked" in refused
    assert judge.for_command("rm x")(attempt) is None
    assert judge.for_command('"$cmd" x')(attempt) is not None  # only *may* apply: not granted


def test_the_filter_notifies_execs_and_refuses_rewriting_them() -> None:
    """The BPF program: execve/execveat notify, ptrace/process_vm_writev and foreign ABIs fail, the rest pass."""
    program = filter_program("x86_64")
    returns = {k for code, _, _, k in program if code == 0x06}
    assert returns == {0x7FC00000, 0x00050001, 0x7FFF0000}
    compared = {k for code, _, _, k in program if code == 0x15}
    assert {59, 322, 101, 311, 0xC000003E} <= compared


_UAPI = Path("/usr/include")
_UNISTD = {
    "x86_64": _UAPI / "x86_64-linux-gnu" / "asm" / "unistd_64.h",
    "aarch64": _UAPI / "asm-generic" / "unistd.h",  # aarch64 takes the generic table
}
_EM = {"x86_64": "EM_X86_64", "aarch64": "EM_AARCH64"}


def _defines(*headers: Path) -> dict[str, int]:
    """The ``#define NAME NUMBER`` lines of C headers (decimal or hex)."""
    found: dict[str, int] = {}
    for header in headers:
        for line in header.read_text().splitlines():
            words = line.split()
            if len(words) >= 3 and words[0] == "#define" and re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)", words[2]):
                found[words[1]] = int(words[2], 0)
    return found


@pytest.mark.parametrize("machine", sorted(ARCHITECTURES))
def test_the_filters_numbers_are_the_kernels(machine: str) -> None:
    """Each machine's audit architecture and syscall numbers are the kernel's UAPI headers' (the
    aarch64 line can't run on an x86_64 host: this is its check, named by its mutants' triage)."""
    headers = [_UNISTD[machine], _UAPI / "linux" / "audit.h", _UAPI / "linux" / "elf-em.h"]
    if not all(header.is_file() for header in headers):
        pytest.skip(f"the kernel's UAPI headers are not installed: {[str(h) for h in headers]}")
    numbers = _defines(*headers)
    arch = numbers[_EM[machine]] | numbers["__AUDIT_ARCH_64BIT"] | numbers["__AUDIT_ARCH_LE"]
    names = ("__NR_seccomp", ("__NR_execve", "__NR_execveat"), ("__NR_ptrace", "__NR_process_vm_writev"))
    expected = (
        arch,
        numbers[names[0]],
        tuple(numbers[name] for name in names[1]),
        tuple(numbers[name] for name in names[2]),
    )
    assert ARCHITECTURES[machine] == expected


@needs_sandbox
def test_a_dead_supervisor_fails_closed(tmp_path: Path) -> None:
    """With the listener closed, every exec under the filter fails: nothing runs unjudged."""
    loader = Path(sys.modules["reference_impl.sandbox._exec_loader"].__file__ or "")
    code = (
        "import os, sys; sys.path.insert(0, sys.argv[1]); import _exec_loader as l, platform; "
        "fd = l.install(platform.machine()); os.close(fd); os.execv('/bin/true', ['true'])"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, str(loader.parent)], capture_output=True, check=False
    )
    assert done.returncode != 0
    assert (
        b"Function not implemented" in done.stderr or b"ENOSYS" in done.stderr or b"Errno 38" in done.stderr
    )


@needs_sandbox
def test_a_sandboxed_run_names_the_rule_and_counts_its_checks(tmp_path: Path) -> None:
    """End to end: a denied program started by Python inside the sandbox is refused, the result names the rule."""
    (tmp_path / "tmp").mkdir()
    context = PermissionContext(rules=(parse_rule("Bash(touch:*)", "deny", "localSettings"),), cwd=tmp_path)
    shell = SandboxedShell(SandboxSettings(enabled=True), context, temp_dir=tmp_path / "tmp")
    command = 'python3 -c \'import subprocess; subprocess.run(["touch", "M"])\'; echo done'
    result = asyncio.run(shell.run({"command": command}, cwd=tmp_path, timeout=60, abort=asyncio.Event()))
    assert not (tmp_path / "M").exists()
    assert "Bash(touch:*)" in result.output
    assert result.refused
    assert shell.guards[-1].checked >= 2


_WITHOUT_SECCOMP = """
import asyncio, ctypes, platform, sys
from pathlib import Path
from reference_impl import PermissionContext, SandboxedShell, parse_rule
from reference_impl.sandbox import SandboxSettings, ShellRunError
from reference_impl.sandbox._exec_loader import ARCHITECTURES

# A filter of our own first: the seccomp syscall fails (EPERM) here and in every child.
arch, number = ARCHITECTURES[platform.machine()][:2]
class Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(Insn))]
insns = [(0x20, 0, 0, 0), (0x15, 0, 1, number), (0x06, 0, 0, 0x00050001), (0x06, 0, 0, 0x7FFF0000)]
array = (Insn * len(insns))(*(Insn(*i) for i in insns))
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0
assert libc.prctl(22, 2, ctypes.byref(Prog(len(insns), array)), 0, 0) == 0  # PR_SET_SECCOMP, FILTER

work = Path(sys.argv[1])
context = PermissionContext(rules=(parse_rule("Bash(touch:*)", "deny", "localSettings"),), cwd=work)
shell = SandboxedShell(SandboxSettings(enabled=True), context, temp_dir=work / "tmp")
print(shell.plan({"command": "touch M"}))
try:
    asyncio.run(shell.run({"command": "touch M"}, cwd=work, timeout=60, abort=asyncio.Event()))
except ShellRunError as error:
    print("refused:", error)
bare = SandboxedShell(SandboxSettings(enabled=True), PermissionContext(rules=(), cwd=work), temp_dir=work / "tmp")
print(bare.plan({"command": "touch M"}))
"""


@needs_sandbox
def test_no_seccomp_listener_refuses_naming_why(tmp_path: Path) -> None:
    """Fail closed: where the kernel refuses the exec check's filter, a sandboxed call under a Bash deny
    rule is refused, naming why; it never runs without the check. With no rule to hold, it runs as before.
    """
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_SECCOMP, str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    first, refused, bare = done.stdout.splitlines()
    assert "how='refused'" in first
    assert "seccomp user notification is unavailable" in first
    assert "Operation not permitted" in first
    assert refused.startswith("refused: Bash can't run: the sandbox's exec check")
    assert not (tmp_path / "M").exists()
    assert "how='sandboxed'" in bare


@needs_sandbox
def test_a_program_run_through_proc_self_or_dev_fd_is_the_callers_file(tmp_path: Path) -> None:
    """``/proc/self/fd/N`` and ``/dev/fd/N`` name the caller's descriptor, not the supervisor's: an
    in-memory copy of a denied program run by those paths (or a symlink to them) is judged as itself.
    """
    (tmp_path / "tmp").mkdir()
    context = PermissionContext(rules=(parse_rule("Bash(touch:*)", "deny", "localSettings"),), cwd=tmp_path)
    shell = SandboxedShell(SandboxSettings(enabled=True), context, temp_dir=tmp_path / "tmp")
    for index, spelled in enumerate(("/proc/self/fd/{fd}", "/dev/fd/{fd}", "./link")):
        code = (
            "import os, shutil; fd = os.memfd_create('m', 0);"
            " os.write(fd, open(shutil.which('touch'), 'rb').read());"
            f" os.symlink(f'/proc/self/fd/{{fd}}', 'link'); os.execv(f{spelled!r}, ['m', 'M{index}'])"
        )
        command = shlex.join([sys.executable, "-c", code])
        result = asyncio.run(shell.run({"command": command}, cwd=tmp_path, timeout=60, abort=asyncio.Event()))
        (tmp_path / "link").unlink(missing_ok=True)
        assert not (tmp_path / f"M{index}").exists(), f"{spelled}: {result.output}"
        assert "Bash(touch:*)" in result.output, result.output


@needs_sandbox
def test_under_the_check_proc_is_read_only_and_descriptors_still_write(tmp_path: Path) -> None:
    """Under the exec check the sandbox's ``/proc`` takes no write (no process rewrites another's memory
    through ``/proc/PID/mem``), while writes through ``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``
    and process substitutions reach their files as before; with no Bash rule ``/proc`` stays writable.
    """
    (tmp_path / "tmp").mkdir()
    # The output process substitution is the shell's own (a pipeline would start it in a subshell), so
    # ``wait $!`` waits for its output: with ``echo e | tee >(cat)`` it could come after the command ended.
    command = (
        "echo a > /dev/stdout; echo b > /proc/self/fd/1; echo c > /dev/fd/1; cat <(echo d);"
        " tee >(cat) > /dev/null <<< e; wait $!; echo renamed > /proc/self/comm && echo proc-writable"
    )
    outputs = []
    for rules in ((parse_rule("Bash(touch:*)", "deny", "localSettings"),), ()):
        context = PermissionContext(rules=rules, cwd=tmp_path)
        shell = SandboxedShell(SandboxSettings(enabled=True), context, temp_dir=tmp_path / "tmp")
        result = asyncio.run(shell.run({"command": command}, cwd=tmp_path, timeout=60, abort=asyncio.Event()))
        assert all(f"{word}\n" in result.output for word in "abcde"), result.output
        outputs.append(result.output)
    checked, bare = outputs
    assert "Read-only file system" in checked
    assert "proc-writable" not in checked
    assert "proc-writable" in bare
