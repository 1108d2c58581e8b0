"""A file the line opens only for reading, written through a name of its descriptor (PERM-15, PERM-17).

The kernel's names of a descriptor (``/dev/fd/3``, ``/dev/stdin``, ``/proc/self/fd/3``, a link to
one) do not duplicate it: opening one opens the descriptor's file afresh, for writing too. So
``exec 3< .git/config; echo x > /dev/fd/3`` writes ``.git/config``, ``cp f /dev/fd/3 3< .git/hooks``
copies into the directory, and ``exec 3< s.sh; echo rm -rf x > /dev/fd/3; sh s.sh`` runs what
the line wrote. Composed: how the line opens the descriptor (``exec``, a command's, a group's or a
nested shell's redirection, standard input) x which descriptor x the kernel's spellings of it x
the program writing through it (a redirection, ``tee``, ``dd``, ``cp``, sed's ``w``, awk's
``print >``, Python, a link made first) x the file; a real bash in a sandbox judges what was
written and what ran.
"""

from __future__ import annotations

import functools
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    PROTECTED_TARGETS,
    assert_asked_not_run,
    assert_protected_write_asks,
    descriptor_spellings,
    other_descriptor_spellings,
    run_calls,
    run_line_in_bypass,
    shell_tool,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

# Programs that write a file named by ``{f}`` from ``d.dat``; ``{o}`` is where a redirection of
# the command itself goes (before a redirection to ``{f}``: bash opens them left to right).
_FILE_WRITERS = (
    "cat d.dat {o}> {f}",
    "cat d.dat {o}>| {f}",
    "cat d.dat {o}>> {f}",
    "tee {f} < d.dat > /dev/null {o}",
    "dd if=d.dat of={f} status=none {o}",
    "cp d.dat {f} {o}",
    "sed -n 'w {f}' d.dat {o}",
    "awk '{{print > \"{f}\"}}' d.dat {o}",
    'python3 -c \'import shutil; shutil.copyfile("d.dat", "{f}")\' {o}',
    "ln -s {f} lnk && cat d.dat {o}> lnk",
)
# Programs that put the file ``{b}`` (in the working directory) into a directory named by ``{f}``.
_DIRECTORY_WRITERS = (
    "cp {b} {f} {o}",
    "cp -t {f} {b} {o}",
    "mv {b} {f} {o}",
    "install -m 644 {b} {f} {o}",
    "tar cf b.tar {b} && tar -C {f} -xf b.tar {o}",
    "ln -s {f} lnk && cp {b} lnk/ {o}",
)
# Where the descriptor is opened: ``{r}`` is the redirection, ``{w}`` the writing command.
_OPENERS = ("exec {r}; {w}", "exec {r} && {w}", "{{ {w}; }} {r}", "( {w} ) {r}", "bash -c {q} {r}", "{w}")
_REAL = ("cat", "tee", "dd", "cp", "sed", "awk", "python3", "ln", "mv", "install", "tar", "printf")


@st.composite
def _reopening_lines(draw: st.DrawFn, held: str, writers: tuple[str, ...], base: str = "") -> str:
    """A line opening ``held`` for reading on a descriptor, then writing through a name of it: composed."""
    fd = draw(st.sampled_from((3, 0, 4, 7, 9)))
    name = draw(descriptor_spellings() if fd == 0 else other_descriptor_spellings(fd))
    redirection = f"{fd if fd or draw(st.booleans()) else ''}< {held}"
    opener = draw(st.sampled_from(_OPENERS))
    writer = draw(st.sampled_from(writers))
    if fd == 0 and "< d.dat" in writer:
        writer = writers[0]  # its own standard input would replace the one the line opened
    command = writer.format(f=name, b=base, o=f"{redirection} " if opener == "{w}" else "")
    line = opener.format(r=redirection, w=command, q=shlex.quote(command))
    return f"printf 'pwned\\n' > d.dat && {line}" if "d.dat" in command else line


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(data=st.data(), target=st.sampled_from(PROTECTED_TARGETS), into=st.booleans())
@example(data=None, target=".git/config", into=False)
def test_a_protected_file_reopened_through_a_descriptor_asks(
    new_harness: Callable[[], Any], data: st.DataObject | None, target: str, into: bool
) -> None:
    """PERM-15: a protected file (or its directory) the line opens only for reading, then writes through a name of the descriptor, asks.

    ``exec 3< .git/config; cat d > /dev/fd/3``, ``cp pre-commit /dev/stdin < .git/hooks``: the name
    opens the file afresh, for writing. Composed as the module says; the filesystem (bash in a
    sandbox) says which lines write the protected file, and each of those must ask in bypassPermissions.
    """
    directory, _, base = target.rpartition("/")
    files = {} if target == ".git/config" else {target: "seed\n"}
    if data is None:
        line = "exec 3< .git/config; cat d.dat > /dev/fd/3"
        files["d.dat"] = "pwned\n"
    elif into and directory:
        files = {base: "pwned\n"}
        line = data.draw(_reopening_lines(directory, _DIRECTORY_WRITERS, base), label="line")
    else:
        line = data.draw(_reopening_lines(target, _FILE_WRITERS), label="line")
    assert_protected_write_asks(new_harness(), line, target, " through a descriptor's name", files)


@functools.cache
def _judge(oracle: ths.BashSandbox) -> ths.BashSandbox:
    return oracle.running_for_real(_REAL)


_SCRIPT_RUNNERS = ("sh s.sh", "bash s.sh", ". ./s.sh", "source s.sh")


@pytest.mark.toolharness_heavy
@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    runner=st.sampled_from(_SCRIPT_RUNNERS),
    joiner=st.sampled_from(("; ", " && ", "\n")),
    mode=st.sampled_from(("default", "acceptEdits", "bypassPermissions")),
    behavior=st.sampled_from(("deny", "ask")),
)
def test_a_script_rewritten_through_a_descriptor_is_not_run_unasked(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    data: st.DataObject,
    runner: str,
    joiner: str,
    mode: str,
    behavior: Literal["deny", "ask"],
) -> None:
    """PERM-17: a script the line opens for reading, rewrites through a name of the descriptor and runs does not run a denied program unasked.

    ``s.sh`` holds ``echo hi`` when the line starts; ``exec 3< s.sh; cat d > /dev/fd/3; sh s.sh``
    runs what ``d`` says (``rm -rf x``), though the line never names ``s.sh`` as written. Composed as
    the module says; bash running the line for real judges whether ``rm`` ran.
    """
    line = data.draw(_reopening_lines("s.sh", _FILE_WRITERS), label="write").replace("pwned", "rm -rf x")
    line = f"{line}{joiner}{runner}"
    work = fresh_dir()
    (work / "s.sh").write_text("echo hi\n", encoding="utf-8")
    rules = [RuleSpec("Bash(rm:*)", behavior), RuleSpec("Bash", "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode, cwd=work
    )
    if run.ran() == 0:
        return
    executed = _judge(bash_oracle).executed(f"printf 'echo hi\\n' > s.sh; {line}")
    hits = [argv for argv in executed if argv[0].rsplit("/", 1)[-1] == "rm"]
    assert not hits, f"Bash(rm:*) {behavior} ({mode}) let {line!r} run unasked, and bash ran {hits!r}"


def _project_with_link(target: str, link: str) -> Path:
    """A repository holding ``target`` and the link ``h -> link`` (a descriptor's name), made beforehand."""
    place = fresh_dir()
    subprocess.run(["git", "init", "-q", "."], cwd=place, capture_output=True, check=False)
    (place / target).parent.mkdir(parents=True, exist_ok=True)
    if not (place / target).exists():
        (place / target).write_text("seed\n", encoding="utf-8")
    (place / "h").symlink_to(link)
    return place


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    fd=st.sampled_from((3, 5, 0)),
    directory=st.sampled_from(("/dev/fd", "/proc/self/fd", "/proc/thread-self/fd")),
    target=st.sampled_from(PROTECTED_TARGETS),
    writer=st.sampled_from(
        ("cat d.dat > h", "cp d.dat h", "tee h < d.dat > /dev/null", "dd if=d.dat of=h status=none")
    ),
)
@example(fd=3, directory="/proc/self/fd", target=".git/config", writer="cat d.dat > h")
def test_a_protected_file_reopened_through_a_link_made_beforehand_asks(
    new_harness: Callable[[], Any], fd: int, directory: str, target: str, writer: str
) -> None:
    """PERM-15: a link in the project to a descriptor's name (``h -> /proc/self/fd/3``), written after the line opens a protected file on that descriptor, asks.

    The link was there before the line: only where it leads shows the descriptor. Bash in a sandbox
    judges which lines write the protected file.
    """
    if shutil.which("bwrap") is None:
        pytest.skip("the filesystem judge needs bubblewrap (apt-get install bubblewrap)")
    opened = f"{fd if fd else ''}< {target}"
    line = f"printf 'pwned\\n' > d.dat && exec {opened} && {writer}"
    link = f"{directory}/{fd}"
    work, judged = _project_with_link(target, link), _project_with_link(target, link)
    assume(target in ths.written_paths(line, judged))
    run = run_line_in_bypass(new_harness(), line, work)
    assert_asked_not_run(run, f"{line!r} writes {target} through h -> {link}")
