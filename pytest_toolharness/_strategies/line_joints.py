r"""Where bash ends a command: newlines, continued lines, blank and comment lines between two commands (PERM-16, PERM-17).

A newline bash reads unquoted and unescaped ends a command; ``\`` before a newline removes both,
wherever the pair stands, even alone on a line; a line of blanks or a comment is nothing. So after
``echo a`` and a newline, lines holding only ``\`` (or blanks and ``\``) join what follows into one
line that starts a new command: ``echo a\n\\\n\\rm -rf x`` runs ``rm``, where tree-sitter-bash
once read ``\\\n\\rm`` as a third word of ``echo``. :func:`line_joints` composes such joints from
their pieces; what runs is for bash to say.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["line_joints"]

# Lines that carry nothing between two commands, each ending in its newline (a continued one's
# newline is removed with its backslash, joining it to the next line).
_BETWEEN = (
    "\\\n",  # a line continued: joins the next
    " \\\n",
    "\t\\\n",
    "\n",  # an empty line
    "  \n",
    "# c\n",  # a comment line
    "#c \\\n",  # a comment ends at its newline: the backslash is in it
    "\\\n\\\n",
)
# What ends the first command: a newline, or an operator a newline may follow.
_ENDS = ("\n", ";\n", " &&\n", " ||\n", " |\n", " \\\n")


@st.composite
def line_joints(draw: st.DrawFn) -> str:
    r"""Text between two commands that bash reads as a joint: an end and 0-3 lines of :data:`_BETWEEN`.

    After ``" \\\n"`` (the first command's line continued) the next words may still be its own.
    """
    end = draw(st.sampled_from(_ENDS))
    lines = draw(st.lists(st.sampled_from(_BETWEEN), max_size=3))
    return end + "".join(lines)
