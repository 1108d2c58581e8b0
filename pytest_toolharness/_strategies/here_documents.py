r"""Here-documents composed as bash reads them: the command a body carries, and where it runs (PERM-16, PERM-17).

bash reads a here-document's body in two steps, and a reader of the line must follow both. When
the delimiter is unquoted the body is expanded first, by the bash of the line itself:
``$(cmd)`` and backquotes run there, and a backslash quotes only ``$``, a backquote, a backslash
and a newline (``\$(cmd)`` reaches the command as ``$(cmd)``, ``r\\m`` as ``r\m``). Then the
command given the body reads it: ``cat`` prints it, ``bash``/``sh -s``/``source /dev/stdin`` run it
as a script, so the escaped forms run there. A quoted delimiter (``'EOF'``, ``"EOF"``, ``\EOF``,
``E'O'F``) leaves the body literal; ``<<-`` strips each line's leading tabs.

:func:`here_documents` composes the pieces: the statement reading the body, the delimiter in any
quoting, ``<<`` or ``<<-`` with tabs, and body lines of ordinary text (escapes, quotes, comments,
a backslash first, which tree-sitter-bash takes for the start of words) around one line carrying the
command in one of :data:`CARRIERS`. Whether the command runs is for bash to say (the oracle runs
the line); the draw only says what the body is.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

__all__ = ["CARRIERS", "HereDocument", "here_documents"]

# Where the body's command runs, by how it is carried (``{c}`` the command, ``{n}`` its name with a
# character escaped as the body's expansion leaves it for the reading shell).
CARRIERS: dict[str, str] = {
    "plain": "{c}",  # run by a shell reading the body
    "backslash first": "\\{c}",  # ``\rm``: the same name to the reading shell
    "escaped in the name": "{n}",  # ``r\\m``: ``r\m`` after expansion, ``rm`` to a shell
    "escaped substitution": "echo \\$({c})",  # ``$(...)`` after expansion: run by a reading shell
    "escaped backquotes": "echo \\`{c}\\`",
    "substitution": "echo $({c})",  # run while the body is expanded (unquoted delimiter)
    "backquotes": "echo `{c}`",
    "substitution after a backslash": "\\\\$({c})",  # ``\\`` is one backslash; the ``$(`` is live
    "substitution first": "$({c})",
}

_EXPANDED = frozenset({"substitution", "backquotes", "substitution after a backslash", "substitution first"})
"""The carriers whose command the line's own bash runs, as it expands an unquoted delimiter's body."""

# Lines of ordinary text: none runs a program of interest, none expands anything.
_TEXT_LINES = (
    ": a",
    "echo a",
    "\\: q",
    "x\\\\b",
    "\\\\q",
    "echo \\$HOME",
    "# c",
    "\\;",
    '\\"q\\"',
    "'s'",
    "\\ q",
    "\\#x",
    "\\`",
    "$'s' $\"t\" x$ $/",  # a ``$`` before no name, brace or parenthesis is literal
)

# What reads the body, written around ``<<{delimiter}``: the text before and after it on the line.
_READERS: tuple[tuple[str, str], ...] = (
    ("cat ", ""),
    ("cat >/dev/null ", ""),
    ("bash ", ""),
    ("sh -s ", ""),
    ("bash /dev/stdin ", ""),
    ("source /dev/stdin ", ""),
    ("{ bash; } ", ""),
    ("( sh -s ) ", ""),
    ("cat ", " >/dev/null"),
)

_DELIMITERS = ("EOF", "'EOF'", '"EOF"', "\\EOF", "E'O'F", '"E"OF')


@dataclass(frozen=True)
class HereDocument:
    """A line whose here-document body carries ``command``.

    ``reader`` is the statement given the body (``bash``, ``cat >/dev/null``...), ``carrier`` a key of
    :data:`CARRIERS`, ``quoted`` whether the delimiter is quoted (the body is then literal),
    ``expanded`` whether the line's bash runs something while it expands the body (a live ``$(``
    or backquote), ``body`` the body as written (without the delimiter's line).
    """

    line: str
    reader: str
    carrier: str
    quoted: bool
    expanded: bool
    body: str


def _escaped_name(draw: st.DrawFn, command: str) -> str:
    name, _, rest = command.partition(" ")
    at = draw(st.integers(0, max(len(name) - 1, 0)))
    escaped = name[:at] + "\\\\" + name[at:]
    return f"{escaped} {rest}" if rest else escaped


@st.composite
def here_documents(draw: st.DrawFn, command: str = "rm -rf x") -> HereDocument:
    """A line whose here-document body carries ``command`` (see the module docstring)."""
    before, after = draw(st.sampled_from(_READERS))
    delimiter = draw(st.sampled_from(_DELIMITERS))
    dash = draw(st.booleans())
    carrier = draw(st.sampled_from(sorted(CARRIERS)))
    carried = CARRIERS[carrier].format(c=command, n=_escaped_name(draw, command))
    lines = draw(st.lists(st.sampled_from(_TEXT_LINES), max_size=3))
    at = draw(st.integers(0, len(lines)))
    lines.insert(at, carried)
    quoted = any(c in delimiter for c in "'\"\\")
    expanded = not quoted and carrier in _EXPANDED
    if draw(st.booleans()) and not lines[0].startswith("\\"):
        lines[0] = "\\" + lines[0]  # tree-sitter-bash takes such a body for words
        # The backslash quotes a ``$(`` that started the line, or pairs with the one before it.
        expanded = expanded and not (at == 0 and carried.startswith(("$", "\\\\")))
    tabs = [draw(st.sampled_from(("", "\t", "\t\t"))) if dash else "" for _ in lines]
    body = "".join(f"{tab}{line}\n" for tab, line in zip(tabs, lines, strict=True))
    end = draw(st.sampled_from(("", "\t"))) if dash else ""
    line = f"{before}<<{'-' if dash else ''}{delimiter}{after}\n{body}{end}EOF"
    return HereDocument(
        line=line, reader=before.strip(), carrier=carrier, quoted=quoted, expanded=expanded, body=body
    )
