"""Which makefiles make remakes before it reads them again (PERM-17).

GNU make's manual, "How Makefiles Are Remade": after reading its makefiles (the one it is given or
finds, those ``MAKEFILES`` names, each ``include``/``-include``/``sinclude``), make updates each that
a rule can make, an explicit rule, a pattern rule or one of its built-in rules (``%: %.sh`` copies
``gen.mk.sh`` to ``gen.mk``; ``%:: RCS/%,v``, ``%:: s.%`` check one out), and when any changed it
starts again, reading what the recipes wrote. A makefile missing when make starts is made so too.

The text of such a makefile is what its recipe writes, which the engine does not follow: the
makefile is unknown (the caller fails closed), whatever it holds now.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence

from reference_impl.permissions._make_expansion import ASSIGNMENT, expanded_targets

__all__ = ["remade_makefiles"]


def _builtin_rules(words: Sequence[str]) -> bool:
    """Whether make's built-in rules are in force (``-r``, ``--no-builtin-rules`` turn them off)."""
    flags = [*words, *os.environ.get("MAKEFLAGS", "").split()]
    return not any(w == "-r" or (len(w) > 5 and "--no-builtin-rules".startswith(w)) for w in flags)


def _target_makes(target: str, path: str, directory: str) -> bool:
    """Whether a rule's ``target`` (explicit or a ``%`` pattern) is the makefile at ``path``."""
    relative = posixpath.relpath(path, directory) if path.startswith(directory + "/") else path
    if "%" in target:
        before, _, after = target.partition("%")
        # A pattern without a slash is compared with the file name's last part (the manual's rule).
        name = relative if "/" in target else posixpath.basename(relative)
        return len(name) > len(before) + len(after) and name.startswith(before) and name.endswith(after)
    return posixpath.normpath(posixpath.join(directory, target)) == posixpath.normpath(path)


def _builtin_source(path: str) -> str | None:
    """A file beside ``path`` one of make's built-in rules makes it from (``gen.mk.sh``, ``gen.mk,v``, ``RCS/``)."""
    folder, base = posixpath.split(path)
    try:
        entries = os.listdir(folder or ".")
    except OSError:
        return None
    for entry in sorted(entries):
        if entry.startswith((base + ".", base + ",")) or entry in ("s." + base, "RCS", "SCCS"):
            return entry
    return None


def remade_makefiles(
    makefiles: Sequence[str], texts: Sequence[str], words: Sequence[str], directory: str,
    environment: Sequence[str] = (),
) -> list[str]:  # fmt: skip
    """Why each of ``makefiles`` (paths make reads or includes) is unknown: a rule can remake it.

    ``texts`` are the makefiles make read, ``words`` make's command line (its ``NAME=value`` words
    and ``-r``), ``environment`` the line's ``NAME=value`` for make.
    """
    assigned = [w for w in words if ASSIGNMENT.match(w)]
    rules = expanded_targets(texts, assigned, environment)
    if rules is None:
        return ["the makefiles name targets only known when make runs: one may remake a makefile make reads"]
    phony = {p for target, prerequisites in rules if target == ".PHONY" for p in prerequisites.split()}
    builtin = _builtin_rules(words)
    found: list[str] = []
    for path in dict.fromkeys(makefiles):
        exists = os.path.lexists(path)
        making = [(t, p) for t, p in rules if _target_makes(t, path, directory)]
        # An existing makefile whose rules give it no prerequisite is up to date: make leaves it.
        if making and (not exists or any(p for _, p in making) or any(t in phony for t, _ in making)):
            found.append(
                f"make remakes the makefile {path} by its rule for {making[0][0]!r}, then reads what it wrote"
            )
            continue
        source = _builtin_source(path) if builtin and not making else None
        if source is not None:
            found.append(
                f"make may remake the makefile {path} from {source} by a built-in rule, then read it"
            )
    return found
