"""What interpreters' code runs and writes: built names found, APIs held to the machine's own docs (PERM-15, PERM-17)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from reference_impl.permissions import _code_modules
from reference_impl.permissions._code_targets import _NODE, _PERL, code_targets, line_code
from reference_impl.permissions._python_targets import RUNS

# Each: language, code that runs a program (or evaluates code) by a name built when it runs.
_BUILT = [
    ("python", 'import os; os.system("r"+"m x")'),
    ("python", 'exec(open("b.txt").read())'),
    ("python", 'import os; getattr(os, "sys"+"tem")("x")'),
    ("python", '__import__("os").system("x")'),
    ("python", 'import importlib; importlib.import_module("os").system("x")'),
    ("python", 'import pty; pty.spawn(["r"+"m"])'),
    ("python", "import os; os.execvp(n, [n])"),
    ("python", 'import sys; sys.modules["os"].system("x")'),
    ("python", 'from os import system as s; s("x")'),
    ("python", 'import os; f = os.system; f("x")'),
    ("python", "import os; m = os; m.system(c)"),
    # A run method or a dunder looked up by name, even a literal one on a literal: unknown by rule
    # (the module's, no requirement's: nothing such a lookup reaches is read).
    ("python", 'getattr("", "system")("x")'),
    ("python", 'getattr(0, "__class__")'),
    ("javascript", 'require("child_process").execSync(["r","m"].join("")+" x")'),
    ("javascript", 'const cp = require("child_process"); cp["exec"+"Sync"]("x")'),
    ("javascript", 'require("vm").runInNewContext(code)'),
    ("javascript", 'Function("return " + x)()'),
    ("javascript", "[].constructor.constructor(x)()"),
    ("javascript", "require(name)"),
    ("perl", 'system(chr(114)."m x")'),
    ("perl", 'my $c = "rm"; `$c x`'),
    ("perl", "eval $code"),
    ("perl", 'system("$c x")'),  # a double-quoted string interpolates
    ("perl", '&{"sys"."tem"}("x")'),
    ("perl", 'my $f = \\&CORE::system; $f->("x")'),
    ("perl", 'my $s = "a"; $s =~ s/a/b/e'),
    ("perl", 'do "b.pl"'),
    ("perl", 'open(my $p, "-|", $cmd)'),
    ("awk", 'BEGIN { c = "r" "m"; system(c " x") }'),
    ("awk", "{ print | cmd }"),
    ("awk", "BEGIN { cmd | getline x }"),
    ("ruby", "system('ls')"),  # a language the engine does not read
]


@pytest.mark.parametrize(("language", "code"), _BUILT)
def test_a_name_built_when_the_code_runs_is_unknown(language: str, code: str) -> None:
    """PERM-17: code that may run a program, or evaluate code, named only when it runs is built."""
    assert code_targets(language, code).built is not None


_LITERAL = [
    ("python", 'import os; os.system("make test")', ("make test",), ()),
    ("python", 'import subprocess as sp; sp.run(["ls", "-l"], check=True)', ("ls -l",), ()),
    ("python", 'open(".bashrc", "w")', (), (".bashrc",)),
    ("python", 'print(1); open("a.txt").read()', (), ()),
    ("python", 'print(getattr("ab", "upper")())', (), ()),
    ("javascript", 'require("child_process").execSync("ls -l")', ("ls -l",), ()),
    (
        "javascript",
        'require("fs").writeFileSync(".claude/settings.json", "")',
        (),
        (".claude/settings.json", ""),
    ),
    ("javascript", "console.log(JSON.stringify({a: 1}), [1, 2].map(x => x * 2))", (), ()),
    ("perl", 'system("ls -l")', ("ls -l",), ()),
    ("perl", 'open(F, ">", ".git/hooks/pre-commit")', (), (".git/hooks/pre-commit",)),
    ("perl", 'print join(",", map { $_ * 2 } (1, 2)), "\\n"', (), ()),
    ("awk", 'BEGIN { print > ".git/config" }', (), (".git/config",)),
    ("awk", "$1 > 5 { print $2 }", (), ()),
    # Brackets inside a string or q{} are text: the call between two such strings is still found.
    ("perl", 'print "["; system("nuke"); print "]";', ("nuke",), ()),
    ("perl", "print q{[}; system('nuke'); print q{]};", ("nuke",), ()),
    # A quote-like operator after a word and a space, and one read as words only.
    ("perl", "print qx{nuke}", ("nuke",), ()),
    ("perl", "print qw(a b), q{c}", (), ()),
    # open's piped command given as one string is that command line, not one quoted word.
    ("perl", 'open(my $f, "|-", "nuke -x")', ("nuke -x",), ()),
    # A template literal whose ${...} names no API runs nothing.
    ("javascript", "console.log(`n=${n}`)", (), ()),
    # A literal command read with getline is that command.
    ("awk", 'BEGIN { "date" | getline d; print d }', ("date",), ()),
]


@pytest.mark.parametrize(("language", "code", "runs", "writes"), _LITERAL)
def test_literal_targets_are_read(
    language: str, code: str, runs: tuple[str, ...], writes: tuple[str, ...]
) -> None:
    """PERM-17, PERM-15: code whose every target is a literal is read, and what it names is found."""
    found = code_targets(language, code)
    assert (found.built, found.writes_built, found.runs, found.writes) == (None, None, runs, writes)


@pytest.mark.parametrize("option", ["-e", "--source"])
def test_an_awk_program_given_by_option_is_read(option: str) -> None:
    """PERM-17: gawk's ``-e``/``--source`` program is the code read, not the option's own word."""
    found = line_code("awk", [option, 'BEGIN { system("nuke") }', "x.txt"])
    assert found is not None
    assert found.runs == ("nuke",)


def test_a_built_target_hides_none_of_the_literal_ones_after_it() -> None:
    """PERM-17: code read on past a name built when it runs: the commands it names literally are found too."""
    found = code_targets("perl", 'my $m = "x"; $o->$m(); system("nuke")')
    assert found.built is not None
    assert found.runs == ("nuke",)


def test_python_apis_cover_what_its_documentation_says_starts_a_program() -> None:
    """PERM-17: every os function that execs or spawns, and subprocess's runners, are read as running."""
    documented = {
        f"os.{n}" for n in dir(os) if n.startswith(("exec", "spawn", "posix_spawn")) and n[-1] != "_"
    }
    documented -= {"os.spawn" + "n"}  # not a function of os's
    documented |= {f"subprocess.{n}" for n in subprocess.__all__ if n[0].islower() or n == "Popen"}
    documented -= {"subprocess.list2cmdline"}
    assert {n for n in documented if callable(eval(n, {"os": os, "subprocess": subprocess}))} <= set(RUNS)


def _node_lists(expression: str) -> list[str]:
    """The names a JavaScript array expression holds, as the installed node evaluates it (skip: no node)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    return subprocess.run(
        ["node", "-e", f'console.log(({expression}).join(" "))'], capture_output=True, text=True, timeout=30
    ).stdout.split()


def test_node_apis_cover_child_process_exports() -> None:
    """PERM-17: every function node's child_process module exports is read as running a program."""
    assert set(_node_lists('Object.keys(require("child_process"))')) <= _NODE.runs


def test_perl_apis_cover_its_process_functions() -> None:
    """PERM-17: Pod::Functions' process functions that start a program are read as running (qx as backquotes)."""
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed")
    listed = subprocess.run(
        ["perl", "-MPod::Functions", "-e", 'print "@{$Kinds{Process}}"'],
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout.split()
    starting = {"exec", "system", "readpipe"}
    assert starting <= set(listed)
    assert starting <= _PERL.runs


# JavaScript's lexer decodes a name before it binds it: ``\uXXXX`` and ``\u{X}`` in an identifier, any
# escape in a string literal, a member named by a literal (``a["b"]`` is ``a.b``). Each runs nuke.
_JS_SPELLED = [
    "const cp = require('child_process'); cp.exe\\u0063Sync('nuke')",
    "const cp = require('child_process'); cp.exe\\u{63}Sync('nuke')",
    "const cp = require('child_process'); cp.\\u{65}\\u0078ecSync('nuke')",
    "require('child_process')['execSync']('nuke')",
    "require('child_process')['exec\\x53ync']('nuke')",
    "require('child_process')[`exec\\u0053ync`]('nuke')",
    "require('child_process')?.['execSync']('nuke')",
    "require('\\u0063hild_process').execSync('\\x6e\\u{75}\\153e')",
    'eval(\'require("child_process").exe\\\\u0063Sync("nuke")\')',
]


@pytest.mark.parametrize("code", _JS_SPELLED)
def test_javascript_names_are_read_as_its_lexer_decodes_them(code: str) -> None:
    """PERM-17: an API named with escapes or by a literal member key is that API; its literal command is read."""
    found = code_targets("javascript", code, loads_followed=True)
    assert found.runs == ("nuke",), found


# Code that may run anything through what the reader does not model: a built-in module whose functions
# evaluate code or start programs beside the APIs it reads (inspector, repl, module, cluster, v8, wasi,
# one only named ``node:``), code named by a URL, a module loader it reaches by another name.
_JS_UNMODELLED = [
    "const i = require('inspector'); new i.Session().post('Runtime.evaluate', {expression: 'x'})",
    "import { Session } from 'node:inspector'; new Session()",
    "import('data:text/javascript,console.log(1)')",
    "import 'https://example.com/x.mjs'",
    "require('repl').start()",
    "require('module').register('./hooks.mjs')",
    "require('cluster').fork()",
    "require('v8').setFlagsFromString('--allow-natives-syntax')",
    "import { run } from 'node:test'; run({files: ['x.js']})",
    "process.getBuiltinModule(name)",
]


@pytest.mark.parametrize("loads_followed", [False, True])
@pytest.mark.parametrize("code", _JS_UNMODELLED)
def test_javascript_modules_the_reader_does_not_model_may_run_anything(
    code: str, loads_followed: bool
) -> None:
    """PERM-17: loading a module the reader does not model, or code named by a URL, is unknown: built."""
    assert code_targets("javascript", code, loads_followed=loads_followed).built is not None


def test_every_node_builtin_module_is_read_or_unknown() -> None:
    """PERM-17: each module node's ``builtinModules`` lists is one the reader models, or loading it asks."""
    listed = _node_lists('require("module").builtinModules')
    assert listed
    for name in listed:
        found = code_targets("javascript", f"require({name!r})", loads_followed=True)
        assert (found.built is None) == (name in _code_modules._NODE_READ_MODULES), name


# Perl: a pattern's code blocks are code, whatever the pattern's quoting; a module's function named
# as a builtin is that builtin.
_PERL_PATTERN_CODE = [
    "'x' =~ /(?{ system('nuke') })/;",
    "'x' =~ m{(??{ system('nuke'); 'x' })};",
    "'x' =~ qr/(?{ system('nuke') })/;",
    "$_ = 'x'; s/(?{ system('nuke') })x/y/;",
    "split /(*{ system('nuke') })/, 'ab';",
    "use POSIX (); POSIX::system('nuke');",
]


@pytest.mark.parametrize("code", _PERL_PATTERN_CODE)
def test_perl_pattern_code_blocks_are_read_as_code(code: str) -> None:
    """PERM-17: ``(?{ })``, ``(??{ })`` and ``(*{ })`` in a pattern run their code: its command is read."""
    found = code_targets("perl", code)
    assert (found.runs, found.built) == (("nuke",), None), found


_PERL_UNMODELLED = [
    "use IPC::Open3; open3(my $i, my $o, undef, 'nuke');",
    "use IPC::Open2; open2(my $o, my $i, 'nuke');",
    "use IPC::Cmd qw(run); run(command => 'nuke');",
    "require IPC::Run; IPC::Run::run(['nuke']);",
    "IPC::Open3::open3(my $i, my $o, undef, 'nuke');",
    "use IO::Pipe; IO::Pipe->new->reader('nuke');",
    "use Benchmark; timethis(1, 'system(1)');",
    "use Module::Load; load 'Foo';",
    "use re 'eval'; my $c = '(?{ 1 })'; 'x' =~ /$c/;",
]


@pytest.mark.parametrize("code", _PERL_UNMODELLED)
def test_perl_modules_that_start_programs_may_run_anything(code: str) -> None:
    """PERM-17: a module whose functions start programs or evaluate code, not modelled by the reader, is unknown."""
    assert code_targets("perl", code).built is not None


def test_perl_switches_loading_a_module_that_starts_programs_are_unknown() -> None:
    """PERM-17: ``perl -MIPC::Open3 -e`` loads the module for the code: the code may run anything."""
    found = line_code("perl", ["-MIPC::Open3", "-e", "open3(my $i, my $o, undef, 'nuke')"])
    assert found is not None
    assert found.built is not None


_EVERYDAY = [
    ("javascript", 'const s = "a\\tb\\u00e9"; console.log(s["length"], [1, 2][0], /\\d+/.test(s))'),
    ("javascript", "import path from 'node:path'; import { readFileSync } from 'fs'; console.log(path.sep)"),
    ("javascript", "const o = {a: 1}; console.log(o['a'], o?.['a'], JSON.stringify(o))"),
    (
        "perl",
        "use strict; use warnings; use Cwd; use File::Basename; use Data::Dumper; print Dumper(getcwd());",
    ),
    ("perl", "use List::Util qw(sum); use Getopt::Long; my $s = 'ab'; $s =~ s/(a)/A/; print sum(1, 2);"),
    ("perl", "my $s = 'abc'; print $1 if $s =~ /(b)(?:c)?/; print \"Git\";"),
]


@pytest.mark.parametrize(("language", "code"), _EVERYDAY)
def test_everyday_code_stays_read(language: str, code: str) -> None:
    """PERM-17 (no false ask): escapes, literal members, modules that start nothing keep code read."""
    found = code_targets(language, code, loads_followed=True)
    assert (found.built, found.writes_built) == (None, None), found


# Where the reader's tokens could fall out of step with the language's and take code for a pattern or a
# string: ``/`` after a closing brace (an object literal, a hash subscript) divides; ``#`` after any
# character but ``$`` starts a Perl comment; ``q #`` is ``q`` then a comment, its delimiter on the next line;
# a POD block is not code.
_IN_STEP = [
    ("javascript", 'const o = {} / 1; require("child_process").execSync("nuke"); const p = 1 / 1;'),
    ("perl", 'my %h = (a => 1); my $x = $h{a} / 1; system("nuke"); my $y = 1 / 1;'),
    ("perl", "print 1,# it's\nsystem('nuke'); print 'x'; # it's\n"),
    ("perl", 'my $s = q #\n/x/; system("nuke"); # end\n'),
    # A POD block where a statement may begin is documentation up to its ``=cut`` line, quotes and all.
    ("perl", "print 1;\n\n=pod\n\nit's\n\n=cut\n\nsystem('nuke'); print 'x';\n\n__END__\n'\n"),
]


@pytest.mark.parametrize(("language", "code"), _IN_STEP)
def test_the_reader_stays_in_step_with_the_languages_tokens(language: str, code: str) -> None:
    """PERM-17: code after a division or a comment the language reads as such is read: its command is found."""
    assert code_targets(language, code).runs == ("nuke",)


@pytest.mark.parametrize(
    "args",
    [
        ["-W", "exec", "x.awk"],
        ["-We", "x.awk"],
        ["-Wexec", "x.awk"],
        ["-W", "interactive,exec", "x.awk"],
        ["-Wi,e", "x.awk"],
        ["-W", "e", "x.awk"],
        ["--exec=x.awk"],
        ["--ex", "x.awk"],
        ["-E", "x.awk"],
        ["-bE", "x.awk"],
        ["-ffoo.awk"],
        ["--fi=x.awk"],
        ["-W", "nonesuch", "x.awk"],
        ["-v", "a=1", "-W", "exec", "x.awk"],
        # gawk takes the next word as ``-W assign``'s value, mawk as its program: unknown.
        ["-W", "assign", "a=1", "x.awk"],
        ["-Wfield-sep", ":", "x.awk"],
    ],
)
def test_an_awk_program_read_from_a_file_is_not_its_name(args: list[str]) -> None:
    """PERM-17: mawk(1)'s ``-W exec file`` (abbreviated, combined with commas) and gawk(1)'s ``-E``,
    ``--exec``, ``-f`` read the program from the file: the file's name is not the program's text."""
    found = line_code("awk", args)
    assert found is not None
    assert found.built is not None, args


@pytest.mark.parametrize(
    ("args", "runs"),
    [
        (["-W", "interactive", 'BEGIN { system("nuke") }'], ("nuke",)),
        (["-Wv", 'BEGIN { system("nuke") }'], ("nuke",)),
        (["-W", "sprintf=9000", "-F:", 'BEGIN { system("nuke") }'], ("nuke",)),
        (["-bd", 'BEGIN { system("nuke") }'], ("nuke",)),
        # gawk(1): a long option's value attached by ``=`` or the next word, its name abbreviated.
        (["--field-separator", ":", 'BEGIN { system("nuke") }'], ("nuke",)),
        (["--field-sep", ":", 'BEGIN { system("nuke") }'], ("nuke",)),
        (["--as", "a=1", 'BEGIN { system("nuke") }'], ("nuke",)),
        (["--assign=a=1", 'BEGIN { system("nuke") }'], ("nuke",)),
    ],
)
def test_an_awk_program_after_harmless_options_is_read(args: list[str], runs: tuple[str, ...]) -> None:
    """PERM-17: after options the manuals make harmless, the next word is the program read."""
    found = line_code("awk", args)
    assert found is not None
    assert found.built is None
    assert found.runs == runs


@pytest.mark.parametrize(
    ("language", "code", "moves"),
    [
        ("python", 'import os; os.chdir(".git"); open("config", "a")', (".git",)),
        ("python", 'from os import chdir as cd; cd(".git/hooks")', (".git/hooks",)),
        ("python", 'import contextlib\nwith contextlib.chdir("d"):\n    pass', ("d",)),
        ("python", 'import subprocess; subprocess.run("make", shell=True, cwd="build")', ("build",)),
        ("python", 'import os; os.chdir(b".git")', (".git",)),
        ("python", "import os; os.chdir(d)", (None,)),
        ("python", "import os; os.chdir()", (None,)),
        ("python", "import os; os.fchdir(3)", (None,)),
        ("python", 'import os; move = os.chdir; move(".git")', (None,)),
        ("python", 'import subprocess; subprocess.run("make", shell=True, **options)', (None,)),
        ("python", 'exec("import os; os.chdir(\\".git\\")")', (".git",)),
        ("python", "import os; print(os.getcwd())", ()),
        ("javascript", 'process.chdir(".git")', (None,)),
        ("javascript", 'require("child_process").execSync("x", {"cwd": "d"})', (None,)),
        ("javascript", 'const cwd = "d"; require("child_process").execSync("x", {cwd})', (None,)),
        ("javascript", 'eval("process.chdir(\\".git\\")")', (None,)),
        ("javascript", "console.log(process.cwd())", ()),
        ("perl", "chdir q(.git)", (None,)),
        ("perl", 'CORE::chdir(".git")', (None,)),
        ("perl", 'use File::chdir; $CWD = ".git"', (None,)),
        ("perl", "use Cwd; print cwd", ()),
    ],
)
def test_where_the_code_moves_is_read(language: str, code: str, moves: tuple[str | None, ...]) -> None:
    """PERM-15: the directories code changes to (or starts a program in) are read; a built one, or any in tokens, is None.

    Its relative writes and the commands it runs land there (``os.chdir(".git"); open("config")``).
    Reading the directory (``os.getcwd()``, ``process.cwd()``, Perl's ``cwd``) moves nowhere.
    """
    assert code_targets(language, code).moves == moves


def test_the_moves_of_each_inline_program_add_up() -> None:
    """PERM-15: ``perl -e A -e B``: each piece's moves are the line's."""
    found = line_code("perl", ["-e", "chdir q(a);", "-e", "print 1"])
    assert found is not None
    assert found.moves == (None,)


@pytest.mark.parametrize(
    ("code", "handed"),
    [
        ('import tarfile; tarfile.open("a.tar").extractall(".git")', (".git",)),
        ('import logging; logging.basicConfig(filename=".git/config")', (".git/config",)),
        ('import readline; readline.write_history_file(".git/x")', (".git/x",)),
        ('import configparser as c; p = c.ConfigParser(); p.read(".git/config")', ()),
        ('import os; print(os.path.isdir(".git"), os.listdir("."))', ()),
        ('import pathlib; print(pathlib.Path(".git").exists())', ()),
        ('print(open(".git/config").read())', ()),
        ('import subprocess; subprocess.run(["git", "status"], cwd="sub")', ()),
    ],
)
def test_literals_given_to_a_function_that_may_write_are_read(code: str, handed: tuple[str, ...]) -> None:
    """PERM-15: a literal given to a function not known to only read may be a path it writes.

    Functions the lists judge (``open`` by its mode, ``subprocess.run`` as a command) and those that
    only compute or read (``os.path``, ``print``, a method such as ``read`` or ``exists``) hand nothing.
    """
    assert code_targets("python", code).handed == handed


@pytest.mark.parametrize(
    ("code", "handed"),
    [
        ('process.report.writeReport(".git/config")', (".git/config",)),
        ('require("fs").existsSync(".git")', ()),
        ('console.log(require("path").join(".git", "config"))', ()),
        ('eval("process.report.writeReport(\\".git/x\\")")', (".git/x",)),
    ],
)
def test_literals_given_to_a_javascript_function_that_may_write_are_read(
    code: str, handed: tuple[str, ...]
) -> None:
    """PERM-15: a literal given to a JavaScript function node's lists do not hold (and not one that only reads) may be written."""
    assert code_targets("javascript", code).handed == handed


@pytest.mark.parametrize(
    ("code", "handed"),
    [
        ('import tarfile; tarfile.open("a.tar").extractall()', (".",)),
        ('import shutil; shutil.unpack_archive("a.zip")', ("a.zip", ".")),
        ('import zipfile; zipfile.ZipFile("a").extractall(path="out")', ("out",)),
        ('import tarfile; tarfile.open("a.tar").extractall("out")', ("out",)),
    ],
)
def test_an_extraction_given_no_destination_writes_into_the_working_directory(
    code: str, handed: tuple[str, ...]
) -> None:
    """PERM-15: ``extractall()``, ``unpack_archive(f)``: the standard library's default destination is ``.``."""
    assert code_targets("python", code).handed == handed
