"""A program's command line read by the program's own option grammar (PERM-17; session 33's red team).

- sed: the script is the ``-e``/``--expression`` values, a ``-f`` file (unknown: fail closed), or else
  the first operand *after sed's options as GNU getopt reads them*: ``-l N`` and ``--line-length N``
  take the next word, abbreviations and clusters too (``--line-len 5``, ``-nl 5``), ``-i[SUFFIX]``
  only an attached one, and options may follow operands (getopt permutes);
- node: every option node's ``--help`` says loads a module (``-r``, ``--import``, ``--loader`` and its
  ``--experimental-loader`` spelling) makes the line unread, in every spelling node takes.
"""

from __future__ import annotations

import pytest

from reference_impl.permissions._grammar_mining import help_options
from reference_impl.permissions._program_model import unread_program
from reference_impl.permissions._programs import program_scripts

_RUNS = "1e touch ran"


@pytest.mark.parametrize(
    "args",
    [
        ["-l", "5", _RUNS, "f"],
        ["--line-length", "5", _RUNS, "f"],
        ["--line-len", "5", _RUNS, "f"],
        ["--l", "5", _RUNS, "f"],
        ["-nl", "5", _RUNS, "f"],
        ["-s", "-l", "1", _RUNS, "f"],
        ["-nsl", "5", _RUNS, "f"],
        ["-i.bak", "-l", "3", _RUNS, "f"],
        ["-u", "-l", "5", "--", _RUNS, "f"],
        ["--in-place", _RUNS, "f"],
        ["f", "-l", "5", "-e", _RUNS],
        ["--e=" + _RUNS, "f"],
        ["-e", "p", "--expr", _RUNS, "f"],
        # POSIXLY_CORRECT (the environment is not known here): the first operand ends the options.
        [_RUNS, "-e", "p"],
    ],
)
def test_sed_script_found_after_option_values(args: list[str]) -> None:
    """PERM-17: ``sed -l 5 '1e CMD' f`` runs ``1e CMD``: an option's value is never taken as the script."""
    _, why = program_scripts("sed", args)
    assert why is not None, f"sed {args} runs a command; the engine read none"


@pytest.mark.parametrize(
    "args",
    [
        ["-l", "5", "p", "f"],
        ["--line-length=5", "-n", "s/a/b/p", "f"],
        ["-i.bak", "s/a/b/", "f"],
        ["-i", "-E", "s/(a)/b/", "f"],
        ["-nE", "-e", "1p", "-e", "2p", "f"],
        ["s/a/b/", "f", "-n"],
        ["--help"],
        ["--version"],
    ],
)
def test_sed_everyday_lines_stay_read(args: list[str]) -> None:
    """Keep false asks low: everyday sed lines, with option values, still read as running nothing."""
    assert program_scripts("sed", args) == ([], None)


@pytest.mark.parametrize(
    "args",
    [
        ["-b", _RUNS, "f"],  # an option sed's --help does not list: which word is the script is unknown
        ["--f", "x", "f"],  # ambiguous: --file or --follow-symlinks
        ["-f", "s.sed", "f"],
        ["-l", None, "p", "f"],
    ],
)
def test_sed_unknown_options_fail_closed(args: list[str | None]) -> None:
    """An option the grammar does not read, a word only known at run time, a script file: not read."""
    _, why = program_scripts("sed", args)
    assert why is not None


@pytest.mark.parametrize(
    "args",
    [
        ["--experimental-loader=./l.mjs", "x.js"],
        ["--experimental-loader", "./l.mjs", "x.js"],
        ["--loader=./l.mjs", "x.js"],
        ["--loader", "./l.mjs", "x.js"],
        ["--no-warnings", "--experimental-loader=./l.mjs", "x.js"],
        ["--import=./l.mjs", "x.js"],
        ["--require", "./l.cjs", "x.js"],
        ["-r./l.cjs", "x.js"],
    ],
)
def test_node_options_loading_a_module_are_unread(args: list[str]) -> None:
    """PERM-17: ``node --experimental-loader=./l.mjs x.js`` runs l.mjs: every code-loading option is unread."""
    assert unread_program("node", args) is not None
    assert unread_program("nodejs", args) is not None


@pytest.mark.parametrize("args", [["x.js"], ["--no-warnings", "x.js"], ["--enable-source-maps", "x.js"]])
def test_node_plain_options_stay_read(args: list[str]) -> None:
    """Keep false asks low: options that load no code leave node's script read."""
    assert unread_program("node", args) is None


@pytest.mark.parametrize(
    "args",
    [
        ["--test", "--test-reporter=./r.mjs"],
        ["--test-reporter", "./r.mjs", "t.test.js"],
        ["--snapshot-blob", "s.blob"],
        ["--snapshot-blob=s.blob", "x.js"],
        ["--build-snapshot-config", "c.json"],  # runs the builder script c.json names
    ],
)
def test_node_reporters_and_snapshots_are_code(args: list[str]) -> None:
    """A test reporter module (node loads it even without --test) and a snapshot blob (its main runs)."""
    assert unread_program("node", args) is not None


@pytest.mark.parametrize("reporter", ["spec", "tap", "dot", "junit", "lcov"])
def test_node_own_reporters_load_no_module(reporter: str) -> None:
    """node's built-in reporters are not modules of the project: no new ask for ``--test-reporter=spec``."""
    assert unread_program("node", [f"--test-reporter={reporter}", "x.js"]) is None
    assert unread_program("node", ["--test-reporter", reporter, "x.js"]) is None


def test_miner_reads_a_description_over_its_lines() -> None:
    """node's help wraps a description onto the next lines, and past its column leaves one space."""
    text = (
        "Options:\n"
        "  --loader, --experimental-loader=...\n"
        "                              use the specified module as a custom\n"
        "                              loader\n"
        "  --no-warnings               silence all process warnings\n"
        "  --build-snapshot-config=... Generate a snapshot blob when the\n"
        "                              process exits using aJSON configuration\n"
        "  -u USERNAME, --user=USERNAME\n"
        "                 run command as USERNAME handling setuid and/or setgid\n"
    )
    options = help_options(text)
    assert options["commands"] == ["--build-snapshot-config", "--loader"]
    assert options["names"]["--experimental-loader"] == "--loader"


@pytest.mark.parametrize(
    ("args", "scripts"),
    [
        (["-l", "5", "p", "f"], ("p",)),
        (["-n", "-e", "1p", "--expression=2p", "f"], ("1p", "2p")),
        (["--line-len", "7", "s/a/b/", "f"], ("s/a/b/",)),
        (["-nl", "5", "p", "f"], ("p",)),
        # ``--`` ends the options: the next word is the script, read as one (not an unknown option).
        (["--", "s/a/b/", "f"], ("s/a/b/",)),
        (["-n", "--", "p", "f"], ("p",)),
    ],
)
def test_sed_line_reads_the_scripts_sed_runs(args: list[str], scripts: tuple[str, ...]) -> None:
    """PERM-17: sed_line names every script sed runs, past option values however spelled (GNU getopt's reading)."""
    from reference_impl.permissions._sed_options import sed_line

    line = sed_line(args)
    assert (line.unknown, line.from_file, line.exits) == (None, False, False), line
    assert set(scripts) <= set(line.scripts), line
