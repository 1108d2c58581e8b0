"""Running a shell command, inside bubblewrap or not (SBX-1..3, SBX-5).

Inside the sandbox the root is mounted read-only (``--ro-bind / /``), with fresh ``/dev`` and
``/proc``; the writable roots are bound read-write over it, then the protected paths that exist are
bound read-only over those, and the hidden ones are covered (an empty read-only tmpfs over a
directory, ``/dev/null`` over a file). Network, PID, IPC and UTS namespaces are new, so the command
sees only its own loopback and its own processes; when it ends, everything it started ends with it.
Under the exec check (SBX-7) that ``/proc`` is mounted read-only: no process of the command opens
another's memory (``/proc/PID/mem``, however spelled) for writing, to rewrite a program after it was
judged.
A protected path that does not exist can't be a mount point without creating it in the user's tree,
so it is checked after the command instead: if the command created it, it is removed (Claude Code's
"scrub" of planted bare-repository files), whatever stood on its way (missing directories, a file, a
symlink to a directory not made yet; a protected symlink that dangles: what it will point to). Glob patterns of ``denyRead`` / ``denyWrite`` are expanded
just before each command: their matches are hidden or read-only like listed paths, and a path the
command created that matches a ``denyWrite`` pattern is removed after it. A pattern matching more than
:data:`GLOB_MATCH_LIMIT` paths refuses the command (:class:`SandboxPatternError`) rather than run it
with part of the pattern unenforced. The ``/proc/self/root`` of a sandboxed process is the
sandbox's own root, so it leads nowhere new.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from reference_impl.permissions import PathPattern, PathPatternError, parse_path_pattern
from reference_impl.sandbox._policy import BARE_REPOSITORY_NAMES, SandboxPolicy

__all__ = [
    "GLOB_MATCH_LIMIT",
    "PROXY_PORT",
    "CommandResult",
    "MountPlan",
    "SandboxPatternError",
    "bwrap_argv",
    "command_shell",
    "mount_plan",
    "run_command",
    "sandbox_problem",
    "scrub",
]

PROXY_PORT = 3128
"""The port of the proxy bridge on the sandbox's own loopback."""

_BRIDGE = (
    # The bridge: socat turns 127.0.0.1:PORT into the proxy's Unix socket; the command starts once
    # the port listens (/proc/net/tcp state 0A), so its first connection can't race the bridge.
    '"$SBX_SOCAT" TCP-LISTEN:$SBX_PORT,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"$SBX_SOCKET" '
    "2>/dev/null &\n"
    'hex=$(printf "%04X" "$SBX_PORT")\n'
    "n=0\n"
    'until grep -q ":$hex 00000000:0000 0A" /proc/net/tcp 2>/dev/null; do\n'
    "  n=$((n+1)); [ $n -gt 5000 ] && { echo 'sandbox: the proxy bridge did not start' >&2; exit 125; }\n"
    "  sleep 0.001\n"
    "done\n"
    "unset SBX_SOCAT SBX_PORT SBX_SOCKET hex n\n"
    # With the exec check (SBX-7) the command's shell starts under the loader's seccomp filter.
    'if [ -n "$SBX_EXEC_SOCKET" ]; then\n'
    '  set -- "$SBX_PYTHON" -I -S "$SBX_LOADER" "$SBX_EXEC_SOCKET" "$2" -c "$1"\n'
    "else\n"
    '  set -- "$2" -c "$1"\n'
    "fi\n"
    "unset SBX_PYTHON SBX_LOADER SBX_EXEC_SOCKET\n"
    # Not exec'd: bash runs a one-command line by exec'ing it, and the command would then inherit
    # the bridge's socat as its own child (``script`` waits for every child, and hangs).
    '"$@"\n'
    "exit $?\n"
)


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a command did: its merged output, its exit status, and whether it ran sandboxed."""

    output: str
    returncode: int
    sandboxed: bool
    removed: tuple[str, ...] = ()
    """Protected paths the command created and that were removed after it (sandboxed runs)."""
    refused: tuple[str, ...] = ()
    """Why the exec check refused programs the command started (SBX-7), one line each."""


GLOB_MATCH_LIMIT = 4096
"""The most paths one ``denyRead`` / ``denyWrite`` glob may match (each match is a mount)."""


class SandboxPatternError(ValueError):
    """A glob pattern of the sandbox's settings can't be enforced as it stands (it names the pattern)."""


def expand_globs(patterns: Sequence[str], *, limit: int | None = GLOB_MATCH_LIMIT) -> tuple[str, ...]:
    """The paths that ``patterns`` match now, sorted: absolute globs read as path rules read them.

    One matcher for every glob (gitignore's, :func:`reference_impl.permissions.parse_path_pattern`):
    a ``Read(...)`` deny rule hides in the sandbox exactly what it denies to the file tools. A
    directory that matches is listed, not its contents (hiding or protecting it covers them). Raises
    :class:`SandboxPatternError` when a pattern can't be read or matches more than ``limit`` paths.
    """
    found: set[str] = set()
    for pattern in patterns:
        try:
            compiled = parse_path_pattern("/" + pattern, cwd=Path("/"))
        except PathPatternError as error:
            raise SandboxPatternError(f"the sandbox pattern {pattern!r} can't be read: {error}") from error
        for count, match in enumerate(_matches_now(compiled), 1):
            if limit is not None and count > limit:
                raise SandboxPatternError(
                    f"the sandbox pattern {pattern!r} matches more than {GLOB_MATCH_LIMIT} paths;"
                    " narrow it in sandbox.filesystem (or the Read deny rule) so that it can be enforced"
                )
            found.add(match)
    return tuple(sorted(found))


def _matches_now(pattern: PathPattern) -> Iterator[str]:
    """The paths below ``pattern.root`` that it matches, walked without following symlinks."""
    for directory, subdirectories, files in os.walk(pattern.root):
        relative = os.path.relpath(directory, pattern.root)
        prefix = "" if relative == "." else f"{relative}/"
        unmatched = []
        for name in sorted(subdirectories):
            if pattern.matcher.fullmatch(prefix + name):
                yield os.path.join(directory, name)
            else:
                unmatched.append(name)
        subdirectories[:] = unmatched
        for name in sorted(files):
            if pattern.matcher.fullmatch(prefix + name):
                yield os.path.join(directory, name)


@dataclass(frozen=True, slots=True)
class MountPlan:
    """The mounts of one run, computed just before it (the filesystem changes between commands)."""

    writable: tuple[str, ...]
    read_only: tuple[str, ...]
    hidden_dirs: tuple[str, ...]
    hidden_files: tuple[str, ...]
    scrub: tuple[tuple[str, str], ...] = ()
    """(path, its parent's resolved path): protected paths absent before the run."""
    bare_roots: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())
    """(writable root, the repository names absent there before the run)."""
    links: tuple[tuple[str, str], ...] = ()
    """(path, its target): protected paths that are symlinks, put back if the command replaced them."""
    protected_globs: tuple[str, ...] = ()
    """``denyWrite`` patterns: a match that the command created is removed after it."""
    glob_matches: frozenset[str] = frozenset()
    """What ``protected_globs`` matched before the command."""


def _is_git_dir(root: str) -> bool:
    return all(os.path.lexists(os.path.join(root, name)) for name in BARE_REPOSITORY_NAMES)


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _first_missing(path: str) -> str | None:
    """The shallowest missing component of ``path`` (its parents exist), or None if it exists."""
    if os.path.lexists(path):
        return None
    parent = os.path.dirname(path)
    while parent != "/" and not os.path.lexists(parent):
        path, parent = parent, os.path.dirname(parent)
    return path


def mount_plan(policy: SandboxPolicy) -> MountPlan:
    """The mounts for ``policy`` as the filesystem is now (globs expanded: :func:`expand_globs`)."""
    writable = tuple(p for p in policy.writable if os.path.exists(p))
    read_only: list[str] = []
    scrub: dict[str, str] = {}
    links: list[tuple[str, str]] = []
    glob_matches = expand_globs(policy.protected_globs)
    for path in (*policy.protected, *glob_matches):
        if not _inside(path, writable):
            continue  # outside the writable area it is read-only already
        if os.path.islink(path):
            # A mount point can't be a symlink: its target is bound, the link itself put back after.
            links.append((path, os.readlink(path)))
            if os.path.exists(path):
                read_only.append(os.path.realpath(path))
                continue
            # Dangling: what the command makes at the target (a .git to plant hooks in) goes after it.
            path = os.path.realpath(path)
            if not _inside(path, writable):
                continue  # there the command can make nothing
        elif os.path.lexists(path):
            read_only.append(path)
            continue
        # Absent: whatever is on the way (missing directories, a file the command may replace by a
        # directory, a symlink to a directory not made yet), what the command creates goes after it.
        if (missing := _first_missing(path)) is not None:
            scrub.setdefault(missing, os.path.realpath(os.path.dirname(missing)))
    bare = tuple(
        (
            root,
            tuple(
                n
                for n in (*BARE_REPOSITORY_NAMES, "config", "hooks", "packed-refs")
                if not os.path.lexists(os.path.join(root, n))
            ),
        )
        for root in writable
        if not _is_git_dir(root)
    )
    hidden = (*policy.hidden, *(os.path.realpath(p) for p in expand_globs(policy.hidden_globs)))
    hidden_dirs = tuple(dict.fromkeys(p for p in hidden if os.path.isdir(p)))
    hidden_files = tuple(dict.fromkeys(p for p in hidden if os.path.lexists(p) and not os.path.isdir(p)))
    return MountPlan(
        writable,
        tuple(dict.fromkeys(read_only)),
        hidden_dirs,
        hidden_files,
        tuple(scrub.items()),
        bare,
        tuple(links),
        policy.protected_globs,
        frozenset(glob_matches),
    )


def bwrap_argv(
    bwrap: str, plan: MountPlan, cwd: Path, command: str, *, exec_checked: bool = False
) -> list[str]:
    """The bubblewrap command line that runs ``command`` (through the bridge script) under ``plan``.

    ``exec_checked``: the exec check watches the command (SBX-7), so its ``/proc`` is read-only.
    """
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid"]
    argv += ["--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    if exec_checked:
        # The one door to another process's memory the loader's filter can't shut: seccomp sees a
        # path only as a pointer, and /proc/PID/mem has many spellings. A read-only mount refuses
        # every one of them at open (EROFS), and a nested namespace inherits the mount locked so.
        argv += ["--remount-ro", "/proc"]
    # Shallower first, so a deeper bind is not covered by its parent's.
    for path in sorted(plan.writable, key=lambda p: p.count("/")):
        argv += ["--bind", path, path]
    for path in plan.read_only:
        argv += ["--ro-bind", path, path]
    for path in plan.hidden_dirs:
        argv += ["--perms", "0000", "--tmpfs", path, "--remount-ro", path]
    for path in plan.hidden_files:
        argv += ["--ro-bind", "/dev/null", path]
    argv += [
        "--chdir",
        str(cwd),
        "--",
        "/bin/sh",
        "-c",
        _BRIDGE,
        "sandbox",
        command,
        command_shell() or "bash",
    ]
    return argv


@lru_cache(maxsize=1)
def command_shell() -> str | None:
    r"""The shell a Bash call's command runs in: bash, the shell the permission engine reads it as.

    ``/bin/sh`` is dash on Debian: ``echo $'\';rm x;#'`` is one ``echo`` to bash and runs ``rm`` in
    dash, so running another shell than the one the command was judged as would let such a line
    through. None when bash is not installed (the call is refused, never run by another shell).
    """
    return shutil.which("bash")


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def scrub(plan: MountPlan) -> tuple[str, ...]:
    """Remove the protected paths the command created, put back replaced protected symlinks.

    Returns the paths removed or put back (sorted).
    """
    removed: list[str] = []
    for path, target in plan.links:
        if not (os.path.islink(path) and os.readlink(path) == target):
            _remove(path)
            os.symlink(target, path)
            removed.append(path)
    for path, parent in plan.scrub:
        # A parent swapped for a symlink since the plan would redirect the removal: leave it.
        if os.path.lexists(path) and os.path.realpath(os.path.dirname(path)) == parent:
            _remove(path)
            removed.append(path)
    if plan.protected_globs:
        # No limit here: every path the command created under a denyWrite pattern goes.
        for path in expand_globs(plan.protected_globs, limit=None):
            if path not in plan.glob_matches and os.path.lexists(path):
                _remove(path)
                removed.append(path)
    for root, absent in plan.bare_roots:
        if _is_git_dir(root):
            for name in absent:
                target = os.path.join(root, name)
                if os.path.lexists(target):
                    _remove(target)
                    removed.append(target)
    return tuple(sorted(removed))


def _which(program: str, configured: str | None) -> str | None:
    if configured is not None:
        return configured if os.path.isfile(configured) and os.access(configured, os.X_OK) else None
    return shutil.which(program)


@lru_cache(maxsize=8)
def _bwrap_starts(bwrap: str) -> str | None:
    try:
        done = subprocess.run(
            [
                bwrap,
                "--unshare-net",
                "--unshare-pid",
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "true",
            ],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap ({bwrap}) can't start: {error}"
    if done.returncode:
        why = done.stderr.decode("utf-8", errors="replace").strip()
        return f"bubblewrap ({bwrap}) can't create the sandbox's namespaces: {why}"
    return None


def sandbox_problem(bwrap_path: str | None = None, socat_path: str | None = None) -> str | None:
    """Why the sandbox can't start here (no bubblewrap, no socat, no namespaces), or None."""
    bwrap = _which("bwrap", bwrap_path)
    if bwrap is None:
        where = bwrap_path or "PATH"
        return f"bubblewrap (bwrap) is not installed ({where}); on Debian: apt-get install bubblewrap"
    if _which("socat", socat_path) is None:
        where = socat_path or "PATH"
        return (
            f"socat is not installed ({where}); the sandbox's network bridge needs it: apt-get install socat"
        )
    return _bwrap_starts(bwrap)


def tools_for(bwrap_path: str | None, socat_path: str | None) -> tuple[str, str]:
    """The bubblewrap and socat programs (call only when :func:`sandbox_problem` is None)."""
    bwrap, socat = _which("bwrap", bwrap_path), _which("socat", socat_path)
    if bwrap is None or socat is None:
        raise RuntimeError("the sandbox is unavailable: " + (sandbox_problem(bwrap_path, socat_path) or "?"))
    return bwrap, socat


async def run_command(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str] | None,
    timeout: float,
    abort: asyncio.Event,
) -> tuple[str, int] | str:
    """Run ``argv`` (its own process group), stderr merged into stdout: ``(output, status)``.

    Returns a string saying why it stopped when it timed out or was aborted (the group is killed).
    """
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    waiting = asyncio.ensure_future(process.communicate())
    aborted = asyncio.ensure_future(abort.wait())
    try:
        await asyncio.wait([waiting, aborted], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
    if not waiting.done():
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await waiting
        return "was interrupted" if abort.is_set() else f"timed out after {timeout:g} s"
    stdout, _ = waiting.result()
    return stdout.decode("utf-8", errors="replace"), process.returncode or 0
