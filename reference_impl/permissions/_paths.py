"""Path normalisation and gitignore-style path patterns for ``Read(...)`` / ``Edit(...)`` rules (PERM-11).

A path rule is compared with normalised absolute paths, never with the text the model wrote:
``./a/../.env``, ``.//.env`` and a symlink pointing at ``.env`` are all ``<cwd>/.env``. Two forms
of a path are computed: the *lexical* form (made absolute, ``.``/``..``/repeated slashes folded,
no file-system access) and the *resolved* form (symlinks followed, as ``os.path.realpath``). A
deny or ask rule matches when either form matches; an allow rule must match the resolved form,
the file that would really be touched.

Pattern syntax follows Claude Code (gitignore rules): ``//abs`` is absolute, ``~/x`` is under the
home directory, ``/x`` is relative to the project root (the settings file's directory), ``./x``
and ``x`` are relative to the working directory. ``*`` matches within one path segment, ``**``
across segments, ``?`` one character, ``[...]`` a class. A pattern without an inner ``/`` matches
at any depth below its root, and a pattern that matches a directory matches everything inside it.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
import string
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from reference_impl.permissions._descriptors import shell_state
from reference_impl.permissions._wildcard_matching import GlobMatcher, GlobToken

__all__ = [
    "PathPattern",
    "PathPatternError",
    "cd_directories",
    "cd_is_physical",
    "chdir_directory",
    "depends_on_directory",
    "glob_class_at",
    "is_within",
    "lexical_path",
    "opaque_state",
    "parse_path_pattern",
    "path_forms",
    "reaches_beneath",
    "resolved_path",
]


class PathPatternError(ValueError):
    """A path rule's content that can't be understood (the caller names the rule)."""


def _fold(path: str) -> str:
    normal = posixpath.normpath(path)
    # POSIX keeps a leading "//" as implementation-defined; Linux and macOS treat it as "/".
    if normal.startswith("//"):
        normal = "/" + normal.lstrip("/")
    return normal


def _absolute_path(path: str, cwd: Path) -> str:
    if "\x00" in path:
        raise PathPatternError(f"path {path!r} contains a NUL byte")
    expanded = os.path.expanduser(path) if path.startswith("~") else path
    return expanded if expanded.startswith("/") else posixpath.join(str(cwd), expanded)


def _in_process(path: str, cwd: str) -> str:
    """``path`` (absolute) as the process running in ``cwd`` reads its own state: ``/proc/self/cwd/x`` is ``cwd/x``.

    The kernel resolves ``/proc/self`` (``thread-self``, ``/dev/fd``) in the process that opens the
    path, never in the engine's: its working directory is ``cwd``, its root ``/`` (PERM-15, PERM-11).
    A descriptor, or another process's state, is left as written (the callers can't tell it).
    """
    for _ in range(40):  # as many links as the kernel follows
        state = shell_state(path)
        if state is None or not state[1] or state[0] == "descriptor":
            return path
        path = posixpath.join(cwd if state[0] == "cwd" else "/", state[2])
    return path


def opaque_state(path: str, cwd: Path) -> str | None:
    """What ``path`` (from ``cwd``) leads through that the engine can't read, or None.

    A descriptor the process holds (``/dev/fd/3/x``: one open on a directory) or another process's
    directory (``/proc/1/cwd/x``): its files may be any, a protected or denied one too.
    """
    expanded = os.path.expanduser(path) if path.startswith("~") else path
    for form in (posixpath.join(str(cwd), expanded), resolved_path(path, cwd)):
        state = shell_state(form)
        if state is not None and state[0] == "descriptor" and not state[1]:
            return "another process's open descriptor"  # ``/proc/1/fd/3``: open on anything
        if state is None or not state[2]:
            continue
        if state[0] == "descriptor":
            return "an open descriptor"
        if not state[1]:
            return f"another process's {state[0]}"
    return None


def lexical_path(path: str, cwd: Path) -> str:
    """``path`` made absolute against ``cwd`` with ``.``, ``..`` and ``//`` folded, symlinks untouched.

    The process's own ``/proc/self/cwd`` and ``/proc/self/root`` are ``cwd`` and ``/``.
    """
    return _fold(_in_process(_absolute_path(path, cwd), str(cwd)))


_OWN_PROCESS_LINKS = frozenset({"/proc/self", "/proc/thread-self"})
_MOST_LINKS = 40  # as many as the kernel follows


def _walk(path: str, real_cwd: str) -> tuple[str, bool]:
    """``path`` (absolute) with every link followed as the process in ``real_cwd`` follows it.

    ``os.path.realpath``'s walk, but a link into the process's own state (``here -> /proc/self/cwd``,
    ``fds -> /proc/self/fd``) is read in that process, not the engine's: its directory is
    ``real_cwd``; a descriptor or another process's state is left as named. Also returns whether
    the walk went through the process's own directory (then the path depends on where it runs).
    """
    done, todo, links, through = "/", path.split("/")[::-1], 0, False
    while todo:
        segment = todo.pop()
        if segment in ("", "."):
            continue
        if segment == "..":
            # /proc/thread-self is two levels (``<pid>/task/<tid>``): its parent is the task directory.
            done = "/proc/self/task" if done == "/proc/thread-self" else posixpath.dirname(done)
            continue
        here = posixpath.join(done, segment)
        state = shell_state(here)
        if here in _OWN_PROCESS_LINKS:
            done = here  # resolved in the process that opens it: kept by its name
        elif state is not None and state[1] and state[0] != "descriptor":
            done, through = (real_cwd, True) if state[0] == "cwd" else ("/", through)
        elif state is not None or links > _MOST_LINKS:
            return posixpath.join(here, *todo[::-1]), through
        else:
            try:
                target = os.readlink(here)
            except (OSError, ValueError):
                done = here  # not a link, or not there yet
                continue
            links += 1
            todo.extend(target.split("/")[::-1])
            done = "/" if target.startswith("/") else done
    return done, through


def resolved_path(path: str, cwd: Path) -> str:
    """``path`` made absolute against the resolved ``cwd``, with every symlink followed (``/proc/self`` as ``cwd``'s)."""
    real = os.path.realpath(cwd)
    return _walk(_absolute_path(path, Path(real)), real)[0]


def depends_on_directory(path: str, cwd: Path) -> bool:
    """Whether ``path`` reaches the writing process's own directory (``/proc/self/cwd``), spelled or through a link."""
    real = os.path.realpath(cwd)
    return _walk(_absolute_path(path, Path(real)), real)[1]


def path_forms(path: str, cwd: Path) -> tuple[str, ...]:
    """The distinct normalised forms of ``path``: lexical first, then resolved (when different)."""
    lexical = lexical_path(path, cwd)
    resolved = resolved_path(path, cwd)
    return (lexical,) if lexical == resolved else (lexical, resolved)


def chdir_directory(here: str, move: str) -> str:
    """Where a program's ``chdir(move)`` from ``here`` (absolute) lands: ``git -C``, ``env -C``, ``make -C``.

    The kernel follows a link before it climbs: with ``l -> evil/sub``, ``l/..`` is ``evil``, not
    ``here``. The folded text (``..`` dropping the word before it) is kept where it names the same
    directory (no link before a ``..``: the answer reads as the line wrote it), else the resolved path.
    """
    joined = posixpath.join(here, move)
    normal = posixpath.normpath(joined)
    if ".." not in joined.split("/"):
        return normal
    real = os.path.realpath(joined)
    return normal if os.path.realpath(normal) == real else real


def cd_directories(here: str, move: str, *, physical: bool) -> list[str]:
    """Where bash's ``cd move`` (``-P``: ``physical``) from the shell's ``here`` may leave it (absolute).

    ``cd -P`` is the kernel's, and bash then holds the resolved path (a later ``cd ..`` climbs from the
    link's target). Plain ``cd`` folds the text first (``l/..`` is ``here``), and only when that names
    no directory chdirs to the text as given, the kernel's way (a line may make it later: both).
    """
    joined = posixpath.join(here, move)
    if physical:
        return [os.path.realpath(joined)]
    normal = posixpath.normpath(joined)
    kernel = chdir_directory(here, move)
    return [normal] if kernel == normal or os.path.isdir(normal) else [normal, kernel]


def cd_is_physical(options: Iterable[str | None]) -> bool:
    """Whether ``cd``'s option words make it physical: ``-P`` later than any ``-L`` (``-LP``, ``-P -e``)."""
    physical = False
    for word in options:
        if word is None or not word.startswith("-") or word in ("-", "--"):
            break
        for letter in word[1:]:
            physical = letter == "P" if letter in "LP" else physical
    return physical


def is_within(path: str, directories: Iterable[Path]) -> bool:
    """Whether the resolved ``path`` (absolute) lies in one of ``directories`` (resolved too)."""
    for directory in directories:
        root = os.path.realpath(directory)
        if path == root or path.startswith(root.rstrip("/") + "/"):
            return True
    return False


_GLOB_CHARS = re.compile(r"[*?\[]")


# git's wildmatch classes, in the C locale it matches bytes in (``[[:alpha:]]`` is ASCII letters).
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "\\x21-\\x7e",
    "lower": "a-z",
    "print": "\\x20-\\x7e",
    "punct": "".join(re.escape(c) for c in string.punctuation),
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}
# A class git refuses (a bogus ``[:name:]``) or that names nothing: it matches no character.
_NOTHING = "(?!)"


def glob_class_at(pattern: str, start: int) -> tuple[str, int]:
    """The bracket class opening at ``pattern[start]`` as a regex, and the index just past its ``]``.

    Read as git's wildmatch reads it: ``!`` or ``^`` first negates; a ``]`` first is a member; a
    backslash escapes the next character; ``a-z`` is a range (a reversed one names nothing);
    ``[:name:]`` is a POSIX class; no class ever matches ``/``. Raises :class:`PathPatternError` when
    the class never closes (git matches nothing then: the rule could never match).
    """
    n = len(pattern)
    i = start + 1
    negated = i < n and pattern[i] in "!^"
    i += negated
    members: list[str] = []
    previous = ""
    first = True
    while True:
        if i >= n:
            raise PathPatternError(f"unclosed '[' in {pattern!r}")
        c = pattern[i]
        if c == "]" and not first:
            break
        first = False
        if c == "\\":
            i += 1
            if i >= n:
                raise PathPatternError(f"unclosed '[' in {pattern!r}")
            c = pattern[i]
            members.append(re.escape(c))
        elif c == "-" and previous and i + 1 < n and pattern[i + 1] != "]":
            i += 1
            high = pattern[i]
            if high == "\\":
                i += 1
                if i >= n:
                    raise PathPatternError(f"unclosed '[' in {pattern!r}")
                high = pattern[i]
            # git has matched ``previous`` alone already: a reversed range adds nothing more.
            if previous <= high:
                members.append(f"{re.escape(previous)}-{re.escape(high)}")
            c = ""
        elif c == "[" and pattern.startswith(":", i + 1):
            close = pattern.find("]", i + 2)
            if close < 0:
                raise PathPatternError(f"unclosed '[' in {pattern!r}")
            if close - (i + 2) >= 1 and pattern[close - 1] == ":":
                name = pattern[i + 2 : close - 1]
                if name not in _POSIX_CLASSES:
                    return _NOTHING, _class_end(pattern, close + 1)
                members.append(_POSIX_CLASSES[name])
                i, c = close, ""  # a '-' after a POSIX class is a member, not a range
            else:
                members.append(re.escape(c))
        else:
            members.append(re.escape(c))
        previous = c
        i += 1
    body = "".join(members)
    if negated:
        return f"[^/{body}]", i + 1
    return (f"(?!/)[{body}]" if body else _NOTHING), i + 1


def _class_end(pattern: str, i: int) -> int:
    """The index past the ``]`` that closes a class whose rest git no longer reads."""
    close = pattern.find("]", i)
    if close < 0:
        raise PathPatternError(f"unclosed '[' in {pattern!r}")
    return close + 1


_NOT_A_SLASH = re.compile("[^/]")


def _glob_tokens(pattern: str) -> list[GlobToken]:
    """A gitignore glob (already relative to its root) as the steps of a match over a relative posix path.

    ``**`` (or more stars) spans segments only as a whole segment (``**/x``, ``x/**``, ``x/**/y``) or
    right after the glob's literal start (``a**/x``, as git reads it); elsewhere (``a*b**``) it is a
    plain ``*``. Raises :class:`PathPatternError` for a class that can't be read.
    """
    out: list[GlobToken] = []
    i = 0
    n = len(pattern)
    literal_start = next((k for k, c in enumerate(pattern) if c in "*?[\\"), n)
    while i < n:
        c = pattern[i]
        if c == "*":
            stars = i
            while i < n and pattern[i] == "*":
                i += 1
            # Two or more stars span segments when they fill a whole segment (git reads "***" as "**"),
            # or follow the glob's literal start: git matches that start first and the rest on its own.
            starts_segment = stars == 0 or pattern[stars - 1] == "/" or stars == literal_start
            whole_segment = i - stars >= 2 and starts_segment
            if whole_segment and i < n and pattern[i] == "/":
                out.append(GlobToken("dirs"))
                i += 1
            elif whole_segment and i == n:
                out.append(GlobToken("any"))
            else:
                out.append(GlobToken("segment"))
        elif c == "?":
            out.append(GlobToken("class", one=_NOT_A_SLASH))
            i += 1
        elif c == "[":
            regex, i = glob_class_at(pattern, i)
            try:
                out.append(GlobToken("class", one=re.compile(regex, re.DOTALL)))
            except re.error as error:
                raise PathPatternError(f"bad class in {pattern!r}: {error}") from error
        elif c == "\\" and i + 1 < n:
            out.append(GlobToken("char", pattern[i + 1]))
            i += 2
        else:
            out.append(GlobToken("char", c))
            i += 1
    return out


@dataclass(frozen=True, slots=True)
class PathPattern:
    """A parsed path rule: an absolute root directory and a gitignore glob below it."""

    root: str
    glob: str
    matcher: GlobMatcher

    def matches(self, absolute_path: str) -> bool:
        """Whether the absolute ``absolute_path`` (or a directory containing it) matches."""
        root = self.root.rstrip("/")
        if root and not absolute_path.startswith(root + "/"):
            return False
        relative = absolute_path[len(root) + 1 :] if root else absolute_path.lstrip("/")
        if not relative:
            return False
        # gitignore: a matching directory covers everything inside it.
        return self.matcher.matches_a_directory_of(relative)

    def same_file(self, resolved_path: str) -> bool | None:
        """Whether ``resolved_path`` is, by inode or through a link, a file this pattern covers; None when that can't be told.

        A file is not a spelling. A hard link is the same file under another name (``ln secret/key
        notes.txt``), and a symbolic link inside the covered tree names its target (``secret/key ->
        ../data/key.txt``; a link to a directory names all inside it): a deny rule for ``secret/**``
        (or ``.env``, ``*.pem``) must catch both, whatever the pattern's shape. The pattern's existing
        files are walked from its root (at most :data:`LINK_WALK_LIMIT` entries): covered links are
        resolved and compared by path, and, for a regular file with more than one name, covered files
        by device and inode. A walk that can't finish (too many entries, an unreadable directory)
        can't tell: None, which a deny or ask rule takes as a possible match.
        """
        try:
            have = os.stat(resolved_path)
        except (OSError, ValueError):
            wanted = None  # a new file has no other name but a link's
        else:
            several = stat.S_ISREG(have.st_mode) and have.st_nlink >= 2
            wanted = (have.st_dev, have.st_ino) if several else None
        return _covers_inode(self, resolved_path, wanted)


LINK_WALK_LIMIT = 20000
"""How many directory entries a hard link's comparison may visit below a pattern's root."""

SYMLINK_WALK_LIMIT = 2000
"""How many entries the search for a covered symbolic link to a file with one name may visit.

Every read under a deny rule such as ``Read(**/.env)`` walks the pattern's tree: past this bound the
links deeper in a large project are not looked at (a known gap, docs/fuzzing-findings.md), rather than
every read of the project asking. A file with several names keeps :data:`LINK_WALK_LIMIT`, and can't-tell.
"""


def _covers_inode(pattern: PathPattern, resolved: str, wanted: tuple[int, int] | None) -> bool | None:
    """Whether a covered link leads to ``resolved`` (or a directory holding it), or a covered file has the inode ``wanted`` (None: can't tell)."""
    root = pattern.root.rstrip("/") or "/"
    covered = False
    if pattern.glob == "**" or not re.search(r"(?<!\\)[*?\[]", pattern.glob):
        # One file or directory named literally: that one, and all inside it when it is a directory.
        if pattern.glob != "**":
            root = posixpath.join(root, re.sub(r"\\(.)", r"\1", pattern.glob))
        covered = True
    try:
        top = os.stat(root)
    except (OSError, ValueError):
        return False  # nothing under the root exists, so no file it covers is this one
    if not stat.S_ISDIR(top.st_mode):
        return covered and (top.st_dev, top.st_ino) == wanted
    budget = LINK_WALK_LIMIT if wanted is not None else SYMLINK_WALK_LIMIT
    # (directory, whether the pattern covers it whole): a matching directory covers all inside it.
    stack: list[tuple[str, bool]] = [(root, covered)]
    seen = {(top.st_dev, top.st_ino)}
    while stack:
        directory, covered = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            return None  # an unreadable directory may hold the file
        budget -= len(entries)
        if budget < 0:
            return None if wanted is not None else False
        for entry in entries:
            path = posixpath.join(directory, entry.name)
            inside = covered or pattern.matches(path)
            try:
                if entry.is_dir(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    if (info.st_dev, info.st_ino) not in seen:
                        seen.add((info.st_dev, info.st_ino))
                        stack.append((path, inside))
                    continue
                if not inside:
                    continue
                # A covered name that is a symbolic link names its target too (and all inside a directory).
                if entry.is_symlink():
                    target = os.path.realpath(path)
                    if resolved == target or resolved.startswith(target.rstrip("/") + "/"):
                        return True
                if wanted is None:
                    continue
                info = entry.stat(follow_symlinks=True)
            except OSError:
                continue  # a dangling link or a name gone meanwhile is no file
            if (info.st_dev, info.st_ino) == wanted:
                return True
    return False


def reaches_beneath(pattern: PathPattern, directory: str) -> bool | None:
    """Whether reading the tree of ``directory`` (a search, a listing) reads what the pattern covers.

    True when all of it is covered (``secret/**`` and a search of ``secret``); None when some file
    beneath it is, or may be (a walk past :data:`LINK_WALK_LIMIT` entries or an unreadable directory):
    a deny or ask rule then asks, since the call also reads what no rule covers. False when nothing
    beneath is covered. Only the part of the tree the pattern's root holds is walked.
    """
    root = pattern.root.rstrip("/") or "/"
    top = directory.rstrip("/") or "/"
    if pattern.glob == "**" and (top == root or top.startswith(root.rstrip("/") + "/")):
        return True
    if root == top or root.startswith(top.rstrip("/") + "/"):
        start = root  # the pattern's root is inside the tree: only what it holds can be covered
    elif top.startswith(root.rstrip("/") + "/"):
        start = top
    else:
        return False
    budget = LINK_WALK_LIMIT
    stack = [start]
    if not os.path.isdir(start):
        return None if os.path.lexists(start) and pattern.matches(start) else False
    while stack:
        here = stack.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:
            return None
        budget -= len(entries)
        if budget < 0:
            return None
        for entry in entries:
            path = posixpath.join(here, entry.name)
            if pattern.matches(path):
                return None
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(path)
            except OSError:
                return None
    return False


def _anchor(root: str, glob: str, content: str) -> tuple[str, str]:
    """Move the glob-free leading segments into the root, folded and with symlinks followed.

    ``.`` and ``..`` are folded like in paths; following symlinks in the root means a rule written
    through a symlinked directory still covers the files it names once paths are resolved.
    """
    segments = glob.split("/")
    literal: list[str] = []
    for segment in segments:
        if _GLOB_CHARS.search(segment):
            break
        # gitignore: a backslash escapes the character after it, in a plain segment too (``\a`` is ``a``).
        literal.append(re.sub(r"\\(.)", r"\1", segment))
    rest = segments[len(literal) :]
    if ".." in rest:
        raise PathPatternError(f"'..' after a wildcard is not supported in {content!r}")
    if not rest:
        # No wildcard at all: the last segment names the file or directory itself.
        literal, rest = literal[:-1], literal[-1:]
        folded = _fold(posixpath.join(root, *literal, rest[0]))
        parent, name = posixpath.split(folded)
        if not name:
            return os.path.realpath(parent), "**"
        return os.path.realpath(parent), re.sub(r"([*?\[\\])", r"\\\1", name)
    base = _fold(posixpath.join(root, *literal)) if literal else root
    return os.path.realpath(base), "/".join(rest)


def _separators_unescaped(glob: str) -> str:
    r"""The glob with ``\/`` as git reads it: an escaped ``/`` still separates segments.

    ``a\/b*`` meets ``a/bc``; not at the start (``\/a`` meets nothing) nor in a class (which never
    meets ``/``).
    """
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "\\" and i + 1 < n:
            out.append("/" if glob[i + 1] == "/" and i > 0 else glob[i : i + 2])
            i += 2
        elif c == "[":
            end = glob_class_at(glob, i)[1]
            out.append(glob[i:end])
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_path_pattern(content: str, *, cwd: Path, project_root: Path | None = None) -> PathPattern:
    """Turn a path rule's content into a :class:`PathPattern` anchored at its root.

    Raises :class:`PathPatternError` for an empty pattern, a gitignore negation (``!x``, which
    means nothing for a single rule), a malformed class or a trailing backslash that escapes nothing.
    """
    text = content.strip()
    if not text:
        raise PathPatternError("empty path pattern")
    if text.startswith("!"):
        raise PathPatternError("negated patterns ('!...') are not supported in permission rules")
    if "\x00" in text:
        raise PathPatternError("path pattern contains a NUL byte")
    if text.startswith("//"):
        root, glob, anchored = "/", text[2:], True
    elif text == "~" or text.startswith("~/"):
        root, glob, anchored = os.path.expanduser("~"), text[2:], True
    elif text.startswith("/"):
        root, glob, anchored = str(project_root or cwd), text[1:], True
    elif text.startswith("./"):
        root, glob, anchored = str(cwd), text[2:], True
    else:
        root, glob, anchored = str(cwd), text, False
    # A trailing "/" (directory only) is dropped: a directory pattern covers its contents anyway.
    glob = glob.rstrip("/")
    # A last backslash escapes nothing: git's glob then matches nothing (and Claude Code's ``ignore``
    # drops the pattern). Refused like an unclosed class, rather than read as a literal "\".
    if re.search(r"(?<!\\)(?:\\\\)*\\$", glob):
        raise PathPatternError(f"a trailing '\\' escapes nothing in {content!r}")
    glob = _separators_unescaped(glob)
    # gitignore: a pattern with an inner "/" is anchored at its root; one without floats.
    anchored = anchored or "/" in glob
    if not glob:
        glob = "**"
    if not anchored:
        glob = "**/" + glob
    root, glob = _anchor(root, glob, content)
    return PathPattern(root=root, glob=glob, matcher=GlobMatcher(_glob_tokens(glob)))
