"""The code a program loads by its own search rules, judged under a deny rule (PERM-17).

Cases no attack list names, each a way node, perl, make (or an interpreter the engine does not read)
finds code beyond what the line names. Where the program is installed, the real run first shows the
file is loaded (a marker file written); the engine must then not allow the line in bypassPermissions
mode beside ``Bash(nuke:*)``. The same resolution of harmless code stays allowed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from reference_impl.permissions._module_search import make_include_dirs
from tests.test_rules import BASH

_NODE_RUNS = "require('child_process').execSync('nuke');\n"
_PERL_RUNS = "package Evil;\nBEGIN { system('nuke'); }\n1;\n"


def _decide(tmp_path: Path, line: str, allow: str) -> str:
    rules = (
        parse_rule("Bash(nuke:*)", "deny", "projectSettings"),
        parse_rule(allow, "allow", "userSettings"),
    )
    context = PermissionContext(mode="bypassPermissions", rules=rules, cwd=tmp_path)
    return decide_permission(BASH, {"command": line}, context).behavior


def _write(tmp_path: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)


def _really_loads(tmp_path: Path, line: str) -> bool:
    """Whether the line, run for real, runs nuke (a marker writer on PATH)."""
    program = line.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    bin_dir = tmp_path.parent / f"{tmp_path.name}-bin"
    bin_dir.mkdir(exist_ok=True)
    marker = tmp_path.parent / f"{tmp_path.name}-ran"
    (bin_dir / "nuke").write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    (bin_dir / "nuke").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, timeout=30, check=False)
    return marker.exists()


FRESH = [
    # perl loads Foo.pmc before Foo.pm: the harmless .pm is not what runs.
    ("perl -I. t.pl", {"t.pl": "use Evil;\n", "Evil.pm": "package Evil;\n1;\n", "Evil.pmc": _PERL_RUNS}),
    # -I. puts the project first on @INC: a pragma's name is a project file too.
    ("perl -I. t.pl", {"t.pl": "use strict;\n", "strict.pm": _PERL_RUNS.replace("Evil", "strict")}),
    # perl reads switches on the script's #! line, even when the line names perl itself.
    ("perl t.pl", {"t.pl": "#!/usr/bin/perl -I.\nuse Evil;\n", "Evil.pm": _PERL_RUNS}),
    # `use parent` loads its parent classes.
    ("perl -Ilib t.pl", {"t.pl": "use parent 'Evil';\n", "lib/Evil.pm": _PERL_RUNS}),
    # node --env-file: NODE_OPTIONS set there preloads a module.
    (
        "node --env-file=.env t.js",
        {"t.js": "1;\n", ".env": "NODE_OPTIONS=--require ./p.js\n", "p.js": _NODE_RUNS},
    ),
    # `#name` resolves through the project's package.json imports.
    (
        "node t.js",
        {"t.js": "require('#e');\n", "package.json": '{"imports": {"#e": "./e.js"}}', "e.js": _NODE_RUNS},
    ),
    # A trailing slash takes a built-in's name to node_modules.
    ("node t.js", {"t.js": "require('fs/');\n", "node_modules/fs/index.js": _NODE_RUNS}),
    # An ES module re-exporting a package loads it.
    ("node t.mjs", {"t.mjs": "export * from 'dep';\n", "node_modules/dep/index.js": _NODE_RUNS}),
    # A package's conditional subpath export.
    (
        "node t.js",
        {
            "t.js": "require('dep/sub');\n",
            "node_modules/dep/package.json": '{"exports": {"./sub": {"require": "./s.cjs"}}}',
            "node_modules/dep/s.cjs": _NODE_RUNS,
        },
    ),
    # make's --include-dir, abbreviated as GNU make allows.
    ("make -s --inc=sub", {"Makefile": "include x.mk\n", "sub/x.mk": "all:\n\t@nuke\n"}),
    # An include of a glob.
    ("make -s", {"Makefile": "include *.mk\n", "a.mk": "all:\n\t@nuke\n"}),
]


@pytest.mark.parametrize(("line", "files"), FRESH, ids=[f"{n}-{c[0]}" for n, c in enumerate(FRESH)])
def test_code_the_program_finds_is_read(tmp_path: Path, line: str, files: dict[str, str]) -> None:
    """PERM-17: code the program resolves by its own rules, running a denied program, is never allowed."""
    _write(tmp_path, files)
    assert _really_loads(tmp_path, line), "the real program does not load it: no case"
    assert _decide(tmp_path, line, f"Bash({line.split()[0]}:*)") != "allow"


UNREAD = [
    # A binary addon: code the engine can't read.
    ("node t.js", {"t.js": "require('./addon.node');\n", "addon.node": "\x7fELF"}),
    # A package node finds nowhere here: what it will load is unknown.
    ("node t.js", {"t.js": "require('not-installed');\n"}),
    # make's load directive loads a shared object into make.
    ("make", {"Makefile": "load ./ext.so\nall:\n\t@true\n"}),
    # Code that changes @INC when it runs.
    ("perl t.pl", {"t.pl": "BEGIN { unshift @INC, $ENV{X} }\nuse Evil;\n"}),
    # use lib of a directory only known when perl runs.
    ("perl t.pl", {"t.pl": "use lib $ENV{HOME};\nuse Evil;\n"}),
    # A require function of the code's own making: what it loads is not followed.
    (
        "node t.mjs",
        {
            "t.mjs": "import {createRequire} from 'module';\nconst r = createRequire(import.meta.url);\nr('dep');\n"
        },
    ),
    # ruby (not read) with options before its script, and a ruby script run by its #! line.
    ("ruby -I. t.rb", {"t.rb": "require_relative 'x'\n", "x.rb": "system('nuke')\n"}),
    ("./t", {"t": "#!/usr/bin/env ruby\nrequire_relative 'x'\n"}),
]


@pytest.mark.parametrize(("line", "files"), UNREAD, ids=[f"{n}-{c[0]}" for n, c in enumerate(UNREAD)])
def test_code_the_engine_cannot_follow_asks(tmp_path: Path, line: str, files: dict[str, str]) -> None:
    """PERM-17: what the program would load that the engine cannot read is asked about (fail closed)."""
    _write(tmp_path, files)
    assert _decide(tmp_path, line, f"Bash({line.split()[0]}:*)") != "allow"


HARMLESS = [
    (
        "node t.js",
        {"t.js": "const fs = require('fs'); require('node:path'); console.log(fs.existsSync('.'));\n"},
    ),
    (
        "node t.js",
        {
            "t.js": "console.log(require('dep')());\n",
            "node_modules/dep/package.json": '{"main": "lib/main.js"}',
            "node_modules/dep/lib/main.js": "const u = require('./util');\nmodule.exports = () => u.x;\n",
            "node_modules/dep/lib/util.js": "exports.x = 1;\n",
        },
    ),
    ("node t.mjs", {"t.mjs": "import path from 'node:path';\nconsole.log(path.sep, import.meta.url);\n"}),
    ("perl -e 'print 1'", {}),
    (
        "perl -Ilib t.pl",
        {"t.pl": "use strict;\nuse Good;\n", "lib/Good.pm": "package Good;\nsub f { 1 }\n1;\n"},
    ),
    (
        "perl t.pl",
        {
            "t.pl": 'use FindBin;\nuse lib "$FindBin::Bin/lib";\nuse Good;\n',
            "lib/Good.pm": "package Good;\n1;\n",
        },
    ),
    ("make -I mk", {"Makefile": "include common.mk\nall:\n\t@echo $(X)\n", "mk/common.mk": "X = 1\n"}),
]


@pytest.mark.parametrize(("line", "files"), HARMLESS, ids=[f"{n}-{c[0]}" for n, c in enumerate(HARMLESS)])
def test_harmless_resolved_code_stays_allowed(tmp_path: Path, line: str, files: dict[str, str]) -> None:
    """PERM-17 (no false ask): builtins, a harmless package or module, a harmless include stay allowed."""
    _write(tmp_path, files)
    allow = "Bash(perl -e:*)" if " -e " in line else f"Bash({line.split()[0]}:*)"
    assert _decide(tmp_path, line, allow) == "allow"


ENVIRONMENT = [
    # Search paths the harness's environment gives the program: make's MAKEFLAGS, PERL5LIB, NODE_PATH.
    ("MAKEFLAGS", "-Isub", "make -s", {"Makefile": "include x.mk\n", "sub/x.mk": "all:\n\t@nuke\n"}),
    ("PERL5LIB", "{dir}/lib", "perl t.pl", {"t.pl": "use Evil;\n", "lib/Evil.pm": _PERL_RUNS}),
    ("PERL5OPT", "-I{dir}/lib -MEvil", "perl t.pl", {"t.pl": "1;\n", "lib/Evil.pm": _PERL_RUNS}),
    ("NODE_PATH", "{dir}/mods", "node t.js", {"t.js": "require('dep');\n", "mods/dep/index.js": _NODE_RUNS}),
    # perl -d:NAME loads Devel::NAME from @INC.
    ("PERL_UNUSED", "", "perl -Ilib -d:Evil t.pl", {"t.pl": "1;\n", "lib/Devel/Evil.pm": _PERL_RUNS}),
]


@pytest.mark.parametrize(
    ("variable", "value", "line", "files"), ENVIRONMENT, ids=[f"{c[0]}-{c[2]}" for c in ENVIRONMENT]
)
def test_search_paths_from_the_environment_are_followed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    line: str,
    files: dict[str, str],
) -> None:
    """PERM-17: the environment's search path (as the program reads it) leads to code that is read too."""
    _write(tmp_path, files)
    monkeypatch.setenv(variable, value.format(dir=tmp_path))
    assert _really_loads(tmp_path, line), "the real program does not load it: no case"
    assert _decide(tmp_path, line, f"Bash({line.split()[0]}:*)") != "allow"


@pytest.mark.parametrize(
    "words",
    [
        ["-I", "d"],
        ["-Id"],
        ["--include-dir=d"],
        ["--include-dir", "d"],
        ["--incl=d"],
        ["-s", "-I", "d", "all"],
    ],
)
def test_make_include_dirs_in_every_spelling(words: list[str]) -> None:
    """make's include directory in each of its spellings, relative to make's directory."""
    assert make_include_dirs(words, "/p") == ["/p/d"]


def test_make_include_dirs_of_a_long_line() -> None:
    """A line of more words than CPython caches as small integers (256) is read to its end, not past it."""
    words = [f"t{n}" for n in range(300)]
    assert make_include_dirs([*words, "-I", "d", *words], "/p") == ["/p/d"]


@pytest.mark.parametrize(
    ("line", "files"),
    [
        ("env MAKEFILES=x.mk make -s", {"Makefile": "all:\n\t@true\n", "x.mk": "all: p\np:\n\t@nuke\n"}),
        ("env PERL5LIB=lib perl t.pl", {"t.pl": "use Evil;\n", "lib/Evil.pm": _PERL_RUNS}),
        ("env -C sub RM=nuke make -s", {"sub/Makefile": "all:\n\t@$(RM) --all\n"}),
    ],
)
def test_what_env_sets_for_the_program_is_followed(tmp_path: Path, line: str, files: dict[str, str]) -> None:
    """PERM-17: a search path or make variable given through ``env`` is the program's environment too."""
    _write(tmp_path, files)
    assert _really_loads(tmp_path, line), "the real program does not load it: no case"
    assert _decide(tmp_path, line, "Bash(env:*)") != "allow"


_GENERATES = "\tprintf 'all: ; @nu%s\\n' ke > $@\n"


@pytest.mark.parametrize(
    ("line", "files"),
    [
        # GNU make's "How Makefiles Are Remade": an included makefile a rule makes is made, then read
        # (reference_impl.permissions._make_remaking decides which).
        ("make -s", {"Makefile": "include gen.mk\ngen.mk:\n" + _GENERATES}),
        ("make -s", {"Makefile": "-include gen.mk\n%.mk:\n" + _GENERATES}),
        ("make -s", {"Makefile": "sinclude gen.mk\ngen.mk: Makefile\n" + _GENERATES}),
        ("make -s", {"Makefile": "include sub/gen.mk\nsub/%.mk:\n\tmkdir -p sub\n" + _GENERATES}),
        # ... the makefile make is given, out of date against its prerequisite.
        ("make -s -f b.mk", {"b.mk": "x:\n\t@true\nb.mk: FORCE\n" + _GENERATES + "FORCE:\n"}),
        # ... and one a built-in rule makes (``%: %.sh`` copies gen.mk.sh to gen.mk).
        ("make -s", {"Makefile": "include gen.mk\n", "gen.mk.sh": "all: ; @nu$(K)ke\n"}),
    ],
)
def test_a_makefile_make_remakes_is_not_its_text_now(
    tmp_path: Path, line: str, files: dict[str, str]
) -> None:
    """PERM-17: a makefile a rule can make is remade before make reads it again: its text is the recipe's."""
    _write(tmp_path, files)
    assert _really_loads(tmp_path, line), "the real make does not run it: no case"
    for name in files:
        if name not in ("Makefile", "gen.mk.sh"):
            (tmp_path / name).unlink(missing_ok=True)  # remove what the real run made
        _write(tmp_path, {name: files[name]})
    (tmp_path / "gen.mk").unlink(missing_ok=True)
    (tmp_path / "sub/gen.mk").unlink(missing_ok=True)
    assert _decide(tmp_path, line, "Bash(make:*)") != "allow"


@pytest.mark.parametrize(
    "files",
    [
        {"Makefile": "all:\n\t@true\nMakefile: ;\n"},  # the manual's way to keep make from remaking it
        {"Makefile": "all:\n\t@true\n%:\n\t@true\n"},  # an existing file with no prerequisite is up to date
        {"Makefile": "include common.mk\nall:\n\t@true\n", "common.mk": "X = 1\n"},
        {"Makefile": "-include gen.mk\nall:\n\t@true\n", "gen.mk.sh": "X = 1\n"},
        # A pattern's ``%`` matches a nonempty stem only (GNU make, "How Patterns Match"): gen.%mk is not gen.mk.
        {
            "Makefile": "include gen.mk\nall:\n\t@true\ngen.%mk: FORCE\n\techo 'X = 2' > $@\nFORCE:\n",
            "gen.mk": "X = 1\n",
        },
    ],
)
def test_a_makefile_no_rule_remakes_stays_read(tmp_path: Path, files: dict[str, str]) -> None:
    """PERM-17: a makefile no rule makes (or ``-r`` keeps built-in rules off) is read as it is."""
    _write(tmp_path, files)
    line = "make -s -r" if "gen.mk.sh" in files else "make -s"
    assert _decide(tmp_path, line, "Bash(make:*)") == "allow"
