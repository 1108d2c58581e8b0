"""PERM-15: files that make code run later, system-wide and per program, are protected like the user's own."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from reference_impl.permissions._protected_paths import protected_reason
from tests.test_rules import BASH, WRITE

CWD = Path("/proj")

# The system-wide copy of each protected user file, and program start-up files their pages name.
SYSTEM_FILES = [
    "/etc/gitconfig",
    "/usr/local/etc/gitconfig",
    "/etc/gitattributes",
    "/etc/bash.bashrc",
    "/etc/bash.bash_logout",
    "/etc/profile",
    "/etc/profile.d/x.sh",
    "/etc/environment",
    "/etc/zsh/zshrc",
    "/etc/zsh/zshenv",
    "/etc/zshenv",
    "/etc/csh.cshrc",
    "/etc/inputrc",
    "/etc/fish/config.fish",
    "/etc/fish/conf.d/x.fish",
    "/etc/ssh/ssh_config",
    "/etc/ssh/ssh_config.d/x.conf",
    "/etc/npmrc",
    "/usr/etc/npmrc",
    "/etc/wgetrc",
    "/etc/vim/vimrc",
    "/etc/vimrc",
    "/etc/tmux.conf",
    "/etc/mercurial/hgrc",
    "/etc/mercurial/hgrc.d/x.rc",
    "/etc/ld.so.preload",
    "/etc/ld.so.conf.d/x.conf",
    "/etc/crontab",
    "/etc/cron.d/x",
    "/etc/cron.daily/x",
    "/etc/systemd/system/x.service",
    "/etc/rc.local",
    "/etc/init.d/x",
    "/etc/apt/apt.conf.d/99x",
    "/etc/dpkg/dpkg.cfg.d/x",
    "/etc/sysctl.d/x.conf",
    "/etc/xdg/autostart/x.desktop",
    "/etc/gdb/gdbinit",
]
USER_FILES = [
    "~/.gdbinit",
    "~/.config/gdb/gdbinit",
    "~/.config/fish/conf.d/x.fish",
    "~/.config/fish/functions/ls.fish",
    "~/.vim/vimrc",
    "~/.vim/plugin/x.vim",
    "~/.config/nvim/init.vim",
    "~/.config/nvim/init.lua",
    "~/.config/nvim/plugin/x.lua",
    "~/.config/systemd/user/x.service",
    "~/.config/autostart/x.desktop",
    "~/.lessfilter",
    "~/.dpkg.cfg",
    "~/.xsessionrc",
    "~/.xinitrc",
    ".pre-commit-config.yaml",
    "sub/.pre-commit-config.yaml",
    "lefthook.yml",
    ".config/git/attributes",
]


@pytest.mark.parametrize("path", SYSTEM_FILES + USER_FILES)
def test_a_file_that_makes_code_run_later_is_protected(path: str) -> None:
    assert protected_reason(path, CWD) is not None, path


@pytest.mark.parametrize(
    "path", ["/etc/gitconfig", "/etc/profile.d/x.sh", "~/.gdbinit", ".pre-commit-config.yaml"]
)
@pytest.mark.parametrize("how", ["write", "redirection", "tee"])
def test_writing_one_asks_in_bypass(path: str, how: str) -> None:
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=CWD)
    tool, given = (
        (WRITE, {"file_path": path, "content": "x"})
        if how == "write"
        else (BASH, {"command": f"echo x >> {path}" if how == "redirection" else f"echo x | tee -a {path}"})
    )
    assert decide_permission(tool, given, context).behavior == "ask", (path, how)


@pytest.mark.parametrize(
    "path", ["/etc/hostname", "/etc/hosts", "src/profile.py", "docs/environment.md", "config/settings.yaml"]
)
def test_other_files_stay_unprotected(path: str) -> None:
    assert protected_reason(path, CWD) is None, path


# A FILES entry whose text says the file is run, sourced or read at start-up (the pages' own words).
_RUN = re.compile(
    r"(?i)\b(?:start-?up|initiali[sz]ation file|executed|sourced|loaded before|preload|plugins?|hooks?)\b"
)
_PATH = re.compile(r"(?:~|/etc)/[\w.+/-]*[\w+-]")
_NOT_CODE = {"/etc/hostname", "/etc/shells", "/etc/gnupg/extra-certs", "/etc/gnupg/trusted-certs"}


def _mined() -> set[str]:
    """Paths the FILES sections of the machine's pages (sections 1, 5, 8) say are run, sourced or preloaded."""
    found: set[str] = set()
    for section in ("1", "5", "8"):
        for page in Path(f"/usr/share/man/man{section}").glob("*.gz"):
            with gzip.open(page, "rt", errors="replace") as handle:
                raw = handle.read()
            files = re.search(r'^\.SH "?FILES"?\s*$(.*?)(?=^\.SH )', raw, re.M | re.S)
            if files is None:
                continue
            body = re.sub(r"\\f[BIRP]|\\\(..|\\&|\\e", "", files.group(1)).replace("\\-", "-")
            for entry in re.split(r"^\.(?:TP|IP|PP|HP|TQ|sp)\b.*$", body, flags=re.M):
                text = " ".join(re.sub(r"^\.\w+ ?", "", entry, flags=re.M).split())
                if _RUN.search(text):
                    found.update(_PATH.findall(text[:200]))
    return found - _NOT_CODE


def test_every_start_up_file_the_machine_s_pages_name_is_protected() -> None:
    """The protected list holds what the FILES sections of this machine's manual pages say runs."""
    mined = _mined()
    if not mined:
        pytest.skip("no manual pages installed")
    assert "/etc/bash.bashrc" in mined, sorted(mined)  # the reading works
    unprotected = sorted(
        p for p in mined if protected_reason(p.replace("bash.bash.logout", "bash.bash_logout"), CWD) is None
    )
    assert not unprotected, unprotected


def test_the_protected_names_are_one_of_each_kind() -> None:
    """A name is a directory, a file or a tree of start-up files, never two (the sandbox joins the three)."""
    from reference_impl.permissions._protected_names import (
        PROTECTED_DIRECTORIES,
        PROTECTED_FILES,
        PROTECTED_TREES,
    )

    assert not PROTECTED_DIRECTORIES & PROTECTED_FILES
    assert not PROTECTED_DIRECTORIES & PROTECTED_TREES
    assert not PROTECTED_FILES & PROTECTED_TREES
