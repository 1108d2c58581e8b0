"""What an interpreter's command line runs, read by its own option grammar, against the interpreter itself.

``interpreter_run`` says whether ``python3``, ``perl`` or ``node`` with the drawn options runs inline
code (and which), a script (which argument), or its standard input. Each candidate prints its own
marker, and the real interpreter runs the line: what it printed must be what the reading said it
runs (PERM-16/17: a deny rule is matched against the code the interpreter really runs).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._interpreter_options import interpreter_run

# Per interpreter: options that take no value, options with a value (as separate words), how inline
# code is given, and a statement that prints a marker.
_LANGUAGES = {
    "python3": (
        ("-u", "-B", "-E", "-s", "-O", "-q"),
        (("-W", "ignore"), ("-X", "utf8")),
        ("-c",),
        "print({!r})",
    ),
    "perl": (("-w", "-l"), (("-I", "."),), ("-e", "-E"), 'print {!r}, "\\n";'),
    "node": (
        ("--no-warnings", "--trace-warnings", "--test"),
        (("-r", "./req.js"),),
        ("-e", "--eval"),
        "console.log({!r})",
    ),
}

pytestmark = pytest.mark.skipif(
    any(shutil.which(name) is None for name in _LANGUAGES), reason="python3, perl and node are the judges"
)


@st.composite
def _lines(draw: st.DrawFn) -> tuple[str, list[str]]:
    """An interpreter and its arguments: options, then inline code, a script, ``-`` or ``--`` and what follows."""
    name = draw(st.sampled_from(sorted(_LANGUAGES)))
    flags, valued, inline, _ = _LANGUAGES[name]
    args: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            args.append(draw(st.sampled_from(flags)))
        else:
            args.extend(draw(st.sampled_from(valued)))
    tail = draw(st.sampled_from(["inline", "script", "input", "--", "-- script", "nothing"]))
    if tail == "inline":
        for index in range(draw(st.integers(1, 1 if name == "python3" else 3))):
            option = draw(st.sampled_from(inline))
            code = f"CODE{index}"
            args.extend([f"{option}={code}"] if option.startswith("--") else [option, code])
    elif tail == "script":
        args.append("s.src")
    elif tail == "input":
        args.append("-")
    elif tail == "--":
        args.append("--")
    elif tail == "-- script":
        args.extend(["--", "s.src"])
    if tail not in ("--", "nothing") and draw(st.booleans()):
        args.append("arg")  # a word after what runs is its argument
    return name, args


def _runs(name: str, args: list[str], cwd: Path) -> set[str]:
    """The markers the real interpreter printed: which inline code, the script or the input it ran."""
    statement = _LANGUAGES[name][3]
    real = [statement.format(a) if a.startswith("CODE") else a for a in args]
    real = [f"--eval={statement.format(a[7:])}" if a.startswith("--eval=CODE") else a for a in real]
    (cwd / "s.src").write_text(statement.format("SCRIPT") + "\n")
    (cwd / "req.js").write_text("")
    # A file node's test runner finds by its default patterns (``node --test`` runs it unnamed).
    (cwd / "test").mkdir(exist_ok=True)
    (cwd / "test" / "t.test.js").write_text(_LANGUAGES["node"][3].format("TESTFILE") + "\n")
    done = subprocess.run(
        [name, *real],
        cwd=cwd,
        input=statement.format("INPUT") + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return {word for word in done.stdout.split() if word.startswith(("CODE", "SCRIPT", "INPUT", "TESTFILE"))}


@settings(max_examples=60, deadline=None)
@given(line=_lines())
@example(line=("python3", ["-u", "--"]))
@example(line=("perl", ["-e", "CODE0", "-e", "CODE1"]))
@example(line=("node", ["--eval=CODE0"]))
@example(line=("node", ["-r", "./req.js", "s.src"]))
@example(line=("node", ["--test"]))
def test_what_the_reading_says_an_interpreter_runs_is_what_it_runs(
    line: tuple[str, list[str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``interpreter_run`` names the inline code, the script or the input the interpreter runs (or says it can't tell)."""
    name, args = line
    run = interpreter_run(name, args)
    assert run is not None
    if run.kind == "unknown":
        return  # options the reading does not know: the engine asks (checked by the permission tests)
    ran = _runs(name, args, tmp_path_factory.mktemp("interp"))
    if run.kind == "inline":
        # ``--help``/``--version``-like options print and run nothing of the line: no code given, none run.
        assert ran == {c for c in run.code if c is not None}, (name, args, run, ran)
    elif run.kind == "script":
        assert run.at is not None, (name, args, run)
        assert args[run.at] == "s.src", (name, args, run)
        assert ran == {"SCRIPT"}, (name, args, run, ran)
    elif run.kind == "input":
        assert ran == {"INPUT"}, (name, args, run, ran)
