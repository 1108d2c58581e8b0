"""Code a program finds by its own search rules, against a deny rule (PERM-17).

A program's code is what the program resolves, not what the line names: ``node t.js`` runs the package
``t.js`` requires from ``node_modules`` (here or any directory above, through its ``package.json``'s
``main`` or ``exports``, or the project's ``imports``), ``perl -Ilib t.pl`` the module ``use`` finds
first on ``@INC``, ``make -I mk`` the makefile ``include`` finds in an include directory. Each case
composes the program, the mechanism that resolves the code, where the file sits (how many directories
above the script ``node_modules`` is, how deep a Perl module's name is), the spelling of the option
that widens the search path (``-I dir``, ``-Idir``, ``--include-dir=dir``) and how the line reaches
the directory; the resolved file runs the denied program (a marker writer on ``PATH``). The real
program is the judge: a drawn case that does not run the denied program is no attempt (discarded);
the harness must not have run one that does. The same resolution of a harmless file stays allowed.
Without the program installed the case skips, naming it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from conformance._controls import run_for_real
from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import PERMISSION_MODES, RuleSpec

_DENIED = "nuke"


@dataclass(frozen=True)
class ResolvedCase:
    """Files on disk, the line whose program resolves one of them as code, its allow rule, and how."""

    program: str
    files: dict[str, str]
    line: str
    allow: str
    how: str


def _js(command: str | None) -> str:
    """A CommonJS module that runs ``command`` when loaded (None: one that runs nothing)."""
    if command is None:
        return "module.exports = { answer: 42 };\n"
    return f"require('child_process').execSync({json.dumps(command)});\nmodule.exports = {{}};\n"


def _perl(module: str, command: str | None) -> str:
    """A Perl module whose BEGIN block runs ``command`` as perl compiles it (None: one that runs nothing)."""
    body = f"BEGIN {{ system({json.dumps(command)}); }}\n" if command is not None else "sub answer { 42 }\n"
    return f"package {module};\n{body}1;\n"


def _node(command: str | None, data: st.DataObject) -> ResolvedCase:
    """A module node resolves: a package in node_modules some directories up, a project import, a preload."""
    mechanism = data.draw(
        st.sampled_from(
            [
                "require",
                "import",
                "export from",
                "dynamic import",
                "inline require",
                "imports field",
                "env-file",
            ]
        ),
        label="how node loads it",
    )
    shape = data.draw(
        st.sampled_from(
            ["index.js", "main", "exports string", "exports conditions", "exports subpath", "file"]
        ),
        label="package shape",
    )
    name = data.draw(st.sampled_from(["helper", "@team/helper"]), label="package name")
    depth = data.draw(st.integers(0, 3), label="directories between the script and node_modules")
    moved = data.draw(st.booleans(), label="the line cds to the script")
    script_dir = "/".join(["src", "app", "lib"][:depth])
    files: dict[str, str] = {}
    package = f"node_modules/{name}"
    specifier = name
    if shape == "index.js":
        files[f"{package}/index.js"] = _js(command)
    elif shape == "main":
        files[f"{package}/package.json"] = json.dumps({"name": name, "main": "dist/entry.js"})
        files[f"{package}/dist/entry.js"] = _js(command)
    elif shape == "exports string":
        files[f"{package}/package.json"] = json.dumps({"name": name, "exports": "./lib/e.js"})
        files[f"{package}/lib/e.js"] = _js(command)
    elif shape == "exports conditions":
        exports = {".": {"import": "./e.cjs", "require": "./e.cjs", "default": "./e.cjs"}}
        files[f"{package}/package.json"] = json.dumps({"name": name, "exports": exports})
        files[f"{package}/e.cjs"] = _js(command)
    elif shape == "exports subpath":
        files[f"{package}/package.json"] = json.dumps({"name": name, "exports": {"./tool": "./t/tool.js"}})
        files[f"{package}/t/tool.js"] = _js(command)
        specifier = f"{name}/tool"
    else:
        files[f"{package}.js" if "/" not in name else f"{package}/index.js"] = _js(command)
    if mechanism == "imports field":
        files["package.json"] = json.dumps({"name": "app", "imports": {"#helper": specifier}})
        specifier = "#helper"
    here = script_dir or "."
    extension = ".mjs" if mechanism in ("import", "export from") else ".js"
    code = {
        "require": f"require({json.dumps(specifier)});\n",
        "import": f"import {json.dumps(specifier)};\n",
        "export from": f"export * from {json.dumps(specifier)};\n",
        "dynamic import": f"import({json.dumps(specifier)}).catch(() => 0);\n",
        "inline require": "",
        "imports field": f"require({json.dumps(specifier)});\n",
        "env-file": "console.log(1);\n",
    }[mechanism]
    script = f"{here}/main{extension}".removeprefix("./")
    if mechanism == "env-file":
        files[".env"] = f"NODE_OPTIONS=--require {specifier}\n"
    if code:
        files[script] = code
    cd = f"cd {here} && " if moved and here != "." else ""
    target = f"main{extension}" if cd else script
    env_file = "--env-file=" + ("../" * depth if cd else "") + ".env " if mechanism == "env-file" else ""
    if mechanism == "inline require":
        line = f"{cd}node -e {shlex.quote(f'require({json.dumps(specifier)})')}"
        allow = "Bash(node -e:*)"
    else:
        line = f"{cd}node {env_file}{target}"
        allow = data.draw(st.sampled_from(["Bash(node:*)", f"Bash({line.split('&& ')[-1]})"]), label="allow")
    return ResolvedCase("node", files, line, allow, f"{mechanism} of {specifier!r} ({shape}, {depth} up)")


def _perl_case(command: str | None, data: st.DataObject) -> ResolvedCase:
    """A module perl finds on @INC: widened by -I (spelled two ways), use lib, a #! switch, -M, a .pmc."""
    mechanism = data.draw(
        st.sampled_from(["-I", "use lib", "#! switch", "-M", "use parent", "require", "FindBin"]),
        label="how perl finds it",
    )
    module = data.draw(st.sampled_from(["Helper", "Team::Helper", "A::B::Helper"]), label="module name")
    directory = data.draw(st.sampled_from([".", "lib", "vendor/perl/lib"]), label="library directory")
    compiled = data.draw(st.booleans(), label="a .pmc beside the .pm")
    flag = data.draw(st.sampled_from(["-I{d}", "-I {d}"]), label="-I spelling").format(d=directory)
    relative = module.replace("::", "/")
    files = {
        f"{directory}/{relative}.pm".removeprefix("./"): _perl(module, command if not compiled else None)
    }
    if compiled:
        files[f"{directory}/{relative}.pmc".removeprefix("./")] = _perl(module, command)
    loads = {
        "use parent": f"use parent -norequire, 'Base';\nuse parent '{module}';\n",
        "require": f"require {module};\n",
    }
    use = loads.get(mechanism, f"use {module};\n")
    options = flag
    if mechanism == "use lib":
        script, options = f"use lib '{directory}';\n{use}", ""
    elif mechanism == "FindBin":
        script, options = f'use FindBin;\nuse lib "$FindBin::Bin/{directory}";\n{use}', ""
    elif mechanism == "#! switch":
        script, options = f"#!/usr/bin/perl {flag.replace(' ', '')}\n{use}", ""
    elif mechanism == "-M":
        script, options = "print 1;\n", f"{flag} -M{module}"
    else:
        script = use
    files["run.pl"] = script
    line = f"perl {options} run.pl".replace("  ", " ")
    # ``-M`` loads a module the program model leaves unread: only a rule naming that form vouches for it.
    broad = f"Bash(perl {options}:*)" if mechanism == "-M" else "Bash(perl:*)"
    allow = data.draw(st.sampled_from([broad, f"Bash({line})"]), label="allow rule")
    return ResolvedCase("perl", files, line, allow, f"{mechanism} {module} in {directory}")


def _make_case(command: str | None, data: st.DataObject) -> ResolvedCase:
    """A makefile make's include directive finds only in an include directory the line names."""
    directory = data.draw(st.sampled_from(["mk", "build/mk", "../shared-mk"]), label="include directory")
    spelling = data.draw(
        st.sampled_from(["-I {d}", "-I{d}", "--include-dir={d}", "--include-dir {d}", "--include-d={d}"]),
        label="include flag",
    )
    directive = data.draw(st.sampled_from(["include", "-include", "sinclude"]), label="directive")
    name = data.draw(st.sampled_from(["rules.mk", "*.mk", "sub/rules.mk"]), label="included name")
    recipe = command if command is not None else "echo checked"
    included = "sub/rules.mk" if name == "sub/rules.mk" else "rules.mk"
    files = {
        "Makefile": f"{directive} {name}\n",
        f"{directory}/{included}": f"check:\n\t@{recipe}\n",
    }
    line = f"make -s {spelling.format(d=directory)} check"
    allow = data.draw(st.sampled_from(["Bash(make:*)", f"Bash({line})"]), label="allow rule")
    return ResolvedCase("make", files, line, allow, f"{directive} {name} found through {spelling}")


_ON_PATH = "@PATH/"
"""A file key of a case written to the directory put first on PATH (for the harness too), not the project."""


def _path_script_case(command: str | None, data: st.DataObject) -> ResolvedCase:
    """A script its interpreter looks up in PATH: ``source``/``.`` (bash's sourcepath), ``perl -S``.

    The PATH directory's file of the name runs, whatever the working directory holds under that name.
    """
    way = data.draw(
        st.sampled_from(
            ["source", ".", "builtin source", "command .", "perl -S", "perl -wS", "perl -w -S", "perl -Sw"]
        ),
        label="how the script is looked up",
    )
    perl = way.startswith("perl")
    name = data.draw(st.sampled_from(["setup", "env", "tool"]), label="script name")
    name += data.draw(st.sampled_from([".pl" if perl else ".sh", ""]), label="extension")
    here = data.draw(st.sampled_from(["nothing", "a harmless file", "a directory"]), label="./name holds")
    if perl:
        text = f"system({json.dumps(command)});\n" if command is not None else "print 1;\n"
    else:
        text = f"{command}\n" if command is not None else "echo checked\n"
    files = {f"{_ON_PATH}{name}": text}
    if here == "a harmless file":
        files[name] = "print 1;\n" if perl else "true\n"
    elif here == "a directory":
        files[f"{name}/keep"] = ""
    before = data.draw(st.sampled_from(["", "cd . && "]), label="before it")
    line = f"{before}{way} {name}"
    allow = data.draw(
        st.sampled_from([f"Bash({way} {name})", f"Bash({way.split()[0]}:*)"]), label="allow rule"
    )
    return ResolvedCase(
        "perl" if perl else "bash", files, line, allow, f"{way} {name} found in PATH ({here} here)"
    )


_PROGRAMS: dict[str, Callable[[str | None, st.DataObject], ResolvedCase]] = {
    "node": _node,
    "perl": _perl_case,
    "make": _make_case,
    "path script": _path_script_case,
}


def _write(case: ResolvedCase) -> tuple[Path, Path, dict[str, str]]:
    if shutil.which(case.program) is None:
        pytest.skip(f"{case.program} is not installed")
    root = fresh_dir()
    work, bin_dir = root / "work", root / "bin"
    work.mkdir(parents=True)
    bin_dir.mkdir()
    for relative, text in case.files.items():
        path = bin_dir / relative.removeprefix(_ON_PATH) if relative.startswith(_ON_PATH) else work / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {**os.environ, "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])}
    return work, bin_dir, env


def _harness_path(case: ResolvedCase, env: dict[str, str]) -> AbstractContextManager[object]:
    """The case's PATH for the harness too, when a file of the case is found in PATH (the harness's own)."""
    if any(key.startswith(_ON_PATH) for key in case.files):
        return mock.patch.dict(os.environ, {"PATH": env["PATH"]})
    return nullcontext()


def _denied_program_never_runs(new_harness: Callable[[], Any], case: ResolvedCase, mode: str) -> None:
    """The line in the harness, then for real: if it ran the denied program, the harness must not have."""
    work, bin_dir, env = _write(case)
    marker = work.parent / "ran"
    (bin_dir / _DENIED).write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\n")
    (bin_dir / _DENIED).chmod(0o755)
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(case.allow, "allow")]
    with _harness_path(case, env):
        run = run_calls(
            new_harness(),
            [shell_tool()],
            [("Bash", {"command": case.line})],
            rules=rules,
            mode=mode,
            cwd=work,
        )
    run_for_real(case.line, work, env)
    assume(marker.exists())  # the program really resolved the drawn file and ran the denied program
    assert run.ran() == 0, (
        f"{case.line!r} under {case.allow} ran unasked ({mode}); for real {case.program} loads "
        f"{case.how}, which runs {_DENIED}\nfiles: {json.dumps(case.files, indent=1)}"
    )


def _harmless_line_stays_allowed(new_harness: Callable[[], Any], case: ResolvedCase) -> None:
    """The line runs for real (a program that finds nothing to load is no case), then under its allow rule."""
    work, _, env = _write(case)
    assume(run_for_real(case.line, work, env) == 0)
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(case.allow, "allow")]
    with _harness_path(case, env):
        run = run_calls(
            new_harness(), [shell_tool()], [("Bash", {"command": case.line})], rules=rules, cwd=work
        )
    assert run.ran() == 1, f"{case.line!r} ({case.how}) under {case.allow} was not allowed: {run.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.parametrize("program", sorted(_PROGRAMS))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_code_the_program_resolves(
    new_harness: Callable[[], Any], data: st.DataObject, program: str, mode: str
) -> None:
    """PERM-17: code a program loads by its own search rules, running the denied program, never runs unasked.

    Drawn: the program (node, perl, make, a script looked up in PATH: ``source``/``.`` through
    ``builtin``/``command``, ``perl -S`` in a switch cluster, with ``./name`` absent, harmless or a
    directory) x the mechanism that resolves the code (a bare ``require``,
    ``import``, ``export ... from``, dynamic ``import()``, inline ``-e`` code, ``package.json``
    ``imports``, an ``--env-file``'s ``NODE_OPTIONS`` preload; ``-I``, ``use lib``, FindBin, a ``#!``
    switch, ``-M``, ``use parent``, ``require``, a ``.pmc`` beside the ``.pm``; ``include``,
    ``-include``, ``sinclude``, a glob) x where the file sits (``node_modules`` 0-3 directories above
    the script, a package's ``main``/``exports``/subpath/``index.js``, a scoped name, a Perl module
    one to three names deep, an include directory inside or outside the project) x the include flag's
    spelling (``-I dir``, ``-Idir``, ``--include-dir=dir``, an abbreviation) x whether the line cds
    first, under ``Bash(nuke:*)`` denied and an allow rule for the line, in every mode.
    """
    _denied_program_never_runs(new_harness, _PROGRAMS[program](_DENIED, data), mode)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.parametrize("program", sorted(_PROGRAMS))
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_harmless_code_the_program_resolves_stays_allowed(
    new_harness: Callable[[], Any], data: st.DataObject, program: str
) -> None:
    """PERM-17 (no false ask): the same resolution of code that runs nothing keeps the line allowed.

    The drawn program, mechanism, place and spelling of the property above, the resolved file running
    no program: beside ``Bash(nuke:*)`` denied, the line runs under its allow rule.
    """
    _harmless_line_stays_allowed(new_harness, _PROGRAMS[program](None, data))


@dataclass(frozen=True)
class DirectoryModule:
    """How a directory module is named and run: what ``_node_directory`` composes."""

    way: str
    reached: str
    main: str
    depth: int
    exact: bool


_WAYS = ("require", "import", "-e", "-p", "--eval", "--print", "env-file preload", "as the script")
_INLINE_WAYS = ("-e", "-p", "--eval", "--print")
_MAINS = ("none", "file", "no extension", "directory", "directory's own main", "missing")

directory_modules = st.builds(
    DirectoryModule,
    way=st.sampled_from(_WAYS),
    reached=st.sampled_from(["package", "relative", "imports field"]),
    main=st.sampled_from(_MAINS),
    depth=st.integers(0, 2),
    exact=st.booleans(),
)

# Each property tries these too: the shapes a looser reading of node's rules lets through.
_NESTED_MAIN_SCRIPT = DirectoryModule("as the script", "relative", "directory's own main", 0, False)
_NESTED_MAIN_REQUIRED = DirectoryModule("require", "package", "directory's own main", 1, False)
_INLINE_PACKAGE = DirectoryModule("-e", "package", "none", 0, False)
_IMPORTS_ABOVE = DirectoryModule("require", "imports field", "file", 2, True)


def _node_directory(command: str | None, drawn: DirectoryModule) -> ResolvedCase:
    """A directory node loads as a module: the file its ``package.json``'s ``main`` names, else ``index.js``.

    As node's ``LOAD_AS_DIRECTORY``: ``main`` is a file (its extension may be left out) or a directory's
    ``index.js``, a ``package.json`` there not read; a ``main`` that is missing falls back to the
    package's ``index.js``. Each shape holds a harmless decoy where a looser reading would look.
    """
    way, main, depth = drawn.way, drawn.main, drawn.depth
    inline = way in _INLINE_WAYS
    reached = drawn.reached
    if inline and reached == "relative":
        reached = (
            "package"  # inline code requiring a relative path asks whatever it holds (the code reader's)
        )
    if way == "as the script" and reached == "imports field":
        reached = "relative"  # node runs a path as its script, not an ``imports`` name
    here = "/".join(["src", "app"][:depth]) or "."
    base = "node_modules/helper" if reached != "relative" else f"{here}/mods/helper".removeprefix("./")
    specifier = {"package": "helper", "relative": "./mods/helper", "imports field": "#helper"}[reached]
    files: dict[str, str] = {}
    if reached == "imports field":
        files["package.json"] = json.dumps({"name": "app", "imports": {"#helper": "helper"}})
    runs, decoy = _js(command), _js(None)
    entry = {"file": "lib/entry.js", "no extension": "lib/entry", "missing": "gone.js"}.get(main, "lib")
    if main != "none":
        files[f"{base}/package.json"] = json.dumps({"name": "helper", "main": entry})
    if main in ("none", "missing"):
        files[f"{base}/index.js"] = runs
    else:
        files[f"{base}/index.js"] = decoy
        files[f"{base}/lib/entry.js" if main in ("file", "no extension") else f"{base}/lib/index.js"] = runs
    if main == "directory's own main":
        files[f"{base}/lib/package.json"] = json.dumps({"main": "other.js"})  # node does not read it
        files[f"{base}/lib/other.js"] = decoy
    cd = f"cd {here} && " if here != "." else ""
    loads = f"require({json.dumps(specifier)})"
    broad = "Bash(node:*)"
    if way == "as the script":
        words = os.path.relpath(base, here)
    elif inline:
        words = f"{way} {shlex.quote(loads)}"
        broad = f"Bash(node {way}:*)"  # inline code: only a rule naming the form vouches for it
    else:
        script = "main.mjs" if way == "import" else "main.js"
        files[f"{here}/{script}".removeprefix("./")] = {
            "require": f"{loads};\n",
            "import": f"import {json.dumps(specifier)};\n",
            "env-file preload": "console.log(1);\n",
        }[way]
        words = script
        if way == "env-file preload":
            files[f"{here}/.env".removeprefix("./")] = f"NODE_OPTIONS=--require {specifier}\n"
            words = f"--env-file=.env {script}"
    line = f"{cd}node {words}"
    allow = f"Bash(node {words})" if drawn.exact else broad
    return ResolvedCase("node", files, line, allow, f"{way} of {specifier!r} (main: {main}, {depth} down)")


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@example(drawn=_NESTED_MAIN_SCRIPT, mode="default")
@example(drawn=_NESTED_MAIN_REQUIRED, mode="acceptEdits")
@example(drawn=_INLINE_PACKAGE, mode="bypassPermissions")
@given(drawn=directory_modules, mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_the_file_node_loads_for_a_directory(
    new_harness: Callable[[], Any], drawn: DirectoryModule, mode: str
) -> None:
    """PERM-17: the file node loads for a directory module, running the denied program, never runs unasked.

    Drawn: how the directory is named (a package in ``node_modules``, a relative path, the project's
    ``imports`` field found in a directory above) x its ``package.json`` ``main`` (none, a file, a file
    without its extension, a directory's ``index.js`` beside a ``package.json`` node does not read, a
    missing file: ``index.js`` then) x how node runs the code that loads it (a script's ``require`` or
    ``import``, ``-e``/``-p``/``--eval``/``--print`` code, an ``--env-file``'s ``NODE_OPTIONS``
    preload, the directory given to node as its script) x how deep the script sits below the project
    root x the allow rule (the line's program or form, or the line), a harmless decoy where a looser
    reading would look, under ``Bash(nuke:*)`` denied, in every mode. Real node is the judge of what runs.
    """
    _denied_program_never_runs(new_harness, _node_directory(_DENIED, drawn), mode)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@example(drawn=_IMPORTS_ABOVE)
@example(drawn=_INLINE_PACKAGE)
@given(drawn=directory_modules)
def test_harmless_directory_module_node_loads_stays_allowed(
    new_harness: Callable[[], Any], drawn: DirectoryModule
) -> None:
    """PERM-17 (no false ask): the same directory modules, running nothing, keep the line allowed.

    The drawn directory, ``main``, way, depth and allow rule of the property above, every file
    harmless: beside ``Bash(nuke:*)`` denied, the line runs under its allow rule.
    """
    _harmless_line_stays_allowed(new_harness, _node_directory(None, drawn))


@dataclass(frozen=True)
class PerlSwitches:
    """perl's switches before its script, which directories hold the module, and how it is loaded."""

    switches: tuple[str, ...]
    holders: tuple[tuple[str, str], ...]
    load: str
    exact: bool


_PERL_DIRS = ("lib", "vendor", "local/lib", "-Ilib")  # the last a directory named like a switch


@st.composite
def perl_switches(draw: st.DrawFn) -> PerlSwitches:
    """1-4 switches: ``-I`` of a directory (``-I dir`` or ``-Idir``), ``-w``, ``-l``, ``-Mstrict``, in any order."""
    switch = st.one_of(
        st.tuples(st.sampled_from(["-I ", "-I"]), st.sampled_from(_PERL_DIRS)).map("".join),
        st.sampled_from(["-w", "-l", "-Mstrict"]),
    )
    switches = draw(st.lists(switch, min_size=1, max_size=4), label="switches")
    listed = [s.removeprefix("-I").strip() for s in switches if s.startswith("-I")]
    holders = draw(
        st.lists(
            st.tuples(st.sampled_from([*listed, *_PERL_DIRS]), st.sampled_from(["runs", "harmless"])),
            min_size=1,
            max_size=3,
            unique_by=lambda h: h[0],
        ),
        label="directories holding the module",
    )
    load = draw(st.sampled_from(["use", "require", "-M first", "-M last"]), label="how perl loads it")
    return PerlSwitches(tuple(switches), tuple(holders), load, draw(st.booleans(), label="exact rule"))


# The spellings a looser reading of perl's switches lets through: two ``-I dir`` in a row, ``-I dir``
# before ``-M``, a directory named like a switch.
_TWO_SPACED_DIRS = PerlSwitches(("-I lib", "-I vendor"), (("vendor", "runs"),), "use", False)
_SPACED_DIR_BEFORE_M = PerlSwitches(("-I vendor",), (("vendor", "runs"),), "-M last", True)
_SWITCH_NAMED_DIR = PerlSwitches(
    ("-I -Ilib", "-I vendor"), (("lib", "harmless"), ("vendor", "runs")), "use", False
)


def _perl_switches_case(command: str | None, drawn: PerlSwitches) -> ResolvedCase:
    """``perl SWITCHES run.pl`` where the module perl finds first on ``@INC`` runs ``command`` (or not)."""
    files = {
        f"{directory}/Helper.pm": _perl("Helper", command if holds == "runs" else None)
        for directory, holds in drawn.holders
    }
    switches = list(drawn.switches)
    if drawn.load.startswith("-M"):
        switches.insert(0 if drawn.load == "-M first" else len(switches), "-MHelper")
    files["run.pl"] = {"use": "use Helper;\n", "require": "require Helper;\n"}.get(drawn.load, "print 1;\n")
    options = " ".join(switches)
    line = f"perl {options} run.pl"
    # ``-M`` loads a module the program model leaves unread: only a rule naming that form vouches for it.
    broad = f"Bash(perl {options}:*)" if "-M" in options else "Bash(perl:*)"
    allow = f"Bash({line})" if drawn.exact else broad
    return ResolvedCase("perl", files, line, allow, f"Helper ({drawn.load}) from {dict(drawn.holders)}")


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@example(drawn=_TWO_SPACED_DIRS, mode="default")
@example(drawn=_SPACED_DIR_BEFORE_M, mode="acceptEdits")
@example(drawn=_SWITCH_NAMED_DIR, mode="bypassPermissions")
@given(drawn=perl_switches(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_the_module_perl_switches_find(
    new_harness: Callable[[], Any], drawn: PerlSwitches, mode: str
) -> None:
    """PERM-17: the module perl finds through its switches, running the denied program, never runs unasked.

    Drawn: 1-4 switches in any order (``-I`` of a directory spelled ``-I dir`` or ``-Idir``, a
    directory perhaps named like a switch, ``-w``, ``-l``, ``-Mstrict``) x which directories hold
    the module, and whether that copy runs the denied program or nothing (perl loads the first on
    ``@INC``) x how it is loaded (the script's ``use``/``require``, ``-M`` before or after the other
    switches) x the allow rule, under ``Bash(nuke:*)`` denied, in every mode. Real perl is the judge.
    """
    _denied_program_never_runs(new_harness, _perl_switches_case(_DENIED, drawn), mode)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=10, deadline=None)
@given(drawn=perl_switches())
def test_harmless_module_perl_switches_find_stays_allowed(
    new_harness: Callable[[], Any], drawn: PerlSwitches
) -> None:
    """PERM-17 (no false ask): the same switches and modules, running nothing, keep the line allowed."""
    _harmless_line_stays_allowed(new_harness, _perl_switches_case(None, drawn))
