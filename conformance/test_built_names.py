"""Interpreter code that builds what it runs or writes when it runs: PERM-17, PERM-15.

Reading code for a literal name is not knowing what it runs. Each case draws an interpreter (python3,
node, perl, awk), one of its APIs that starts a program, evaluates code or writes a file, how the
code builds the name (literal pieces joined, a variable, a character code, ``join``/``format``, read
from a file), and whether the code is given inline or as a script. The real interpreter is the judge:
a drawn case is run for real, and one that does not run the denied program (or write the protected
file) is no attempt (discarded); the harness must not have run one that does. Harmless code (that
spawns and writes nothing) stays allowed. Without an interpreter the case skips, naming it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

_DENIED = "nuke"


@dataclass(frozen=True)
class Language:
    """An interpreter: how its code spells a name built from pieces, and how it calls its APIs."""

    program: str
    inline: str  # the option giving inline code
    extension: str
    names: tuple[Callable[[str], tuple[str, str]], ...]
    """Ways to build a string: each gives (statements before, expression)."""
    runs: tuple[str, ...]  # templates: {e} is the command's expression
    writes: tuple[str, ...]  # templates: {e} is the written path's expression
    harmless: tuple[str, ...]


def _py_names() -> tuple[Callable[[str], tuple[str, str]], ...]:
    return (
        lambda s: ("", repr(s)),
        lambda s: ("", f"{s[:2]!r} + {s[2:]!r}"),
        lambda s: (f"n = {s[:2]!r}\n", f"n + {s[2:]!r}"),
        lambda s: ("", f"chr({ord(s[0])}) + {s[1:]!r}"),
        lambda s: ("", f"''.join([{s[:2]!r}, {s[2:]!r}])"),
        lambda s: ("", f"'{{}}{s[2:]}'.format({s[:2]!r})"),
        lambda s: ("", "open('name.txt').read().strip()"),
        # Literals to Python, not to a reader of the text: adjacent strings, escaped characters.
        lambda s: ("", f"{s[:2]!r} {s[2:]!r}"),
        lambda s: ("", "'" + "".join(f"\\x{ord(c):02x}" for c in s) + "'"),
    )


_PYTHON = Language(
    "python3",
    "-c",
    ".py",
    _py_names(),
    runs=(
        "import os\nos.system({e})",
        "import subprocess\nsubprocess.run({e}, shell=True)",
        "import subprocess\nsubprocess.run([{e}])",
        "import os\nos.popen({e}).read()",
        "import os\ngetattr(os, 'sys' + 'tem')({e})",
        "__import__('os').system({e})",
        "import importlib\nimportlib.import_module('os').system({e})",
        "exec('import os; os.system(' + repr({e}) + ')')",
        "import os\nos.execvp({e}, [{e}])",
        "from os import system as run_it\nrun_it({e})",
        "import sys\nsys.modules['os'].system({e})",
    ),
    writes=(
        "open({e}, 'w').write('x')",
        "import pathlib\npathlib.Path({e}).write_text('x')",
        "import shutil\nshutil.copy('src.txt', {e})",
        "import os\nos.rename('src.txt', {e})",
        "f = open\nf({e}, 'a').write('x')",
    ),
    harmless=(
        "print(1 + 2)",
        "import json\nprint(json.dumps({'a': [1, 2]}))",
        "print(open('src.txt').read())",
        "s = 'ab'\nprint(s.upper(), len(s))",
        "import sys\nprint(sys.argv)",
        "print(getattr('ab', 'upper')(), getattr(2, 'real'))",
    ),
)

_NODE = Language(
    "node",
    "-e",
    ".js",
    (
        lambda s: ("", f'"{s}"'),
        lambda s: ("", f'"{s[:2]}" + "{s[2:]}"'),
        lambda s: (f'const n = "{s[:2]}";\n', f'n + "{s[2:]}"'),
        lambda s: ("", f'String.fromCharCode({ord(s[0])}) + "{s[1:]}"'),
        lambda s: ("", f'["{s[:2]}", "{s[2:]}"].join("")'),
        lambda s: ("", f'`{s[:2]}${{"{s[2:]}"}}`'),
        lambda s: ("", 'require("fs").readFileSync("name.txt", "utf8").trim()'),
    ),
    runs=(
        'require("child_process").execSync({e})',
        'require("child_process").spawnSync({e})',
        'require("child_process").execFileSync({e})',
        'require("child_process")["exec" + "Sync"]({e})',
        'const cp = require("child_process"); const f = cp.execSync; f({e})',
        'eval("require(\\"child_process\\").execSync(" + JSON.stringify({e}) + ")")',
    ),
    writes=(
        'require("fs").writeFileSync({e}, "x")',
        'require("fs").appendFileSync({e}, "x")',
        'require("fs").copyFileSync("src.txt", {e})',
        'require("fs").renameSync("src.txt", {e})',
    ),
    harmless=(
        "console.log(1 + 2)",
        "console.log(JSON.stringify({a: [1, 2]}))",
        'console.log(require("fs").readFileSync("src.txt", "utf8"))',
        'const s = "ab"; console.log(s.toUpperCase())',
        # Escapes, literal member keys, modules that start nothing: read as node reads them, no ask.
        'const o = {"a\\u0062": 1}; console.log(o["ab"], o?.["ab"], "\\x41\\t", [1, 2][0])',
        'const path = require("node:path"); console.log(path.join("a", "b"), require("os").EOL.length)',
    ),
)

_PERL = Language(
    "perl",
    "-e",
    ".pl",
    (
        lambda s: ("", f'"{s}"'),
        lambda s: ("", f'"{s[:2]}" . "{s[2:]}"'),
        lambda s: (f'my $n = "{s[:2]}";\n', f'$n . "{s[2:]}"'),
        lambda s: ("", f'chr({ord(s[0])}) . "{s[1:]}"'),
        lambda s: ("", f'join("", "{s[:2]}", "{s[2:]}")'),
        lambda s: ("", f'sprintf("%s{s[2:]}", "{s[:2]}")'),
        lambda s: ("", 'do { open(my $h, "<", "name.txt"); my $s = <$h>; chomp $s; $s }'),
    ),
    runs=(
        "system({e});",
        "my $c = {e}; `$c`;",
        "readpipe({e});",
        'open(my $p, "-|", {e}); my @o = <$p>;',
        'eval("system(\\"" . {e} . "\\")");',
        "my $f = \\&CORE::system; $f->({e});",
        "exec({e});",
    ),
    writes=(
        'open(my $f, ">", {e}); print $f "x"; close $f;',
        'open(F, ">" . {e}); print F "x"; close F;',
        'rename("src.txt", {e});',
    ),
    harmless=(
        'print 1 + 2, "\\n";',
        'my @a = (1, 2); print join(",", map { $_ * 2 } @a), "\\n";',
        'open(my $h, "<", "src.txt"); print <$h>;',
        'use Cwd; use File::Basename; print basename(getcwd()), "\\n";',
        'print "$1\\n" if "abc" =~ /(b)(?:c)/;',
    ),
)

_AWK = Language(
    "awk",
    "",
    ".awk",
    (
        lambda s: ("", f'"{s}"'),
        lambda s: ("", f'("{s[:2]}" "{s[2:]}")'),
        lambda s: (f'n = "{s[:2]}"; ', f'(n "{s[2:]}")'),
        lambda s: ("", f'(sprintf("%c", {ord(s[0])}) "{s[1:]}")'),
        lambda s: ('getline line < "name.txt"; ', "line"),
    ),
    runs=("BEGIN {{ {p}system({e}) }}", 'BEGIN {{ {p}print "" | {e} }}', "BEGIN {{ {p}{e} | getline x }}"),
    writes=('BEGIN {{ {p}print "x" > {e} }}', 'BEGIN {{ {p}print "x" >> {e} }}'),
    harmless=("BEGIN { print 1 + 2 }", "{ n += length($0) } END { print n }", "$1 > 0 { print $1 }"),
)

_LANGUAGES = (_PYTHON, _NODE, _PERL, _AWK)


def _code(language: Language, template: str, name: tuple[str, str]) -> str:
    before, expression = name
    if language is _AWK:
        return template.format(p=before, e=expression)
    return before + template.format(e=expression)


def _line(language: Language, code: str, inline: bool, work: Path) -> str:
    if inline:
        option = f"{language.inline} " if language.inline else ""
        return f"{language.program} {option}{shlex.quote(code)}"
    script = f"prog{language.extension}"
    (work / script).write_text(code + "\n")
    option = "-f " if language is _AWK else ""
    return f"{language.program} {option}{script}"


def _allow(language: Language, line: str, inline: bool, data: st.DataObject, vouching: bool = False) -> str:
    """An allow rule for the line: the form that runs code (``python3 -c``), the program, the line.

    ``vouching``: only rules that trust the code the line gives (not ``Bash(python3:*)`` for inline code,
    which asks under a deny rule whatever the code: an allow rule must name the code-running form).
    """
    words = line.split()
    forms = [f"Bash({words[0]}:*)", f"Bash({line})"]
    if inline and language.inline:
        form = f"Bash({words[0]} {language.inline}:*)"
        # A rule naming the line whole holds the code's own ``*`` as wildcards: only the form vouches.
        forms = [form] if vouching else [form, *forms]
    return data.draw(st.sampled_from(forms), label="allow rule")


def _prepare(language: Language) -> tuple[Path, Path, dict[str, str]]:
    if shutil.which(language.program) is None:
        pytest.skip(f"{language.program} is not installed")
    root = fresh_dir()
    work, bin_dir = root / "work", root / "bin"
    work.mkdir(parents=True)
    bin_dir.mkdir()
    for folder in (".git", ".claude", ".vscode"):
        (work / folder).mkdir()
    (work / "src.txt").write_text("data\n")
    env = {**os.environ, "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])}
    return work, bin_dir, env


def _real_run(line: str, work: Path, env: dict[str, str]) -> None:
    subprocess.run(
        ["bash", "-c", line], cwd=work, env=env, capture_output=True, timeout=30, stdin=subprocess.DEVNULL
    )


def _plant_denied(language: Language) -> tuple[Path, dict[str, str]]:
    """A work directory whose ``name.txt`` names the denied program, and an environment finding it.

    The denied program on ``PATH`` is a marker writer: its marker is ``ran`` beside the work directory.
    """
    work, bin_dir, env = _prepare(language)
    (bin_dir / _DENIED).write_text(f"#!/bin/sh\ntouch {shlex.quote(str(work.parent / 'ran'))}\n")
    (bin_dir / _DENIED).chmod(0o755)
    (work / "name.txt").write_text(_DENIED + "\n")
    return work, env


def _assert_never_runs_unasked(
    harness: Any,
    data: st.DataObject,
    language: Language,
    code: str,
    inline: bool,
    work: Path,
    env: dict[str, str],
) -> None:
    """Under ``Bash(nuke:*)`` denied, ``code`` run unasked never runs nuke; the real run is the judge."""
    line = _line(language, code, inline, work)
    # The strongest allow rule: for inline code its code-running form (``Bash(python3 -c:*)``), the one
    # that vouches for code; the program's alone (``Bash(python3:*)``) asks about inline code anyway.
    allow = _allow(language, line, inline, data, vouching=True)
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(allow, "allow")]
    run = run_calls(harness, [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    _real_run(line, work, env)
    assume((work.parent / "ran").exists())
    assert run.ran() == 0, f"{line!r} under {allow} ran unasked; for real it runs {_DENIED}\ncode: {code}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), language=st.sampled_from(_LANGUAGES), inline=st.booleans())
def test_deny_rule_holds_against_names_code_builds(
    new_harness: Callable[[], Any], data: st.DataObject, language: Language, inline: bool
) -> None:
    """PERM-17: interpreter code that runs the denied program by a name it builds never runs unasked.

    Drawn: interpreter x API that starts a program or evaluates code x how the name is built x inline
    code or a script, under ``Bash(nuke:*)`` denied and an allow rule for the line (inline code: its
    code-running form, ``Bash(python3 -c:*)``; a script: its program or the line). Every drawn attempt
    that really runs nuke is denied or asked.
    """
    work, env = _plant_denied(language)
    template = data.draw(st.sampled_from(language.runs), label="API")
    name = data.draw(st.sampled_from(language.names), label="name built")(_DENIED)
    _assert_never_runs_unasked(
        new_harness(), data, language, _code(language, template, name), inline, work, env
    )


# Python's subprocess APIs, each as a statement that runs {c} (the command) and waits for it.
_SUBPROCESS_CALLS = (
    "subprocess.run({c})",
    "subprocess.call({c})",
    "subprocess.check_output({c})",
    "subprocess.Popen({c}).wait()",
)
# Keyword arguments the APIs take beside the command, drawn in any order before or after it.
_OTHER_KEYWORDS = ("cwd='.'", "env=None", "text=True", "stdin=subprocess.DEVNULL", "close_fds=True")


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), inline=st.booleans())
def test_deny_rule_holds_against_a_command_passed_by_keyword(
    new_harness: Callable[[], Any], data: st.DataObject, inline: bool
) -> None:
    """PERM-17: a Python subprocess call that runs the denied program never runs unasked, however its command is passed.

    Drawn: the subprocess API x the command as shell text (``shell=True``) or an argument list x given
    positionally or by the ``args=`` keyword x other keywords (``cwd``, ``env``, ``text``, ...) in any
    order around it x how the name is spelled or built (a literal, adjacent strings, escaped
    characters, joined, read from a file, ...) x inline code or a script, under ``Bash(nuke:*)``
    denied and the code-running form allowed. Real ``python3`` is the judge: a case that does not run
    nuke is no attempt.
    """
    work, env = _plant_denied(_PYTHON)
    before, expression = data.draw(st.sampled_from(_PYTHON.names), label="name built")(_DENIED)
    shell = data.draw(st.booleans(), label="shell text")
    command = expression if shell else f"[{expression}]"
    by_keyword = data.draw(st.booleans(), label="by keyword")
    others = data.draw(st.lists(st.sampled_from(_OTHER_KEYWORDS), unique=True, max_size=3), label="keywords")
    arguments = data.draw(st.permutations([*others, *(["shell=True"] if shell else [])]), label="order")
    if by_keyword:  # anywhere among the other keywords
        arguments.insert(data.draw(st.integers(0, len(arguments)), label="where"), f"args={command}")
    else:
        arguments.insert(0, command)
    call = data.draw(st.sampled_from(_SUBPROCESS_CALLS), label="API").format(c=", ".join(arguments))
    code = f"{before}import subprocess\n{call}"
    _assert_never_runs_unasked(new_harness(), data, _PYTHON, code, inline, work, env)


_PROTECTED = (".git/config", ".bashrc", ".claude/settings.json", ".vscode/settings.json", ".mcp.json")


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    data=st.data(),
    language=st.sampled_from(_LANGUAGES),
    mode=st.sampled_from(["acceptEdits", "bypassPermissions"]),
)
def test_protected_path_holds_against_code_that_writes_it(
    new_harness: Callable[[], Any], data: st.DataObject, language: Language, mode: str
) -> None:
    """PERM-15: inline interpreter code that writes a protected file, named literally or built, is never auto-allowed.

    Drawn: interpreter x API that writes a file x protected path x how its name is built, in
    acceptEdits and bypassPermissions, with an allow rule for the line; the real run shows the file
    written (else no attempt: discarded).
    """
    work, _, env = _prepare(language)
    path = data.draw(st.sampled_from(_PROTECTED), label="protected path")
    (work / "name.txt").write_text(path + "\n")
    template = data.draw(st.sampled_from(language.writes), label="API")
    name = data.draw(st.sampled_from(language.names), label="name built")(path)
    code = _code(language, template, name)
    line = _line(language, code, True, work)
    allow = _allow(language, line, True, data)
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=[RuleSpec(allow, "allow")],
        mode=mode, cwd=work,
    )  # fmt: skip
    _real_run(line, work, env)
    assume((work / path).exists())
    assert run.ran() == 0, f"{line!r} under {allow} ({mode}) ran unasked; for real it writes {path}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=20, deadline=None)
@given(data=st.data(), language=st.sampled_from(_LANGUAGES), inline=st.booleans())
def test_code_that_runs_and_writes_nothing_stays_allowed(
    new_harness: Callable[[], Any], data: st.DataObject, language: Language, inline: bool
) -> None:
    """PERM-17 (no false ask): code that starts no program and writes no file stays allowed under its allow rule.

    Beside ``Bash(nuke:*)`` denied, harmless code (arithmetic, strings, reading a file, an attribute
    looked up by a literal name on a literal), one to three pieces of it in one program, given inline
    or as a script runs unasked under an allow rule for the line.
    """
    # ``awk -f FILE``: awk's program files are not read (asked about under a deny rule).
    assume(inline or language is not _AWK)
    work, _, _ = _prepare(language)
    # Composed: one to three harmless pieces, in any order, as one program.
    pieces = st.lists(st.sampled_from(language.harmless), min_size=1, max_size=3, unique=True)
    code = "\n".join(data.draw(pieces, label="code"))
    line = _line(language, code, inline, work)
    allow = _allow(language, line, inline, data, vouching=True)
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(allow, "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    assert run.ran() == 1, f"harmless {line!r} under {allow} was not allowed: {run.describe()}"


# --- what the reader must decode, and what it does not model ----------------------------------------


def _js_member(member: str, spelling: str) -> str:
    """``.member`` as JavaScript may spell it: an escaped identifier, a literal key (escaped or not)."""
    at = len(member) // 2
    code = ord(member[at])
    return {
        "plain": f".{member}",
        "identifier \\uXXXX": f".{member[:at]}\\u{code:04x}{member[at + 1 :]}",
        "identifier \\u{X}": f".{member[:at]}\\u{{{code:x}}}{member[at + 1 :]}",
        "string key \\xHH": f'["{member[:at]}\\x{code:02x}{member[at + 1 :]}"]',
        "template key": f"[`{member}`]",
        "optional string key": f'?.["{member}"]',
    }[spelling]


_JS_SPELLINGS = (
    *("plain", "identifier \\uXXXX", "identifier \\u{X}", "string key \\xHH", "template key"),
    "optional string key",
)


def _js_inner(before: str, expression: str) -> str:
    return f'{before}require("child_process").execSync({expression})'


# Each: (code before, the name's expression, how the member is spelled) -> code that runs the name.
_JS_GAPS: dict[str, Callable[[str, str, str], str]] = {
    "child_process member": lambda b, e, s: f'{b}require("child_process"){_js_member("execSync", s)}({e})',
    "spawnSync of a module alias": lambda b, e, s: (
        f'{b}const proc = require("child_process"); proc{_js_member("spawnSync", s)}({e})'
    ),
    "import() of a data: URL": lambda b, e, s: "import({})".format(
        json.dumps(
            f'data:text/javascript,import cp from "child_process"; {b}cp{_js_member("execSync", s)}({e})'
        )
    ),
    "after an object divided": lambda b, e, s: (
        f'const o = {{}} / 1; {b}require("child_process"){_js_member("execSync", s)}({e}); const p = 1 / 1;'
    ),
    "inspector Runtime.evaluate": lambda b, e, s: (
        'const i = require("inspector"); const s = new i.Session(); s.connect(); '
        f's.post("Runtime.evaluate", {{expression: {json.dumps(_js_inner(b, e))}, includeCommandLineAPI: true}})'
    ),
}
_PERL_GAPS: dict[str, str] = {
    "IPC::Open3": "use IPC::Open3; my $pid = open3(my $i, my $o, undef, {e}); waitpid($pid, 0);",
    "IPC::Open2": "use IPC::Open2; my $pid = open2(my $o, my $i, {e}); waitpid($pid, 0);",
    "IPC::Cmd": "use IPC::Cmd qw(run); run(command => {e});",
    "POSIX::system": "use POSIX (); POSIX::system({e});",
    "after a hash subscript divided": "my %h = (a => 1); my $x = $h{{a}} / 1; system({e}); my $y = 1 / 1;",
    "after a comment holding a quote": "print 1,# it's\nsystem({e}); print 'x'; # it's\n",
    "after q and a comment": "my $s = q #\n/x/; system({e}); # end\n",
    "after POD holding a quote": "print 1;\n\n=pod\n\nit's\n\n=cut\n\nsystem({e}); print 'x';\n\n__END__\n'\n",
    "(?{ }) in //": "'x' =~ /(?{{ system({e}) }})/;",
    "(?{ }) in m{}": "'x' =~ m{{(?{{ system({e}) }})}};",
    "(??{ }) in qr{}": "'x' =~ qr{{(??{{ system({e}); 'x' }})}};",
    "(?{ }) in s{}{}": "$_ = 'x'; s{{(?{{ system({e}) }})x}}{{y}};",
}


@dataclass(frozen=True)
class ReaderGap:
    """Code that runs the denied program through a spelling or an API the reader must decode or not trust."""

    language: str  # "node" or "perl"
    api: str  # a key of _JS_GAPS or _PERL_GAPS
    spelling: str  # how a JavaScript member is spelled (perl: "plain")
    name: int  # which of the language's ways to build the name
    inline: bool

    def code(self) -> str:
        if self.language == "node":
            before, expression = _NODE.names[self.name](_DENIED)
            return _JS_GAPS[self.api](before.replace("\n", " "), expression, self.spelling)
        before, expression = _PERL.names[self.name](_DENIED)
        return before + _PERL_GAPS[self.api].format(e=expression)


@st.composite
def reader_gaps(draw: st.DrawFn) -> ReaderGap:
    """A drawn :class:`ReaderGap`: interpreter x API x member spelling x how the name is built x inline or not."""
    language = draw(st.sampled_from(["node", "perl"]), label="interpreter")
    apis = _JS_GAPS if language == "node" else _PERL_GAPS
    spelling = draw(st.sampled_from(_JS_SPELLINGS), label="spelling") if language == "node" else "plain"
    names = len((_NODE if language == "node" else _PERL).names)
    return ReaderGap(
        language,
        draw(st.sampled_from(sorted(apis)), label="API"),
        spelling,
        draw(st.integers(0, names - 1), label="name built"),
        draw(st.booleans(), label="inline"),
    )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@example(gap=ReaderGap("node", "child_process member", "identifier \\uXXXX", 1, False))  # bypass_15
@example(gap=ReaderGap("node", "import() of a data: URL", "plain", 1, False))  # bypass_16
@example(gap=ReaderGap("node", "inspector Runtime.evaluate", "plain", 1, False))  # bypass_17
@example(gap=ReaderGap("perl", "IPC::Open3", "plain", 1, False))  # bypass_18
@example(gap=ReaderGap("perl", "(?{ }) in //", "plain", 1, False))  # bypass_19
@given(gap=reader_gaps())
def test_deny_rule_holds_against_code_the_reader_must_decode_or_cannot_model(
    new_harness: Callable[[], Any], gap: ReaderGap
) -> None:
    r"""PERM-17: code running the denied program through an escaped name or an unmodelled API never runs unasked.

    Drawn: node or perl x the way the code reaches a program (node: ``child_process``'s member spelled
    plainly, as an identifier with ``\uXXXX``/``\u{X}`` escapes, as a literal key escaped or not, or
    through ``?.[]``, after ``{} / 1``; code in a ``data:`` URL given to ``import()``; inspector's
    ``Runtime.evaluate``; perl: ``IPC::Open3``/``Open2``/``Cmd``, ``POSIX::system``, a ``(?{ })``/``(??{ })``
    code block in a pattern of each quoting, code after ``$h{a} / 1``, a ``#`` comment holding a quote
    or ``q #`` and a comment, a POD block: places a reader out of step with the language's tokens takes code for
    text) x how the name is built x inline code or a script, under ``Bash(nuke:*)`` denied and the
    code-running form (inline) or the program (script) allowed. Real node and perl are the judge: a
    drawn case that does not run nuke is no attempt.
    """
    language = _NODE if gap.language == "node" else _PERL
    work, env = _plant_denied(language)
    code = gap.code()
    line = _line(language, code, gap.inline, work)
    allow = f"Bash({language.program} {language.inline}:*)" if gap.inline else f"Bash({language.program}:*)"
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(allow, "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    _real_run(line, work, env)
    assume((work.parent / "ran").exists())
    assert run.ran() == 0, f"{line!r} under {allow} ran unasked; for real it runs {_DENIED}\ncode: {code}"
