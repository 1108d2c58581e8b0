"""Gitignore globs composed from their pieces, a path made from each, and git as the judge of a match.

Shared by the path-rule properties (PERM-11) and the sandbox's (SBX-1): :func:`globs_and_paths` draws a
glob and a path built from it with one piece perhaps changed; :func:`gitignore_matches` asks git.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import strategies as st

__all__ = ["gitignore_matches", "globs_and_paths", "rule_content"]

# Name characters: letters, the dot and dash gitignore treats as plain, a digit for the POSIX classes.
# ``.`` and ``0`` sit either side of ``/`` in ASCII, so a range between them spans the separator.
NAME_CHARACTERS = "ab.-_0"
# Punctuation a file name may hold that means nothing to gitignore inside a name (``!`` and ``#`` only
# lead a line, and the line is ``/GLOB``); each sorts below ``*``. The blank is left out: a gitignore
# line and a rule's content both drop it at their end, where a rule ``Read(//d/ )`` then names ``d``.
PUNCTUATION = "!\"#$%&'()"
RANGE_ENDS = ".-0ab"
POSIX_CLASSES = {"alpha": "ab", "digit": "0", "alnum": "ab0", "punct": ".-_"}


@st.composite
def bracket_classes(draw: st.DrawFn) -> tuple[str, str]:
    """A gitignore bracket class: (its text, the name characters it admits)."""
    items: list[str] = []
    admitted: set[str] = set()
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["char", "range", "posix", "colon", "slash"]))
        if kind == "char":
            c = draw(st.sampled_from("ab.0_-"))  # "-" first or last is a member
            items.append(c)
            admitted.add(c)
        elif kind == "range":
            low, high = sorted(
                draw(st.lists(st.sampled_from(RANGE_ENDS), min_size=2, max_size=2, unique=True))
            )
            items.append(f"{low}-{high}")
            admitted.update(c for c in NAME_CHARACTERS if low <= c <= high)
        elif kind == "posix":
            name = draw(st.sampled_from(sorted(POSIX_CLASSES)))
            items.append(f"[:{name}:]")
            admitted.update(POSIX_CLASSES[name])
        elif kind == "colon":  # "[:" that opens no POSIX class: "[[:]" holds "[" and ":"; "[[::]" names none
            items.append(draw(st.sampled_from(["[:", "[::"])))
            admitted.update("[:")
        else:
            items.append("/")
    negation = draw(st.sampled_from(["", "", "!", "^"]))
    if negation:
        admitted = set(NAME_CHARACTERS) - admitted
    return f"[{negation}{''.join(items)}]", "".join(sorted(admitted))


def glob_segments() -> st.SearchStrategy[list[tuple[str, str]]]:
    """One path segment of a glob as (piece, kind) pairs; never ``.`` or ``..``, which rules fold as paths."""
    return _glob_segments().filter(lambda pieces: "".join(p for p, _ in pieces) not in (".", ".."))


@st.composite
def _glob_segments(draw: st.DrawFn) -> list[tuple[str, str]]:
    """(piece, kind) pairs: kind is literal, literal:<char> (escaped), star, any, class:<admitted>."""
    pieces: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["literal", "literal", "punctuation", "star", "any", "class", "escape"]))
        if kind == "literal":
            pieces.append((draw(st.sampled_from(NAME_CHARACTERS)), "literal"))
        elif kind == "punctuation":
            pieces.append((draw(st.sampled_from(PUNCTUATION)), "literal"))
        elif kind == "escape":
            c = draw(st.sampled_from("ab*?["))
            pieces.append((f"\\{c}", f"literal:{c}"))
        elif kind == "star":
            pieces.append(("*", "star"))
        elif kind == "any":
            pieces.append(("?", "any"))
        else:
            text, admitted = draw(bracket_classes())
            pieces.append((text, f"class:{admitted}"))
    return pieces


@st.composite
def globs_and_paths(draw: st.DrawFn, *, dangling: bool = False) -> tuple[str, str]:
    r"""A glob of 1-3 segments (some ``**``) and a path made from it, one piece perhaps changed.

    With ``dangling`` the glob sometimes ends in what escapes or opens nothing: a lone ``\`` (git's
    glob then matches nothing) or a class cut before its ``]`` (``[a-``, ``[!``, ``[[:alpha:]``).
    """
    segments: list[list[tuple[str, str]] | None] = []
    for _ in range(draw(st.integers(1, 3))):
        segments.append(None if draw(st.integers(0, 4)) == 0 else draw(glob_segments()))
    if all(segment is None for segment in segments):
        segments.append(draw(glob_segments()))
    texts = ["**" if s is None else "".join(piece for piece, _ in s) for s in segments]
    glob = texts[0]
    for before, after, text in zip(segments, segments[1:], texts[1:], strict=False):
        # An escaped separator still separates to git (``a\/b*`` meets ``a/bc``); beside ``**`` git reads
        # it otherwise (``**\/x`` spans like ``*``, not as a whole segment), so only between names.
        escaped = before is not None and after is not None and draw(st.integers(0, 3)) == 0
        glob += ("\\/" if escaped else "/") + text
    path_parts: list[str] = []
    for segment in segments:
        if segment is None:
            path_parts.extend(draw(st.lists(_names(), max_size=2)))
            continue
        name = "".join(draw(_instance(kind, piece)) for piece, kind in segment)
        path_parts.append(name)
    if dangling and draw(st.integers(0, 4)) == 0:
        if draw(st.booleans()):
            end = instance = "\\"  # the name a literal reading of the backslash would match
        else:
            text, _ = draw(bracket_classes())
            end, instance = (
                text[: draw(st.integers(1, len(text) - 1))],
                draw(st.sampled_from(NAME_CHARACTERS)),
            )
        glob += end
        path_parts[-1:] = [(path_parts[-1] if path_parts else "") + instance]
    path = "/".join(part for part in path_parts if part)
    if path and draw(st.booleans()):  # change one character, perhaps into the separator
        i = draw(st.integers(0, len(path) - 1))
        path = path[:i] + draw(st.sampled_from(NAME_CHARACTERS + "/")) + path[i + 1 :]
    cleaned = "/".join(part for part in path.split("/") if part and part not in (".", ".."))
    return glob, cleaned or "a"


def rule_content(glob: str) -> str:
    r"""``glob`` written as a rule's content, as Claude Code's rule syntax escapes it.

    ``\``, ``(`` and ``)`` take a backslash, so a glob ending in a backslash does not escape the rule's
    closing ``)``: ``Read(//d/a*\\)`` holds ``a*\``.
    """
    return glob.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _names() -> st.SearchStrategy[str]:
    return st.text(alphabet=NAME_CHARACTERS, min_size=1, max_size=3).filter(lambda n: n not in (".", ".."))


def _instance(kind: str, piece: str) -> st.SearchStrategy[str]:
    """Characters that the piece matches, mostly; sometimes ``/`` where a separator is a boundary."""
    if kind == "literal":
        return st.just(piece)
    if kind.startswith("literal:"):
        return st.just(kind.removeprefix("literal:"))
    if kind == "star":
        return st.text(alphabet=NAME_CHARACTERS + "/", max_size=3)
    if kind == "any":
        return st.sampled_from(NAME_CHARACTERS + "/")
    admitted = kind.removeprefix("class:")
    return st.sampled_from((admitted or NAME_CHARACTERS) + "/")


def gitignore_matches(root: Path, glob: str, path: str) -> bool:
    """Whether git's own gitignore matcher says ``glob`` matches ``path`` (or a directory above it).

    The glob sits in the ``.gitignore`` of ``root`` anchored there (``/glob``), as the rule's content
    sits below ``//root/``: a path rule with a directory before its glob is anchored at it.
    """
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text(f"/{glob}\n", encoding="utf-8")
    done = subprocess.run(
        # "./" first: a path that starts with ":" is a name, not pathspec magic.
        ["git", "-C", str(root), "check-ignore", "--no-index", "-q", "--", f"./{path}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"git check-ignore failed on {glob!r} / {path!r}: {done.stderr.strip()}")
    return done.returncode == 0
