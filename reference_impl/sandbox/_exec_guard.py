"""Deny rules enforced where the command runs (SBX-7): judging stubs bound over the programs they name.

For every program that a ``Bash(...)`` deny or ask rule names (the first word of the rule's command:
``rm`` in ``Bash(rm -rf:*)``), every file that runs it on this machine is found: the program in each
directory of ``PATH`` and the usual system directories, resolved through symlinks (``/bin`` and
``/usr/bin`` on a merged-usr system are one file; ``python3`` -> ``python3.11``), and the hard links
of that file in the same directories (``perl`` and ``perl5.36.0``). Inside the sandbox each such file
is covered, read-only, by a stub; the real file is bound under the run's private directory. The stub
is a bash script run by a hidden copy of the real bash, so nothing the command does can replace its
interpreter: it joins its arguments with spaces, matches ``program arguments`` against the rules'
patterns (bash ``case`` patterns compiled here from the rules) and either ``exec``-s the real
program with the same arguments and the same ``argv[0]``, or writes ``Denied by <rule> (SBX-7): ...``
to stderr and to the run's record (which the harness appends to the tool result), and exits 126.

Because the check sits on the file, it holds however the program was reached: spelt in full or
through a symlink, under ``env`` / ``nice`` / ``timeout``, from a script written on the line, a
function, an alias, ``find -exec``, ``xargs``, an interpreter's ``subprocess`` or ``system``.
Matching at exec time: ``Bash(prog rest:*)`` matches arguments starting with ``rest``; a rule with
``*`` is a glob over the joined arguments (a trailing `` *`` also matches none); a rule without a
wildcard matches its arguments exactly or followed by more (deny is broad). An ask rule met at exec
time can't prompt anybody, so the program is refused with a message saying so. What this can't see is
in ``docs/sandbox.md`` ("What the sandbox adds").
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from reference_impl.permissions import PermissionRule

__all__ = ["DENIALS_FILE", "EXIT_DENIED", "ExecGuard", "ExecRule", "exec_rules", "read_denials"]

EXIT_DENIED = 126
"""The exit status of a program refused at exec time (bash's "found but not executable")."""

DENIALS_FILE = "sbx7-denied.log"
"""The record of refusals, one line each, in the run's private directory."""

_SYSTEM_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
_WILDCARDS = ("*", "?", "[")


@dataclass(frozen=True, slots=True)
class ExecRule:
    """One ``Bash`` deny or ask rule as the stubs judge it: the program and the argument patterns."""

    text: str
    behavior: str
    program: str
    patterns: tuple[str, ...]
    """bash ``case`` patterns (quoted) over the program's arguments joined by single spaces."""


def _quoted_glob(text: str) -> str:
    """``text`` (``*`` a wildcard, a backslash-escaped star literal) as a bash pattern with every literal quoted."""
    pieces = text.replace("\\*", "\0").split("*")
    return "*".join(shlex.quote(p.replace("\0", "*")) if p else "" for p in pieces)


def _exec_rule(rule: PermissionRule) -> ExecRule | None:
    if rule.content is None:
        return None  # a whole-tool rule: the engine decides every call before anything runs
    text = rule.content.strip()
    prefix = text.endswith(":*")
    if prefix:
        text = text[:-2]
    words = text.split(None, 1)
    if not words:
        return None
    program = os.path.basename(words[0])
    if not program or program in (".", "..") or any(c in program for c in _WILDCARDS):
        return None  # no file to bind over: the engine's reading of the line is all there is
    rest = " ".join(words[1].split(" ")) if len(words) > 1 else ""
    if not rest or rest == "*":
        patterns: tuple[str, ...] = ("*",)
    elif prefix:
        patterns = (_quoted_glob(rest.replace("*", "\\*")) + "*",)
    elif "*" in rest.replace("\\*", ""):
        patterns = (_quoted_glob(rest),)
        if rest.endswith(" *"):
            patterns += (_quoted_glob(rest[:-2]),)
    else:
        literal = _quoted_glob(rest.replace("*", "\\*"))
        patterns = (literal, literal + "' '*")
    return ExecRule(rule.text, rule.behavior, program, patterns)


def exec_rules(rules: Iterable[PermissionRule]) -> tuple[ExecRule, ...]:
    """The ``Bash`` deny rules, then the ask rules, that name a program (deny wins at exec time)."""
    found = [
        judged
        for behavior in ("deny", "ask")
        for rule in rules
        if rule.tool_name == "Bash" and rule.behavior == behavior
        if (judged := _exec_rule(rule)) is not None
    ]
    return tuple(found)


def _search_dirs() -> tuple[str, ...]:
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(d)]
    return tuple(dict.fromkeys(os.path.realpath(d) for d in (*path, *_SYSTEM_DIRS) if os.path.isdir(d)))


def _is_program(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def program_files(program: str, dirs: Sequence[str]) -> tuple[str, ...]:
    """Every file (resolved) that runs ``program`` from ``dirs``: its symlinks' targets and hard links."""
    found = {os.path.realpath(p) for d in dirs if _is_program(p := os.path.join(d, program))}
    inodes = {(s.st_dev, s.st_ino) for s in map(os.stat, found)}
    if inodes:
        for directory in dirs:
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                try:
                    if not entry.is_symlink() and (entry.stat().st_dev, entry.inode()) in inodes:
                        found.add(os.path.realpath(entry.path))
                except OSError:
                    continue
    return tuple(sorted(found))


def _case_branch(rule: ExecRule) -> str:
    return (
        f"  {'|'.join(rule.patterns)})\n"
        f"    rule={shlex.quote(rule.text)} kind={rule.behavior} program={shlex.quote(rule.program)} ;;"
    )


_STUB_TAIL = """\
  *) exec {exec_a} {real} "$@" ;;
esac
line="Denied by $rule (SBX-7): $program $args"
if [ "$kind" = ask ]; then line="$line (an ask rule met at exec time can't prompt anybody: refused)"; fi
printf '%s\\n' "$line" >&2
printf '%s\\n' "$line" >>{log} 2>/dev/null
exit {status}
"""


@dataclass(frozen=True, slots=True)
class ExecGuard:
    """The stubs of one run: the files they cover and the bubblewrap arguments that put them there."""

    directory: str
    shell: str
    """The hidden real shell inside the sandbox (a command line that a deny rule on ``sh`` would catch)."""
    mounts: tuple[str, ...]
    hidden: tuple[tuple[str, str], ...]
    """(a covered file, where its real program is inside the sandbox)."""

    def real_program(self, path: str) -> str:
        """Where ``path``'s real program is reachable inside the sandbox (``path`` when not covered)."""
        return dict(self.hidden).get(os.path.realpath(path), path)

    @classmethod
    def build(cls, rules: Sequence[ExecRule], directory: Path) -> ExecGuard:
        """Write the stubs for ``rules`` into ``directory`` (private to this run) and plan their mounts."""
        base = str(directory)
        bash = shutil.which("bash")
        sh = os.path.realpath("/bin/sh")
        interpreter = os.path.join(base, "bin", "bash" if bash else "sh")
        os.makedirs(os.path.join(base, "bin"))
        os.makedirs(os.path.join(base, "real"))
        os.makedirs(os.path.join(base, "stubs"))
        log = os.path.join(base, DENIALS_FILE)
        Path(log).touch()
        hidden_sh = os.path.join(base, "bin", "sh")
        mounts = ["--ro-bind", base, base, "--bind", log, log, "--ro-bind", sh, hidden_sh]
        Path(hidden_sh).touch()
        if bash:
            Path(interpreter).touch()
            mounts += ["--ro-bind", os.path.realpath(bash), interpreter]
        dirs = _search_dirs()
        judged: dict[str, list[ExecRule]] = {}
        for rule in rules:
            for path in program_files(rule.program, dirs):
                judged.setdefault(path, []).append(rule)
        covers: list[str] = []
        hidden: list[tuple[str, str]] = []
        for number, (path, path_rules) in enumerate(sorted(judged.items())):
            real = os.path.join(base, "real", f"{number}-{os.path.basename(path)}")
            stub = os.path.join(base, "stubs", f"{number}-{os.path.basename(path)}")
            Path(real).touch()
            tail = _STUB_TAIL.format(
                exec_a='-a "$0"' if bash else "",
                real=shlex.quote(real),
                log=shlex.quote(log),
                status=EXIT_DENIED,
            )
            branches = "\n".join(_case_branch(r) for r in path_rules)
            header = f"#!{interpreter} -p\n# SBX-7: {path} is judged before it runs\nIFS=' '\nargs=\"$*\"\n"
            Path(stub).write_text(f'{header}case "$args" in\n{branches}\n{tail}', encoding="utf-8")
            os.chmod(stub, 0o755)
            mounts += ["--ro-bind", path, real]
            covers += ["--ro-bind", stub, path]
            hidden.append((path, real))
        shell = hidden_sh if sh in judged else "/bin/sh"
        return cls(base, shell, tuple(mounts + covers), tuple(hidden))


def read_denials(guard: ExecGuard) -> tuple[str, ...]:
    """The refusals the stubs recorded during the run, in order (duplicates kept)."""
    try:
        text = Path(guard.directory, DENIALS_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    return tuple(line for line in text.splitlines() if line)
