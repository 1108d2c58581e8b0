"""Deny rules against what a project's own files make a project tool run (PERM-17).

``npm test`` runs ``package.json``'s scripts, ``make`` its Makefile's recipes, ``python3 -m json.tool``
a ``json`` package the project puts beside it. Each case writes such a file naming a denied program
(a marker writer on ``PATH``), asks the harness to run the tool under an allow rule for it, and, when
the harness runs it unasked, runs the line for real: the denied program must not have run. Without
the tool installed the case skips, naming it.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conformance._controls import run_for_real
from conformance._option_carriers import git_setting_commands, node_loading_option, sed_script_options
from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import PERMISSION_MODES, RuleSpec

_DENIED = "nuke"


@dataclass(frozen=True)
class ProjectCase:
    """Project files that make a project tool run the denied program, the line that runs them, its allow rule."""

    program: str  # the project tool the line starts (npm, make, sh, bash, python3)
    files: dict[str, str]
    line: str
    allow: str
    how: str  # what carries the denied program from the line to its run, for the failure message
    links: tuple[tuple[str, str], ...] = ()  # (a symbolic link, what it points to), made after the files


def _shell_spellings(bin_dir: str) -> st.SearchStrategy[str]:
    """Shell text that runs the denied program, spelled as project code spells it."""
    p = _DENIED
    return st.sampled_from(
        [
            p,
            f"{p} --all",
            f"'{p}'",
            f"\\{p}",
            f"env {p}",
            f"command {p}",
            f"{bin_dir}/{p}",
            f"P={p}; $P",
            f"x=$({p})",
            f"true && {p}",
            f"sh -c '{p} now'",
            f"exec {p}",
        ]
    )


def _npm(inner: str, data: st.DataObject) -> ProjectCase:
    script = data.draw(st.sampled_from(["test", "start"]), label="npm script")
    hook = data.draw(st.sampled_from(["", "pre", "post"]), label="npm hook")
    nested = data.draw(st.booleans(), label="through another script")
    scripts = {script: "true"}
    carrier = f"{hook}{script}"
    if nested:
        scripts[carrier], scripts["inner"] = "npm run inner --silent", inner
    else:
        scripts[carrier] = inner
    lines = {
        "test": [
            "npm test",
            "npm t",
            "npm run test",
            "npm run-script test",
            "npm run test --silent",
            "npm --silent test",
        ],
        "start": ["npm start", "npm run start", "npm run-script start"],
    }[script]
    line = data.draw(st.sampled_from(lines), label="line")
    package = json.dumps({"name": "x", "version": "1.0.0", "scripts": scripts}, indent=2)
    return ProjectCase(
        "npm", {"package.json": package}, line, _allow(line, data), f"package.json {carrier!r}"
    )


_MAKE_SHAPES = ("recipe", "variable", "shell function", "prerequisite", "included", "composed name",
                "recipe prefix", "included by pattern", "target name", "named by MAKEFILES",
                "make's variable from the line", "remade include", "remade makefile")  # fmt: skip


def _generated(text: str) -> str:
    """A recipe line writing ``text`` to ``$@`` with every character an octal escape (no name in it)."""
    escaped = "".join(f"\\0{ord(c):03o}" for c in text)
    return f"\tprintf '%b' '{escaped}' > $@\n"


def _remade(recipe: str, name: str, shape: str, data: st.DataObject) -> str:
    """A makefile make remakes (an included one, or ``name`` itself) before reading what the recipe wrote.

    GNU make's "How Makefiles Are Remade": an ``include``/``-include``/``sinclude`` file an explicit or
    pattern rule makes, or the makefile itself, out of date against a prerequisite.
    """
    written = _generated(f"check:\n\t@{recipe}\n")
    if shape == "remade makefile":
        return f"check:\n\t@true\n{name}: FORCE\n{written}FORCE:\n"
    include = data.draw(st.sampled_from(["include", "-include", "sinclude"]), label="include directive")
    rule = data.draw(st.sampled_from(["gen.mk:", "%.mk:", f"gen.mk: {name}"]), label="rule making it")
    return f"{include} gen.mk\n{rule}\n{written}"


def _make(inner: str, data: st.DataObject, shapes: tuple[str, ...] = _MAKE_SHAPES) -> ProjectCase:
    recipe = inner.replace("$", "$$")  # make expands $ before the shell sees the recipe
    shape = data.draw(st.sampled_from(shapes), label="Makefile shape")
    # The denied program's name put together by make itself: variables, functions, $@, the command line.
    head, tail = _DENIED[:2], _DENIED[2:]
    composed = data.draw(
        st.sampled_from(
            [
                (f"P = {head}\n", f"$(P){tail}"),
                (f"P := {head}\nQ = $(P){tail}\n", "$(Q)"),
                (f"P = {head}\nP += x\n", f"$(firstword $(P)){tail}"),
                ("", f"$(subst X,{tail},{head}X)"),
                ("", f"$(patsubst %X,%{tail},{head}X)"),
                (f"export P ?= {_DENIED}\n", "${P}"),
            ]
        ),
        label="composed name",
    )
    # Which file make reads: the default names, one given with -f, or one in a directory given with -C.
    where = data.draw(st.sampled_from(["Makefile", "makefile", "GNUmakefile", "-f build.mk", "-C sub"]))
    directory = "sub/" if where == "-C sub" else ""
    name = {"-f build.mk": "build.mk", "-C sub": "Makefile"}.get(where, where)
    makefile = {
        "recipe": f"check:\n\t@{recipe}\n",
        "variable": f"RUN = {recipe}\ncheck:\n\t$(RUN)\n",
        "shell function": f"OUT := $(shell {recipe})\ncheck:\n\t@true\n",
        "prerequisite": f"check: prep\n\t@true\nprep:\n\t@{recipe}\n",
        "included": "-include rules.mk\n"
        if data.draw(st.booleans(), label="-include")
        else "include rules.mk\n",
        "composed name": f"{composed[0]}check:\n\t@{composed[1]} --all\n",
        "recipe prefix": f".RECIPEPREFIX = >\ncheck:\n> @{recipe}\n",
        "included by pattern": "-include $(wildcard *.mk)\ncheck:\n\t@true\n",
        "target name": f"check: {_DENIED}\n\t@true\n{_DENIED}:\n\t@$@ --all\n",
        "named by MAKEFILES": "check:\n\t@true\n",
        # A variable of make's own (RM, CC) that the line sets for make alone, through its environment.
        "make's variable from the line": "check:\n\t@$(RM) --all\n",
    }.get(shape) or _remade(recipe, name, shape, data)
    files = {directory + name: makefile}
    if shape in ("included", "included by pattern"):
        files[directory + "rules.mk"] = f"check:\n\t@{recipe}\n"
    if shape == "named by MAKEFILES":
        # Read before the Makefile (make's MAKEFILES variable, set on the line): its prerequisite of
        # check joins the Makefile's rule.
        files[directory + "extra.mk"] = f"check: prep\nprep:\n\t@{recipe}\n"
    option = where if where.startswith("-") else ""
    lines = [f"make {option} check", f"make -s {option} check", f"make {option} check -s"]
    if not option:
        lines.append("make")
    line = " ".join(data.draw(st.sampled_from(lines), label="line").split())
    if shape == "named by MAKEFILES":
        line = "MAKEFILES=extra.mk " + line
    elif shape == "make's variable from the line":
        line = f"RM={_DENIED} " + line
    return ProjectCase("make", files, line, _allow(line, data), f"{directory}{name}'s {shape}")


def _script(inner: str, data: st.DataObject) -> ProjectCase:
    nested = data.draw(st.booleans(), label="a script the script runs")
    files = {"scripts/test.sh": f"#!/bin/sh\necho testing\n{'sh scripts/inner.sh' if nested else inner}\n"}
    if nested:
        files["scripts/inner.sh"] = f"{inner}\n"
    line = data.draw(
        st.sampled_from(
            ["./scripts/test.sh", "bash scripts/test.sh", "sh scripts/test.sh", ". scripts/test.sh"]
        )
    )
    program = {"./": "sh", ". ": "bash"}.get(line[:2], line.split()[0])
    return ProjectCase(
        program, files, line, _allow(line, data), "a script" + (" and the script it runs" if nested else "")
    )


def _python(inner: str, data: st.DataObject) -> ProjectCase:
    code = data.draw(
        st.sampled_from(
            [f"import os\nos.system({inner!r})\n", f"import subprocess\nsubprocess.run([{_DENIED!r}])\n"]
        )
    )
    shape = data.draw(
        st.sampled_from(
            ["shadowed module", "imported helper", "inline code", "module run", "package's relative import"]
        )
    )
    # How the project's code imports the module that runs the denied program.
    importing = data.draw(st.sampled_from(["import helper", "from helper import os", "import sys, helper"]))
    files, line = {"helper.py": code}, ""
    if shape == "shadowed module":
        files = {"json/__init__.py": code, "json/tool.py": ""}
        line = "python3 -m json.tool /dev/null"
    elif shape == "imported helper":
        files["tool.py"] = f"{importing}\n"
        line = "python3 tool.py"
    elif shape == "inline code":
        line = f"python3 -c '{importing}'"
    elif shape == "module run":
        files["tool.py"] = f"{importing}\n"
        line = "python3 -m tool"
    else:
        files = {"pkg/__init__.py": "from .helper import os\n", "pkg/helper.py": code, "pkg/__main__.py": ""}
        line = "python3 -m pkg"
    return ProjectCase("python3", files, line, _allow(line, data), f"a {shape}")


def _make_from_the_line(inner: str, data: st.DataObject) -> ProjectCase:
    """A Makefile make reads from standard input or a pipe the line itself fills."""
    recipe = inner.replace("$", "$$")
    makefile = f"check:\n\t@{recipe}\n"
    form = data.draw(st.sampled_from(["heredoc", "here-string", "process substitution", "descriptor"]))
    quoted = shlex.quote(makefile)
    line = {
        "heredoc": f"make -f - check <<'EOF'\n{makefile}EOF",
        "here-string": f"make --file=- check <<< {quoted}",
        "process substitution": f"make -f <(printf %s {quoted}) check",
        "descriptor": f"make -f /dev/fd/3 check 3<<'EOF'\n{makefile}EOF",
    }[form]
    return ProjectCase("make", {}, line, "Bash(make:*)", f"a Makefile from the line ({form})")


def _pytest(inner: str, data: st.DataObject) -> ProjectCase:
    """Python code pytest imports: a conftest, a test module, a plugin ``-p`` or an ini file names."""
    code = f"import os\nos.system({inner!r})\n"
    shape = data.draw(
        st.sampled_from(
            ["conftest", "test module", "plugin on the line", "plugin in the ini file", "subdirectory"]
        )
    )
    files = {"conftest": {"conftest.py": code}, "test module": {"test_app.py": f"{code}def test_app():\n    pass\n"},
             "plugin on the line": {"helper.py": code}, "plugin in the ini file": {"helper.py": code, "pytest.ini": "[pytest]\naddopts = -p helper\n"},
             "subdirectory": {"tests/conftest.py": code}}[shape]  # fmt: skip
    line = data.draw(
        st.sampled_from(["python3 -m pytest -q", "python3 -m pytest -q -p no:cacheprovider", "pytest -q"])
    )
    if shape == "plugin on the line":
        line += " -p helper"
    return ProjectCase(line.split()[0], files, line, _allow(line, data), f"pytest's {shape}")


def _npm_bin(inner: str, data: st.DataObject) -> ProjectCase:
    """A program of the package's node_modules/.bin, which npm puts first on PATH for its scripts."""
    name = data.draw(st.sampled_from(["lint", "ls", "jest"]))
    package = json.dumps({"name": "x", "version": "1.0.0", "scripts": {"test": f"{name} --ci"}})
    files = {"package.json": package, f"node_modules/.bin/{name}": f"#!/bin/sh\n{inner}\n"}
    line = data.draw(st.sampled_from(["npm test", "npm run test"]))
    return ProjectCase("npm", files, line, _allow(line, data), f"node_modules/.bin/{name}")


def _sent(inner: str, data: st.DataObject) -> ProjectCase:
    """A project tool the line sends to sub/ by its own option, whose file there starts another one of sub/.

    ``npm --prefix sub test`` runs sub/'s ``test`` script in sub/, so that script's ``npm run inner``,
    ``make -s inner`` or ``sh inner.sh`` reads sub/'s files, not the working directory's.
    """
    tool = data.draw(st.sampled_from(["npm", "make"]), label="project tool")
    runner = data.draw(
        st.sampled_from(["npm run inner --silent", "make -s inner", "sh inner.sh", "./inner.sh"]),
        label="what its file runs",
    )
    scripts = {"test": runner if tool == "npm" else "true", "inner": inner}
    recipe = runner if tool == "make" else "true"
    makefile = f"check:\n\t@{recipe}\ninner:\n\t@{inner.replace('$', '$$')}\n"
    if tool == "npm":
        option = data.draw(st.sampled_from(["--prefix sub", "--prefix=sub", "-C sub"]), label="option")
        command = data.draw(st.sampled_from(["test", "run test", "run-script test"]), label="npm command")
    else:
        option = data.draw(
            st.sampled_from(["-C sub", "-Csub", "--directory=sub", "--directory sub"]), label="option"
        )
        command = "check"
    before = data.draw(st.booleans(), label="option first")
    line = f"{tool} {option} {command}" if before else f"{tool} {command} {option}"
    files = {
        "sub/package.json": json.dumps({"name": "x", "version": "1.0.0", "scripts": scripts}, indent=2),
        "sub/Makefile": makefile,
        "sub/inner.sh": f"#!/bin/sh\n{inner}\n",
    }
    return ProjectCase(
        tool, files, line, _allow(line, data), f"sub/'s files, {runner!r} run where {option} sent {tool}"
    )


# The project in evil/, reached by ``..`` after ``l``, a link to evil/sub: the kernel climbs from the
# link's target (a program's chdir, ``cd -P``, bash's ``cd ..`` after ``cd -P l``); the working
# directory holds no project file.
_THROUGH_LINK = (
    "cd -P l/.. && {}",
    "cd -LP l/..; {}",
    "env -C l/.. {}",
    "env --chdir=l/.. {}",
    "cd l && env -C .. {}",
    "cd -P l && cd .. && {}",
)


def _moved(case: ProjectCase, data: st.DataObject) -> ProjectCase:
    """The same project in a subdirectory, the line moving there first (or telling the tool to)."""
    if data.draw(st.booleans(), label="through a link"):
        files = {f"evil/{relative}": text for relative, text in case.files.items()} | {"evil/sub/.keep": ""}
        line = data.draw(st.sampled_from(_THROUGH_LINK)).format(case.line)
        if case.program in ("npm", "make") and data.draw(st.booleans(), label="the tool's own option"):
            option = "--prefix" if case.program == "npm" else "-C"
            line = case.line.replace(f"{case.program} ", f"{case.program} {option} l/.. ", 1)
        how = f"{case.how}, in evil/ by l/.. with l a link to evil/sub ({line})"
        return ProjectCase(case.program, files, line, case.allow, how, (("l", "evil/sub"),))
    files = {f"sub/{relative}": text for relative, text in case.files.items()}
    how = data.draw(
        st.sampled_from(
            [
                "cd sub && {}",
                "cd sub; {}",
                "(cd sub && {})",
                "pushd sub && {}",
                "cd ./sub/ && {}",
                "env -C sub {}",
                "env --chdir=sub {}",
            ]
        )
    )
    line = how.format(case.line)
    if case.program == "npm" and data.draw(st.booleans(), label="npm --prefix"):
        line = case.line.replace("npm ", "npm --prefix sub ", 1)
    return ProjectCase(
        case.program, files, line, case.allow, f"{case.how}, in sub/ ({line.split(' ')[0]} ...)"
    )


@cache
def _help_options(*argv: str) -> tuple[str, ...]:
    """An interpreter's own option spellings, read live from its help: value-less ones as listed."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    text = done.stdout + done.stderr
    if argv[0] == "bash":  # ``set -o`` lists the names ``bash -o NAME`` takes
        return tuple(line.split()[0] for line in text.splitlines() if line.strip())
    # ``-u     : ...`` (python), ``  -w    enable ...`` (perl), ``  --no-warnings  ...`` (node): a
    # spelling followed by its description, with no value (``-W arg``, ``--title=...``) after it.
    found = re.findall(r"^ {0,2}((?:-\w|--[\w-]+))(?: {2,}|\s*:)", text, re.MULTILINE)
    return tuple(dict.fromkeys(found))


# Options that stop the script running, print and exit, wait, or run other code instead: not drawn
# (a drawn case that still does not run the script is discarded by the real run anyway).
_NOT_DRAWN = re.compile(
    r"help|version|check|watch|inspect|test|eval|print|interactive|snapshot|prof|completion|debug|trace|"
    r"report|frozen-intrinsics|experimental|disallow|permission|policy|run$"
)
# Letters that run inline code or a module, read input, print, loop or check instead (``-c``, ``-e``).
_NOT_DRAWN_LETTERS = {"python3": "chimV?", "perl": "ceEnpimMdDvVux"}


def _drawn(program: str, options: tuple[str, ...]) -> list[str]:
    letters = _NOT_DRAWN_LETTERS.get(program, "")
    return [o for o in options if not _NOT_DRAWN.search(o) and not (len(o) == 2 and o[1] in letters)]


def _interpreter_options(program: str) -> list[str]:
    """Value-less options ``program``'s own help lists, and ones with a value in their own spelling."""
    if program == "python3":
        flags = _drawn(program, _help_options("python3", "--help"))
        return [
            *flags,
            "-W ignore",
            "-Wignore",
            "-X dev",
            "-X utf8",
            "--check-hash-based-pycs default",
            "-OO",
            "-bb",
        ]
    if program == "node":
        return _drawn(program, _help_options("node", "--help"))
    if program == "perl":
        return [*_drawn(program, _help_options("perl", "-h")), "-I.", "-I .", "-l"]
    shopt = ["extglob", "nullglob", "dotglob"]
    return [
        *(f"{sign}o {name}" for sign in "-+" for name in _help_options("bash", "-c", "set -o")),
        *(f"{sign}O {name}" for sign in "-+" for name in shopt),
        *(
            "-e",
            "-u",
            "-f",
            "-a",
            "-h",
            "-B",
            "-C",
            "-E",
            "-H",
            "-P",
            "-T",
            "--norc",
            "--noprofile",
            "--posix",
        ),
    ]


def _interpreter_script(inner: str, data: st.DataObject) -> ProjectCase:
    """A script run by an interpreter given options first, or given a directory or a module name."""
    program = data.draw(st.sampled_from(["python3", "node", "perl", "bash"]), label="interpreter")
    code = {
        "python3": f"import os\nos.system({inner!r})\n",
        "node": f"require('child_process').execSync({json.dumps(inner)})\n",
        "perl": f"system({json.dumps(inner).replace('$', chr(92) + '$')});\n",
        "bash": f"{inner}\n",
    }[program]
    name = {"python3": "tool.py", "node": "tool.js", "perl": "tool.pl", "bash": "tool.sh"}[program]
    # Where the code is and how the line names it: a file, a directory, a name the interpreter completes.
    targets = {
        "python3": [({name: code}, name), ({"app/__main__.py": code}, "app"), ({"__main__.py": code}, "."),
                    ({name: code}, "-m tool"), ({"app/__init__.py": "", "app/__main__.py": code}, "-m app")],
        "node": [({name: code}, name), ({name: code}, "tool"), ({"app/index.js": code}, "app"),
                 ({"index.js": code}, "."),
                 ({"app/package.json": '{"main": "lib/start.js"}', "app/lib/start.js": code}, "app")],
        "perl": [({name: code}, name)],
        "bash": [({name: code}, name)],
    }[program]  # fmt: skip
    files, target = data.draw(st.sampled_from(targets), label="script")
    options = data.draw(st.lists(st.sampled_from(_interpreter_options(program)), max_size=3), label="options")
    # Spelled as the interpreter reads alike: separate words, short flags bundled, ``--`` before the script.
    singles = [o for o in options if re.fullmatch(r"-\w", o)]
    if len(singles) > 1 and data.draw(st.booleans(), label="bundled"):
        options = [o for o in options if o not in singles] + ["-" + "".join(o[1] for o in singles)]
    if target.startswith("-m ") and data.draw(st.booleans(), label="-m bundled"):
        target = "-B" + target[1:].replace(" ", " ", 1)  # ``-Bm tool``
    elif not target.startswith("-m ") and data.draw(st.booleans(), label="--"):
        target = f"-- {target}"
    line = " ".join([program, *options, target])
    return ProjectCase(
        program, files, line, _allow(line, data), f"{program}'s script after its options ({target})"
    )


# Where node's test runner finds test files by its default patterns (node 20, doc/api/test.md
# "Running tests from the command line"), and how a line starts it.
_NODE_TEST_FILES = (
    "test.js",
    "x.test.js",
    "x-test.mjs",
    "x_test.cjs",
    "test-x.js",
    "test/x.js",
    "sub/test/y.cjs",
)
_NODE_TEST_LINES = (
    "node --test",
    "node --test-reporter=tap --test",
    "node --no-warnings --test",
    "node --test {file}",
)


def _test_runner(inner: str, data: st.DataObject) -> ProjectCase:
    """A test runner's test files, which the line does not name: node's, unittest's discovery, doctest's text."""
    runner = data.draw(st.sampled_from(["node --test", "unittest", "doctest"]))
    if runner == "node --test":
        name = data.draw(st.sampled_from(_NODE_TEST_FILES))
        line = data.draw(st.sampled_from(_NODE_TEST_LINES)).format(file=name)
        code = f"require('child_process').execSync({json.dumps(inner)});\n"
        files = {name: code, "package.json": json.dumps({"name": "x", "version": "1.0.0"})}
        return ProjectCase("node", files, line, _allow(line, data), f"node --test's {name}")
    code = f"import os\nos.system({inner!r})\n"
    if runner == "unittest":
        where = data.draw(st.sampled_from(["", "tests/"]))
        files = {f"{where}test_x.py": code, **({"tests/__init__.py": ""} if where else {})}
        line = data.draw(
            st.sampled_from(["python3 -m unittest", "python3 -m unittest discover", "python3 -m unittest -q"])
        )
        if where and "discover" in line:
            line += " -s tests"
        return ProjectCase("python3", files, line, _allow(line, data), f"unittest's {where}test_x.py")
    example = f">>> import os\n>>> _ = os.system({inner!r})\n"
    line = data.draw(st.sampled_from(["python3 -m doctest x.txt", "python3 -m doctest -o ELLIPSIS x.txt"]))
    return ProjectCase("python3", {"x.txt": example}, line, _allow(line, data), "doctest's x.txt")


# Runners of the project's own code installed here (mypy and coverage beside this interpreter), each with
# the files its documentation says it runs (project_runners.json), how they run shell text, and the lines
# that start it.
_PLUGIN = "import os\nos.system({inner})\ndef plugin(version):\n    from mypy.plugin import Plugin\n    return Plugin\n"
_RUNNER_FILES: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "ctest": ({"CTestTestfile.cmake": "add_test(t sh -c [==[{inner}]==])\n"},
              ("ctest", "ctest -Q", "ctest --output-on-failure", "ctest -R t")),
    "cmake": ({"CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\n"
                                 "execute_process(COMMAND sh -c [==[{inner}]==])\n"},
              ("cmake -S . -B build", "cmake -B build", "cmake --log-level=ERROR -S . -B out")),
    "cmake -P": ({"x.cmake": "execute_process(COMMAND sh -c [==[{inner}]==])\n"}, ("cmake -P x.cmake",)),
    "ninja": ({"build.ninja": "rule r\n  command = {inner}\nbuild a: r\n"}, ("ninja", "ninja -v", "ninja a")),
    "prove": ({"t/a.t": "system({inner});\nprint \"1..1\\nok 1\\n\";\n"}, ("prove", "prove -Q", "prove t", "prove -r")),
    "mypy": ({"mypy.ini": "[mypy]\nplugins = plug.py\n", "plug.py": _PLUGIN, "x.py": "x = 1\n"},
             ("mypy x.py", "mypy --no-incremental x.py")),
    "mypy pyproject": ({"pyproject.toml": '[tool.mypy]\nplugins = ["plug.py"]\n', "plug.py": _PLUGIN, "x.py": "x = 1\n"},
                       ("mypy x.py",)),
    "coverage": ({"x.py": "import os\nos.system({inner})\n"}, ("coverage run x.py", "coverage run -m x")),
}  # fmt: skip


def _project_runner(inner: str, data: st.DataObject) -> ProjectCase:
    """A runner of the project's own code (a test runner, a build tool, a linter's plugin) and the files it runs.

    Read by nothing: the engine asks, whatever allow rule names the runner (its catalogue, project_runners.json).
    """
    # Only the runners installed here are drawn: one missing (coverage, mypy under a bare install) is no
    # attempt, and a skip would leave the whole carrier unchecked.
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    installed = [
        r for r in sorted(_RUNNER_FILES) if shutil.which(_RUNNER_FILES[r][1][0].split()[0], path=path)
    ]
    if not installed:
        pytest.skip("none of the project runners this carrier draws is installed")
    runner = data.draw(st.sampled_from(installed), label="runner")
    templates, lines = _RUNNER_FILES[runner]
    line = data.draw(st.sampled_from(lines), label="line")
    wrapper = data.draw(st.sampled_from(["", "nice ", "timeout 60 "]), label="wrapper")
    files = {}
    for name, template in templates.items():
        # Shell text as each file spells it: a bracket argument, a ninja command ($ doubled), a string.
        spelled = {"ninja": inner.replace("$", "$$"), "t/a.t": json.dumps(inner).replace("$", chr(92) + "$")}
        code = repr(inner) if name.endswith(".py") else spelled.get(name, spelled.get(runner, inner))
        files[name] = template.format(inner=code)
    return ProjectCase(
        line.split()[0], files, wrapper + line, _allow(line, data), f"{runner}'s {', '.join(files)}"
    )


def _allow(line: str, data: st.DataObject) -> str:
    """An allow rule for the line: its program, its first two words, or the line itself."""
    words = line.split()
    return data.draw(
        st.sampled_from(
            list(dict.fromkeys([f"Bash({words[0]}:*)", f"Bash({' '.join(words[:2])}:*)", f"Bash({line})"]))
        ),
        label="allow rule",
    )


# npm's commands (with aliases) and the package.json scripts its documentation says each runs; a drawn
# pair that does not run is discarded by the real run, so the table may be generous.
_NPM_LIFECYCLE = {
    "npm install": ("preinstall", "install", "postinstall", "prepare", "preprepare", "postprepare",
                    "dependencies"),
    "npm i": ("preinstall", "postinstall", "prepare"),
    "npm ci": ("preinstall", "install", "postinstall", "prepare"),
    "npm pack --dry-run": ("prepack", "prepare", "postpack"),
    "npm version patch --no-git-tag-version": ("preversion", "version", "postversion"),
    "npm rebuild": ("preinstall", "install", "postinstall"),
    "npm rb": ("install",),
    "npm start": ("prestart", "start", "poststart"),
    "npm stop": ("prestop", "stop", "poststop"),
    "npm restart": ("prerestart", "restart", "postrestart", "prestop", "poststart"),
    "npm run build": ("prebuild", "build", "postbuild"),
    "npm run-script build": ("prebuild", "postbuild"),
    "npm uninstall nothing": ("dependencies", "predependencies"),
}  # fmt: skip
_NPM_OFFLINE = "offline=true\naudit=false\nfund=false\nupdate-notifier=false\n"


def _npm_lifecycle(inner: str, data: st.DataObject) -> ProjectCase:
    """A package.json script an npm command's documented lifecycle runs, naming the denied program."""
    line = data.draw(st.sampled_from(sorted(_NPM_LIFECYCLE)), label="npm command")
    hook = data.draw(st.sampled_from(_NPM_LIFECYCLE[line]), label="script it runs")
    nested = data.draw(st.booleans(), label="through another script")
    scripts = {"build": "true", "start": "true", "stop": "true", "restart": "true"}
    scripts.update({hook: "npm run inner --silent", "inner": inner} if nested else {hook: inner})
    package = json.dumps({"name": "x", "version": "1.0.0", "scripts": scripts}, indent=2)
    files = {"package.json": package, ".npmrc": _NPM_OFFLINE}
    return ProjectCase("npm", files, line, _allow(line, data), f"package.json {hook!r} ({line})")


def _project_build(inner: str, data: st.DataObject) -> ProjectCase:
    """Build code a Python or Rust build runs: setup.py, a PEP 517 in-tree backend, build.rs."""
    tool = data.draw(st.sampled_from(["pip", "cargo"]), label="build tool")
    if tool == "cargo":
        build_rs = f'fn main() {{ let _ = std::process::Command::new("sh").args(["-c", {json.dumps(inner)}]).status(); }}\n'
        files = {"Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n',
                 "build.rs": build_rs, "src/main.rs": "fn main() {}\n"}  # fmt: skip
        line = data.draw(st.sampled_from(["cargo build --offline", "cargo b --offline", "cargo check --offline",
                                          "cargo run --offline -q", "cargo test --offline --no-run"]))  # fmt: skip
        return ProjectCase("cargo", files, line, _allow(line, data), "build.rs")
    code = f"import os\nos.system({inner!r})\n"
    shape = data.draw(st.sampled_from(["setup.py", "in-tree backend"]), label="build code")
    if shape == "setup.py":
        files = {"setup.py": f"{code}from setuptools import setup\nsetup(name='x', version='1.0')\n"}
    else:
        files = {"pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
                 "backend.py": code}  # fmt: skip
    operand = data.draw(st.sampled_from([".", "./", "-e .", "-r requirements.txt"]), label="operand")
    if operand.startswith("-r"):
        files["requirements.txt"] = data.draw(st.sampled_from(["-e .\n", ".\n", "./\n"]))
    sub = data.draw(st.sampled_from(["install", "wheel -w wheels"]), label="pip command")
    prefix = data.draw(st.sampled_from(["pip", "python3 -m pip"]), label="pip")
    line = f"{prefix} {sub} --no-build-isolation --no-deps --no-index --target t {operand}"
    line = line.replace(" --target t", "") if sub.startswith("wheel") else line
    return ProjectCase(prefix.split()[0], files, line, _allow(line, data), shape)


def _package_on_the_line(inner: str, data: st.DataObject) -> ProjectCase:
    """A package the line names from a directory (by path, ``file:``, an alias of one): its scripts run.

    Not the project's own package.json: npm installs the package named on the line and runs that
    package's lifecycle scripts (session 31's red team: ``npm install ./x.tgz``, ``../dep``, ``x@file:``).
    """
    where = data.draw(st.sampled_from(["dep", "vendor/dep", "../dep"]), label="where the package is")
    spec = data.draw(
        st.sampled_from(["{d}", "./{d}", "file:{d}", "x@file:{d}", "x@file:./{d}"]), label="spec"
    ).format(d=where)
    spec = spec.replace("./../", "../")
    if spec == "dep" or spec == "vendor/dep":
        spec = f"./{spec}"  # a bare name is a registry package (vendor/dep: a GitHub repository)
    hook = data.draw(st.sampled_from(["preinstall", "install", "postinstall", "prepare"]), label="its script")
    package = json.dumps({"name": "x", "version": "1.0.0", "scripts": {hook: inner}})
    command = data.draw(
        st.sampled_from(["npm install", "npm i", "npm add", "npm install --no-save", "npm isntall"])
    )
    line = f"{command} {spec}"
    files = {f"{where}/package.json": package, ".npmrc": _NPM_OFFLINE, "package.json": '{"name": "app"}'}
    return ProjectCase("npm", files, line, _allow(line, data), f"{spec}'s {hook!r} script")


def _sed_script(inner: str, data: st.DataObject) -> ProjectCase:
    """The sed script running the denied program, after sed's options spelled every way its grammar takes."""
    files, line, how = sed_script_options(inner, data)
    return ProjectCase("sed", files, line, _allow(line, data), how)


def _node_loading(inner: str, data: st.DataObject) -> ProjectCase:
    """A project module a node option its help says takes a module loads (``--experimental-loader``)."""
    files, line, how = node_loading_option(inner, data)
    # Not an allow rule naming the loading option: one that does vouches for what it loads, by design.
    return ProjectCase("node", files, line, "Bash(node:*)", how)


def _ascii_tar(members: dict[str, str]) -> str:
    """An uncompressed tar of ASCII members, as text (its headers are ASCII and NULs): an sdist on disk."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name, text in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(text.encode()), 0o644
            archive.addfile(info, io.BytesIO(text.encode()))
    return buffer.getvalue().decode("ascii")


def _named_by_option(inner: str, data: st.DataObject, shape: str) -> ProjectCase:
    """Code a package or toolchain manager runs because an option or a project file names it.

    ``pip --python X`` runs pip again under X; ``pip install -f d x`` (a requirements file's
    ``--find-links``, a ``file:`` index) builds the sdist it finds in d; rustup's
    ``rust-toolchain(.toml)`` naming a toolchain by its path makes ``cargo --version`` run its
    ``bin/cargo`` (session 33's red team).
    """
    script = f"#!/bin/sh\n{inner}\n"
    if shape == "pip --python":
        files = data.draw(st.sampled_from([{"evil": script}, {"v/bin/python": script}]), label="interpreter")
        at = "./evil" if "evil" in files else data.draw(st.sampled_from(["v", "./v", "v/bin/python"]))
        option = data.draw(st.sampled_from(["--python={}", "--python {}", "--pyth={}", "--pytho {}"]))
        prefix = data.draw(st.sampled_from(["pip", "python3 -m pip"]), label="pip")
        line = f"{prefix} {option.format(at)} {data.draw(st.sampled_from(['list', 'freeze', 'check']))}"
        return ProjectCase(prefix.split()[0], files, line, _allow(line, data), f"pip --python {at}")
    if shape == "pip find-links":
        backend = f"import os\nos.system({inner!r})\ndef get_requires_for_build_wheel(c=None): return []\n"
        sdist = _ascii_tar({"x-1.0/pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "b"\n'
                            'backend-path = ["."]\n', "x-1.0/b.py": backend,
                            "x-1.0/PKG-INFO": "Metadata-Version: 2.1\nName: x\nVersion: 1.0\n"})  # fmt: skip
        files = {"d/x-1.0.tar": sdist}
        how = data.draw(st.sampled_from(["-f ./d", "--find-links d", "-fd", "--find-l=d", "-r req.txt"]))
        if how.startswith("-r"):
            files["req.txt"] = "--no-index\n--find-links ./d\nx\n"
        sub = data.draw(st.sampled_from(["install --dry-run --no-deps", "download -d out", "wheel -w out"]))
        prefix = data.draw(st.sampled_from(["pip", "python3 -m pip"]), label="pip")
        line = f"{prefix} {sub} --no-index {how}" + ("" if how.startswith("-r") else " x")
        return ProjectCase(prefix.split()[0], files, line, _allow(line, data), f"the sdist pip {how} finds")
    toolchain = fresh_dir() / "tc"
    for program in ("cargo", "rustc"):
        (toolchain / "bin").mkdir(parents=True, exist_ok=True)
        (toolchain / "bin" / program).write_text(script)
        (toolchain / "bin" / program).chmod(0o755)
    (toolchain / "lib").mkdir(exist_ok=True)
    files = data.draw(
        st.sampled_from(
            [
                {"rust-toolchain": f"{toolchain}\n"},
                {"rust-toolchain.toml": f'[toolchain]\npath = "{toolchain}"\n'},
            ]
        ),
        label="toolchain file",
    )
    line = data.draw(st.sampled_from(["cargo --version", "cargo version", "rustc --version", "cargo -V"]))
    return ProjectCase(
        line.split()[0], files, line, _allow(line, data), f"the toolchain {next(iter(files))} names"
    )


_CARRIERS: dict[str, Callable[[str, st.DataObject], ProjectCase]] = {
    "pip --python": lambda inner, data: _named_by_option(inner, data, "pip --python"),
    "pip find-links": lambda inner, data: _named_by_option(inner, data, "pip find-links"),
    "rustup toolchain file": lambda inner, data: _named_by_option(inner, data, "rustup toolchain"),
    "npm lifecycle": _npm_lifecycle,
    "package on the line": _package_on_the_line,
    "project build": _project_build,
    "npm": _npm,
    "make": _make,
    "script": _script,
    "python": _python,
    "make from the line": _make_from_the_line,
    "pytest": _pytest,
    "npm bin": _npm_bin,
    "interpreter options": _interpreter_script,
    "test runner": _test_runner,
    "project runner": _project_runner,
}


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
# Each carrier its own examples: drawn from one pool of 40, a carrier got five or six, too few for
# the shapes within it (a helper a Python script imports went undrawn).
@pytest.mark.parametrize("carrier", sorted(_CARRIERS))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_what_the_project_files_name(
    new_harness: Callable[[], Any], data: st.DataObject, carrier: str, mode: str
) -> None:
    """PERM-17: a deny rule's program, named by a project file a project tool runs, never runs unasked.

    Drawn: the project tool (``npm`` scripts with their ``pre``/``post`` scripts, a Makefile's recipe,
    variable, ``$(shell)``, prerequisite or included file, a script by its path or given to a shell, a
    Python module the project shadows or a helper a script imports, the lifecycle scripts an npm
    command runs by npm's documentation (``npm install``'s ``preinstall``, ``npm pack``'s ``prepack``,
    ``npm uninstall``'s ``dependencies``), a package the line names from a directory (``./dep``,
    ``file:dep``, ``x@file:../dep``) whose own lifecycle scripts npm runs, a Python build's ``setup.py`` or in-tree backend, a Rust
    package's ``build.rs``, the test files a test runner finds: ``node --test``, unittest's discovery, doctest's text
    files; a runner of the project's own code: ``ctest``'s CTestTestfile.cmake, ``cmake``'s CMakeLists.txt or
    ``-P`` script, ``ninja``'s build.ninja, ``prove``'s t/*.t, ``mypy``'s plugin, ``coverage run``'s program), one more level of indirection (a script that runs another), the
    directory the line sends the tool to (``cd sub &&``, ``npm --prefix sub``, ``env -C sub``), the spelling of the denied program inside the project's code
    (quoted, escaped, by path, wrapped, through a variable or a substitution), the line's own spelling
    and an allow rule for it (its program, two words, the line), in every mode. Real ``npm``, ``make``,
    ``bash``, ``python3``, ``ctest``, ``cmake``, ``ninja``, ``prove``, ``mypy`` and ``coverage`` are the judge: each drawn case is run for real, and one that does not run
    the denied program is not an attempt (discarded); the harness must not have run one that does.
    """
    _check_case(new_harness, data, mode, lambda inner: _CARRIERS[carrier](inner, data))


def _git_setting(inner: str, data: st.DataObject) -> ProjectCase:
    """A command git runs from a ``-c`` setting, among git's global options (``git -C . -c alias.x='!CMD' x``)."""
    files, line, how = git_setting_commands(inner, data)
    return ProjectCase("git", files, line, _allow(line, data), how)


_OPTION_CARRIERS = {
    "sed script after its options": _sed_script,
    "node loading options": _node_loading,
    "git settings among its global options": _git_setting,
}


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.parametrize("carrier", sorted(_OPTION_CARRIERS))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_code_an_option_grammar_gives(
    new_harness: Callable[[], Any], data: st.DataObject, carrier: str, mode: str
) -> None:
    """PERM-17: a program's script or loaded module, found by the program's own option grammar, is read.

    Drawn from the programs' help, read live (:mod:`conformance._option_carriers`): sed's script
    running the denied program (``1e CMD``) as the operand after sed's options in every spelling
    GNU getopt takes (``-l 5``, ``--line-len 5``, ``-nl 5``, ``-i.bak``, options after the operand),
    or by ``-e``/``--expression``/``-f``; a project module a node option its help says takes a
    module loads (``--loader``, ``--experimental-loader``, ``--import``, ``-r``), ``=`` or the next
    word; a command git runs from a ``-c`` setting (an alias, ``diff.external``, ``core.sshCommand``)
    among 0-5 global options its usage lists (``-C .``, ``-c user.name=x``, ``--namespace ns``). Real
    sed, node and git are the judge (session 33's red team: ``sed -l 5 'e CMD' f``).
    """
    _check_case(new_harness, data, mode, lambda inner: _OPTION_CARRIERS[carrier](inner, data))


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_what_make_puts_together(
    new_harness: Callable[[], Any], data: st.DataObject, mode: str
) -> None:
    """PERM-17: a denied program whose name make itself puts together never runs unasked.

    The make carrier alone, with the shapes where the name exists only as make expands the Makefile:
    variables (``=``, ``:=``, ``+=``, ``?=``, ``export``), functions (``subst``, ``patsubst``,
    ``firstword``), ``$@`` of a target named after it, a recipe prefix of the Makefile's own, files
    included by a pattern, and a makefile make remakes before reading it again (GNU make's "How
    Makefiles Are Remade": an included file or the makefile itself, written by a recipe whose text
    holds the name only as octal escapes); real make is the judge.
    """
    shapes = ("composed name", "recipe prefix", "included by pattern", "target name", "remade include",
              "remade makefile")  # fmt: skip
    _check_case(new_harness, data, mode, lambda inner: _make(inner, data, shapes))


# How make puts a text together from parts (_make_text): its assignments and its text functions.
_MAKE_STEPS = ("literal", "split", "variable", "chain", "chain", "appended", "subst", "patsubst", "addprefix", "addsuffix",
               "firstword", "lastword", "filter", "filter-out", "notdir", "basename", "suffix", "strip", "sort")  # fmt: skip
_DECOY_WORDS = ("a.c", "x1", "dir/q.o")
_DECOY_PATTERNS = ("%.c", "x%", "%.o", "q%e", "%x")


def _make_text(text: str, data: st.DataObject, definitions: list[str], depth: int = 0) -> str:
    """A make expression that expands to ``text``, put together by make's own language, drawn and nested.

    Assignments of every flavour (``=``, ``:=``, ``::=``, ``?=``, ``export``, ``+=``) and the text
    functions, each built around a part of ``text`` that is itself drawn the same way, to depth 3.
    ``definitions`` receives the assignments, in the order make must read them.
    """
    step = "literal" if depth >= 3 else data.draw(st.sampled_from(_MAKE_STEPS), label=f"make step {depth}")
    cut = data.draw(st.integers(0, len(text)), label="cut") if step != "literal" else 0
    head, tail = text[:cut], text[cut:]

    def part(piece: str) -> str:
        return _make_text(piece, data, definitions, depth + 1) if piece else ""

    decoy = data.draw(st.sampled_from(_DECOY_WORDS), label="decoy word")
    if step == "split":
        return part(head) + part(tail)
    if step == "chain" and head and tail:
        # One variable's value refers to another's: ``B := $(A)ke`` takes A's value where it stands.
        first = _make_text(head, data, definitions, 3 if depth else 1)
        name = f"V{len(definitions)}"
        definitions.append(f"{name} = {first}")
        operator = data.draw(st.sampled_from(["=", ":=", "::="]), label="chained assignment")
        rest = part(tail)
        definitions.append(f"V{len(definitions)} {operator} $({name}){rest}")
        return f"$({definitions[-1].split()[0]})"
    if step in ("variable", "appended"):
        value = part(text)
        name = f"V{len(definitions)}"
        operator = data.draw(st.sampled_from(["=", ":=", "::=", "?=", "export ="]), label="assignment")
        export, _, operator = operator.rpartition(" ")
        definitions.append(f"{export + ' ' if export else ''}{name} {operator} {value}")
        reference = data.draw(st.sampled_from([f"$({name})", f"${{{name}}}"]), label="reference")
        if step == "appended":  # the value's first word, a word appended after it
            definitions.append(f"{name} += {decoy}")
            return f"$(firstword {reference})"
        return reference
    if step == "subst" and head:
        return f"$(subst X,{part(head)},X{part(tail)})"
    if step == "patsubst" and head:
        before, after = data.draw(
            st.sampled_from([("", "X"), ("q.", ""), ("q", "X"), ("", "")]), label="pattern"
        )
        return f"$(patsubst {before}%{after},%{part(tail)},{before}{part(head)}{after} {decoy})"
    if step == "addprefix" and head and tail:
        return f"$(addprefix {part(head)},{part(tail)})"
    if step == "addsuffix" and head and tail:
        return f"$(addsuffix {part(tail)},{part(head)})"
    if step == "firstword":
        return f"$(firstword {part(text)} {decoy})"
    if step == "lastword":
        return f"$(lastword {decoy} {part(text)})"
    if step == "filter":
        pattern = data.draw(st.sampled_from([f"{head}%", f"%{tail}", f"{head}%{tail}", "%"]), label="filter")
        return f"$(filter {pattern},{part(text)} {decoy})"
    if step == "filter-out":
        patterns = data.draw(st.lists(st.sampled_from(_DECOY_PATTERNS), min_size=1, max_size=3), label="out")
        return f"$(filter-out {' '.join(patterns)},{part(text)} {decoy})"
    if step == "notdir":
        return f"$(notdir {data.draw(st.sampled_from(['d', 'a/b']), label='directory')}/{part(text)})"
    if step == "basename":
        return f"$(basename {part(text)}.c)"
    if step == "suffix" and tail and "." not in tail:
        # ``$(suffix x1 q.ke)`` is ``.ke``: a word with no period gives nothing, not an empty word.
        return f"{part(head)}$(subst .,,$(suffix x1 q.{tail}))"
    if step == "strip":
        return f"$(strip  {part(text)} )"
    if step == "sort":
        return f"$(sort {part(text)})"
    return text


def _make_composed(inner: str, data: st.DataObject) -> ProjectCase:
    """A Makefile whose recipe runs the denied program by a name only make's own language puts together."""
    definitions: list[str] = []
    name = _make_text(_DENIED, data, definitions)
    # Variables the recipe's name was built from, defined again after they were used: a recursive
    # variable then takes the new value, a simply expanded one (``:=``) keeps the one it had.
    named = set(re.findall(r"\$[({](V\d+)", name))
    defined = sorted(
        {line.split()[1] if line.startswith("export ") else line.split()[0] for line in definitions} - named
    )
    if defined:
        again = data.draw(st.lists(st.sampled_from(defined), max_size=3, unique=True), label="defined again")
        definitions += [f"{v} = true" for v in again]
    line = data.draw(st.sampled_from(["make", "make check", "make -s check"]), label="line")
    makefile = "".join(f"{d}\n" for d in definitions) + f"check:\n\t@{name} --all\n"
    return ProjectCase("make", {"Makefile": makefile}, line, _allow(line, data), "make's own language")


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_the_name_make_composes_with_its_own_language(
    new_harness: Callable[[], Any], data: st.DataObject, mode: str
) -> None:
    """PERM-17: a denied program whose name make's assignments and text functions compose never runs unasked.

    Drawn and nested to depth 3: the name split into parts, each part put together by an assignment
    of any flavour (``=``, ``:=``, ``::=``, ``?=``, ``export``, ``+=`` then ``firstword``) or a text
    function around it (``subst``, ``patsubst`` with a pattern before and after the stem, ``addprefix``,
    ``addsuffix``, ``firstword``, ``lastword``, ``filter`` and ``filter-out`` with decoy words and
    patterns, ``notdir``, ``basename``, ``strip``, ``sort``); then variables defined again after they
    were used (a ``:=`` variable keeps its earlier value); the line, its allow rule and the mode.
    Real make is the judge: a drawn Makefile that does not run the denied program is discarded.
    """
    _check_case(new_harness, data, mode, lambda inner: _make_composed(inner, data))


def _make_variable_from_the_line(inner: str, data: st.DataObject) -> ProjectCase:
    """A Makefile recipe that runs one of make's own variables, which the line sets for make.

    Either the line's value names the denied program (make's built-in value gives way to its
    environment), or the Makefile defines the variable itself as the denied program, put together so
    that no word of the file names it, and the line's value is harmless (the Makefile's wins).
    """
    name = data.draw(st.sampled_from(["RM", "CC", "AR", "CXX"]), label="make's variable")
    defined = data.draw(st.booleans(), label="the Makefile defines it")
    head, tail = _DENIED[:2], _DENIED[2:]
    definition = f"P = {head}\n{name} = $(P){tail}\n" if defined else ""
    value = "true" if defined else shlex.quote(inner)
    # How the value reaches make: set for the command (the wrappers before make pass it on), or by env.
    unsets = data.draw(
        st.lists(st.sampled_from(["-u HOME", "-u LANG", "--unset=TZ", "-uTERM"]), max_size=3),
        label="env takes away",
    )
    setter = data.draw(st.sampled_from(["", "env ", "env -- "]), label="set by")
    if setter and unsets:  # env's options first, variables it takes away (not the one the line sets)
        setter = f"env {' '.join(unsets)} {setter[4:]}"
    outer = data.draw(
        st.sampled_from(["", "nice ", "timeout 5 ", "command ", "nohup "]), label="outer wrapper"
    )
    between = data.draw(st.sampled_from(["", "nice ", "timeout 5 ", "env "]), label="wrapper before make")
    words = data.draw(st.sampled_from(["", " check", " -s check", " check -s"]), label="make's words")
    line = f"{outer if setter else ''}{setter}{name}={value} {between}make{words}"
    files = {"Makefile": f"{definition}check:\n\t@$({name}) --all\n"}
    how = f"make's {name} {'of the Makefile' if defined else 'set by the line'}"
    return ProjectCase("make", files, line, _allow(line, data), how)


# Carriers drawn apart, each with examples of its own: the dimension each adds is one a shared pool
# of examples reaches too rarely.
_WHERE_AND_HOW = {"sent to a directory": _sent, "make's variable from the line": _make_variable_from_the_line}


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.parametrize("carrier", sorted(_WHERE_AND_HOW))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_where_the_line_sends_the_tool_and_what_it_sets(
    new_harness: Callable[[], Any], data: st.DataObject, carrier: str, mode: str
) -> None:
    """PERM-17: a denied program a project tool runs where the line sent it, or through a variable the line sets, never runs unasked.

    *Sent to a directory*: ``npm --prefix sub test`` runs sub/'s ``test`` script in sub/; when that
    script runs ``npm run inner``, ``make -s inner`` or ``sh inner.sh``, those read sub/'s files.
    Drawn: the tool (npm, make), its directory option's spelling (``--prefix sub``, ``--prefix=sub``,
    ``-C sub``, ``-Csub``, ``--directory=sub``) before or after its command, what its file runs there.

    *make's variable from the line*: ``RM=nuke make``, ``env RM=nuke make``, ``nice env RM=nuke
    timeout 5 make`` put ``RM`` in make's environment, where it stands in for make's built-in
    ``rm -f``; a variable the Makefile defines itself wins over the environment (``RM=true make``
    still runs the Makefile's ``RM``). Drawn: the variable (``RM``, ``CC``, ``AR``, ``CXX``), whether
    the Makefile defines it, how the line sets it (for the command, through ``env`` with or without
    its options), the wrappers around ``env`` and before make, make's own words.

    Both: the denied program's spelling, the line's allow rule and the mode; real npm and make are
    the judge.
    """
    _check_case(new_harness, data, mode, lambda inner: _WHERE_AND_HOW[carrier](inner, data))


def _check_case(
    new_harness: Callable[[], Any], data: st.DataObject, mode: str, build: Callable[[str], ProjectCase]
) -> None:
    """Draw the denied program's spelling, build the case, ask the harness, and let the real tools judge."""
    root = fresh_dir()
    work, bin_dir = root / "work", root / "bin"
    bin_dir.mkdir(parents=True)
    inner = data.draw(_shell_spellings(str(bin_dir)), label="denied program spelled")
    case = build(inner)
    moved: bool = bool(case.files) and data.draw(st.booleans(), label="in a subdirectory")
    if moved:
        case = _moved(case, data)
    # The tools as this interpreter's environment has them (pytest is installed beside it).
    path = os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    if shutil.which(case.program, path=path) is None:
        pytest.skip(f"{case.program} is not installed")
    marker = root / "ran"
    (bin_dir / _DENIED).write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\n")
    (bin_dir / _DENIED).chmod(0o755)
    for relative, text in case.files.items():
        (work / relative).parent.mkdir(parents=True, exist_ok=True)
        (work / relative).write_text(text)
        if text.startswith("#!"):
            (work / relative).chmod(0o755)
    for link, target in case.links:
        (work / link).symlink_to(target)
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(case.allow, "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": case.line})], rules=rules, mode=mode, cwd=work
    )
    env = {**os.environ, "PATH": path}
    run_for_real(case.line, work, env)
    assume(marker.exists())  # the drawn files really run the denied program
    assert run.ran() == 0, (
        f"{case.line!r} under {case.allow} ran unasked ({mode}); for real it runs {_DENIED} through "
        f"{case.how}: {inner!r}\nfiles: {json.dumps(case.files, indent=1)}"
    )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=10, deadline=None)
@given(
    line=st.sampled_from(sorted(_NPM_LIFECYCLE)),
    hooks=st.lists(st.sampled_from(sorted({h for hs in _NPM_LIFECYCLE.values() for h in hs})), max_size=4),
    run=st.sampled_from(["echo building", "true", "ls -a"]),
)
def test_lifecycle_scripts_that_run_nothing_denied_keep_npm_allowed(
    new_harness: Callable[[], Any], line: str, hooks: list[str], run: str
) -> None:
    """PERM-17 (control): npm's lifecycle scripts that name no denied program leave the allow rule in force.

    Drawn: the npm command and which of its documented scripts the package defines, each running an
    ordinary command; under ``Bash(nuke:*)`` deny and an allow rule for the line, the harness runs it.
    """
    work = fresh_dir() / "work"
    work.mkdir(parents=True)
    scripts = dict.fromkeys(hooks, run)
    (work / "package.json").write_text(json.dumps({"name": "x", "version": "1.0.0", "scripts": scripts}))
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(f"Bash({line})", "allow")]
    done = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    assert done.ran() == 1, f"{line!r} with scripts {scripts} was not allowed: {done.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
def test_ordinary_project_files_keep_their_tools_allowed(new_harness: Callable[[], Any]) -> None:
    """PERM-16: a package.json whose scripts name no guarded program keeps ``npm test`` allowed."""
    work = fresh_dir() / "work"
    work.mkdir(parents=True)
    (work / "package.json").write_text(
        '{"name": "x", "scripts": {"test": "tsc --noEmit", "pretest": "eslint ."}}'
    )
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec("Bash(npm test:*)", "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": "npm test"})], rules=rules, cwd=work)
    assert run.ran() == 1, f"npm test with ordinary scripts was not allowed: {run.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    tool=st.sampled_from(["./scripts/test.sh", "npm test --", "npm run test --"]),
    given_words=st.lists(
        st.sampled_from(
            ["-v", "--all", "x", "-C", "-C sub", "-Csub", "--prefix", "--prefix=sub", "--directory"]
        ),
        max_size=3,
    ),
    last=st.sampled_from(["-C", "--prefix", "--directory"]),
    whole_line=st.booleans(),
)
def test_a_project_tool_given_options_keeps_its_allow_rule(
    new_harness: Callable[[], Any], tool: str, given_words: list[str], last: str, whole_line: bool
) -> None:
    """PERM-16 (control): what the line gives a project tool, a directory option without its value too, never stops it being allowed.

    A script run by its path or an ``npm`` script given words after ``--`` (options spelled like
    ``npm --prefix`` or ``make -C``, one last with no value) whose files name no guarded program,
    under ``Bash(nuke:*)`` deny and an allow rule for its program or the line: the harness runs it.
    """
    work = fresh_dir() / "work"
    (work / "scripts").mkdir(parents=True)
    (work / "scripts" / "test.sh").write_text("#!/bin/sh\necho testing\n")
    (work / "package.json").write_text('{"name": "x", "scripts": {"test": "echo testing"}}')
    line = " ".join([tool, *given_words, last])
    allow = f"Bash({line})" if whole_line else f"Bash({line.split()[0]}:*)"
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(allow, "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    assert run.ran() == 1, f"{line!r} under {allow} was not allowed: {run.describe()}"
