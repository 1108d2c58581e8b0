"""A line that makes a file and then runs it, or feeds a program its program on a descriptor (PERM-17).

Composed from two independent halves, each a mechanism rather than a list of cases: *writers*
(``uniq``, ``cp``, sed's ``w``, ``xxd -r``, awk's ``print >``, ``tar x``, ``sort -o``, ``shuf
--output``, a pipe into ``tee``) that make a file from data the line wrote under another name, and
*runners* that run the file by name (``sh f``, ``. ./f``, ``./f``, ``make -f f``) or find it by
convention (``make`` its Makefile, a ``PATH`` the line sets); and standard input under the kernel's
many names for it (``//dev/./stdin``, ``/proc/thread-self/fd/0``) given to programs that read
their program from a file (shells, ``source``, ``make -f``, ``python3``). The bash oracle runs the
writers, make and python3 for real and judges what ran: under a deny or ask rule on ``rm``, a line
the harness runs unasked must not have run ``rm``.
"""

from __future__ import annotations

import functools
import os
import shlex
from collections.abc import Callable
from typing import Any, Literal
from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from conformance._controls import run_for_real
from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    input_run_as_program_lines,
    installed_on_path_lines,
    other_descriptor_lines,
    run_calls,
    shell_tool,
    written_then_run_lines,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

_REAL = (
    "uniq", "cp", "mv", "sed", "xxd", "awk", "mawk", "gawk", "tar", "gzip", "tee", "sort", "shuf",
    "chmod", "mkdir", "install", "make", "python3",
)  # fmt: skip


@functools.cache
def _judge(oracle: ths.BashSandbox) -> ths.BashSandbox:
    return oracle.running_for_real(_REAL)


_MODES = st.sampled_from(["default", "acceptEdits", "bypassPermissions"])
_DENY = st.sampled_from(["Bash(rm:*)", "Bash(rm -rf:*)", "Bash(rm *)"])


def _assert_denied_program_not_run_unasked(
    harness: Any, oracle: ths.BashSandbox, line: str, rules: list[RuleSpec], mode: str, what: str
) -> None:
    """If the harness runs ``line`` unasked, bash running it for real must not run ``rm``."""
    run = run_calls(harness, [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode)
    if run.ran() == 0:
        return
    executed = _judge(oracle).executed(line)
    hits = [record for record in executed if record[0].rsplit("/", 1)[-1] == "rm"]
    assert not hits, f"{what} let {line!r} run, and bash ran {hits!r}"


_LINES = st.one_of(written_then_run_lines(), input_run_as_program_lines())


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=100, deadline=None)
@given(line=_LINES, deny=_DENY, mode=_MODES, behavior=st.sampled_from(["deny", "ask"]))
# Programs that find the file by convention (make's Makefile, a PATH the line sets): the derandomised
# draw stopped reaching them when the shared strategies changed (m_perm_17_convention_unseen survived).
@example(
    line="printf 'all:\\n\\trm -rf x\\n' > d && cp d Makefile && make",
    deny="Bash(rm:*)",
    mode="bypassPermissions",
    behavior="deny",
)
@example(
    line="printf '#!/bin/sh\\nrm -rf x\\n' > t && chmod +x t && PATH=.:$PATH t",
    deny="Bash(rm -rf:*)",
    mode="bypassPermissions",
    behavior="ask",
)
# sort's output option making the Makefile make finds (a mutant that forgot what ``sort -o`` writes
# survived the mutation score: sort had only met runners of files not on disk, unread anyway).
@example(
    line="printf 'all: ; rm -rf x\\n' > d.dat && sort -o Makefile d.dat && make -s",
    deny="Bash(rm:*)",
    mode="bypassPermissions",
    behavior="deny",
)
def test_a_file_the_line_makes_or_its_input_is_not_run_unasked(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    line: str,
    deny: str,
    mode: str,
    behavior: Literal["deny", "ask"],
) -> None:
    """PERM-17: a program the line makes, or feeds on standard input, does not run a denied program unasked.

    Whatever program makes a file on the line, a later part that runs it by name, or a program
    that finds it by convention (``make``'s Makefile, a PATH the line sets), does not run a denied
    program without asking; nor does a shell, ``source``, ``make -f`` or ``python3`` reading its
    program from standard input under any name the kernel gives it.
    """
    _assert_denied_program_not_run_unasked(
        new_harness(), bash_oracle, line, [RuleSpec(deny, behavior)], mode, f"{deny} {behavior} ({mode})"
    )


# Allowed, so that a harness that misreads the descriptor runs the line in every mode, not only in
# bypassPermissions: the deny rule on rm is all that stands between the line and the shell.
_READERS_ALLOWED = (
    "Bash(bash:*)", "Bash(sh:*)", "Bash(source:*)", "Bash(.:*)", "Bash(make:*)", "Bash(python3:*)",
    "Bash(printf:*)", "Bash(echo:*)",
)  # fmt: skip


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=300, deadline=None)
@given(line=other_descriptor_lines(), deny=_DENY, mode=_MODES, behavior=st.sampled_from(["deny", "ask"]))
# Standard output read as a script, its feed before or after standard input's (the last feed of a
# descriptor is what it holds): found missing from the derandomised draw by the mutation score.
@example(
    line="bash /dev/stdout <<< $'echo hi' 1<<< $'rm -rf x'",
    deny="Bash(rm:*)",
    mode="default",
    behavior="deny",
)
@example(
    line="bash /dev/stdout 1<<< $'rm -rf x' <<< $'echo hi'",
    deny="Bash(rm:*)",
    mode="default",
    behavior="deny",
)
# A descriptor's name the engine can't tell (through /proc/self/root), the denied program on descriptor
# 3 by a here-document: m_perm_17_descriptor_taken_for_stdin survived once the draws stopped mixing in
# the source's literals (and while a shell's literal input was unread by the protected-path check).
@example(
    line="bash /proc/self/root/dev/fd/3 3<<EOF <<< 'echo hi'\nrm -rf x\nEOF",
    deny="Bash(rm:*)",
    mode="default",
    behavior="deny",
)
def test_a_program_read_from_another_descriptor_is_not_taken_for_standard_input(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    line: str,
    deny: str,
    mode: str,
    behavior: Literal["deny", "ask"],
) -> None:
    """PERM-17 (and PERM-16: what it can't know, it asks): a descriptor other than standard input is not read as it.

    The line feeds a denied program on descriptor 1-9 (``3<<<``, a here-document on ``5<<``, even
    on ``1`` or ``2``) and ``echo hi`` on standard input, and a shell, ``source``, ``make -f`` or
    ``python3`` reads its program from a name of that descriptor (``/dev/fd/3``, ``/dev/stdout``,
    ``/proc/thread-self/fd/2``, ``/proc/self/root/dev/fd/5``, a climb to ``/dev``), or from a file
    the line wrote whose name sorts before ``-`` (``,f``). A harness that reads the harmless input in
    place of what the program reads lets the denied program run; bash judges what ran. The readers,
    ``printf`` and ``echo`` are allowed, so every mode would run the line if it were harmless.
    """
    rules = [RuleSpec(deny, behavior), *(RuleSpec(rule, "allow") for rule in _READERS_ALLOWED)]
    _assert_denied_program_not_run_unasked(
        new_harness(), bash_oracle, line, rules, mode, f"{deny} {behavior} ({mode})"
    )


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    line=installed_on_path_lines(ths.BashSandbox.user_bin),
    deny=_DENY,
    mode=_MODES,
    behavior=st.sampled_from(["deny", "ask"]),
)
@example(
    line=f"printf '#!/bin/sh\\nrm -rf x\\n' > t.dat && install -D t.dat {ths.BashSandbox.user_bin}/cat\ncat",
    deny="Bash(rm:*)",
    mode="bypassPermissions",
    behavior="deny",
)
def test_a_program_the_line_puts_on_path_is_what_its_name_runs(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    line: str,
    deny: str,
    mode: str,
    behavior: Literal["deny", "ask"],
) -> None:
    """PERM-17: a program the line puts in a directory on PATH, then runs by name, does not run a denied program unasked.

    The line writes a script under a common program's name (``ls``, ``cat``, ``git``) into a directory
    that is first on PATH (the user's own ``~/.local/bin``, spelled as an absolute path), by a
    redirection, ``install``, ``cp``, ``mv``, ``tee`` or a link, then runs that name (bare or through
    ``command``, ``env``, ``nice``, ``xargs``): the name is the script, not the installed program.
    The directory is on the harness's PATH too while it decides, so a harness that looks names up
    as the shell would is judged fairly; bash judges what ran.
    """
    directory = ths.BashSandbox.user_bin
    with mock.patch.dict(os.environ, {"PATH": f"{directory}{os.pathsep}{os.environ.get('PATH', '')}"}):
        _assert_denied_program_not_run_unasked(
            new_harness(), bash_oracle, line, [RuleSpec(deny, behavior)], mode, f"{deny} {behavior} ({mode})"
        )


# After a builtin sets PATH: a bare name, ``command``'s, ``exec``'s, and a script ``source`` and ``.``
# look up on PATH before the working directory (bash's ``sourcepath``).
_LOOKED_UP = ("ls", "ls -la", "command ls", "exec ls", "source s.sh", ". s.sh")
_NAME_SETTERS_ALLOWED = (
    "printf", "read", "mapfile", "readarray", "getopts", "wait", "sleep", "test", "[", "true", "declare",
    "typeset", "export", "readonly", "echo", "builtin", "command", "exec", "ls", "source", ".",
)  # fmt: skip


@st.composite
def _path_set_then_looked_up(draw: st.DrawFn) -> str:
    """A builtin's name context with PATH as the name (``read PATH <<< y``), then a name looked up on PATH."""
    _, setter = draw(ths.variable_name_contexts("PATH"))
    joiner = draw(st.sampled_from(("; ", " && ", "\n")))
    return f"{setter}{joiner}{draw(st.sampled_from(_LOOKED_UP))}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(line=_path_set_then_looked_up(), mode=_MODES)
@example(line="read PATH <<< ''; ls", mode="bypassPermissions")  # an empty PATH: bash runs ./ls
@example(line='read PATH <<< "y:$PATH"; source s.sh', mode="default")
def test_a_name_looked_up_on_a_path_a_builtin_set_is_what_path_finds(
    new_harness: Callable[[], Any], line: str, mode: str
) -> None:
    """PERM-17: a name looked up on a PATH the line set by any builtin does not run a denied program unasked.

    Every builtin that takes a variable name (``read``, ``mapfile``, ``readarray``, ``printf -v``,
    ``getopts``, ``wait -p``, ``declare``, ``export``..., behind ``builtin`` or ``command``) is given
    ``PATH``; the project holds, where the new PATH finds them, ``ls`` (a link to the denied program)
    and ``s.sh`` (running it), while ``./s.sh`` is harmless; then the line runs ``ls`` or sources
    ``s.sh``. Every builtin of the line is allowed; real bash judges what ran.
    """
    root = fresh_dir()
    work, bin_dir = root / "work", root / "bin"
    bin_dir.mkdir(parents=True)
    marker = root / "ran"
    denied = bin_dir / "nuke"
    # Builtins only: after the line PATH finds no ``touch``.
    denied.write_text(f"#!/bin/sh\n: > {shlex.quote(str(marker))}\n")
    denied.chmod(0o755)
    for directory in (work / "y", work / "1", work):  # the values the name contexts assign, and empty PATH
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "ls").symlink_to(denied)
        (directory / "s.sh").write_text(f"{shlex.quote(str(denied))}\n")
    (work / "s.sh").write_text("echo benign\n")
    rules = [
        RuleSpec("Bash(nuke:*)", "deny"),
        *(RuleSpec(f"Bash({p}:*)", "allow") for p in _NAME_SETTERS_ALLOWED),
    ]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode, cwd=work
    )
    run_for_real(line, work, {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})
    assume(marker.exists())  # the builtin set PATH, and the name found the denied program
    assert run.ran() == 0, f"{line!r} ran unasked ({mode}), and for real it ran the denied program"
