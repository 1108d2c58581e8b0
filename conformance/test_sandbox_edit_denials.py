"""Edit deny rules hold for sandboxed commands too (SBX-1).

The sandbox's filesystem restrictions come from the permission rules as well as from
``sandbox.filesystem``: what an ``Edit`` deny rule (or one of the other edit tools': ``Write``,
``MultiEdit``, ``NotebookEdit``) keeps from the file tools, a sandboxed command can't write either,
even inside a writable directory. Each example draws the directory (in the working directory or
outside it, made writable by ``allowWrite``), the rule's tool and form (the directory, one file, a
glob; absolute or relative), and the program that writes (a redirection, ``tee``, ``cp``, a child
interpreter). The command builds every path when it runs, so only the sandbox can stop the write;
files the rule does not name, beside the denied ones and in a sibling directory, must still be written.
"""

from __future__ import annotations

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

EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
"""The file tools whose path rules say what may be written."""

FILES = ("kept.txt", "notes.md", "new.txt")
"""The files of the denied directory: two there before the command, one it creates."""

# form -> (the rule's path with "{d}" for the directory, the files of FILES it names)
FORMS: dict[str, tuple[str, frozenset[str]]] = {
    "the directory": ("{d}/**", frozenset(FILES)),
    "one file": ("{d}/kept.txt", frozenset({"kept.txt"})),
    "a glob": ("{d}/*.txt", frozenset({"kept.txt", "new.txt"})),
    "a file not there yet": ("{d}/new.txt", frozenset({"new.txt"})),
}

# writer -> the command writing "$1" (a path built at run time), appending or creating it
WRITERS: dict[str, Callable[[str], str]] = {
    "redirection": lambda path: f'echo pwned >> "{path}"',
    "tee": lambda path: f'echo pwned | tee -a "{path}" >/dev/null',
    "cp": lambda path: f'echo pwned > "$T/src" && cp "$T/src" "{path}"',
    "a child interpreter": lambda path: (
        f'{sys.executable} -c \'import sys; open(sys.argv[1], "a").write("pwned")\' "{path}"'
    ),
}


@dataclass(frozen=True)
class Denial:
    """One drawn example: where the directory is, how the rule names it, who writes."""

    inside: bool
    """The directory is in the working directory (else outside it, granted by ``allowWrite``)."""
    relative: bool
    """The rule's path is relative to the working directory (only when ``inside``)."""
    tool: str
    form: str
    writer: str


def _text(path: Path) -> str:
    """The file's text, or nothing when it is not there."""
    return path.read_text() if path.exists() else ""


@st.composite
def denials(draw: st.DrawFn) -> Denial:
    inside = draw(st.booleans())
    return Denial(
        inside=inside,
        relative=inside and draw(st.booleans()),
        tool=draw(st.sampled_from(EDIT_TOOLS)),
        form=draw(st.sampled_from(sorted(FORMS))),
        writer=draw(st.sampled_from(sorted(WRITERS))),
    )


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(denial=denials())
@example(denial=Denial(inside=True, relative=True, tool="Edit", form="the directory", writer="redirection"))
@example(
    denial=Denial(inside=False, relative=False, tool="Write", form="a glob", writer="a child interpreter")
)
def test_an_edit_deny_rule_keeps_what_it_names_from_sandboxed_commands(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, denial: Denial
) -> None:
    """SBX-1 property: a file an edit tool's deny rule names is not written by a sandboxed command.

    In a writable directory ``d`` (in the working directory, or outside it under ``allowWrite``), under
    a deny rule of any edit tool naming the directory, one file, a glob or a file yet to be made, the
    drawn program appends to each file of ``d`` and creates one: each file the rule names is left as
    it was (a new one is not there afterwards), each file it does not name is written, and so is a
    sibling directory's file. The host approves every question, so only the sandbox stops the writes.
    """
    place = layout(tmp_path_factory.mktemp("edit-deny"))
    base = place.work if denial.inside else place.outside
    directory, sibling = base / "d", base / "free"
    for folder in (directory, sibling):
        folder.mkdir()
        (folder / "kept.txt").write_text("before\n")
        (folder / "notes.md").write_text("before\n")
    pattern, named = FORMS[denial.form]
    where = "./d" if denial.relative else f"/{directory}"
    rule = f"{denial.tool}({pattern.format(d=where)})"
    filesystem = {} if denial.inside else {"filesystem": {"allowWrite": [str(place.outside)]}}
    with_settings = sandbox_settings(sandbox=filesystem, deny=[rule])
    write = WRITERS[denial.writer]
    # The directory's path is put together when the command runs: the engine can't read it, the
    # host approves whatever it is asked, and the sandbox is what must stop the write.
    steps = [f'T=$(mktemp -d); b={base.parent}/; b="${{b}}{base.name}"']
    for part in ("d", "free"):
        steps.extend(write(f"$b/{part}/{name}") + " 2>/dev/null" for name in FILES)
    outcome = run(new_harness(), "; ".join(steps) + "; true", place.work, with_settings, host=allowing_host())
    assert outcome.ran, f"the command did not run under {rule}: {outcome.output}"
    for name in FILES:
        free = sibling / name
        assert "pwned" in _text(free), (
            f"{free} (named by no rule, in a writable directory) was not written under {rule} by "
            f"the {denial.writer}: {outcome.output!r}"
        )
        path = directory / name
        if name in named:
            if name == "new.txt":
                assert not path.exists(), f"{rule}: the {denial.writer} created {path}: {outcome.output!r}"
            else:
                assert path.read_text() == "before\n", (
                    f"{rule}: the {denial.writer} wrote {path}: {outcome.output!r}"
                )
        else:
            assert "pwned" in _text(path), (
                f"{path} (not named by {rule}) was not written by the {denial.writer}: {outcome.output!r}"
            )
