"""The sandbox's exec check (SBX-7): the judge's names for a program, the filter, the supervisor failing closed."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import platform
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reference_impl import PermissionContext, SandboxedShell, parse_rule
from reference_impl.permissions import rules_from_strings
from reference_impl.sandbox import SandboxSettings, sandbox_problem
from reference_impl.sandbox._exec_guard import ExecAttempt, ExecGuard, exec_check_problem
from reference_impl.sandbox._exec_loader import ARCHITECTURES, LOADER_SCRIPT, filter_program
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
from reference_impl.permissions import rules_from_strings
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


# /proc/thread-self is ``<pid>/task/<tid>``, two levels: ``../..`` out of it is the process's entry.
_DESCRIPTOR_SPELLINGS = ("/proc/self/fd/{fd}", "/dev/fd/{fd}", "./link", "/proc/thread-self/../../fd/{fd}")


def _run_from_descriptors(tmp_path: Path, program: str, made: str) -> list[tuple[str, str]]:
    """Run an in-memory copy of ``program`` by each descriptor spelling (Bash(touch:*) denied), making ``made``N.

    (spelling, the result's output) for each; the copy is given ``made`` followed by the spelling's index.
    """
    (tmp_path / "tmp").mkdir(exist_ok=True)
    context = PermissionContext(rules=(parse_rule("Bash(touch:*)", "deny", "localSettings"),), cwd=tmp_path)
    shell = SandboxedShell(SandboxSettings(enabled=True), context, temp_dir=tmp_path / "tmp")
    outputs = []
    for index, spelled in enumerate(_DESCRIPTOR_SPELLINGS):
        code = (
            "import os, shutil; fd = os.memfd_create('m', 0);"
            f" os.write(fd, open(shutil.which({program!r}), 'rb').read());"
            f" os.symlink(f'/proc/self/fd/{{fd}}', 'link'); os.execv(f{spelled!r}, ['m', '{made}{index}'])"
        )
        command = shlex.join([sys.executable, "-c", code])
        result = asyncio.run(shell.run({"command": command}, cwd=tmp_path, timeout=60, abort=asyncio.Event()))
        (tmp_path / "link").unlink(missing_ok=True)
        outputs.append((spelled, result.output))
    return outputs


@needs_sandbox
def test_a_program_run_through_proc_self_or_dev_fd_is_the_callers_file(tmp_path: Path) -> None:
    """``/proc/self/fd/N`` and ``/dev/fd/N`` name the caller's descriptor, not the supervisor's: an
    in-memory copy of a denied program run by those paths (or a symlink to them) is judged as itself.
    """
    for index, (spelled, output) in enumerate(_run_from_descriptors(tmp_path, "touch", "M")):
        assert not (tmp_path / f"M{index}").exists(), f"{spelled}: {output}"
        assert "Bash(touch:*)" in output, output


@needs_sandbox
def test_an_allowed_program_run_through_proc_self_or_dev_fd_runs(tmp_path: Path) -> None:
    """The control: a program no rule denies, run by the same spellings, is judged as itself and runs."""
    for index, (spelled, output) in enumerate(_run_from_descriptors(tmp_path, "mkdir", "D")):
        assert (tmp_path / f"D{index}").is_dir(), f"{spelled}: {output}"


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


# --- The supervisor reads each exec call as the kernel does --------------------------------------

needs_exec_check = pytest.mark.skipif(
    exec_check_problem(sys.executable, LOADER_SCRIPT) is not None,
    reason=exec_check_problem(sys.executable, LOADER_SCRIPT) or "",
)

_CALLER = r"""
import ctypes, json, os, sys
spec = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
execve, execveat = spec["numbers"]
statuses = []
for call in spec["calls"]:
    pid = os.fork()
    if pid == 0:
        words = [w.encode() for w in call["argv"]]
        # An argv pointer into unmapped memory: the kernel would fail it (EFAULT), the supervisor can't read it.
        argv = ctypes.c_void_p(16) if call["unreadable"] else (ctypes.c_char_p * (len(words) + 1))(*words, None)
        envp = (ctypes.c_char_p * 1)(None)
        if call["dir"] is None:
            libc.syscall(execve, call["path"].encode(), argv, envp)
        else:
            dirfd = os.open(call["dir"], os.O_RDONLY)
            libc.syscall(execveat, dirfd, call["path"].encode(), argv, envp, call["flags"])
        os._exit(100 + ctypes.get_errno())
    statuses.append(os.waitpid(pid, 0)[1])
print(json.dumps(statuses))
"""
"""Makes each exec call in a child of its own and prints how each child ended."""

_AT_EMPTY_PATH = 0x1000
_SPELLINGS = (
    "absolute",
    "relative",
    "detour",
    "dirfd",
    "empty path",
    "empty path, no flag",
    "unreadable argv",
)


@dataclass(frozen=True)
class _Plan:
    """A program (a copy of ``true``) under ``dirs``, reached through ``links`` symlinks, and the calls made."""

    dirs: tuple[str, ...]
    links: int
    absolute_link: bool
    calls: tuple[tuple[str, tuple[str, ...], bool], ...]  # (spelling, argv words, refused)


_DIR_NAME = st.text(alphabet="-+#,!~ab.", min_size=1, max_size=3).filter(lambda n: n not in (".", ".."))
_WORD = st.text(alphabet="ab -", min_size=0, max_size=4)


@st.composite
def _plans(draw: st.DrawFn) -> _Plan:
    calls = draw(
        st.lists(
            st.tuples(st.sampled_from(_SPELLINGS), st.lists(_WORD, max_size=3).map(tuple), st.booleans()),
            min_size=1,
            max_size=4,
        )
    )
    return _Plan(
        tuple(draw(st.lists(_DIR_NAME, min_size=1, max_size=3))),
        draw(st.sampled_from([0, 1, 2, 39, 40, 41])),  # the kernel follows 40 symlinks in one lookup
        draw(st.booleans()),
        tuple(calls),
    )


def _identity(path: str | int) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino


def _prepare(
    work: Path, plan: _Plan
) -> tuple[list[dict[str, object]], list[tuple[int, tuple[int, int] | None]]]:
    """The calls for the caller, and for each the errno the kernel gives it when allowed and the file it runs."""
    program = work.joinpath(*plan.dirs, "prog")
    program.parent.mkdir(parents=True)
    shutil.copy("/bin/true", program)
    named = os.path.join(*plan.dirs, "prog")
    if plan.links:
        (work / "chain").mkdir()
        for index in range(plan.links):
            last = index == plan.links - 1
            target = (str(program) if plan.absolute_link else f"../{named}") if last else f"l{index + 1}"
            (work / "chain" / f"l{index}").symlink_to(target)
        named = "chain/l0"
    looped = plan.links > 40
    calls: list[dict[str, object]] = []
    expected: list[tuple[int, tuple[int, int] | None]] = []
    for spelling, words, refused in plan.calls:
        argv = [*words, "refuse"] if refused else list(words)
        call: dict[str, object] = {"path": named, "argv": argv, "dir": None, "flags": 0, "unreadable": False}
        kernel = (errno.ELOOP, None) if looped else (0, _identity(program))
        if spelling == "absolute":
            call["path"] = str(work / named)
        elif spelling == "detour":  # down every directory and back up, "." between
            call["path"] = "/".join((*plan.dirs, ".", *[".."] * len(plan.dirs), ".", named))
        elif spelling == "dirfd":
            call.update(dir=plan.dirs[0], path=os.path.relpath(named, plan.dirs[0]))
        elif spelling.startswith("empty path"):
            flags = _AT_EMPTY_PATH if spelling == "empty path" else 0
            call.update(dir=str(program), path="", flags=flags)
            kernel = (0, _identity(program)) if flags else (errno.ENOENT, None)
        elif spelling == "unreadable argv":
            call["unreadable"] = True
        calls.append(call)
        expected.append((errno.EPERM, kernel[1]) if refused or call["unreadable"] else kernel)
    return calls, expected


@needs_exec_check
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=_plans())
@example(plan=_Plan(("-x", "b"), 40, False, (("detour", ("p", "x"), False), ("relative", (), True))))
@example(plan=_Plan(("a",), 0, True, (("dirfd", ("p",), True), ("empty path", ("p", "y"), False))))
@example(
    plan=_Plan(("a",), 41, True, (("empty path, no flag", ("p",), False), ("unreadable argv", (), False)))
)
def test_the_supervisor_judges_the_call_as_the_kernel_reads_it(plan: _Plan) -> None:
    """The first check judges an exec call by its path and argv as given and the file the kernel would
    run (through dirfds, ``..`` after names sorting before it, symlinks up to the kernel's 40, ``fexecve``);
    a refused call fails with EPERM in the caller, which goes on (an argv it can't read is refused too),
    and the supervisor ends by itself once the command's last process has, having spent CPU time it
    can account for."""
    seen: list[tuple[str, tuple[str, ...], tuple[int, int] | None]] = []

    def judge(attempt: ExecAttempt) -> str | None:
        seen.append((attempt.path, attempt.argv, None if attempt.fd is None else _identity(attempt.fd)))
        return "refused by the test" if attempt.argv[-1:] == ("refuse",) else None

    with tempfile.TemporaryDirectory(prefix="exec-guard-") as private:
        work = Path(private, "work")
        work.mkdir()
        calls, expected = _prepare(work, plan)
        guard = ExecGuard(judge)
        guard.start(os.path.join(private, "exec.sock"))
        started = time.process_time()
        try:
            spec = {"numbers": list(ARCHITECTURES[platform.machine()][2]), "calls": calls}
            command = [sys.executable, "-I", "-S", "-c", _CALLER, json.dumps(spec)]
            done = subprocess.run(
                [sys.executable, "-I", "-S", LOADER_SCRIPT, os.path.join(private, "exec.sock"), *command],
                cwd=work,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert guard._thread is not None
            guard._thread.join(30)
            assert not guard._thread.is_alive(), "the supervisor still serves a command that has ended"
        finally:
            guard.close()
        spent = time.process_time() - started
    assert done.returncode == 0, done.stderr
    statuses = json.loads(done.stdout)
    assert guard.cpu_seconds <= spent, (guard.cpu_seconds, spent)
    at = 0
    for call, (failure, identity), status in zip(calls, expected, statuses, strict=True):
        assert os.WIFEXITED(status), f"{call}: the caller was killed ({status}), not refused its call"
        assert os.WEXITSTATUS(status) == (100 + failure if failure else 0), (call, os.WEXITSTATUS(status))
        if call["unreadable"]:
            continue
        argv = tuple(call["argv"])  # type: ignore[call-overload]
        found = next((i for i in range(at, len(seen)) if seen[i][:2] == (call["path"], argv)), None)
        assert found is not None, f"no exec of {call} was judged as given: {seen[at:]}"
        assert seen[found][2] == identity, f"{call}: judged {seen[found][2]}, the kernel's file is {identity}"
        at = found + 1
    unreadable = [r for r in guard.refusals if not r.argv]
    assert len(unreadable) == sum(1 for call in calls if call["unreadable"]), guard.refusals
    assert all("could not read" in r.reason for r in unreadable), guard.refusals


# --- The judge's reading of files ---------------------------------------------------------------


@dataclass(frozen=True)
class _Note:
    name: bytes
    kind: int
    desc: bytes

    def encoded(self) -> bytes:
        """As the ELF gABI lays a note out: sizes and type, then name and descriptor, each padded to 4."""
        name, desc = self.name + b"\0" * (-len(self.name) % 4), self.desc + b"\0" * (-len(self.desc) % 4)
        return struct.pack("<III", len(self.name), len(self.desc), self.kind) + name + desc


@dataclass(frozen=True)
class _Elf:
    """A 64-bit little-endian ELF file's program headers: loads (their size) and note segments (their notes,
    then ``slack`` zero bytes the segment's size still covers)."""

    ident: bytes
    segments: tuple[int | tuple[tuple[_Note, ...], int], ...]

    def encoded(self) -> bytes:
        table_end = 64 + 56 * len(self.segments)
        headers, data = b"", b""
        for segment in self.segments:
            if isinstance(segment, int):  # PT_LOAD
                headers += struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, segment, segment, 4096)
                continue
            notes, slack = segment
            body = b"".join(note.encoded() for note in notes) + b"\0" * slack
            headers += struct.pack("<IIQQQQQQ", 4, 4, table_end + len(data), 0, 0, len(body), len(body), 4)
            data += body
        header = (
            b"\x7fELF\x02\x01\x01"
            + b"\0" * 9
            + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, len(self.segments), 0, 0, 0)
        )
        return header + headers + data


_OTHER_NOTES = st.builds(
    _Note,
    st.sampled_from([b"GNU\0", b"GNU", b"Go\0", b"stapsdt\0", b""]),
    st.integers(0, 6),
    st.binary(max_size=23),
).filter(lambda note: (note.name, note.kind) != (b"GNU\0", 3))


@st.composite
def _elf_files(draw: st.DrawFn) -> _Elf:
    """A GNU build ID note among other notes (of every name and descriptor length), in one of several note
    segments, among loads, each note segment ending in 0-15 bytes of slack."""
    ident = draw(st.binary(min_size=1, max_size=32))
    notes = draw(
        st.lists(st.tuples(st.lists(_OTHER_NOTES, max_size=3), st.integers(0, 15)), min_size=1, max_size=3)
    )
    where = draw(st.integers(0, len(notes) - 1))
    others, slack = notes[where]
    at = draw(st.integers(0, len(others)))
    notes[where] = ([*others[:at], _Note(b"GNU\0", 3, ident), *others[at:]], slack)
    segments: list[int | tuple[tuple[_Note, ...], int]] = [(tuple(n), s) for n, s in notes]
    segments += draw(st.lists(st.integers(0, 1 << 20), max_size=2))
    return _Elf(ident, tuple(draw(st.permutations(segments))))


def _memory_file(content: bytes) -> int:
    fd = os.memfd_create("elf", os.MFD_CLOEXEC)
    os.write(fd, content)
    return fd


_ID = b"\x01" * 20
_ABI_TAG = _Note(b"GNU\0", 1, b"\0" * 16)


@settings(max_examples=60, deadline=None)
@given(elf=_elf_files())
@example(elf=_Elf(_ID, (((_Note(b"GNU\0", 3, _ID),), 0), 0)))  # the note's size, not the next entry's
@example(
    elf=_Elf(_ID, (((_ABI_TAG,), 11), ((_Note(b"GNU\0", 3, _ID),), 0)))
)  # a first segment's 11 bytes of slack
@example(elf=_Elf(_ID, (((_Note(b"stapsdt\0", 3, b"\7" * 5), _Note(b"GNU\0", 3, _ID)), 0),)))
def test_a_build_id_is_the_one_the_elf_notes_carry(elf: _Elf) -> None:
    """``build_id`` finds the GNU build ID note wherever the ELF layout puts it: after other notes of any
    size (padded to 4 bytes), in a later note segment, whatever slack a segment ends with."""
    fd = _memory_file(elf.encoded())
    try:
        assert build_id(fd) == elf.ident
    finally:
        os.close(fd)


@settings(max_examples=60, deadline=None)
@given(
    fields=st.tuples(
        st.sampled_from([0, 8, 64, 1 << 40]),
        st.sampled_from([0, 1, 8, 32, 55, 56, 57, 64, 65535]),
        st.sampled_from([0, 1, 2, 64, 65535]),
    ),
    tail=st.binary(max_size=600),
)
def test_build_id_reads_any_file_without_raising(fields: tuple[int, int, int], tail: bytes) -> None:
    """Any file, a malformed ELF header too (no program header table, entries of any size), gives a build ID
    or None: the judge reads every file a command execs, and an exception there would end the supervisor."""
    phoff, entsize, count = fields
    header = (
        b"\x7fELF\x02\x01\x01"
        + b"\0" * 9
        + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, phoff, 0, 0, 64, entsize, count, 0, 0, 0)
    )
    fd = _memory_file(header + tail)
    try:
        found = build_id(fd)
    finally:
        os.close(fd)
    assert found is None or (isinstance(found, bytes) and found)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    bodies=st.lists(st.text(alphabet="ab;$ ", min_size=1, max_size=30), min_size=2, max_size=2, unique=True)
)
def test_a_copy_of_a_denied_script_is_it_and_another_script_of_its_size_is_not(
    opened: list[int], bodies: list[str]
) -> None:
    """A rule naming a script on ``PATH`` (no build ID to know it by) holds for a copy of it, known by its
    bytes, and not for another script that is only as long as it (either way round)."""
    size = max(len(body) for body in bodies) + 1
    scripts = [f"#!/bin/sh\n: {body}\n".ljust(len("#!/bin/sh\n: ") + size + 1, "#") for body in bodies]
    for denied, other in (scripts, scripts[::-1]):
        with tempfile.TemporaryDirectory(prefix="exec-judge-") as private:
            directory = Path(private)
            for name, content in (("nuke", denied), ("copy", denied), ("other", other)):
                (directory / name).write_text(content)
                (directory / name).chmod(0o755)
            judge = exec_judge([parse_rule("Bash(nuke:*)", "deny", "localSettings")], private)
            copy = _attempt(opened, str(directory / "copy"), "./copy")
            unlike = _attempt(opened, str(directory / "other"), "./other")
            assert judge(copy) is not None, "a copy of the denied script was let run"
            assert judge(unlike) is None, "a script as long as the denied one, with other bytes, was refused"


def test_a_script_a_shell_is_given_that_is_not_there_is_judged_by_its_name(
    tmp_path: Path, opened: list[int]
) -> None:
    """``sh missing/nuke``: a script that can't be opened is judged by its name alone (the shell will say
    it is missing): refused under a rule naming it, let through under none."""
    judge = _judge(("Bash(nuke:*)", "deny"))
    sh = shutil.which("sh")
    assert sh is not None
    assert judge(_attempt(opened, sh, "sh", str(tmp_path / "missing" / "nuke"))) is not None
    assert judge(_attempt(opened, sh, "sh", str(tmp_path / "missing" / "other"))) is None


def test_a_rule_holds_whatever_string_spells_its_behavior(opened: list[int]) -> None:
    """A rule's behavior read at run time (from JSON, not a literal in the code) is held as written."""
    behavior = json.loads('"ask"')
    judge = exec_judge([parse_rule("Bash(rm:*)", behavior, "localSettings")], os.environ["PATH"])
    assert "nobody can be asked" in (judge(_attempt(opened, "/usr/bin/rm", "rm", "x")) or "")


def test_a_copy_of_a_program_a_rule_names_by_its_path_is_it(tmp_path: Path, opened: list[int]) -> None:
    """A deny rule naming a program by its path off ``PATH`` (``Bash(/opt/tool/bin/nuke:*)``, loaded as
    ``nuke:*`` so that every spelling of ``nuke`` is denied) still knows that file: a copy of it, an ELF
    program or a script, is refused under another name."""
    for name, content in (("nuke", b"#!/bin/sh\necho nuked > M\n"), ("tool", Path("/bin/true").read_bytes())):
        program = tmp_path / "opt" / "bin" / name
        program.parent.mkdir(parents=True, exist_ok=True)
        program.write_bytes(content)
        program.chmod(0o755)
        copy = tmp_path / f"copy-of-{name}"
        shutil.copy(program, copy)
        rules = rules_from_strings([f"Bash({program}:*)"], "deny", "localSettings")
        judge = exec_judge(rules, os.environ["PATH"])
        assert judge(_attempt(opened, str(copy), f"./copy-of-{name}")) is not None, name
