"""Deny rules where the command runs (SBX-7): a denied program never runs in the sandbox, however started.

Each attempt starts a harmless program that leaves a trace (``touch`` or ``mkdir`` of a marker)
through carriers composed by Hypothesis: a prefix (``env``, ``nice``, ``timeout``, a full path), then
up to three layers that hide the line from anyone reading it (``sh -c``, ``bash -c "$(printf ...)"``,
a script written and then run, a function, an alias, ``find -exec``, ``xargs``, Python's
``subprocess`` and Perl's ``system`` over hex-encoded text). The engine is out of the way
(``bypassPermissions``: what it reads as denied is refused before running, which is fine too); the
sandbox must stop the program where it runs and say which rule did. The same command without the
rule leaves the trace, so every attempt is a real one.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance._sandbox_runs import allowing_host, run, skip_without
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import SandboxOutcome

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat", "perl")]

PY = sys.executable
MARKER = "trace"


def _hex(text: str) -> str:
    return text.encode().hex()


# name -> (inner line, level) -> a line that runs it
_LAYERS: dict[str, Callable[[str, int], str]] = {
    "sh -c": lambda s, _n: f"sh -c {shlex.quote(s)}",
    "bash -c printf": lambda s, _n: (
        'bash -c "$(printf %b ' + shlex.quote("".join(f"\\{ord(c):03o}" for c in s)) + ')"'
    ),
    "script": lambda s, n: f"printf '%s\\n' {shlex.quote(s)} > s{n}.sh && chmod +x s{n}.sh && ./s{n}.sh",
    "function": lambda s, n: f"f{n}() {{ {s}\n}}; f{n}",
    "alias": lambda s, n: (
        "bash -c " + shlex.quote(f"shopt -s expand_aliases; alias a{n}={shlex.quote(s)}\na{n}")
    ),
    "find -exec": lambda s, _n: f"find . -maxdepth 0 -exec sh -c {shlex.quote(s)} \\;",
    "xargs": lambda s, _n: f"printf '%s' {shlex.quote(s)} | xargs -0 sh -c",
    "python subprocess": lambda s, _n: (
        f"{PY} -c "
        + shlex.quote(f"import subprocess; subprocess.run(['sh', '-c', bytes.fromhex('{_hex(s)}').decode()])")
    ),
    "perl system": lambda s, _n: "perl -e " + shlex.quote(f'system("sh", "-c", pack("H*", "{_hex(s)}"))'),
}

_PREFIXES = ("", "env ", "nice -n 1 ", "timeout 5 ")
_SPELLINGS = ("{p}", "/usr/bin/{p}", "/bin/{p}", "\\{p}")
_PROGRAMS = ("touch", "mkdir")


def _line(program: str, spelling: str, prefix: str, layers: list[str]) -> str:
    line = prefix + spelling.format(p=program) + f" {MARKER}"
    for level, layer in enumerate(layers):
        line = _LAYERS[layer](line, level)
    return line


def _rule(program: str, form: str) -> str:
    return {
        "prefix": f"Bash({program}:*)",
        "wildcard": f"Bash({program} *)",
        "exact": f"Bash({program} {MARKER})",
    }[form]


def _bypass(deny: list[str]) -> dict[str, Any]:
    result = sandbox_settings(deny=deny)
    result["permissions"]["defaultMode"] = "bypassPermissions"
    return result


def _traced(work: Path) -> bool:
    return any(path.name == MARKER for path in work.rglob(MARKER))


def _attempt(harness: Any, base: Path, command: str, deny: list[str]) -> tuple[bool, SandboxOutcome]:
    work = base / "work"
    work.mkdir(parents=True)
    outcome = run(harness, command, work, _bypass(deny), host=allowing_host())
    return _traced(work), outcome


@pytest.mark.requirement("SBX-7", "MUST")
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    program=st.sampled_from(_PROGRAMS),
    form=st.sampled_from(["prefix", "wildcard", "exact"]),
    spelling=st.sampled_from(_SPELLINGS),
    prefix=st.sampled_from(_PREFIXES),
    layers=st.lists(st.sampled_from(sorted(_LAYERS)), min_size=0, max_size=3),
)
@example(program="touch", form="prefix", spelling="{p}", prefix="", layers=["python subprocess"])
@example(program="mkdir", form="wildcard", spelling="/usr/bin/{p}", prefix="env ", layers=["perl system"])
@example(program="touch", form="exact", spelling="{p}", prefix="nice -n 1 ", layers=["script", "perl system"])
@example(
    program="touch", form="prefix", spelling="{p}", prefix="timeout 5 ", layers=["alias", "python subprocess"]
)
@example(
    program="mkdir",
    form="prefix",
    spelling="{p}",
    prefix="",
    layers=["xargs", "find -exec", "bash -c printf"],
)
def test_a_denied_program_never_runs_in_the_sandbox(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    program: str,
    form: str,
    spelling: str,
    prefix: str,
    layers: list[str],
) -> None:
    """SBX-7 property: with the sandbox on, a program a deny rule names does not run, whatever starts it.

    The line is composed from a prefix, a spelling of the program and up to three hiding layers; with
    the rule, the marker never appears and the result names the rule; without it, the marker appears.
    """
    command = _line(program, spelling, prefix, layers)
    rule = _rule(program, form)
    base = tmp_path_factory.mktemp("sbx7")
    traced, outcome = _attempt(new_harness(), base / "on", command, [rule])
    assert not traced, f"{command!r} ran {program} under {rule} in the sandbox: {outcome.output}"
    if outcome.ran:  # what the engine refused before running is the engine's to explain (PERM)
        assert rule in outcome.output, f"{command!r}: the result does not name {rule}: {outcome.output!r}"
    traced, outcome = _attempt(new_harness(), base / "off", command, ["Bash(no-such-program:*)"])
    assert traced, (
        f"{command!r} leaves no trace even without the rule (the test proves nothing): {outcome.output}"
    )


@pytest.mark.requirement("SBX-7", "MUST")
def test_other_arguments_of_a_judged_program_still_run(
    new_harness: Callable[[], Any], tmp_path: Path
) -> None:
    """SBX-7: the check is on the argv, not the program: ``touch`` is judged and runs when no rule matches.

    A rule on ``touch -d:*`` stops ``touch -d ... x`` (from Python, unseen by the engine) and lets
    ``touch`` of a second file through, in the same command; an ask rule met there is refused with a
    message saying so (nobody can be asked at exec time).
    """
    hidden = f"import subprocess; subprocess.run(bytes.fromhex('{_hex('touch -d 2001-01-01 x')}').decode().split())"
    command = f"{PY} -c {shlex.quote(hidden)}; touch y; {PY} -c {shlex.quote(hidden.replace(_hex('touch -d 2001-01-01 x'), _hex('mkdir z')))}"
    work = tmp_path / "work"
    work.mkdir()
    settings_ = _bypass(["Bash(touch -d:*)"])
    settings_["permissions"]["ask"] = ["Bash(mkdir:*)"]
    outcome = run(new_harness(), command, work, settings_, host=allowing_host())
    assert not (work / "x").exists(), outcome.output
    assert (work / "y").exists(), f"touch without -d was refused: {outcome.output}"
    assert not (work / "z").exists(), f"an ask rule met at exec time let mkdir run: {outcome.output}"
    assert "Bash(touch -d:*)" in outcome.output, outcome.output
    assert "Bash(mkdir:*)" in outcome.output, outcome.output


@pytest.mark.requirement("SBX-7", "MUST")
@pytest.mark.parametrize("program", ["sh", "grep", "sleep"])
def test_a_rule_on_the_sandboxs_own_programs_judges_only_the_command(
    new_harness: Callable[[], Any], tmp_path: Path, program: str
) -> None:
    """SBX-7: a rule on a program the sandbox itself starts judges only the command's uses of it.

    The sandbox's shell and its bridge's helpers (grep, sleep) go past the stubs: the command runs,
    and its own start of the program is refused, naming the rule.
    """
    work = tmp_path / "work"
    work.mkdir()
    hidden = f"import subprocess; subprocess.run(['{program}', '--version'])"
    command = f"echo ran > ran.txt; {PY} -c {shlex.quote(hidden)}"
    outcome = run(new_harness(), command, work, _bypass([f"Bash({program}:*)"]), host=allowing_host())
    assert (work / "ran.txt").exists(), f"a rule on {program} stopped the sandbox itself: {outcome.output}"
    assert f"Bash({program}:*)" in outcome.output, outcome.output
