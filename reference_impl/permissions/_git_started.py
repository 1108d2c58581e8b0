"""The programs git starts by its defaults, which the line doesn't show: its editor and its signature tools (PERM-17).

``git commit`` with no message, ``git tag -a``, ``git rebase -i``, ``git add -e``... start the editor
``git var GIT_EDITOR`` names (``GIT_EDITOR``, ``core.editor``, ``VISUAL``, ``EDITOR``, else the
editor git was built with: ``editor`` on Debian, ``vi`` upstream). ``git log --show-signature``,
``--format=%G?``, ``verify-commit``, ``verify-tag``, ``tag -v`` (and any log-family command where
``log.showSignature`` is set) start the program the signature's kind needs (gpg, gpgsm for x509,
ssh-keygen for ssh). A deny rule on those programs applies: the engine asks when git may start one.
Which subcommands open the editor follows git's manual pages (tests/test_git_started.py holds every
page that mentions the editor to this table).
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import subprocess
from collections.abc import Mapping, Sequence

from reference_impl.permissions._program_grammar import options_given

__all__ = ["GIT_SIGNATURE_PROGRAMS", "git_editors", "git_pagers", "git_started"]

# What git verifies a signature with, by the signature's kind (gpg.format's programs): the kind is
# in the object, not on the line, so any of them.
GIT_SIGNATURE_PROGRAMS = ("gpg", "gpgsm", "ssh-keygen")
# git's compiled defaults where it can't be asked (upstream's; Debian builds with ``editor``/``pager``).
_FALLBACK_EDITORS = ("editor", "vi")
_FALLBACK_PAGERS = ("pager", "less")
# What gives a subcommand its message, so that it opens no editor unless told to (-e). ``--no-edit``
# does for commit, merge, pull and revert; for tag it only undoes ``-e``: ``git tag -a --no-edit v9``
# still asks for the annotation in the editor.
_MESSAGE: dict[str, tuple[str, tuple[str, ...]]] = {
    "commit": ("mFC", ("--message", "--file", "--reuse-message", "--no-edit", "--fixup")),
    "merge": ("mF", ("--message", "--file", "--no-edit")),
    "pull": ("", ("--no-edit",)),
    "revert": ("", ("--no-edit",)),
    "tag": ("mF", ("--message", "--file")),
    "notes": ("mFC", ("--message", "--file", "--reuse-message")),
}
_VALUED_SHORT = "mFCcSu"  # short options whose value may follow in the same word (``-Sm``: key id m)
# Subcommands that open the editor unless a message is given (git-commit(1), git-merge(1): "--edit
# ... the default for a merge", git-revert(1), git-pull(1), git-notes(1)'s add/edit/append).
_BY_DEFAULT = frozenset({"commit", "merge", "pull", "revert"})
# Options opening the editor whatever the message (``-e``/``--edit``, an interactive rebase or patch
# selection, whose hunk ``e`` edits, ``--continue`` committing a resolved step).
_OPENING: dict[str, tuple[str, tuple[str, ...]]] = {
    "commit": (
        "ecp",
        ("--edit", "--reedit-message", "--interactive", "--patch"),
    ),
    "merge": ("e", ("--edit", "--continue")),
    "pull": ("e", ("--edit",)),
    "revert": ("e", ("--edit", "--continue")),
    "cherry-pick": ("e", ("--edit", "--continue")),
    "tag": ("e", ("--edit",)),
    "config": ("e", ("--edit",)),
    "replace": ("e", ("--edit",)),
    "branch": ("", ("--edit-description",)),
    "add": ("eip", ("--edit", "--interactive", "--patch")),
    "checkout": ("p", ("--patch",)),
    "reset": ("p", ("--patch",)),
    "restore": ("p", ("--patch",)),
    "stash": ("p", ("--patch",)),
    "rebase": ("i", ("--interactive", "--continue", "--edit-todo")),
    "am": ("i", ("--interactive",)),
    "send-email": ("", ("--compose", "--annotate")),
    "notes": ("", ("--edit",)),
}
# ``git tag -a`` (or -s, -u) makes an annotated tag, whose message the editor asks for.
_ANNOTATING = ("as", ("--annotate", "--sign", "--local-user"))
_SIGNATURE_FORMAT = re.compile(r"%G[?GSKFPTU]|%\(signature")
_LOG_FAMILY = frozenset({"log", "show", "whatchanged", "reflog"})


def _short_letters(word: str) -> str:
    """The letters of a short-option cluster (``-am`` -> ``am``), up to the first one taking a value."""
    if not word.startswith("-") or word.startswith("--") or len(word) < 2:
        return ""
    letters = ""
    for letter in word[1:]:
        letters += letter
        if letter in _VALUED_SHORT:
            break
    return letters


def _has(words: Sequence[str], short: str, long: Sequence[str]) -> bool:
    """Whether ``words`` spell one of the options, by their spellings alone (git's grammar unknown)."""
    return any(
        any(w == o or w.startswith((o + "=", o + ":")) for o in long) or set(_short_letters(w)) & set(short)
        for w in words
    )


def _names(sub: str, short: str, long: Sequence[str]) -> set[str]:
    """The names git's grammar gives these spellings in ``sub`` (``--edit`` is ``-e``)."""
    found: set[str] = set()
    for spelling in [f"-{letter}" for letter in short] + [o.split("=")[0] for o in long]:
        found |= set(options_given(["git", sub, spelling]) or {spelling: []})
    return found


def _read(
    sub: str,
    rest: list[str],
    options: tuple[str, tuple[str, ...]],
    given: Mapping[str, list[str | None]] | None,
    *,
    begun: bool = True,
) -> bool:
    """Whether the words give one of these options: read as git reads them where its grammar is known.

    In git's grammar a bundle's value is not an option (``-Sm`` is a key id ``m``) and an abbreviation
    is its option (``--edi`` is ``--edit``). With ``begun``, a long word the grammar gives no other
    name is also taken for any of these options it begins (git reads it so, or refuses the line):
    never for options whose absence is what opens the editor (a message).
    """
    short, long = options
    if given is None:
        return _has(rest, short, long)
    if set(given) & _names(sub, short, long):
        return True
    bare = [n for n in given if begun and n.startswith("--")]  # the grammar stops at ``--`` itself
    return any(o.split("=")[0].startswith(n) for n in bare for o in long)


# Options whose value opens the editor: ``--fixup=amend:C`` (a new message for C), ``pull
# --rebase=interactive`` (git reads ``i`` as it). A fixup's missing value (a word known only at run
# time) may be one; a bare ``--rebase`` is ``true``, no editor.
_OPENING_VALUES = {"commit": ("--fixup", ("amend:", "reword:"), True), "pull": ("--rebase", ("i",), False)}
# Subcommands whose operand opens the editor: ``git config edit`` (git 2.46), ``git notes add``.
_OPENING_OPERANDS = {"config": frozenset({"edit"}), "notes": frozenset({"add", "edit", "append"})}


def _opens_editor(sub: str, rest: list[str]) -> bool:
    if sub not in _OPENING:
        return False
    opening = _OPENING[sub]
    valued = _OPENING_VALUES.get(sub)
    if valued is not None:
        # ``--fixup VALUE`` as ``--fixup=VALUE``: the value says whether it edits.
        name = valued[0]
        rest = [f"{w}={rest[i + 1]}" if w == name and i + 1 < len(rest) else w for i, w in enumerate(rest)]
    given = options_given(["git", sub, *rest])
    if valued is not None:
        name, starts, unknown_opens = valued
        values = [v for n in _names(sub, "", (name,)) for v in (given or {}).get(n, [])]
        values += [w.split("=", 1)[1] for w in rest if given is None and w.startswith(name + "=")]
        if any(unknown_opens if v is None else v.startswith(starts) for v in values):
            return True
    if _read(sub, rest, opening, given):
        return True
    message = sub in _MESSAGE and _read(sub, rest, _MESSAGE[sub], given, begun=False)
    operands = [w for w in rest if not w.startswith("-")]
    if operands[:1] and operands[0] in _OPENING_OPERANDS.get(sub, ()):
        return sub != "notes" or not message
    if sub == "tag":
        return _read(sub, rest, _ANNOTATING, given) and not message
    return sub in _BY_DEFAULT and not message


def _verifies(sub: str, rest: list[str], settings: list[str]) -> bool:
    if sub in ("verify-commit", "verify-tag"):
        return True
    if sub == "tag" and _has(rest, "v", ("--verify",)):
        return True
    if sub in ("merge", "pull") and "--verify-signatures" in rest:
        return True
    if sub not in _LOG_FAMILY or "--no-show-signature" in rest:
        return False
    shown = any(s.lower().startswith("log.showsignature=") and s.split("=", 1)[1].lower() in
                ("true", "yes", "on", "1") for s in settings)  # fmt: skip
    return shown or "--show-signature" in rest or any(_SIGNATURE_FORMAT.search(w) for w in rest)


@functools.cache
def _asked(variable: str, clean: bool) -> tuple[str, ...]:
    """The program ``git var`` names for ``variable`` (the environment's, or git's built-in default)."""
    env = dict(os.environ)
    if clean:
        for name in ("GIT_EDITOR", "VISUAL", "EDITOR", "GIT_PAGER", "PAGER"):
            env.pop(name, None)
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["HOME"] = "/nonexistent"
        env.pop("XDG_CONFIG_HOME", None)
    env.setdefault("TERM", "xterm")
    if env["TERM"] == "dumb":
        env["TERM"] = "xterm"  # git names no editor on a dumb terminal, but the user's may not be one
    try:
        done = subprocess.run(
            ["git", "var", variable],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            env=env,
            cwd="/",
        )
        words = shlex.split(done.stdout.strip()) if done.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        words = []
    return (os.path.basename(words[0]),) if words else ()


def git_editors() -> tuple[str, ...]:
    """The editors git may start here: as the environment says, and git's own default (or upstream's)."""
    found = _asked("GIT_EDITOR", False) + _asked("GIT_EDITOR", True)
    return tuple(dict.fromkeys(found or _FALLBACK_EDITORS))


def git_pagers() -> tuple[str, ...]:
    """The pagers git may start here (``git var GIT_PAGER``: GIT_PAGER, core.pager, PAGER, its default)."""
    found = _asked("GIT_PAGER", False) + _asked("GIT_PAGER", True)
    return tuple(dict.fromkeys(found or _FALLBACK_PAGERS))


def git_started(sub: str | None, rest: list[str], settings: list[str]) -> list[str]:
    """The programs git subcommand ``sub`` (its words ``rest``, the ``-c`` settings) may start by default.

    Its pager (any command, when the output is a terminal), its editor (:data:`_OPENING`) and the
    signature programs where it verifies signatures.
    """
    found = list(git_pagers())
    if sub is None:
        return found
    if _opens_editor(sub, rest):
        found += git_editors()
    if _verifies(sub, rest, settings):
        found += GIT_SIGNATURE_PROGRAMS
    return found
