r"""Lines where a parser may end a token elsewhere than bash: a command after bash's end (PERM-16, PERM-17).

A scanner that ends ``$'...'``, ``${...}``, a here-document or a pattern later than bash does reads
the command bash runs after its end as text; one that ends it earlier reads text as commands. Each
form here puts ``{c}`` where bash runs it and a closer after it where a misreading scanner ends the
token: ``echo $'\\'; {c} #'`` (bash: one backslash), ``echo ${x#{}; {c} #}`` (bash: no nesting on a
bare ``{``), ``echo <<'EOF'\n \\\nEOF\n{c}\nEOF`` (a quoted body has no continuations). Found by a
red team (session 36); :func:`token_ends` composes them with the spellings of what runs. Whether the
command runs is for bash to say.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["TOKEN_END_FORMS", "token_ends"]

# By the construct a scanner misreads: forms with ``{c}`` the command and ``{p}`` the program first.
TOKEN_END_FORMS: dict[str, tuple[str, ...]] = {
    "ansi-c string": (
        "{p} $'\\\\'; {c} #'",
        "{p} $'a\\\\\\\\'; {c} #'",
        "{p} $'\\n\\\\' | {c} #'",
        "{p} $'\\\\'\n{c}\n#'",
    ),
    "parameter pattern": (
        "{p} ${{x#{{}}; {c} #}}",
        "{p} ${{x%\\'}}; {c} #'}}",
        "{p} ${{x/{{}}; {c} #}}",
        '{p} ${{x#a"}}"}}\n{c}\n#"',
        "{p} ${{x#$'\\''}}; {c} #'}}",
    ),
    "parameter default": ("{p} ${{x:-(}}; {c} #) b}}", "{p} ${{x:=(}} && {c} #)}}"),
    "here-document end": (
        "{p} <<'EOF'\n \\\nEOF\n{c}\nEOF",
        "{p} <<EOF\n\tEOF\necho '\nEOF\n{c}\n#'",
        "{p} <<EOF\nEOF;echo '\nEOF\n{c}\n#'",
        "{p} <<EOF\n${{x}}EOF;echo '\nEOF\n{c}\n#'",
        "{p} <<EOF\n$(echo '\nEOF\n{c}\n')\nEOF",
        '{p} <<EOF\n  EOF\necho "\nEOF\n{c}\n#"',
    ),
    "pattern word": (": == x; {c} #]", ": =~ x; {c} #]", "{p} == x && {c} #}}"),
}


@st.composite
def token_ends(draw: st.DrawFn, command: st.SearchStrategy[str], program: str = "echo") -> str:
    """A line of one of :data:`TOKEN_END_FORMS` with ``program`` first and a drawn ``command`` where bash runs it."""
    family = draw(st.sampled_from(sorted(TOKEN_END_FORMS)))
    form = draw(st.sampled_from(TOKEN_END_FORMS[family]))
    return form.format(p=program, c=draw(command))
