"""The protected names: files and directories that make code run later (PERM-15), in one place.

:mod:`._protected_paths` judges every write against them. Sources: each program's own page (its
FILES section, named beside each group); ``tests/test_protected_system_files.py`` reads the FILES
sections of the machine's manual pages and checks that every file they say is run, sourced or
preloaded is here.
"""

from __future__ import annotations

__all__ = ["PROTECTED_DIRECTORIES", "PROTECTED_FILES", "PROTECTED_TREES", "TREE_SEGMENTS"]

PROTECTED_DIRECTORIES = frozenset({".git", ".claude", ".vscode", ".idea", ".husky", ".hg", ".gnupg"})
PROTECTED_DIRECTORIES |= {".ipython", ".jupyter"}
"""Directories whose files are never edited without asking, whatever the mode (PERM-15).

``.hg``: ``.hg/hgrc``'s ``[hooks]`` run on hg's commands; ``.gnupg``: ``gpg-agent.conf``'s
``pinentry-program`` and ``gpg.conf``'s ``photo-viewer`` are programs gpg starts (gpg-agent(1), gpg(1)).
``.ipython``: every profile's ``startup/*.py`` and ``ipython_config.py`` are Python IPython runs at start
(``ipython --help-all``: "startup files"); ``.jupyter``: its ``jupyter_*_config.py`` likewise.
"""

PROTECTED_FILES = frozenset(
    {".mcp.json", ".gitmodules", ".gitconfig", ".gitattributes", ".bashrc", ".bash_profile", ".bash_login"}
    | {".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".envrc", ".npmrc"}
    | {".pypirc", ".netrc", ".inputrc", ".tcshrc", ".cshrc", ".kshrc", ".config/fish/config.fish"}
    # Configuration whose content a program runs as a command, by its own documentation:
    # git's XDG global configuration (like .gitconfig); wget(1) ``use_askpass``; ssh_config(5)
    # ``ProxyCommand``, ``LocalCommand``, ``KnownHostsCommand``, ``Match exec`` and ssh(1) ``~/.ssh/rc``;
    # hg's ``[hooks]``; lesskey(1) ``#env`` (``LESSOPEN``); psql(1) ``\!``; sqlite3(1) ``.shell``/
    # ``.system``; tmux(1) ``run-shell``; vim(1) ``:!`` in its start-up files; pdb's ``!`` in .pdbrc;
    # yarn's ``yarnPath``/``yarn-path``; cargo's ``rustc-wrapper`` and runners; the AWS CLI's
    # ``credential_process``; kubectl's ``exec`` credential plugins; docker's ``credsStore``.
    | {".config/git/config", ".wgetrc", ".ssh/config", ".ssh/rc", ".hgrc", ".lesskey", ".config/lesskey"}
    | {".psqlrc", ".sqliterc", ".tmux.conf", ".config/tmux/tmux.conf", ".vimrc", ".gvimrc", ".exrc"}
    | {".pdbrc", ".yarnrc", ".yarnrc.yml", ".cargo/config", ".cargo/config.toml", ".aws/config"}
    | {".kube/config", ".docker/config.json"}
    # More start-up files whose commands their program runs: gdb(1) ``shell``; less(1)'s lesspipe runs
    # ~/.lessfilter; dpkg(1) ``--pre-invoke``; X sessions; zsh(1)'s logout file; Debian's .bashrc sources
    # .bash_aliases; pre-commit's and lefthook's hook lists (the project's hooks, as .husky/ is); git's
    # XDG attributes (as .gitattributes).
    | {".gdbinit", ".config/gdb/gdbinit", ".lessfilter", ".dpkg.cfg", ".xsession", ".xsessionrc"}
    | {".xinitrc", ".xprofile", ".zlogout", ".bash_aliases", ".pam_environment", ".vim/vimrc", ".vim/gvimrc"}
    | {".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml", "lefthook-local.yml"}
    | {".config/git/attributes"}
    # The system-wide copy of each (``etc/`` under / or a prefix: /usr/local/etc/gitconfig), by the
    # FILES sections of their pages: git-config(1), gitattributes(5), bash(1) (Debian's bash.bashrc,
    # /etc/profile), zsh(1), tcsh(1), readline's /etc/inputrc, ssh_config(5), npm's
    # ``$PREFIX/etc/npmrc``, wget(1), vim(1), tmux(1), hgrc(5), psql(1), lesskey(1) ``sysless``, gdb(1),
    # pam_env(8) /etc/environment; and what makes every program or a scheduler run code: ld.so(8)
    # ``/etc/ld.so.preload`` and ``ld.so.conf``, crontab(5), rc.local, apt.conf(5) ``Pre-Invoke``,
    # dpkg.cfg, sysctl.conf(5) (``kernel.core_pattern = |prog``), pam_namespace's namespace.init.
    | {"etc/gitconfig", "etc/gitattributes", "bash.bashrc", "bash.bash_logout", "etc/profile"}
    | {"etc/zshenv", "etc/zshrc", "etc/zprofile", "etc/zlogin", "etc/zlogout", "csh.cshrc", "csh.login"}
    | {"csh.logout", "etc/inputrc", "ssh/ssh_config", "etc/npmrc", "etc/wgetrc", "etc/vimrc", "etc/gvimrc"}
    | {"etc/tmux.conf", "etc/hgrc", "postgresql-common/psqlrc", "etc/psqlrc", "etc/sysless", "etc/gdbinit"}
    | {"etc/environment", "ld.so.preload", "etc/ld.so.conf", "etc/crontab", "etc/rc.local", "apt/apt.conf"}
    | {"dpkg/dpkg.cfg", "etc/sysctl.conf", "security/namespace.init"}
    # The harness's own user configuration (``mcpServers`` start programs); mvn(1)'s script sources
    # ``~/.mavenrc`` and ``/etc/mavenrc`` (``$MAVEN_SKIP_RC`` unset).
    | {".claude.json", ".mavenrc", "etc/mavenrc"}
    # Session 35's red team, each shown running code or documented to: rustup's ``rust-toolchain(.toml)``
    # ``path`` (cargo then runs that toolchain's programs); gdb's early init file (``shell``); Emacs's
    # init files (Lisp); bash-completion's ``~/.bash_completion`` (sourced); screen's ``exec``; mailcap's
    # viewer commands; tclsh's ``.tclshrc`` (Tcl at interactive start); the dev container's lifecycle
    # commands (``postCreateCommand``); other agents' MCP server lists (``command`` started), as .mcp.json.
    | {"rust-toolchain", "rust-toolchain.toml", ".gdbearlyinit", ".config/gdb/gdbearlyinit", ".emacs"}
    | {".emacs.el", ".emacs.d/init.el", ".emacs.d/early-init.el", ".config/emacs/init.el", ".bash_completion"}
    | {
        ".screenrc",
        ".mailcap",
        ".tclshrc",
        ".wishrc",
        ".devcontainer/devcontainer.json",
        ".devcontainer.json",
    }
    | {".codex/config.toml", ".gemini/settings.json", ".cursor/mcp.json"}
    # sshd(8) AUTHORIZED_KEYS ``command=``: what a key's login runs (and who may log in).
    | {".ssh/authorized_keys", ".ssh/authorized_keys2"}
)
"""Files that make code run later, or configure the harness, git, a shell, or a program that runs their commands (PERM-15)."""

PROTECTED_TREES = frozenset(
    # Directories whose files are sourced or run at start-up: fish's conf.d and autoloaded functions,
    # vim's and neovim's plugins, systemd's user units, XDG autostart, bash completions (sourced
    # when a name is completed); and their system-wide copies: /etc/profile.d (sourced by
    # /etc/profile), /etc/zsh, /etc/fish, ssh_config.d, hgrc.d, /etc/vim, /etc/gdb, ld.so.conf.d,
    # cron's and systemd's, init.d, apt.conf.d, dpkg.cfg.d, sysctl.d, update-motd.d (run at login),
    # kernel-install(8) plugins, useradd(8)'s shadow-maint scripts.
    {".config/fish/conf.d", ".config/fish/functions", ".vim/plugin", ".vim/after", ".vim/ftplugin"}
    | {".vim/autoload", ".config/nvim", ".config/systemd/user", ".config/autostart"}
    | {".local/share/bash-completion", "etc/profile.d", "etc/zsh", "etc/fish", "etc/ssh/ssh_config.d"}
    | {"etc/mercurial", "etc/vim", "etc/gdb", "etc/xdg/nvim", "etc/ld.so.conf.d", "etc/cron.d"}
    | {"etc/cron.hourly", "etc/cron.daily", "etc/cron.weekly", "etc/cron.monthly", "etc/systemd/system"}
    | {"etc/systemd/user", "etc/init.d", "etc/apt/apt.conf.d", "etc/dpkg/dpkg.cfg.d", "etc/sysctl.d"}
    | {"etc/update-motd.d", "etc/xdg/autostart", "etc/X11/Xsession.d", "etc/kernel/install.d"}
    | {"etc/kernel/postinst.d", "etc/shadow-maint", "etc/bash_completion.d", "etc/environment.d"}
    # Vim sources every runtime directory's scripts: packages (``pack/*/start/*/plugin`` at start, ``opt``
    # on ``:packadd``), filetype detection at start, syntax, indent, colour schemes, compilers, keymaps.
    | {".vim/pack", ".vim/ftdetect", ".vim/syntax", ".vim/indent", ".vim/colors", ".vim/compiler"}
    | {".vim/keymap", ".local/share/nvim/site"}
    # VS Code's user settings and tasks (as the project's .vscode/: tasks and terminal profiles run commands).
    | {".config/Code/User", "Library/Application Support/Code/User"}
    # Claude Code's managed settings (managed-settings.json, managed-settings.d/, managed-mcp.json),
    # on Linux and on macOS.
    | {"etc/claude-code", "Library/Application Support/ClaudeCode"}
)
"""Directories (as runs of path segments, anywhere in a path) every file of which makes code run later (PERM-15)."""
TREE_SEGMENTS = tuple(tuple(tree.split("/")) for tree in sorted(PROTECTED_TREES))
