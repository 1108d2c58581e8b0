"""Deny rules hold where the command runs (SBX-7): a denied program never starts in the sandbox.

Each test draws a real program with an effect seen from outside (a marker file it creates, or a
file it removes), a Bash deny rule naming it, and a way of starting it composed from a catalogue of
the ways programs start others: spellings of its path, a symlink or a copy of its file (with a
byte appended), the dynamic loader (also a renamed copy of it), an in-memory copy run through
``/dev/fd``, wrappers
(``env``, ``nohup``, ``timeout``, ``nice``, ``xargs``, ``find -exec``), shells (``bash -c``, an alias),
interpreters (Python's ``subprocess`` and ``os.execvp``, Perl's ``exec``), and around all that a
form of the command line (``eval``, a function, a variable, a script written on the line and then
run, as an argument or as an executable). Every attempt first runs with no rule, where the marker
must appear (the attempt is real); with the rule, the marker must not appear and the tool result
must name the rule (unless the static reading denied the call as a whole). The host allows whatever it is asked, so a command the static reading finds
suspicious still runs: what stops the program is the sandbox itself.
"""

from __future__ import annotations

import glob
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance._controls import require_control
from conformance._sandbox_runs import allowing_host, layout, run, skip_without
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat")]

PY = sys.executable
AUTO = {"autoAllowBashIfSandboxed": True}


@dataclass(frozen=True)
class Program:
    """A program the rule denies: its words (``M`` is the marker's name) and whether it ran."""

    name: str
    args: tuple[str, ...]
    ran: Callable[[Path], bool]


_PROGRAMS = (
    Program("touch", ("M",), lambda w: (w / "M").exists()),
    Program("mkdir", ("M",), lambda w: (w / "M").is_dir()),
    Program("rm", ("-f", "victim.txt"), lambda w: not (w / "victim.txt").exists()),
    Program("cp", ("src.txt", "M"), lambda w: (w / "M").exists()),
    Program("ln", ("-s", "src.txt", "M"), lambda w: (w / "M").is_symlink()),
    Program("tee", ("M",), lambda w: (w / "M").exists()),
    Program("truncate", ("-s", "0", "M"), lambda w: (w / "M").exists()),
)


def _rules(program: Program) -> st.SearchStrategy[str]:
    """The deny rules that name ``program`` (every one matches its words)."""
    words = shlex.join((program.name, *program.args))
    return st.sampled_from(
        [
            f"Bash({program.name}:*)",
            f"Bash({program.name} *)",
            f"Bash({words})",
            f"Bash({program.name} {program.args[0]}:*)",
        ]
    )


@dataclass(frozen=True)
class Attempt:
    """Setup steps (run by Python, not by a program a rule could name) and the argv that starts the program."""

    setup: tuple[str, ...]
    argv: tuple[str, ...]


def _py(code: str) -> str:
    return shlex.join([PY, "-c", code])


_LOADERS = sorted(glob.glob("/lib64/ld-linux*.so*") + glob.glob("/lib/ld-linux*.so*"))
"""The dynamic loader, which runs the program named by its first argument."""

# How the program's own file is reached: argv[0] of the innermost command.
_SPELLINGS: dict[str, Callable[[str], Attempt]] = {
    "name": lambda n: Attempt((), (n,)),
    "/usr/bin": lambda n: Attempt((), (f"/usr/bin/{n}",)),
    "/bin": lambda n: Attempt((), (f"/bin/{n}",)),
    "symlink": lambda n: Attempt(
        (_py(f"import os, shutil; os.symlink(shutil.which({n!r}), 'alias-of-it')"),), ("./alias-of-it",)
    ),
    "copy": lambda n: Attempt(
        (_py(f"import shutil; shutil.copy(shutil.which({n!r}), 'copy-of-it')"),), ("./copy-of-it",)
    ),
    "copy with a byte appended": lambda n: Attempt(
        (
            _py(
                f"import shutil; shutil.copy(shutil.which({n!r}), 'longer'); open('longer', 'ab').write(b'0')"
            ),
        ),
        ("./longer",),
    ),
    **({"dynamic loader": lambda n: Attempt((), (_LOADERS[0], f"/usr/bin/{n}"))} if _LOADERS else {}),
    **(
        {
            "renamed copy of the loader": lambda n: Attempt(
                (_py(f"import shutil; shutil.copy({_LOADERS[0]!r}, 'runner')"),),
                ("./runner", f"/usr/bin/{n}"),
            )
        }
        if _LOADERS
        else {}
    ),
}

# Programs whose job is to start another: argv -> argv.
_WRAPPERS: dict[str, Callable[[tuple[str, ...]], tuple[str, ...]]] = {
    "env": lambda a: ("env", "X=1", *a),
    "nohup": lambda a: ("nohup", *a),
    "timeout": lambda a: ("timeout", "30", *a),
    "nice": lambda a: ("nice", *a),
    "xargs": lambda a: ("xargs", "-a", "/dev/null", *a),
    "find -exec": lambda a: ("find", ".", "-maxdepth", "0", "-exec", *a, ";"),
    "bash -c": lambda a: ("bash", "-c", shlex.join(a)),
    "alias": lambda a: (
        "bash",
        "-O",
        "expand_aliases",
        "-c",
        f"alias zz={shlex.quote(a[0])}\nzz {shlex.join(a[1:])}",
    ),
    "python subprocess": lambda a: ("python3", "-c", f"import subprocess; subprocess.run({list(a)!r})"),
    "python execvp": lambda a: ("python3", "-c", f"import os; os.execvp({a[0]!r}, {list(a)!r})"),
    "memfd via /dev/fd": lambda a: (
        "python3",
        "-c",
        "import os, shutil; fd = os.memfd_create('m', 0);"
        f" os.write(fd, open(shutil.which({a[0]!r}), 'rb').read()); os.execv(f'/dev/fd/{{fd}}', {list(a)!r})",
    ),
    **({"perl exec": lambda a: ("perl", "-e", "exec @ARGV", *a)} if shutil.which("perl") else {}),
}

# The command line around the outermost argv.
_LINES: dict[str, Callable[[tuple[str, ...]], str]] = {
    "plain": shlex.join,
    "eval": lambda a: f"eval {shlex.quote(shlex.join(a))}",
    "function": lambda a: f"f() {{ {shlex.join(a)}; }}; f",
    "variable": lambda a: f'p={shlex.quote(a[0])}; "$p" {shlex.join(a[1:])}',
    "script": lambda a: f"printf '%s\\n' {shlex.quote(shlex.join(a))} > run.sh && sh run.sh",
    "executable script": lambda a: (
        f"printf '#!/bin/sh\\n%s\\n' {shlex.quote(shlex.join(a))} > run.sh && chmod +x run.sh && ./run.sh"
    ),
}


def compose(program: Program, spelling: str, wrappers: list[str], line: str) -> str:
    """The command line that starts ``program`` spelled so, inside ``wrappers`` (innermost first)."""
    spelled = _SPELLINGS[spelling](program.name)
    argv = (*spelled.argv, *program.args)
    for wrapper in wrappers:
        argv = _WRAPPERS[wrapper](argv)
    return " && ".join((*spelled.setup, _LINES[line](argv)))


@st.composite
def attempts(draw: st.DrawFn) -> tuple[Program, str, str]:
    """A program, a deny rule naming it, and a command line that starts it (composed)."""
    program = draw(st.sampled_from(_PROGRAMS))
    rule = draw(_rules(program))
    spelling = draw(st.sampled_from(sorted(_SPELLINGS)))
    wrappers = draw(st.lists(st.sampled_from(sorted(_WRAPPERS)), max_size=3, unique=True))
    return program, rule, compose(program, spelling, wrappers, draw(st.sampled_from(sorted(_LINES))))


def _fresh(base: Path) -> Path:
    work = layout(base).work
    (work / "src.txt").write_text("source\n")
    (work / "victim.txt").write_text("victim\n")
    return work


def _attempt(harness: Callable[[], Any], base: Path, program: Program, rule: str, command: str) -> None:
    if shutil.which(program.name) is None:
        pytest.skip(f"{program.name} is not installed")
    free = _fresh(base / "free")
    control = run(harness(), command, free, sandbox_settings(sandbox=AUTO), host=allowing_host())
    require_control(
        program.ran(free), f"with no rule, {command!r} did not run {program.name} (output {control.output!r})"
    )
    work = _fresh(base / "ruled")
    outcome = run(harness(), command, work, sandbox_settings(sandbox=AUTO, deny=[rule]), host=allowing_host())
    assert not program.ran(work), (
        f"{program.name} ran in the sandbox under the deny rule {rule}: {command!r} (output {outcome.output!r})"
    )
    if outcome.ran:  # the static reading let it through: the sandbox stopped it, and says by which rule
        assert rule in outcome.output, (
            f"the result does not name the rule {rule} that stopped it: {outcome.output!r}"
        )
    else:  # the static reading denied the call as a whole (PERM-1 names the rule in its decision)
        assert outcome.decision == "deny", outcome


@pytest.mark.requirement("SBX-7", "MUST")
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=attempts())
@example(
    drawn=(_PROGRAMS[0], "Bash(touch:*)", compose(_PROGRAMS[0], "copy", ["python subprocess"], "script"))
)
@example(
    drawn=(_PROGRAMS[2], "Bash(rm -f:*)", compose(_PROGRAMS[2], "symlink", ["find -exec", "env"], "eval"))
)
@example(
    drawn=(
        _PROGRAMS[1],
        "Bash(mkdir:*)",
        compose(_PROGRAMS[1], "copy with a byte appended", ["memfd via /dev/fd"], "plain"),
    )
)
def test_denied_program_never_runs(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, drawn: tuple[Program, str, str]
) -> None:
    """SBX-7: however it is started, a program a Bash deny rule names does not run in the sandbox.

    Property: for a program, a deny rule naming it and a command line composed of spellings,
    wrappers, shells, interpreters and line forms that starts it (and does, with no rule), the
    program's effect never appears with the rule; when the call ran, its result names the rule.
    """
    program, rule, command = drawn
    _attempt(new_harness, tmp_path_factory.mktemp("exec"), program, rule, command)


@pytest.mark.requirement("SBX-7", "MUST")
@pytest.mark.parametrize(
    ("line", "granted"),
    [("plain", True), ("script", False), ("executable script", False), ("eval", True)],
)
def test_ask_rules_met_where_the_command_runs(
    new_harness: Callable[[], Any], tmp_path: Path, line: str, granted: bool
) -> None:
    """SBX-7: an ask rule met where the command runs can't ask, so it refuses, unless the call was asked about.

    A command whose static reading meets the ask rule was asked about and allowed as written: the
    program it names runs. Started from a script written on the line, the program was never shown to
    anyone: it does not run, and the result names the rule and says nobody could be asked.
    """
    program = _PROGRAMS[0]
    command = compose(program, "name", [], line)
    work = _fresh(tmp_path)
    rule = "Bash(touch:*)"
    outcome = run(
        new_harness(), command, work, sandbox_settings(sandbox=AUTO, ask=[rule]), host=allowing_host()
    )
    if granted:
        assert program.ran(work), (
            f"{command!r} was allowed when asked, yet touch did not run: {outcome.output!r}"
        )
        return
    assert not program.ran(work), f"touch ran under the ask rule {rule} without being asked: {command!r}"
    if outcome.ran:
        assert rule in outcome.output, outcome.output
        assert "nobody can be asked" in outcome.output, outcome.output


def _hex(text: str) -> str:
    return text.encode().hex()


def _bypass(deny: list[str], ask: list[str] | None = None) -> dict[str, Any]:
    """Settings with the engine out of the way (``bypassPermissions``): the sandbox alone must stop it."""
    result = sandbox_settings(deny=deny, ask=ask or [])
    result["permissions"]["defaultMode"] = "bypassPermissions"
    return result


@pytest.mark.requirement("SBX-7", "MUST")
def test_other_arguments_of_a_judged_program_still_run(
    new_harness: Callable[[], Any], tmp_path: Path
) -> None:
    """SBX-7: the check is on the argv, not the program: ``touch`` is judged and runs when no rule matches.

    A rule on ``touch -d:*`` stops ``touch -d ... x`` (from Python, unseen by the engine) and lets
    ``touch`` of a second file through, in the same command; an ask rule met there and not on the
    line is refused with a message saying so (nobody can be asked at exec time).
    """
    hidden = "import subprocess; subprocess.run(bytes.fromhex('{}').decode().split())"
    command = "; ".join(
        (
            _py(hidden.format(_hex("touch -d 2001-01-01 x"))),
            "touch y",
            _py(hidden.format(_hex("mkdir z"))),
        )
    )
    work = tmp_path / "work"
    work.mkdir()
    outcome = run(
        new_harness(), command, work, _bypass(["Bash(touch -d:*)"], ["Bash(mkdir:*)"]), host=allowing_host()
    )
    assert not (work / "x").exists(), outcome.output
    assert (work / "y").exists(), f"touch without -d was refused: {outcome.output}"
    assert not (work / "z").exists(), f"an ask rule met at exec time let mkdir run: {outcome.output}"
    assert "Bash(touch -d:*)" in outcome.output, outcome.output
    assert "Bash(mkdir:*)" in outcome.output, outcome.output


@pytest.mark.requirement("SBX-7", "MUST")
@pytest.mark.parametrize("program", ["sh", "grep", "sleep", "bash"])
def test_a_rule_on_the_sandboxs_own_programs_judges_only_the_command(
    new_harness: Callable[[], Any], tmp_path: Path, program: str
) -> None:
    """SBX-7: a rule on a program the sandbox itself starts judges only the command's uses of it.

    The sandbox's shell and its bridge's helpers (grep, sleep), and the shell the command runs in
    (bash, where that is the harness's shell), start before the check: the command runs, and its own
    start of the program is refused, naming the rule.
    """
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    work = tmp_path / "work"
    work.mkdir()
    # Built when it runs (the engine reads literal names in inline code, and would deny the line):
    # the host approves the engine's question, so the check where the command runs must refuse it.
    started = _py(
        f"import subprocess; subprocess.run(bytes.fromhex('{_hex(program)}').decode().split() + ['--version'])"
    )
    command = f"echo ran > ran.txt; {started}"
    outcome = run(new_harness(), command, work, _bypass([f"Bash({program}:*)"]), host=allowing_host())
    assert (work / "ran.txt").exists(), f"a rule on {program} stopped the sandbox itself: {outcome.output}"
    assert f"Bash({program}:*)" in outcome.output, outcome.output


RACE_TRIES = 200
"""Spawns per attack: a check the kernel re-reads after was beaten within 1-20 tries on 2 cores, seldom beyond 100."""

FORKED_TRIES = 100
"""Tries of a forked child (each a fork and a thread; an unwatched fork or thread lost within 7-40 tries)."""

_RACER = r"""
import ctypes, os, shutil, sys, threading
start, mode, tries = sys.argv[1], sys.argv[2], int(sys.argv[3])
allowed, denied = shutil.which(sys.argv[4]), shutil.which(sys.argv[5])
if mode == "memory":
    os.symlink(allowed, "a"); os.symlink(denied, "b")
else:
    shutil.copy(allowed, "allowed"); shutil.copy(denied, "denied"); os.link("allowed", "a")
libc = ctypes.CDLL(None, use_errno=True)
path = ctypes.create_string_buffer(b"./a")
argv = (ctypes.c_char_p * 3)(b"t", b"M", None)
envp = (ctypes.c_char_p * 1)(None)
done = False
def swap():
    while not done:
        if mode == "memory":
            ctypes.memmove(ctypes.addressof(path) + 2, b"b", 1)
            ctypes.memmove(ctypes.addressof(path) + 2, b"a", 1)
        else:
            for source in ("denied", "allowed"):
                name = f"swap{os.getpid()}"  # a killed child's may be left: its pid comes again
                if os.path.lexists(name):
                    os.unlink(name)
                os.link(source, name); os.rename(name, "a")
def forked():
    # The child swaps in its own memory (or the directory) while it, or a thread of it, calls execve.
    threading.Thread(target=swap, daemon=True).start()
    caller = threading.Thread(target=libc.execve, args=(path, argv, envp))
    if start == "thread":
        caller.start(); caller.join()
    else:
        libc.execve(path, argv, envp)
    os._exit(1)
swapper = threading.Thread(target=swap)
if start == "posix_spawn":
    swapper.start()
spawned = 0
for _ in range(tries):
    if start == "posix_spawn":
        pid = ctypes.c_int()
        if libc.posix_spawn(ctypes.byref(pid), path, None, None, argv, envp) == 0:
            spawned += 1
            os.waitpid(pid.value, 0)
    else:
        child = os.fork()
        if child == 0:
            forked()
        spawned += 1
        os.waitpid(child, 0)
    if os.path.exists("M"):
        break
done = True
if start == "posix_spawn":
    swapper.join()
print(f"spawned {spawned}")
"""


@pytest.mark.requirement("SBX-7", "MUST")
@pytest.mark.parametrize(
    ("start", "mode"),
    [("posix_spawn", "memory"), ("posix_spawn", "rename"), ("fork", "memory"), ("thread", "rename")],
)
def test_a_racing_thread_never_runs_the_denied_program(
    new_harness: Callable[[], Any], tmp_path: Path, start: str, mode: str
) -> None:
    """SBX-7: what the check judged is what runs, whatever another thread does meanwhile.

    A program starts ``true`` up to ``RACE_TRIES`` times (``FORKED_TRIES`` when it forks) while a
    thread swaps the path: flips it in the caller's memory to a symlink to ``touch``, or renames a
    copy of ``touch`` over it and back. It starts it with ``posix_spawn`` (a ``CLONE_VM`` child, so
    the parent's swapping thread keeps running in its memory), or forks a child that swaps in its
    own memory and calls ``execve`` itself, or does so from a second thread of that child (every way
    a process comes to be must be watched). Under ``Bash(touch:*)`` (the engine bypassed) ``touch``
    never creates its marker; the same attack with ``touch`` as the "allowed" program does (the
    spawns are real).
    """
    for program in ("touch", "true"):
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed")
    tries = RACE_TRIES if start == "posix_spawn" else FORKED_TRIES
    free = tmp_path / "free"
    free.mkdir()
    control = run(
        new_harness(),
        shlex.join([PY, "-c", _RACER, start, mode, str(tries), "touch", "touch"]),
        free,
        _bypass([]),
        host=allowing_host(),  # code that loads a library by name may be asked about (PERM-15)
    )
    require_control((free / "M").exists(), f"the attack starts nothing: {control.output!r}")
    work = tmp_path / "ruled"
    work.mkdir()
    attack = shlex.join([PY, "-c", _RACER, start, mode, str(tries), "true", "touch"])
    outcome = run(new_harness(), attack, work, _bypass(["Bash(touch:*)"]), host=allowing_host())
    require_control("spawned" in outcome.output, f"the attack did not run: {outcome.output!r}")
    assert not (work / "M").exists(), f"{start}, {mode}: touch ran under Bash(touch:*): {outcome.output!r}"


SELF_TRIES = 60
"""Restarts of the racing program in one process: its own execs race, each allowed one starts it again."""

_SELF_RACER = r"""
import ctypes, os, sys, threading
left = int(sys.argv[2])
if left <= 0:
    print("spawned", flush=True)
    sys.exit(0)
libc = ctypes.CDLL(None, use_errno=True)
path = ctypes.create_string_buffer(b"./a")
argv = (ctypes.c_char_p * 4)(b"t", b"M", str(left - 1).encode(), None)
envp = (ctypes.c_char_p * 1)(None)
def swap():
    while True:
        ctypes.memmove(ctypes.addressof(path) + 2, b"b", 1)
        ctypes.memmove(ctypes.addressof(path) + 2, b"a", 1)
threading.Thread(target=swap, daemon=True).start()
while True:
    libc.execve(path, argv, envp)  # back only when refused: try again
"""


@pytest.mark.requirement("SBX-7", "MUST")
def test_the_commands_own_process_racing_its_execs_never_runs_the_denied_program(
    new_harness: Callable[[], Any], tmp_path: Path
) -> None:
    """SBX-7: the command's own process (its shell's, not a child) is checked at every exec but the shell's.

    ``exec ./racer.py M N`` replaces the command's shell with a program that calls ``execve("./a")``
    in a loop while its thread flips the path in memory to ``./b``, a symlink to ``touch``; ``./a`` is
    the racer itself, which starts over with one try less (up to ``SELF_TRIES``), all in the same
    process. Under ``Bash(touch:*)`` (the engine bypassed) ``touch`` never creates its marker; with no
    rule it does (the attack is real).
    """
    touch = shutil.which("touch")
    if touch is None:
        pytest.skip("touch is not installed")

    def attack(name: str, deny: list[str], tries: int) -> tuple[bool, str]:
        work = tmp_path / name
        work.mkdir()
        racer = work / "racer.py"
        racer.write_text(f"#!{PY} -IS{_SELF_RACER}")
        racer.chmod(0o755)
        (work / "a").symlink_to("racer.py")
        (work / "b").symlink_to(touch)
        outcome = run(new_harness(), f"exec ./racer.py M {tries}", work, _bypass(deny), host=allowing_host())
        return (work / "M").exists(), outcome.output

    # The race must be won without the rule first; on a loaded machine the swapping thread may lose
    # every try of one run, so the control doubles its tries before it calls the attack unreal.
    tries, won, output = SELF_TRIES, False, ""
    for attempt in range(3):
        won, output = attack(f"free{attempt}", [], tries)
        if won:
            break
        tries *= 2
    require_control(won, f"the attack starts nothing in 3 runs (last {tries // 2} tries): {output!r}")
    ran, output = attack("ruled", ["Bash(touch:*)"], tries)
    assert not ran, f"touch ran under Bash(touch:*): {output!r}"
