"""What a line writes and what reads it (PERM-17), and descriptor paths as the kernel names them."""

from __future__ import annotations

import pytest

from pytest_toolharness._strategies.file_writers import load_writers
from reference_impl.permissions._descriptors import STDIN, UNKNOWN_DESCRIPTOR, descriptor_of
from reference_impl.permissions._line_writes import program_targets
from reference_impl.permissions._shell_forms import deny_forms


@pytest.mark.parametrize(
    ("path", "descriptor"),
    [
        ("/dev/stdin", STDIN),
        ("//dev/stdin", STDIN),
        ("/dev/./stdin", STDIN),
        ("/dev/../dev/stdin", STDIN),
        ("../../../dev/stdin", STDIN),
        ("-", STDIN),
        ("/proc/thread-self/fd/0", STDIN),
        ("/proc/1234/task/5/fd/0", STDIN),
        ("/dev/fd/3", 3),
        ("/dev/stderr", 2),
        ("/proc/self/fdinfo/0", UNKNOWN_DESCRIPTOR),
        ("/dev/null", None),
        ("dev/stdin.py", None),
        ("scripts/run.sh", None),
    ],
)
def test_descriptor_paths_are_folded_as_the_kernel_does(path: str, descriptor: int | None) -> None:
    assert descriptor_of(path) == descriptor


@pytest.mark.parametrize(
    "line",
    [
        "gunzip s.sh.gz && sh s.sh",  # a program outside any list of writers
        "awk '{print > \"t\"}' d; chmod +x t; ./t",
        "sed -n 'w t.sh' d; . ./t.sh",
        "tar xf t.tar | sh s.sh",  # a pipeline: order does not protect
        "cp d Makefile && make",  # found by convention
        "printf x > e.txt; MAKEFILES=e.txt make",  # named by a variable
        "printf x > conftest.py; pytest",
        "printf x > lsx; chmod +x lsx; PATH=.:$PATH lsx",
        "export PATH=.:$PATH; printf x > lsx; lsx",
        "printf '[core]' >> b/config && git --git-dir=b status",
        "git clone -q src dst && git -C dst status",
        "make -s -f //dev/stdin <<< '$(shell ls)'",
        "printf 'all:' | make -f -",
        "bash /dev/fd/3 3<<<'ls'",
        "printf x | tee ~/.local/bin/ls && ls",  # a bare name found on PATH, where the line wrote it
    ],
)
def test_a_line_that_may_run_what_it_writes_is_opaque(line: str) -> None:
    assert deny_forms(line).opaque is not None


@pytest.mark.parametrize(
    "line",
    [
        "pytest -q 2>&1 | tee out.log",
        "git stash && git pull --rebase && git stash pop",
        "find . -name '*.py' | xargs wc -l",
        "make && ./build/app",  # built from the project's code
        "npm ci && npm test",
        "sh build.sh && gzip dist/app",  # the writer comes after
        'for f in *.txt; do wc -l "$f"; done',
        'export PATH="$HOME/bin:$PATH"',
        "sort -o out.txt data.txt && make",  # sort -o writes only out.txt, which make does not read
        "shuf data.txt --output=out.txt && pytest",
        "echo x > out.txt && git --exec-path",  # an option naming no place git is pointed to
    ],
)
def test_a_line_that_runs_only_what_was_on_disk_is_read(line: str) -> None:
    assert deny_forms(line).opaque is None


@pytest.mark.parametrize(
    ("argv", "targets"),
    [
        # A word missing its value (the program refuses the line): unknown, never a crash.
        (("find", ".", "-fprint"), [None]),
        (("git", "diff", "--output"), [None]),
        (("git", "-C"), []),
        (("git", "--version"), []),
        # git config writes one file: the repository's (where -C moves git), or the one -f names.
        (("git", "config", "user.email", "a@b"), [".git/config"]),
        (("git", "--no-pager", "-C", "sub", "config", "core.hooksPath", "x"), ["sub/.git/config"]),
        (
            ("git", "config", "--add", "--type=bool", "--null", "--includes", "--file", "o.cfg", "k.k", "1"),
            ["o.cfg"],
        ),
        (("git", "config", "user.name"), []),  # it prints the value
        (("git", "config", "edit"), [".git/config"]),  # git 2.46's subcommand: an editor on the file
        (("git", "config", "--global", "edit"), ["~/.gitconfig"]),
    ],
)
def test_what_a_program_changes_is_what_its_line_names(
    argv: tuple[str, ...], targets: list[str | None]
) -> None:
    assert program_targets(argv) == targets


def test_make_of_its_input_is_read_as_its_recipes() -> None:
    forms = deny_forms("make -f /dev/./stdin <<'E'\nall:\n\trm -rf x\nE\n")
    assert "rm -rf x" in forms.forms


def test_no_program_the_mined_catalogue_shows_writing_a_file_it_names_is_taken_to_change_none() -> None:
    """PERM-15: the programs taken to change no file their line names include none that the filesystem
    saw write a file named by its operands or options (the catalogue mined from the manual pages)."""
    for entry in load_writers():
        line = entry.command_line(".git/config").split()
        assert ".git/config" in program_targets(tuple(line)), entry


@pytest.mark.parametrize(
    "line",
    [
        # Every builtin that assigns a variable, assigning PATH: the next bare name is looked up there.
        'read PATH <<< "p:$PATH"; ls',
        'read PATH <<< ""; ls',  # an empty PATH: bash runs ./ls
        "read -r -a PATH <<< p; ls",
        "mapfile -t PATH <<< p; ls",
        "readarray PATH <<< p; ls",
        "printf -v PATH p; ls",
        "builtin printf -vPATH p; ls",
        "getopts p: PATH -p x; ls",
        "sleep 0 & wait -np PATH; ls",
        "command read PATH <<< p; git status",
        'read PATH <<< "p:$PATH"; source x.sh',  # source searches PATH first
        "for i in 1 2; do ls; read PATH <<< p; done",  # a loop runs ls again after
        "for i in 1 2; do ls; export PATH=p; done",
    ],
)
def test_a_name_looked_up_after_any_builtin_assigned_path_is_opaque(line: str) -> None:
    """PERM-17: ``read``, ``mapfile``, ``printf -v``, ``getopts`` and ``wait -p`` set PATH as ``export`` does."""
    assert deny_forms(line).opaque is not None


@pytest.mark.parametrize(
    "line",
    ["read -r line <<< p; ls", "read -p PATH x; ls", "printf -v x %s PATH; ls", "ls; read PATH <<< p; echo"],
)
def test_a_builtin_assigning_another_variable_leaves_path_alone(line: str) -> None:
    assert deny_forms(line).opaque is None
