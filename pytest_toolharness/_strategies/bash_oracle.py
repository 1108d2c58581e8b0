"""Bash itself as the oracle of what a command line runs (PERM-16, PERM-17).

:class:`BashSandbox` asks a real bash what a command line would execute, inside a throwaway
bubblewrap sandbox: a read-only root, every program on the ``PATH`` (and ``/usr/bin/...``)
replaced by a recording shim, no network, a fresh ``/tmp``. The shims of wrappers that only run
their argument (``timeout``, ``nice``, ``sudo``, ``env``, ``xargs``, a shell, ...) record
themselves and then run it, so what is behind them is recorded too. :func:`bash_sandbox` returns
None with the reason when bash or bubblewrap is missing or can't run here.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

__all__ = [
    "SHARED_ORACLE_VARIABLE",
    "BashSandbox",
    "bash_sandbox",
    "bash_sandbox_problem",
    "prebuild_bash_oracle",
]

# Sourced by every program's shim, which sets ``name`` first: a copy, a link or a hashed path of a
# shim (``cp /bin/rm ./t; ./t``, ``hash -p /bin/rm ls``) still records the program it stands for.
_RECORDER = r"""#!/tmp/.oracle/bash
name=${name:-${0##*/}}
# One write per record: the programs of a pipeline record at once, and separate writes interleave.
__record=$name; for a in "$@"; do __record+=$'\037'"$a"; done
printf '%s\036' "$__record" >> /tmp/.oracle/log/log
skip_options() {  # $1: options taking an argument; sets REST
    local with="$1"; shift
    while (( $# )); do
        case $1 in
            --) shift; break ;;
            --*=*) shift ;;
            --*) shift ;;
            -[0-9]*) shift ;;
            -?*) local letter=${1:1:1}
                 if [[ $with == *"$letter"* && ${#1} -eq 2 ]]; then shift 2; else shift; fi ;;
            *=*) [[ $name == env || $name == sudo ]] && shift || break ;;
            *) break ;;
        esac
    done
    REST=("$@")
}
if [[ -x /tmp/.oracle/real/$name ]]; then exec /tmp/.oracle/real/$name "$@"; fi
case $name in
    sh|bash|dash|zsh|ksh|ash|mksh) exec /tmp/.oracle/bash "$@" ;;
    nohup|builtin) exec "$@" ;;
    nice) skip_options n "$@"; exec "${REST[@]}" ;;
    stdbuf) skip_options ioe "$@"; exec "${REST[@]}" ;;
    timeout) skip_options sk "$@"; (( ${#REST[@]} > 1 )) && exec "${REST[@]:1}" ;;
    env) skip_options uCS "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    sudo|doas) skip_options ugpCDhrtUTR "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    flock|su|runuser|sg|script)
        for ((i = 1; i <= $#; i++)); do
            if [[ ${!i} == -c || ( ${!i} == -*c && ${!i} != --* ) ]]; then
                j=$((i + 1)); exec /tmp/.oracle/bash -c "${!j}"
            fi
        done
        case $name in
            flock|sg) skip_options wE "$@"; (( ${#REST[@]} > 1 )) && exec "${REST[@]:1}" ;;
            runuser) skip_options ugGs "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
        esac ;;
    taskset|chroot) skip_options "" "$@"; (( ${#REST[@]} > 1 )) && exec "${REST[@]:1}" ;;
    chrt) skip_options TPD "$@"; (( ${#REST[@]} > 1 )) && exec "${REST[@]:1}" ;;
    setsid|pkexec|firejail|valgrind|busybox|toybox|unbuffer) skip_options "" "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    ionice) skip_options cnp "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    unshare) skip_options SG "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    nsenter) skip_options tSGrwe "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    strace) skip_options abeEIoOpPsSuU "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    ltrace) skip_options aAeFlnopsuwDx "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    systemd-run) skip_options MpEuH "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    watch) skip_options nq "$@"; (( ${#REST[@]} )) && exec /tmp/.oracle/bash -c "${REST[*]}" ;;
    ssh) skip_options BbcDEeFIiJLlmOopQRSWw "$@"; (( ${#REST[@]} > 1 )) && exec /tmp/.oracle/bash -c "${REST[*]:1}" ;;
    xargs) skip_options adEILnPs "$@"; (( ${#REST[@]} )) && exec "${REST[@]}" ;;
    find) args=("$@"); for ((i = 0; i < ${#args[@]}; i++)); do
              if [[ ${args[i]} == -exec || ${args[i]} == -execdir || ${args[i]} == -ok ]]; then
                  cmd=(); for ((j = i + 1; j < ${#args[@]}; j++)); do
                      [[ ${args[j]} == ';' || ${args[j]} == '+' ]] && break; cmd+=("${args[j]}"); done
                  (( ${#cmd[@]} )) && "${cmd[@]}"
              fi; done ;;
esac
exit 0
"""

_ENV = r"""command_not_found_handle() {
    local __record=${1##*/} a; shift
    for a in "$@"; do __record+=$'\037'"$a"; done
    printf '%s\036' "$__record" >> /tmp/.oracle/log/log
    return 127
}
"""

# Programs that run their arguments (or a script) as a command: shimmed even where not installed.
_RUNNING_PROGRAMS = (
    "flock", "su", "runuser", "sg", "script", "taskset", "chroot", "chrt", "setsid", "pkexec",
    "firejail", "valgrind", "busybox", "toybox", "unbuffer", "ionice", "unshare", "nsenter",
    "strace", "ltrace", "systemd-run", "watch", "ssh",
)  # fmt: skip

_BIN_DIRS = ("/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/bin", "/sbin")

# Programs that run a command given in an option or in code of their own language: where installed,
# the sandbox runs the real program after recording it, so what it starts is recorded too (``awk``'s
# ``system``, ``tar --checkpoint-action=exec=``, ``git -c alias.x='!...'``, ``sed``'s ``e``, ...), and
# ``env``, whose ``-S`` splits a string into a command however its options are spelled, and the
# programs that make a program of another name (``cp /bin/rm ./t``, ``ln -s``, ``install``, ``mv``).
_REAL_PROGRAMS = (
    "env",
    "cp",
    "ln",
    "install",
    "mv",
    "awk",
    "mawk",
    "gawk",
    "sed",
    "tar",
    "git",
    "split",
    "sort",
    "perl",
    "python3",
    "make",
    "node",
)


# Shells are the oracle's bash; these programs are emulated by the recorder (or must never run).
_NEVER_REAL = frozenset(
    ("sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "sudo", "doas", "su", "pkexec", "runuser", "ssh")
)


@dataclass(frozen=True)
class BashSandbox:
    """Runs command lines in a real bash inside bubblewrap and reports the programs it executed."""

    bash: str
    bwrap: str
    root: Path
    real: tuple[tuple[str, str], ...] = ()  # (name, the installed program) run for real
    user_bin: ClassVar[str] = "/tmp/work/.local/bin"
    """A writable directory first on the sandbox's PATH (the user's own, as Debian's ``~/.profile`` puts it):
    a line that puts a program there and runs it by name runs that program, as in a user's shell."""

    def executed(self, command: str, *, timeout: float = 10.0) -> list[tuple[str, ...]]:
        """The argv of every program bash executed for ``command``, in order (builtins excluded).

        Raises :class:`RuntimeError` when the sandbox itself failed.
        """
        log_dir = Path(tempfile.mkdtemp(prefix="log-", dir=self.root))
        try:
            argv = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/"]
            argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
            argv += ["--ro-bind", self.bash, "/tmp/.oracle/bash"]
            argv += ["--ro-bind", str(self.root / "rec"), "/tmp/.oracle/rec"]
            argv += ["--ro-bind", str(self.root / "env.sh"), "/tmp/.oracle/env.sh"]
            argv += ["--bind", str(log_dir), "/tmp/.oracle/log"]
            for name, program in self.real:
                argv += ["--ro-bind", program, f"/tmp/.oracle/real/{name}"]
            for directory in _BIN_DIRS:
                if os.path.isdir(directory) and not os.path.islink(directory):
                    argv += ["--ro-bind", str(self.root / "shims"), directory]
            argv += ["--dir", "/tmp/work", "--chdir", "/tmp/work", "--clearenv"]
            path = f"{self.user_bin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
            argv += ["--setenv", "PATH", path]
            argv += ["--setenv", "BASH_ENV", "/tmp/.oracle/env.sh", "--setenv", "HOME", "/tmp/work"]
            argv += ["/tmp/.oracle/bash", "-c", command]
            try:
                done = subprocess.run(
                    argv, capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL
                )
            except subprocess.TimeoutExpired:
                done = None
            log = log_dir / "log"
            if done is not None and done.returncode != 0 and b"bwrap:" in done.stderr:
                raise RuntimeError(f"the sandbox failed: {done.stderr.decode(errors='replace')[:300]}")
            text = log.read_bytes().decode("utf-8", "surrogateescape") if log.exists() else ""
        finally:
            shutil.rmtree(log_dir, ignore_errors=True)
        return [tuple(record.split("\x1f")) for record in text.split("\x1e") if record]

    def running_for_real(self, names: Iterable[str]) -> BashSandbox:
        """A copy of this sandbox that also runs ``names`` for real where installed (after recording them).

        What a program run for real starts is recorded too, so a program that runs a command it is
        given (an option, a configuration key, its own code) shows what it ran. Shells stay the
        oracle's bash, and ``sudo``-like programs its emulation.
        """
        real = dict(self.real)
        for name in names:
            if name in real or name in _NEVER_REAL or "/" in name:
                continue
            found = shutil.which(name, path=os.pathsep.join(_BIN_DIRS))
            if found is not None:
                real[name] = os.path.realpath(found)
        return replace(self, real=tuple(sorted(real.items())))


def _build(root: Path, bash: str) -> None:
    (root / "rec").write_text(_RECORDER, encoding="utf-8")
    (root / "rec").chmod(0o755)
    (root / "env.sh").write_text(_ENV, encoding="utf-8")
    shims = root / "shims"
    shims.mkdir()
    names: set[str] = set()
    for directory in _BIN_DIRS:
        try:
            names.update(os.listdir(directory))
        except OSError:
            continue
    names.update(("sudo", "doas", "npm", "make", "curl", "wget", "git", "xargs", "timeout", "stdbuf"))
    names.update(_RUNNING_PROGRAMS)
    for name in sorted(names):
        if "/" not in name and name not in (".", ".."):
            # A thousand files or more: written through the descriptor (no pathlib, no path lookups).
            shim = os.open(shims / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o755)
            try:
                os.fchmod(shim, 0o755)  # whatever the umask
                os.write(
                    shim,
                    f'#!/tmp/.oracle/bash\nname={shlex.quote(name)}\nsource /tmp/.oracle/rec "$@"\n'.encode(),
                )
            finally:
                os.close(shim)


# A root built once for a whole run (:func:`prebuild_bash_oracle`), named to the processes it starts.
SHARED_ORACLE_VARIABLE = "TOOLHARNESS_BASH_ORACLE_ROOT"


def prebuild_bash_oracle(root: Path) -> threading.Thread | None:
    """Start building the oracle's programs in ``root`` in a thread, for the processes this one starts.

    Writing a thousand shims costs each process half a second; an xdist controller builds them
    once, and its workers (which inherit :data:`SHARED_ORACLE_VARIABLE`) use them once ``root``
    exists: it appears whole, by a rename. A worker that looks before then builds its own. None
    when there is no bash or bubblewrap to use them.
    """
    bash = shutil.which("bash")
    if bash is None or shutil.which("bwrap") is None:
        return None
    os.environ[SHARED_ORACLE_VARIABLE] = str(root)

    def build() -> None:
        partial = Path(tempfile.mkdtemp(prefix=".building-", dir=root.parent))
        try:
            _build(partial, os.path.realpath(bash))
            partial.rename(root)
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)

    thread = threading.Thread(target=build, name="toolharness-bash-oracle", daemon=True)
    thread.start()
    return thread


def _oracle_root(bash: str) -> Path:
    shared = os.environ.get(SHARED_ORACLE_VARIABLE)
    if shared and os.path.isdir(shared):
        return Path(shared)
    root = Path(tempfile.mkdtemp(prefix="toolharness-bash-oracle-"))
    _build(root, bash)
    return root


@functools.lru_cache(maxsize=1)
def _sandbox() -> tuple[BashSandbox | None, str]:
    bash = shutil.which("bash")
    bwrap = shutil.which("bwrap")
    if bash is None:
        return None, "no bash on PATH"
    if bwrap is None:
        return None, "no bubblewrap (bwrap) on PATH: apt-get install bubblewrap"
    root = _oracle_root(os.path.realpath(bash))
    real = []
    for name in _REAL_PROGRAMS:
        found = shutil.which(name, path=os.pathsep.join(_BIN_DIRS))
        if found is not None:
            real.append((name, os.path.realpath(found)))
    sandbox = BashSandbox(bash=os.path.realpath(bash), bwrap=bwrap, root=root, real=tuple(real))
    try:
        probe = sandbox.executed("ls; /usr/bin/rm x; nosuchprogram y")
    except (RuntimeError, OSError) as error:
        return None, f"bubblewrap can't run here: {error}"
    if [record[0] for record in probe] != ["ls", "rm", "nosuchprogram"]:
        return None, f"the sandbox does not record what bash runs (probe gave {probe!r})"
    return sandbox, ""


def bash_sandbox() -> BashSandbox | None:
    """The process's sandbox (built once), or None when bash or bubblewrap can't run here."""
    return _sandbox()[0]


def bash_sandbox_problem() -> str:
    """Why :func:`bash_sandbox` is None ("" when it is not)."""
    return _sandbox()[1]
