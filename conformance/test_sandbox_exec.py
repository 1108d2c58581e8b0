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
    assert program.ran(free), (
        f"suite error: with no rule, {command!r} did not run {program.name} (output {control.output!r})"
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
@pytest.mark.parametrize("program", ["sh", "grep", "sleep"])
def test_a_rule_on_the_sandboxs_own_programs_judges_only_the_command(
    new_harness: Callable[[], Any], tmp_path: Path, program: str
) -> None:
    """SBX-7: a rule on a program the sandbox itself starts judges only the command's uses of it.

    The sandbox's shell and its bridge's helpers (grep, sleep) start before the check: the command
    runs, and its own start of the program is refused, naming the rule.
    """
    work = tmp_path / "work"
    work.mkdir()
    started = _py(f"import subprocess; subprocess.run([{program!r}, '--version'])")
    command = f"echo ran > ran.txt; {started}"
    outcome = run(new_harness(), command, work, _bypass([f"Bash({program}:*)"]), host=allowing_host())
    assert (work / "ran.txt").exists(), f"a rule on {program} stopped the sandbox itself: {outcome.output}"
    assert f"Bash({program}:*)" in outcome.output, outcome.output


RACE_TRIES = 200
"""Spawns per attack: a check the kernel re-reads after was beaten within 1-20 tries on 2 cores, seldom beyond 100."""

_RACER = r"""
import ctypes, os, shutil, sys, threading
mode, tries, allowed, denied = sys.argv[1], int(sys.argv[2]), shutil.which(sys.argv[3]), shutil.which(sys.argv[4])
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
                os.link(source, "swap"); os.rename("swap", "a")
swapper = threading.Thread(target=swap)
swapper.start()
spawned = 0
for _ in range(tries):
    pid = ctypes.c_int()
    if libc.posix_spawn(ctypes.byref(pid), path, None, None, argv, envp) == 0:
        spawned += 1
        os.waitpid(pid.value, 0)
    if os.path.exists("M"):
        break
done = True
swapper.join()
print(f"spawned {spawned}")
"""


@pytest.mark.requirement("SBX-7", "MUST")
@pytest.mark.parametrize("mode", ["memory", "rename"])
def test_a_racing_thread_never_runs_the_denied_program(
    new_harness: Callable[[], Any], tmp_path: Path, mode: str
) -> None:
    """SBX-7: what the check judged is what runs, whatever another thread does meanwhile.

    A program spawns ``true`` (``posix_spawn``: a ``CLONE_VM`` child, so the parent's threads keep
    running in its memory) up to ``RACE_TRIES`` times while its own thread swaps the path: flips
    it in that shared memory to a symlink to ``touch``, or renames a copy of ``touch`` over it and
    back. Under ``Bash(touch:*)`` (the engine bypassed) ``touch`` never creates its marker; the same
    attack with ``touch`` as the "allowed" program does (the spawns are real).
    """
    for program in ("touch", "true"):
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed")
    free = tmp_path / "free"
    free.mkdir()
    control = run(
        new_harness(),
        shlex.join([PY, "-c", _RACER, mode, str(RACE_TRIES), "touch", "touch"]),
        free,
        _bypass([]),
    )
    assert (free / "M").exists(), f"suite error: the attack starts nothing: {control.output!r}"
    work = tmp_path / "ruled"
    work.mkdir()
    attack = shlex.join([PY, "-c", _RACER, mode, str(RACE_TRIES), "true", "touch"])
    outcome = run(new_harness(), attack, work, _bypass(["Bash(touch:*)"]), host=allowing_host())
    assert "spawned" in outcome.output, f"suite error: the attack did not run: {outcome.output!r}"
    assert not (work / "M").exists(), f"{mode}: touch ran under Bash(touch:*): {outcome.output!r}"
