"""The exec check's judge: a program about to start in the sandbox, against the Bash deny and ask rules (SBX-7).

:class:`ExecJudge` is built from the permission context once per session. Each exec call
(:class:`~reference_impl.sandbox._exec_guard.ExecAttempt`) is judged on every name the program goes
by, each followed by its real arguments, with the harness's own rule matcher
(:func:`~reference_impl.permissions.shell_rule_index`):

- the path and ``argv[0]``, as given and by their last component (``/bin/rm`` and ``rm``; a
  multi-call binary's applet);
- the name of every program a rule names whose file this is: the same inode (``python3`` ->
  ``python3.11``, ``/bin`` vs ``/usr/bin``, hard links) or the same bytes (a copy, ``cp /usr/bin/rm
  /tmp/x``, an execute-only copy counts when its size matches: it can't be read to tell);
- for a script (``#!``), the interpreter line as the kernel runs it, judged the same way;
- for the dynamic loader run as a program (``/lib64/ld-linux-x86-64.so.2 /usr/bin/rm ...``), the
  program it is asked to load, with the words after it.

A deny rule refuses. An ask rule refuses too, with a message saying so (nobody can be asked where
the command runs), unless the static reading of this very call met it: then the call was asked about
and allowed as written, and the ask rule is granted for its process tree (:meth:`ExecJudge.for_command`).
"""

from __future__ import annotations

import glob
import hashlib
import os
import posixpath
import re
import shlex
import stat
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from reference_impl.permissions import (
    PermissionRule,
    ShellRuleIndex,
    parse_rule,
    pattern_head,
    script_operand,
    shell_deny_match,
    shell_rule_index,
)
from reference_impl.sandbox._exec_guard import ExecAttempt

__all__ = ["SHELL_TOOL", "ExecJudge", "build_id", "exec_judge"]

SHELL_TOOL = "Bash"
"""The tool whose rules hold where the command runs."""

_STANDARD_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
_SHEBANG_LIMIT = 256
_SCRIPT_DEPTH = 4  # the kernel's own limit of nested interpreters
_LOADER = re.compile(r"^ld(-linux)?[-\w.]*\.so(\.\d+)*$")
_LOADER_FILES = (
    "/lib64/ld-*.so*",
    "/lib/ld-*.so*",
    "/lib/*-linux-gnu*/ld-*.so*",
    "/usr/lib/*-linux-gnu*/ld-*.so*",
)
_PT_NOTE, _NT_GNU_BUILD_ID = 4, 3
_LOADER_OPTIONS_WITH_VALUE = frozenset(
    {"--library-path", "--preload", "--audit", "--argv0", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"}
)


@dataclass(frozen=True, slots=True)
class _Program:
    names: frozenset[str]
    size: int


@dataclass
class ExecJudge:
    """The Bash deny and ask rules, and the files of the programs they name (by inode, build ID and size)."""

    deny: tuple[PermissionRule, ...]
    ask: tuple[PermissionRule, ...]
    by_inode: dict[tuple[int, int], _Program]
    by_size: dict[int, list[tuple[str, frozenset[str]]]]
    by_build_id: dict[bytes, frozenset[str]] = field(default_factory=dict)
    """The rule-named programs by their ELF build ID (a copy with bytes appended or changed keeps it)."""
    loaders: frozenset[tuple[int, int] | bytes] = frozenset()
    """The dynamic loader's files on this machine: by (device, inode) and by build ID."""
    granted: frozenset[PermissionRule] = frozenset()
    _digests: dict[tuple[int, int, int, int], str] = field(default_factory=dict)
    _build_ids: dict[tuple[int, int, int, int], bytes | None] = field(default_factory=dict)
    _unanswered: tuple[PermissionRule, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        # One tuple per call, so the rule index built for it is reused for every exec of the call.
        self._unanswered = tuple(rule for rule in self.ask if rule not in self.granted)

    @property
    def active(self) -> bool:
        """Whether any rule is to be held where the command runs."""
        return bool(self.deny or self.ask)

    def for_command(self, command: str) -> ExecJudge:
        """The judge for one call: the ask rules its static reading met are granted (it ran, so it was allowed)."""
        granted = frozenset(_rules_met(self.ask, command)) if self.ask else frozenset()
        return ExecJudge(
            self.deny,
            self.ask,
            self.by_inode,
            self.by_size,
            self.by_build_id,
            self.loaders,
            granted,
            self._digests,
            self._build_ids,
        )

    def __call__(self, attempt: ExecAttempt) -> str | None:
        """Why this exec must not run, naming the rule; None when no rule stops it."""
        argv = attempt.argv or (attempt.path,)
        # As given too, for rules written with a path (``Bash(./deploy.sh:*)``).
        names = {attempt.path, argv[0], posixpath.basename(attempt.path), posixpath.basename(argv[0])}
        names.discard("")
        if attempt.fd is not None:
            names |= self._names_of(attempt.fd)
        reason = self._judge_words(sorted(names), argv[1:], argv)
        if reason is None and attempt.fd is not None:
            reason = self._judge_script(attempt, argv)
        if reason is None and (
            any(_LOADER.match(name) for name in names)
            or (attempt.fd is not None and self._is_loader(attempt.fd))
        ):
            reason = self._judge_loaded(attempt, argv)
        if reason is None:
            reason = self._judge_script_operand(attempt, argv)
        if reason is None:
            reason = self._judge_as_read(argv)
        return reason

    def _judge_as_read(self, argv: Sequence[str]) -> str | None:
        """The real argv read as the engine reads a command line: what it certainly runs in turn.

        A shell's ``-c`` script (``sh -c '. bin/nuke'`` from a Makefile recipe: sourced, so never
        exec'd), an option or setting that runs a command, a wrapper's command: a deny (or unanswered
        ask) rule the reading *certainly* meets refuses the exec before anything in it runs.
        """
        line = shlex.join((posixpath.basename(argv[0]), *argv[1:])) if argv else ""
        shown = shlex.join(argv)
        for rules, what in ((self.deny, "denied by"), (self._unanswered, "asked by")):
            found = shell_deny_match(rules, (SHELL_TOOL,), line) if rules else None
            if found is not None and found.certain:
                return (
                    f"the sandbox refused to run `{shown}`: what it runs is {what} rule {found.rule.text}"
                    " (checked where the command runs)"
                )
        return None

    def _judge_script_operand(self, attempt: ExecAttempt, argv: Sequence[str]) -> str | None:
        """A script a shell or interpreter is given (``sh bin/nuke``) is judged as the program it is.

        By its name and, opened as the kernel would open a program, by its file: a link to or a copy
        of a denied program's file (``sh ./copy-of-a-denied-script``).
        """
        found = script_operand((posixpath.basename(attempt.path), *argv[1:]))
        if found is None or found[0] == "?":
            return None
        fd = attempt.open(found[0])
        try:
            inner = ExecAttempt(found[0], found, fd, attempt.root, attempt.cwd, attempt.pid)
            names = {found[0], posixpath.basename(found[0])}
            if fd is not None:
                names |= self._names_of(fd)
            reason = self._judge_words(sorted(names), found[1:], found)
            if reason is None and fd is not None:
                reason = self._judge_script(inner, found)
            return reason
        finally:
            if fd is not None:
                os.close(fd)

    def _is_loader(self, fd: int) -> bool:
        """Whether ``fd`` is the dynamic loader under another name (a copy, a link), by inode or build ID."""
        if not self.loaders:
            return False
        try:
            info = os.fstat(fd)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) in self.loaders or self._build_id(fd, info) in self.loaders

    def _build_id(self, fd: int, info: os.stat_result) -> bytes | None:
        """``fd``'s build ID, remembered per file version (the loader and the names both ask)."""
        key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        if key not in self._build_ids:
            if len(self._build_ids) >= 4096:
                self._build_ids.clear()
            self._build_ids[key] = build_id(fd) if stat.S_ISREG(info.st_mode) else None
        return self._build_ids[key]

    def _judge_loaded(self, attempt: ExecAttempt, argv: Sequence[str]) -> str | None:
        """The program the dynamic loader is asked to run, judged as if it were exec'd itself."""
        index = 1
        while index < len(argv) and argv[index].startswith("--"):
            index += 2 if argv[index] in _LOADER_OPTIONS_WITH_VALUE else 1
        if index >= len(argv):
            return None
        program = argv[index]
        fd = attempt.open(program)
        try:
            inner = ExecAttempt(program, tuple(argv[index:]), fd, attempt.root, attempt.cwd, attempt.pid)
            return self(inner)
        finally:
            if fd is not None:
                os.close(fd)

    def _judge_words(self, names: Iterable[str], args: Sequence[str], argv: Sequence[str]) -> str | None:
        forms: list[str] = []
        for name in names:
            forms.append(" ".join((name, *args)))
            forms.append(shlex.join((name, *args)))
        commands = [(name, *args) for name in names]
        rule = _first_certain(shell_rule_index(self.deny, (SHELL_TOOL,)), forms, commands)
        shown = shlex.join(argv)
        if rule is not None:
            return f"the sandbox refused to run `{shown}`: denied by rule {rule.text} (checked where the command runs)"
        rule = _first_certain(shell_rule_index(self._unanswered, (SHELL_TOOL,)), forms, commands)
        if rule is not None:
            return (
                f"the sandbox refused to run `{shown}`: rule {rule.text} asks, and nobody can be asked "
                "where the command runs, so it is refused"
            )
        return None

    def _judge_script(self, attempt: ExecAttempt, argv: Sequence[str]) -> str | None:
        """The interpreter lines of a script, as the kernel would run them."""
        fd: int | None = attempt.fd
        path, rest = attempt.path, tuple(argv[1:])
        opened: list[int] = []
        try:
            for _ in range(_SCRIPT_DEPTH):
                assert fd is not None
                try:
                    head = os.pread(fd, _SHEBANG_LIMIT, 0)
                except OSError:
                    return None
                if not head.startswith(b"#!"):
                    return None
                line = os.fsdecode(head[2:].split(b"\n", 1)[0]).strip(" \t")
                interpreter, _, option = line.partition(" ")
                if not interpreter:
                    return None
                words = (interpreter, *([option.strip(" \t")] if option.strip(" \t") else []), path, *rest)
                names = {posixpath.basename(interpreter)}
                fd = attempt.open(interpreter)
                if fd is not None:
                    opened.append(fd)
                    names |= self._names_of(fd)
                reason = self._judge_words(sorted(names), words[1:], words)
                if reason is not None or fd is None:
                    return reason
                path, rest = interpreter, tuple(words[1:])
            return None
        finally:
            for each in opened:
                os.close(each)

    def _names_of(self, fd: int) -> set[str]:
        """The rule-named programs whose file ``fd`` is, by inode, build ID or content."""
        try:
            info = os.fstat(fd)
        except OSError:
            return set()
        program = self.by_inode.get((info.st_dev, info.st_ino))
        if program is not None:
            return set(program.names)
        if self.by_build_id:
            named = self.by_build_id.get(self._build_id(fd, info) or b"")
            if named:
                return set(named)
        candidates = self.by_size.get(info.st_size) if stat.S_ISREG(info.st_mode) else None
        if not candidates:
            return set()
        key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        digest = self._digests.get(key)
        if digest is None:
            digest = _digest_fd(fd)
            if digest is None:  # unreadable (execute-only): as big as a denied program, so it may be one
                return {name for _, names in candidates for name in names}
            self._digests[key] = digest
        names: set[str] = set()
        for path, program_names in candidates:
            if self._digest_of_path(path) == digest:
                names |= program_names
        return names

    def _digest_of_path(self, path: str) -> str | None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
            if key not in self._digests:
                digest = _digest_fd(fd)
                if digest is None:
                    return None
                self._digests[key] = digest
            return self._digests[key]
        finally:
            os.close(fd)


def build_id(fd: int) -> bytes | None:
    """The GNU build ID note of a 64-bit little-endian ELF file, or None (not ELF, none, unreadable)."""
    try:
        header = os.pread(fd, 64, 0)
        if len(header) < 64 or header[:6] != b"\x7fELF\x02\x01":
            return None
        (phoff,) = struct.unpack_from("<Q", header, 32)
        entsize, count = struct.unpack_from("<HH", header, 54)
        table = os.pread(fd, entsize * min(count, 64), phoff)
        for index in range(len(table) // entsize if entsize >= 56 else 0):
            (kind,) = struct.unpack_from("<I", table, index * entsize)
            (offset,) = struct.unpack_from("<Q", table, index * entsize + 8)
            (size,) = struct.unpack_from("<Q", table, index * entsize + 32)
            if kind == _PT_NOTE:
                found = _note(os.pread(fd, min(size, 4096), offset))
                if found is not None:
                    return found
    except (OSError, struct.error):
        return None
    return None


def _note(notes: bytes) -> bytes | None:
    at = 0
    while at + 12 <= len(notes):
        name_size, desc_size, kind = struct.unpack_from("<III", notes, at)
        name_at = at + 12
        desc_at = name_at + (name_size + 3) // 4 * 4
        if kind == _NT_GNU_BUILD_ID and notes[name_at : name_at + name_size] == b"GNU\0":
            return notes[desc_at : desc_at + desc_size] or None
        at = desc_at + (desc_size + 3) // 4 * 4
    return None


def _first_certain(
    index: ShellRuleIndex, forms: Sequence[str], commands: Sequence[Sequence[str]]
) -> PermissionRule | None:
    """The rule met by a spelling, or by the words as the program reads them (``git -C . push``), for certain.

    A match the program's grammar only makes possible is not refused here: the static reading
    asked about it before the command ran.
    """
    rule = index.first(forms)
    if rule is None:
        read = index.by_grammar(commands)
        rule = read[0] if read is not None and read[1] else None
    return rule


def _rules_met(rules: Sequence[PermissionRule], command: str) -> tuple[PermissionRule, ...]:
    """The rules the static reading of ``command`` certainly meets (one that only *may* apply is not met)."""
    met: list[PermissionRule] = []
    for rule in rules:
        found = shell_deny_match((rule,), (SHELL_TOOL,), command)
        if found is not None and found.certain:
            met.append(rule)
    return tuple(met)


def _digest_fd(fd: int) -> str | None:
    digest = hashlib.sha256()
    offset = 0
    try:
        while chunk := os.pread(fd, 1 << 20, offset):
            digest.update(chunk)
            offset += len(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def _program_files(head: str, search: Sequence[str]) -> list[str]:
    if "/" in head:
        return [head] if os.path.isfile(head) else []
    found = [posixpath.join(d, head) for d in search if d.startswith("/")]
    return [p for p in found if os.path.isfile(p) and os.access(p, os.X_OK)]


def exec_judge(rules: Iterable[PermissionRule], path_variable: str | None) -> ExecJudge:
    """The judge for these rules: their Bash deny and ask rules, the named programs found on the PATH."""
    shell = [r for r in rules if r.tool_name == SHELL_TOOL and r.content is not None]
    deny = tuple(r for r in shell if r.behavior == "deny")
    ask = tuple(r for r in shell if r.behavior == "ask")
    search = list(dict.fromkeys([*(path_variable or "").split(":"), *_STANDARD_DIRS]))
    by_inode: dict[tuple[int, int], set[str]] = {}
    sizes: dict[tuple[int, int], tuple[int, str]] = {}
    for rule in (*deny, *ask):
        assert rule.content is not None
        # The loader keeps a rule written with a path as its program's name (``Bash(/opt/bin/nuke:*)``
        # denies every spelling of ``nuke``); the path as written still names the file to know it by.
        for head in dict.fromkeys((pattern_head(rule.content), _written_head(rule))):
            if head is None:
                continue
            for path in _program_files(head, search):
                info = os.stat(path)
                key = (info.st_dev, info.st_ino)
                by_inode.setdefault(key, set()).add(posixpath.basename(head))
                sizes[key] = (info.st_size, os.path.realpath(path))
    programs = {key: _Program(frozenset(names), sizes[key][0]) for key, names in by_inode.items()}
    by_size: dict[int, list[tuple[str, frozenset[str]]]] = {}
    by_build_id: dict[bytes, set[str]] = {}
    for key, program in programs.items():
        by_size.setdefault(program.size, []).append((sizes[key][1], program.names))
        found = _build_id_of(sizes[key][1])
        if found is not None:
            by_build_id.setdefault(found, set()).update(program.names)
    loaders: set[tuple[int, int] | bytes] = set()
    for path in sorted({p for pattern in _LOADER_FILES for p in glob.glob(pattern)}):
        info = os.stat(path)
        loaders.add((info.st_dev, info.st_ino))
        found = _build_id_of(path)
        if found is not None:
            loaders.add(found)
    return ExecJudge(
        deny,
        ask,
        programs,
        by_size,
        {key: frozenset(names) for key, names in by_build_id.items()},
        frozenset(loaders) if (deny or ask) else frozenset(),
    )


def _written_head(rule: PermissionRule) -> str | None:
    """The program a rule names as its text writes it (a path, before the loader reads it as a name)."""
    try:
        written = parse_rule(rule.text, rule.behavior, rule.source).content
    except ValueError:  # a rule built in code, whose text is no rule (RuleSyntaxError is a ValueError)
        return None
    return None if written is None else pattern_head(written)


def _build_id_of(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return build_id(fd)
    finally:
        os.close(fd)
