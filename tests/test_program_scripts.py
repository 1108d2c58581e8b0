"""What ``program_scripts`` reads off a program's words: the commands it starts, or why they can't be known."""

from __future__ import annotations

import shlex

import pytest

from reference_impl.permissions._evaluated import hidden_code
from reference_impl.permissions._program_model import unread_program
from reference_impl.permissions._programs import program_scripts


def _scripts(line: str) -> tuple[list[str], str | None]:
    name, *args = shlex.split(line)
    return program_scripts(name, args)


@pytest.mark.parametrize(
    ("line", "scripts"),
    [
        ("tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm x' f", ["rm x"]),
        ("tar -xf a.tar --to-command 'rm x'", ["rm x"]),
        ("tar -I 'zstd -d' -xf a.tar", ["zstd -d"]),
        ("tar --use-compress-program=pigz -cf a f", ["pigz"]),
        ("split --filter='rm x' f", ["rm x"]),
        ("sort --compress-program=gzip f", ["gzip"]),
        ("git -c alias.z='!rm x' z", ["rm x"]),
        ("git -c core.pager='rm x' log", ["rm x"]),
        ("git -c Core.SSHCommand='ssh -i k' fetch", ["ssh -i k"]),
        ("git -c diff.x.textconv=cat diff", ["cat"]),
        ("git rebase -x 'rm x' HEAD~1", ["rm x"]),
        ("git -C /tmp rebase --exec='rm x' main", ["rm x"]),
        ("git submodule foreach rm -rf x", ["rm -rf x"]),
        ("git bisect run rm x", ["rm x"]),
        ("git filter-branch --tree-filter 'rm x' HEAD", ["rm x"]),
        ("git -c alias.z='!a' difftool --extcmd=rm", ["a", "rm"]),
        ("ssh -o ProxyCommand='nc %h %p' host", ["nc %h %p"]),
        ("ssh -oLocalCommand=rm host", ["rm"]),
        ("awk 'BEGIN { system(\"rm x\") }'", ["rm x"]),
        ('mawk -F: \'BEGIN{system("a"); system("b")}\' f', ["a", "b"]),
    ],
)
def test_commands_given_as_data_are_read(line: str, scripts: list[str]) -> None:
    """The commands a program starts from its options or its own code are the scripts judged."""
    assert _scripts(line) == (scripts, None)


@pytest.mark.parametrize(
    "line",
    [
        "awk '{ print | \"sh\" }' f",
        "awk '{ system($0) }' f",
        "awk 'BEGIN{system(\"\\162\\155 x\")}'",
        'gawk \'BEGIN{f="system"; @f("rm x")}\'',
        "awk -f prog.awk f",
        "gawk -e '@load \"x\"'",
        "sed -n '1e rm x' f",
        "sed 's/a/rm x/e' f",
        "sed -e 'p' -e 'e' f",
        "sed -f script.sed f",
        "sed --expr='1e rm x' f",
        "make -f /dev/null --eval='all:; rm x'",
        "git --config-env=core.pager=X log",
        "git config --global alias.z '!rm x'",
    ],
)
def test_code_that_may_start_anything_is_unknown(line: str) -> None:
    """Code that may start a program the line does not name gives a reason, never an empty list."""
    scripts, why = _scripts(line)
    assert why, f"{line!r}: no reason given ({scripts!r})"


@pytest.mark.parametrize(
    "line",
    [
        "awk '{ print $1 }' f",
        "awk -F, -v x=1 'BEGIN { print x }'",
        "sed 's/hello/bye/g' f",
        "sed -n '/e/p' f",
        "git -c user.name=x commit",
        "git -C /tmp status",
        "git config user.name x",
        "git rebase -i main",
        "tar -cf a.tar f",
        "sort -r f",
        "ssh -o BatchMode=yes host",
        "make all",
        "ls -la",
    ],
)
def test_programs_that_start_nothing_are_left_alone(line: str) -> None:
    """Ordinary uses of these programs give neither a script nor a reason."""
    assert _scripts(line) == ([], None)


@pytest.mark.parametrize(
    "assignment",
    [
        "GIT_SSH_COMMAND='rm x'",
        "GIT_CONFIG_VALUE_0='!rm x'",
        "GIT_CONFIG_PARAMETERS=x",
        "PAGER=rm",
        "LESSOPEN='|rm %s'",
        "TAR_OPTIONS=--checkpoint-action=exec=rm",
        "LD_PRELOAD=/tmp/x.so",
        "NODE_OPTIONS=--require=/tmp/x.js",
        "BASH_ENV=/tmp/x",
    ],
)
def test_variables_other_programs_run_hide_code(assignment: str) -> None:
    """A variable another program takes a command (or code to load) from hides code, like BASH_ENV."""
    assert hidden_code(("git", "fetch"), ("git", "fetch"), (assignment,))


@pytest.mark.parametrize("assignment", ["PYTHONPATH=src", "LANG=C", "FOO=bar", "GIT_AUTHOR_NAME=x"])
def test_ordinary_variables_hide_nothing(assignment: str) -> None:
    """Variables that name no command leave the command as it is."""
    assert hidden_code(("git", "fetch"), ("git", "fetch"), (assignment,)) is None


@pytest.mark.parametrize(
    "line",
    [
        "perl -e 'system(q(rm x))'",
        "perl -ne 'print if /x/' f",
        "python3 -c 'print(1 + 2)'",
        "python3 -X dev -c 'print(1)'",
        'python3.11 -Sc \'__import__("os").system("rm")\'',
        "node -e 'console.log(1)'",
        "node --eval=process.exit()",
        "ruby -e 'puts 1'",
        "php -r 'echo 1;'",
        "python3 -m timeit 'pass'",
        "python3",
        "python3 -",
        "perl -w",
        "tclsh",
        "sqlite3 db 'select 1'",
        "debconf rm -rf x",
        "rg --pre 'rm x' foo",
        "rg --pr='rm x' foo",
        "tar --to-comm='rm x' -xf a.tar",
        "git frobnicate",
        "git config core.sshCommand 'rm x'",
        "git config alias.st status",
        "git clone --upload-pack='rm x' r d",
        "npm exec -- rm x",
        "npm test --script-shell=./x",
        "make CC='rm x'",
        "go test -exec 'rm x' ./...",
        "cargo --config 'target.x.runner=\"rm\"' run",
        "yarn dlx rm",
        "wget --use-askpass='rm x' u",
    ],
)
def test_programs_and_options_the_model_does_not_read_are_unread(line: str) -> None:
    """PERM-17: a program not in the model, an option or subcommand it does not know, inline code: unread, with a reason naming it."""
    name, *args = shlex.split(line)
    why = unread_program(name, args)
    assert why, f"{line!r}: no reason given"
    assert name.split(".")[0].rstrip("0123456789") in why, f"{line!r}: the reason does not name it: {why!r}"


@pytest.mark.parametrize(
    "line",
    [
        "git status",
        "git -C /tmp log --oneline -5",
        "git --no-pager diff HEAD~1",
        "git config user.name x",
        "git config --get core.editor",
        "git commit -m 'x'",
        "ls -la",
        "cat f",
        "grep -rn foo .",
        "npm test",
        "npm run build",
        "npm ci",
        "pytest -q",
        "python3 script.py -c 'import os'",
        "python3 -m pytest -q",
        "python3 --version",
        "make all",
        "make -j4",
        "cargo test",
        "go test ./...",
        "yarn build",
        "pip install -r requirements.txt",
        "tar -xzf a.tar.gz",
        "rg foo src",
        "sed -n '/e/p' f",
        "awk '{ print $1 }' f",
        "test -d x",
        "[ -f x ]",
        "curl -fsSL https://example.com",
    ],
)
def test_everyday_programs_are_read(line: str) -> None:
    """PERM-17: everyday programs and their usual options are modelled, so deny rules don't make them ask."""
    name, *args = shlex.split(line)
    assert unread_program(name, args) is None


def test_interpreter_input_is_unread() -> None:
    """``python3 <<< 'print(1)'`` runs code read from its input: unread, whatever the code says."""
    assert unread_program("python3", [], "print(1)")
    assert unread_program("perl", [], "print 1")
    assert not program_scripts("python3", ["-c", "import os"])[0]
