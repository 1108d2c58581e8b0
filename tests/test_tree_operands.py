"""Which directories a command may change beneath (reference_impl/permissions/_tree_operands.py), judged by the programs.

The property: whenever the real program, run on a directory ``d`` holding a file, changes or removes
that file, :func:`tree_operands` names ``d`` (never a miss; saying so of a program that does not is
only stricter). Programs and their options are drawn from the installed programs' own grammar
(every option the catalogue mined from their ``--help``), the directory in several spellings.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._program_grammar import option_grammar
from reference_impl.permissions._tree_operands import ENTRY_PROGRAMS, find_names, tree_operands

# Programs whose line names files (no code of their own): the ones that descend and those that never do.
_PROGRAMS = (
    "chmod",
    "rm",
    "gzip",
    "cp",
    "mv",
    "touch",
    "mkdir",
    "ln",
    "truncate",
    "shred",
    "rmdir",
    "install",
)
_OPERANDS = {"chmod": ("a+w", "u-w", "g+x"), "truncate": ("-s0",), "cp": ("x",), "mv": ("x",), "ln": ("x",)}
_SPELLINGS = ("d", "d/", "./d", "d/.", "$D")


def _state(root: Path) -> dict[str, tuple[int, int, bytes]]:
    found = {}
    for path in sorted(root.rglob("*")):
        status = path.lstat()
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
        found[str(path.relative_to(root))] = (status.st_mode, status.st_size, content)
    return found


@st.composite
def _commands(draw: st.DrawFn) -> tuple[str, ...]:
    """A program with options its grammar lists (flags only: a value could name another file) and the directory."""
    installed = [p for p in _PROGRAMS if shutil.which(p)]
    program = draw(st.sampled_from(installed), label="program")
    grammar = option_grammar(program)
    flags = (
        sorted(s for s, n in (grammar[0].items() if grammar else ()) if n not in grammar[1])
        if grammar
        else []
    )
    flags = [
        f for f in flags if not f.startswith("--no-preserve") and f not in ("--help", "--version", "-i", "-I")
    ]
    options = (
        draw(st.lists(st.sampled_from(flags), max_size=3, unique=True), label="options") if flags else []
    )
    extra = draw(st.sampled_from(_OPERANDS.get(program, ("",))), label="operand")
    words = [*options, *([extra] if extra and not extra.startswith("-") else []), "d"]
    if extra.startswith("-"):
        words.insert(0, extra)
    if program in ("cp", "mv", "ln"):
        # The directory given as what they read or move (``cp -r d x``) or as the destination (``cp x d``).
        return (program, *draw(st.sampled_from(([*options, "d", "x"], [*options, "x", "d"])), label="order"))
    return (program, *draw(st.permutations(words), label="order"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=_commands(), spelling=st.sampled_from(_SPELLINGS))
@example(argv=("chmod", "-vR", "a+w", "d"), spelling="d")
@example(argv=("chmod", "--recur", "a+w", "d"), spelling="d/")
@example(argv=("rm", "-rf", "d"), spelling="./d")
@example(argv=("mv", "d", "x"), spelling="d")
@example(argv=("tar", "-cfz.tar", "--remove-files", "d"), spelling="d")
def test_a_directory_whose_contents_the_program_changes_is_named(
    argv: tuple[str, ...], spelling: str
) -> None:
    """PERM-15: if the program, run for real, changes or removes what ``d`` held, ``d`` is among its tree operands."""
    with tempfile.TemporaryDirectory() as scratch:
        _judge(Path(scratch), argv, spelling)


def _judge(work: Path, argv: tuple[str, ...], spelling: str) -> None:
    (work / "d" / "sub").mkdir(parents=True)
    (work / "d" / "sub" / "f").write_text("x\n")
    (work / "x").write_text("y\n")
    before = {k: v for k, v in _state(work).items() if k.startswith("d/")}
    spelled = tuple(spelling.replace("$D", str(work / "d")) if w == "d" else w for w in argv)
    subprocess.run(spelled, cwd=work, capture_output=True, timeout=10, check=False, stdin=subprocess.DEVNULL)
    after = {k: v for k, v in _state(work).items() if k.startswith("d/")}
    # What was there before, changed or removed (a new name ``cp x d`` makes is judged by the name it derives).
    changed = {k for k in before if k != "d" and before[k] != after.get(k)}
    if changed:
        word = spelled[argv.index("d")]
        assert word in tree_operands(spelled), f"{spelled} changed {sorted(changed)}, yet {word} is not named"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("chmod", "755", "."), []),
        (("chmod", "-R", "755", "."), ["."]),
        (("touch", "."), []),
        (("tar", "-cf", "x.tar", "."), []),
        (("tar", "--remove-files", "-cf", "x.tar", "."), ["."]),
        (("tar", "cf", "x.tar", "--remove-f", "."), ["."]),
        (("cp", "-r", "src", "."), []),
        (("mv", "a", "b", "."), ["a", "b"]),
        (("mv", "-t", ".", "a"), ["a"]),
        (("find", ".", "-name", "x"), []),
        (("find", ".", "-delete"), ["."]),
        (("find", "a", "b", "-delete"), ["a", "b"]),
        (("timeout", "5", "rm", "-r", "."), ["."]),
        (("perl", "-I.", "run.pl"), []),
        (("perl", "run.pl", "."), ["."]),
        (("python3", "-m", "pytest", "."), ["."]),
        (("python3", "-c", "code", "."), ["."]),
        (("git", "rm", "-r", "."), []),
        (("unknown-tool", "."), ["."]),
        ((None, "."), ["."]),
        (("rm", None, "."), ["."]),
    ],
)
def test_tree_operands_read_each_program_as_it_reads_its_line(
    argv: tuple[str | None, ...], expected: list[str]
) -> None:
    """Pinned readings: recursion as the grammar reads it, copies and git judged elsewhere, interpreters' own options, run-time words."""
    assert [w for w in tree_operands(argv) if w in {".", "a", "b", "src"}] == expected


def test_every_entry_program_is_one_whose_help_documents_no_recursion() -> None:
    """ENTRY_PROGRAMS never descend: none documents a recursive option (which would make it descend when given)."""
    for program in sorted(ENTRY_PROGRAMS):
        grammar = option_grammar(program)
        if grammar is not None:
            assert not [s for s in grammar[0] if "recurs" in s], program


def test_a_word_only_known_at_run_time_may_be_the_recursive_option() -> None:
    """``chmod $F a+w .``: the run-time word may be ``-R``, so ``.`` may be descended into."""
    assert "." in tree_operands(("chmod", None, "a+w", "."))


def test_an_abbreviated_or_bundled_recursive_option_is_read_as_the_program_reads_it() -> None:
    """``chmod --rec`` and ``rm -fR`` descend: getopt's unambiguous prefix, a bundle of flags."""
    assert "." in tree_operands(("chmod", "--rec", "a+w", "."))
    assert "." in tree_operands(("rm", "-fR", "."))
    assert "." not in tree_operands(("chmod", "--reference=x", "."))


_FIND_TESTS = (
    ("-name", "*.py"),
    ("-name", "a*"),
    ("-iname", "*.PY"),
    ("-name", "[ab]*"),
    ("-type", "f"),
    ("-type", "d"),
    ("-maxdepth", "1"),
    ("-path", "*sub*"),
    ("-o",),
    ("!",),
    ("-newer", "x"),
)


@settings(max_examples=120, deadline=None)
@given(tests=st.lists(st.sampled_from(_FIND_TESTS), min_size=1, max_size=4))
@example(tests=[("-name", "*.py")])
@example(tests=[("-name", "a*"), ("-o",), ("-name", "*.py")])
def test_find_acts_only_on_what_its_name_patterns_match(tests: list[tuple[str, ...]]) -> None:
    """PERM-15: where find_names gives patterns, every path find selects has a name one of them matches, judged by find.

    Composed: find's tests, operators and options in a conjunction or not; find lists what it would act on.
    """
    argv = ("find", "d", *[w for test in tests for w in test], "-print")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for name in ("d/a.py", "d/B.PY", "d/sub/x.txt", "d/sub/ab", "d/.git/config", "x"):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text("x\n")
        done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=10, check=False)
    names = find_names(argv)
    if names is None or done.returncode != 0:
        return
    for path in done.stdout.split():
        base = path.rsplit("/", 1)[-1]
        assert any(fnmatchcase(base, n) or fnmatchcase(base.lower(), n) for n in names), (argv, path)


def test_find_names_reads_only_a_plain_conjunction() -> None:
    assert find_names(("find", ".", "-name", "*.pyc", "-delete")) == ("*.pyc",)
    assert find_names(("find", ".", "-iname", "*.PYC", "-type", "f", "-delete")) == ("*.pyc",)
    assert find_names(("find", ".", "-name", "x", "-o", "-name", "y", "-delete")) is None
    assert find_names(("find", ".", "-type", "f", "-delete")) is None
    assert find_names(("find", ".", "-name", None, "-delete")) is None
    assert find_names(("rm", "-r", ".")) is None


def _changed_beneath(work: Path, argv: tuple[str, ...], name: str) -> bool:
    """Run ``argv`` in ``work``, where the directory ``name`` holds ``sub/f``: did anything ``name`` held change or go?"""
    (work / name / "sub").mkdir(parents=True)
    (work / name / "sub" / "f").write_text("x\n")
    (work / "x").mkdir()
    prefix = f"{name}/"
    before = {k: v for k, v in _state(work).items() if k.startswith(prefix)}
    subprocess.run(argv, cwd=work, capture_output=True, timeout=10, check=False, stdin=subprocess.DEVNULL)
    after = _state(work)
    return any(after.get(k) != v for k, v in before.items())


@st.composite
def _mv_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], tuple[str | None, ...], str]:
    """``mv`` with flags of its grammar, then ``--`` and a directory named like an option (or not).

    Into an existing directory (``-t x``, or ``x`` last) or onto a new name; in the ``--`` form one
    flag may be a word only known at run time (read as None, run as the flag).
    """
    grammar = option_grammar("mv")
    flags = sorted(s for s, n in grammar[0].items() if n not in grammar[1]) if grammar else []
    flags = [f for f in flags if f not in ("-i", "--interactive", "--help", "--version")]
    options = draw(st.lists(st.sampled_from(flags), max_size=2, unique=True), label="options")
    name = draw(st.sampled_from(("-d", "--d", "-rf", "d")), label="name")
    if draw(st.booleans(), label="-t"):
        return ("mv", *options, "-t", "x", "--", name), ("mv", *options, "-t", "x", "--", name), name
    argv = ("mv", *options, "--", name, draw(st.sampled_from(("x", "new")), label="destination"))
    read: list[str | None] = list(argv)
    if len(options) > 0 and draw(st.booleans(), label="run-time"):
        read[draw(st.integers(1, len(options)), label="at")] = None
    return argv, tuple(read), name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=_mv_lines())
@example(line=(("mv", "--", "-d", "x"), ("mv", "--", "-d", "x"), "-d"))
@example(line=(("mv", "-t", "x", "--", "-rf"), ("mv", "-t", "x", "--", "-rf"), "-rf"))
@example(line=(("mv", "-v", "--", "-d", "new"), ("mv", None, "--", "-d", "new"), "-d"))
def test_mv_names_every_tree_it_moves_however_the_name_is_spelled(
    line: tuple[tuple[str, ...], tuple[str | None, ...], str],
) -> None:
    """PERM-15: a directory ``mv`` really moves is among its tree operands, an option-like name after ``--`` too.

    Composed: mv's flags from its grammar x the name (``-d``, ``--d``, ``-rf``, ``d``) x ``-t x`` or a last
    destination x a run-time word among the flags (which must not break the reading: PERM-14); mv judges.
    """
    argv, read, name = line
    with tempfile.TemporaryDirectory() as scratch:
        if _changed_beneath(Path(scratch), argv, name):
            assert name in tree_operands(read), f"{argv} moved {name}, yet {read} names {tree_operands(read)}"


# Wrappers whose options :func:`unwrap` reads exactly, each option's value (by its grammar's name).
_WRAPPER_VALUES = {
    "timeout": {"-k": "9", "-s": "TERM"},
    "nice": {"-n": "1"},
    "stdbuf": {"-o": "L", "-e": "0", "-i": "0"},
    "env": {"-u": "NOPE", "-C": "."},
}
_WRAPPED = (("rm", "-r", "d"), ("rm", "-rf", "d"), ("chmod", "-R", "a+w", "d"), ("find", "d", "-delete"))


@st.composite
def _wrapped_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    """A wrapper with options as it reads them (getopt: a long name abbreviated to any unambiguous prefix,
    ``=value`` or the next word, a short one's value attached or not) running a command that descends
    into ``d``; one of the wrapper's own words may be known only at run time (read as None)."""
    program = draw(st.sampled_from(sorted(_WRAPPER_VALUES)), label="wrapper")
    grammar = option_grammar(program)
    assert grammar is not None
    values = _WRAPPER_VALUES[program]
    spellings = sorted(s for s, n in grammar[0].items() if n != "-S" and (n in values or n not in grammar[1]))
    longs = [s for s in grammar[0] if s.startswith("--")] + ["--help", "--version"]
    words: list[str] = []
    for spelling in draw(st.lists(st.sampled_from(spellings), max_size=2, unique=True), label="options"):
        value = values.get(grammar[0][spelling])
        if spelling.startswith("--"):
            prefixes = [
                spelling[:k]
                for k in range(3, len(spelling) + 1)
                if k == len(spelling) or sum(other.startswith(spelling[:k]) for other in longs) == 1
            ]
            spelling = draw(st.sampled_from(prefixes), label="spelled")
        if value is None:
            words.append(spelling)
        elif draw(st.booleans(), label="attached"):
            words.append(f"{spelling}={value}" if spelling.startswith("--") else spelling + value)
        else:
            words += [spelling, value]
    if program == "timeout":
        words.append("5")
    argv = (program, *words, *draw(st.sampled_from(_WRAPPED), label="command"))
    read: list[str | None] = list(argv)
    if len(words) > 0 and draw(st.booleans(), label="run-time"):
        read[draw(st.integers(1, len(words)), label="at")] = None
    return argv, tuple(read)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=_wrapped_lines())
@example(line=(("timeout", "--preserve", "5", "rm", "-r", "d"),) * 2)
@example(line=(("nice", "--adj=1", "chmod", "-R", "a+w", "d"),) * 2)
@example(line=(("stdbuf", "--out", "L", "find", "d", "-delete"),) * 2)
@example(line=(("timeout", "5", "rm", "-r", "d"), ("timeout", None, "rm", "-r", "d")))
def test_a_wrapper_read_with_doubt_still_names_the_tree_its_command_changes(
    line: tuple[tuple[str, ...], tuple[str | None, ...]],
) -> None:
    """PERM-15: whether or not the wrapper's options are read with certainty, ``d`` is named if the line changes it.

    Composed: timeout, nice, stdbuf, env x their options as getopt reads them (``--preserve`` for
    ``--preserve-status``, ``--adj=1``, ``-n1``) x a run-time word among them x a command descending into
    ``d``. A wrapper line not read for sure is every word's to change (fail closed); the wrapper judges.
    """
    argv, read = line
    with tempfile.TemporaryDirectory() as scratch:
        if _changed_beneath(Path(scratch), argv, "d"):
            assert "d" in tree_operands(read), f"{argv} changed d, yet {read} names {tree_operands(read)}"
