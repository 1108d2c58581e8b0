r"""Command lines composed from bash's grammar that run a target program from every position (PERM-17).

Where :func:`~pytest_toolharness._strategies.shell.shell_attempts` draws from a list of known
forms, :func:`composed_commands` *composes*: a command that runs the target (``rm -rf x``, its name
and words spelled every way bash reads them) is carried by a chain of productions, each of which
makes bash, or a program bash starts, run the command it is given:

- **substitution**: ``$(C)``, backquotes, ``<(C)``, ``>(C)``, ``${x:-$(C)}``, an assignment's value;
  backquotes and ``$(C)`` in every word bash expands: ``${x:-`C`}``, the pattern of ``${x#$(C)}``
  and its kin, ``${x:-<(C)}``, ``"${x:+'$(C)'}"``, a here-document's body, escaped backquotes
  inside backquotes (``echo `echo \`C\```);
- **shell-string**: ``bash -c Q``, ``sh -ec Q``, ``eval Q``, where ``Q`` is ``C`` quoted in any of
  bash's forms: ``'...'``, ``"..."``, ``$'...'`` with octal, hex, ``\u`` escapes, pieces of each
  joined;
- **shell-input**: a shell reading its program from a here-document, a here-string, a pipe, a
  process substitution, ``/dev/stdin``, ``/dev/fd/N`` or a descriptor it inherits (``bash <&3``);
- **written-script**: the line writes ``C`` to a file and runs it (``bash f``, ``. f``, ``./f``
  after ``chmod``, ``BASH_ENV=f``, ``--rcfile``), in the working directory or after ``cd``;
- **function**: a function, an exported function (``export -f``), an alias, a trap;
- **code-variable**: a variable bash runs (``PROMPT_COMMAND``, ``PS1``, ``PS4``, ``BASH_ENV``) set
  by an assignment, ``declare``, ``export``, ``printf -v``, ``read`` or a ``for`` loop;
- **exec**: ``exec``, ``exec -a``, ``command``, ``builtin``, ``coproc``, ``time``, ``!``;
- **wrapper**: every wrapper of the mined catalogue
  (:mod:`~pytest_toolharness._strategies.program_catalogue`: ``timeout 1 C``, ``taskset 1 C``...);
- **finder**: ``find -exec``, ``-execdir``, ``xargs``;
- **option-command**, **option-script**, **config-command**: an option or a configuration key of a
  catalogued program given ``C`` or a file holding it (``tar -I C``, ``split --filter=C``,
  ``sqlite3 -init f``, ``git -c core.sshCommand=C``, ``git clone -c``/``--config`` KEY=C, git's ``ext::sh -c C``
  transport switched on by ``-c protocol.ext.allow``); bash's builtins are catalogued from its ``help``
  (``mapfile -C C -c 1``, ``compgen -C C``, ``jobs -x C`` as a wrapper);
- **environment-command**: a variable a catalogued program takes a program or a command from, set
  for it (``GREP=C zgrep``, ``LESSOPEN='|C' less``, ``MANPAGER=C man``), or naming a program file
  holding ``C`` that the line writes (``GREP=./c zgrep``);
- **interpreter-inline**, **interpreter-script**, **interpreter-stdin**: ``python3``, ``perl``,
  ``node``, ``awk``, ``tclsh`` running ``C`` through their own ``system``, with ``C`` encoded in the
  interpreter's own way (hex, ``chr`` codes, base64, rot13, octal), given as inline code (``-c``,
  ``-e``), as a script file the line writes (awk's in every spelling mawk(1) gives: ``-f``, ``-W exec``,
  ``-We``, ``-Wi,e``), or on standard input.

The innermost command itself names the target directly, through a path or a glob, or through a
variable set by ``declare``, ``printf -v``, ``read``, ``for``, ``set --``..., with redirections
before, between and after its words (``rm >/dev/null -rf x``), their targets spelled in pieces bash
reads as one word (``>''\/dev/null rm -rf x``). The bash oracle, running the catalogued programs for
real, judges what ran. Shrinks toward fewer carriers and plainer spellings.
"""

from __future__ import annotations

import base64
import codecs
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from pytest_toolharness._strategies.program_catalogue import (
    ESCAPES,
    GIT_TRIGGERS,
    TAILS,
    CatalogueEntry,
    load_catalogue,
)
from pytest_toolharness._strategies.shell import command_name_spellings

__all__ = [
    "CARRIER_FAMILIES",
    "ComposedCommand",
    "catalogue_programs",
    "composed_commands",
    "composed_real_programs",
    "shell_quotings",
    "shell_redirections",
]

_Draw = st.DrawFn


@dataclass(frozen=True)
class ComposedCommand:
    """A drawn line: ``command`` runs ``target`` with ``arguments`` through ``carriers`` (outermost first).

    ``allowed`` is the harmless command the line starts with (an allow rule may cover it) or "".
    ``mechanism`` is the family of the outermost carrier ("plain" when there is none). ``carried``
    is the line without ``allowed`` and its joiner: what runs the target (the whole line when empty).
    """

    target: str
    arguments: tuple[str, ...]
    command: str
    carriers: tuple[str, ...]
    allowed: str = ""
    carried: str = ""

    @property
    def mechanism(self) -> str:
        """The family of the outermost carrier, the production the engine had to see through."""
        return self.carriers[0] if self.carriers else "plain"


@dataclass(frozen=True)
class _Built:
    text: str
    simple: bool  # one simple command (a wrapper, ``find -exec`` or ``exec`` can take it)


# -- quoting -------------------------------------------------------------------------------------


def _single(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _double(text: str) -> str:
    return '"' + "".join("\\" + c if c in '\\"$`' else c for c in text) + '"'


def _ansi_c(text: str, escape: str) -> str:
    r"""``$'...'``: each character plain, as UTF-8 bytes (hex, octal) or as a code point.

    ``unicode`` writes ``\u`` up to U+FFFF and ``\U`` beyond; ``U`` always ``\U``.
    """
    out = []
    for c in text:
        code = ord(c)
        if escape == "plain" and c not in "\\'":
            out.append(c)
        elif escape in ("hex", "plain"):
            out.extend(f"\\x{byte:02x}" for byte in c.encode())
        elif escape == "octal":
            out.extend(f"\\{byte:03o}" for byte in c.encode())
        elif escape == "unicode" and code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "$'" + "".join(out) + "'"


_QUOTE_FORMS = ("single", "double", "ansi-plain", "ansi-hex", "ansi-octal", "ansi-unicode", "ansi-U", "split")
_QUOTE_FORM = st.sampled_from(_QUOTE_FORMS)


def _quote(draw: _Draw, text: str) -> str:
    form = draw(_QUOTE_FORM)
    if form == "single":
        return _single(text)
    if form == "double":
        return _double(text)
    if form.startswith("ansi-"):
        return _ansi_c(text, form[5:])
    # Pieces of the text, each in its own quoting, joined into one word.
    cut = draw(st.integers(min_value=0, max_value=len(text)))
    first, second = draw(st.sampled_from(_QUOTE_FORMS[:-1])), draw(st.sampled_from(_QUOTE_FORMS[:-1]))
    return _quote_as(text[:cut], first) + _quote_as(text[cut:], second)


def _quote_as(text: str, form: str) -> str:
    if form == "single":
        return _single(text)
    if form == "double":
        return _double(text)
    return _ansi_c(text, form[5:])


def shell_redirections() -> st.SearchStrategy[str]:
    r"""A redirection that leaves what bash runs alone: to ``/dev/null``, or a descriptor duplication.

    The target is spelled any way bash reads it, in pieces too (``>''\/dev/null``, ``2>"/dev"\/null``).
    """
    return _REDIRECTION


def shell_quotings(text: str) -> st.SearchStrategy[str]:
    """``text`` as one bash word in any quoting form (single, double, ANSI-C escapes, pieces joined)."""
    return st.composite(lambda draw: _quote(draw, text))()


# -- the innermost command ------------------------------------------------------------------------

# A variable set to the target's name by some means other than a plain ``c=rm`` word.
_NAME_SETTERS = (
    "c={q}; ",
    "declare c={q}; ",
    "local c={q} 2>/dev/null || c={q}; ",
    "printf -v c %s {q}; ",
    "read -r c <<< {q}; ",
    "mapfile -t c <<< {q}; ",
    "export c={q}; ",
    ": ${{c:={q}}}; ",
    "c=$(printf %s {q}); ",
    "set -- {q}; c=$1; ",
    "IFS=: read -r c _ <<< {q}:x; ",
)
_NAME_USES = ("$c", "${c}", '"$c"', "${c[0]}", "${c@Q}", "$(echo $c)")
_DUPLICATIONS = ("2>&1", ">&2", "<&-")
_REDIRECT_OPERATORS = (">", "2>", "<", ">>", "&>", "<>", ">|", "2>>")
_PIECE_QUOTES = ("single", "double", "ansi-plain")


def _redirection(draw: _Draw) -> str:
    r"""A redirection to ``/dev/null`` (or a descriptor duplication), its target spelled any way bash reads it.

    Bash reads a target written in pieces as one word; a grammar may end it early, at a quoted piece
    before an escape (``>''\/dev/null``, ``2>"/dev"\/null``), and take the rest for a command's word.
    """
    how = draw(st.integers(min_value=0, max_value=4))
    if how == 4:
        return draw(st.sampled_from(_DUPLICATIONS))
    operator = draw(st.sampled_from(_REDIRECT_OPERATORS))
    path = "/dev/null"
    if how == 0:
        return operator + path
    if how == 1:
        return operator + _quote(draw, path)
    # A quoted piece (possibly empty), then an escaped character, then the rest.
    cut = draw(st.integers(min_value=0, max_value=len(path) - 1))
    quoted = _quote_as(path[:cut], draw(st.sampled_from(_PIECE_QUOTES)))
    return f"{operator}{quoted}\\{path[cut]}{path[cut + 1 :]}"


_REDIRECTION = st.composite(_redirection)()


def _leaf(draw: _Draw, target: str, arguments: tuple[str, ...]) -> _Built:
    setter = ""
    how = draw(st.integers(min_value=0, max_value=3))
    if how == 3:
        setter = draw(st.sampled_from(_NAME_SETTERS)).format(q=draw(shell_quotings(target)))
        use = draw(st.sampled_from(_NAME_USES))
        name = use if use != "${c@Q}" else f"eval {use}"
    else:
        name = draw(command_name_spellings(target))
    words = [name]
    # (Each choice shrinks toward its plain form: no redirection, no quoting.)
    if draw(st.integers(min_value=0, max_value=3)) == 3:
        words.insert(0, _redirection(draw))  # before the name: bash still runs the command
    for argument in arguments:
        if draw(st.integers(min_value=0, max_value=4)) == 4:
            words.append(_redirection(draw))  # words after a redirection are arguments
        words.append(draw(shell_quotings(argument)) if draw(st.booleans()) else argument)
    if draw(st.integers(min_value=0, max_value=5)) == 5:
        words.append(_redirection(draw))
    return _Built(setter + " ".join(words), not setter)


# -- carriers: each runs the command it is given -----------------------------------------------------

_SHELLS = ("bash", "sh", "dash", "/bin/sh", "/usr/bin/bash")
_SHELL_C = ("-c", "-ec", "-xc", "-lc", "--norc -c", "-O extglob -c", "-c --", "+e -c")


def _shell_string(draw: _Draw, inner: _Built) -> str:
    if draw(st.integers(min_value=0, max_value=3)) == 3:
        return f"{draw(st.sampled_from(('eval', 'builtin eval', 'command eval')))} {_quote(draw, inner.text)}"
    shell = draw(st.sampled_from(_SHELLS))
    tail = draw(st.sampled_from(("", " _", " _ a b")))
    return f"{shell} {draw(st.sampled_from(_SHELL_C))} {_quote(draw, inner.text)}{tail}"


# The names one open descriptor has (``/dev/stdin`` is descriptor 0 only), and the segments the
# kernel folds in a path: a program told to read its script from one of these reads the line's data.
_DESCRIPTOR_DIRECTORIES = ("/dev/fd", "/proc/self/fd", "/proc/thread-self/fd")
_FOLDED_SEPARATORS = ("/", "/", "//", "/./", "/.//")


def _descriptor_path(draw: _Draw, descriptor: int) -> str:
    """A path naming ``descriptor`` in the process that opens it, spelled as the kernel still reads it.

    Composed: one of the descriptor's names, each separator doubled or with ``.`` in it, a segment
    left and entered again (``fd/../fd``), or the whole path climbing from the working directory
    (``../../../dev/stdin``: any number of ``..`` past the root stays at the root).
    """
    names = [f"{directory}/{descriptor}" for directory in _DESCRIPTOR_DIRECTORIES]
    if descriptor == 0:
        names.append("/dev/stdin")
    parts = draw(st.sampled_from(names)).strip("/").split("/")
    path = ""
    for index, part in enumerate(parts):
        path += draw(st.sampled_from(_FOLDED_SEPARATORS)) + part
        if index < len(parts) - 1 and draw(st.integers(0, 4)) == 0:
            path += f"/../{part}"
    if draw(st.integers(0, 3)) == 0:
        path = "../" * draw(st.integers(4, 9)) + path.lstrip("/")
    return path


def _shell_input(draw: _Draw, inner: _Built) -> str:
    shell = draw(st.sampled_from(_SHELLS))
    q = _quote(draw, inner.text)
    number = draw(st.sampled_from((3, 4, 7, 9)))
    stdin, other = _descriptor_path(draw, 0), _descriptor_path(draw, number)
    forms = (
        f"{shell} <<< {q}",
        f"{shell} <<EOF\n{inner.text}\nEOF",
        f"{shell} <<-'EOF'\n\t{inner.text}\nEOF",
        f"echo {q} | {shell}",
        f"printf '%s\\n' {q} | {shell} -s",
        f"{shell} < <(echo {q})",
        f"{shell} <(echo {q})",
        f"{shell} {stdin} <<< {q}",
        f"{shell} {stdin} <<EOF\n{inner.text}\nEOF",
        f"exec {number}<<<{q}; {shell} <&{number}",
        f"{shell} {other} {number}<<<{q}",
        f"source {other} {number}<<<{q}",
        f". <(printf '%s\\n' {q})",
        f"source {stdin} <<< {q}",
        f"{shell} -s < {stdin} <<< {q}",
    )
    return draw(st.sampled_from(forms))


_FILES = ("f", "s.sh", ".x", "d/f", "/tmp/f")


def _written_script(draw: _Draw, inner: _Built) -> str:
    path = draw(st.sampled_from(_FILES))
    q = _quote(draw, inner.text)
    shebang = draw(st.sampled_from(("", "#!/bin/sh\n", "#!/usr/bin/env bash\n")))
    writers = (
        f"echo {q} > {path}",
        f"printf '%s\\n' {q} > {path}",
        f"cat > {path} <<'EOF'\n{shebang}{inner.text}\nEOF\n",
        f"cat <<< {q} > {path}",
        f"tee {path} <<< {q} >/dev/null",
        f"{{ echo {q}; }} >> {path}",
        f"printf %s {_quote(draw, shebang + inner.text)} > {path}",
    )
    write = draw(st.sampled_from(writers))
    if path.startswith("d/"):
        write = f"mkdir -p d; {write}"
    local = path if "/" in path else f"./{path}"
    # The file run under another of its names: through the process's own working directory as the
    # kernel shows it (``/proc/self/cwd``, reached from ``/dev/fd/..`` too) or ``$PWD``.
    if not path.startswith("/"):
        local = draw(
            st.sampled_from((local, f"/proc/self/cwd/{path}", f"/dev/fd/../cwd/{path}", f"$PWD/{path}"))
        )
    named = local if local != f"./{path}" else path
    runners = (
        f"bash {named}",
        f"sh {named}",
        f". {local}",
        f"source {named}",
        f"bash {named} <<< :",  # a file operand and a here-string: bash runs the file
        f"source {named} <<< true",
        f"chmod +x {path}; {local}",
        f"chmod 755 {path} && {local}",
        f"bash < {path}",
        f"BASH_ENV={path} bash -c :",
        f"bash --rcfile {path} -i </dev/null",
        f"env BASH_ENV={local} bash -c true",
        f"env -S 'bash {path}'",
        f"env -S'sh {path}'",
    )
    joiner = draw(st.sampled_from(("; ", " && ", "\n")))
    line = f"{write}{'' if write.endswith(chr(10)) else joiner}{draw(st.sampled_from(runners))}"
    if draw(st.integers(min_value=0, max_value=4)) == 4:
        line = f"mkdir -p w && cd w{joiner}{line}"  # the file is written after the directory changed
    return line


def _function(draw: _Draw, inner: _Built) -> str:
    q = _quote(draw, inner.text)
    forms = (
        f"f() {{ {inner.text}; }}; f",
        f"function f {{ {inner.text}; }}; f",
        f"f() ( {inner.text} ); f",
        f"f() {{ {inner.text}; }}; export -f f; bash -c f",
        f"shopt -s expand_aliases\nalias a={q}\na",
        f"trap {q} EXIT",
        f"trap {q} DEBUG; :",
        f"trap {q} ERR; false",
        f"command_not_found_handle() {{ {inner.text}; }}; nosuchprogram",
        f"declare -f g >/dev/null; eval \"g() {{ $(printf '%s' {q}); }}\"; g",
    )
    return draw(st.sampled_from(forms))


_CODE_VARIABLES = (
    ("PROMPT_COMMAND", "{q}", "bash -i <<< ''"),
    ("PS1", "'$('{q}')'", "bash -i <<< ''"),
    ("PS4", "'$('{q}')'", "bash -xc :"),
    ("PS4", "'$('{q}')'", "set -x; :"),  # the shell's own trace: no child, no export needed
    ("BASH_ENV", "<(echo {q})", "bash -c :"),
)
_VARIABLE_SETTERS = (
    "{v}={value} {run}",
    "export {v}={value}; {run}",
    "declare -x {v}={value}; {run}",
    "printf -v {v} %s {value}; export {v}; {run}",
    "read -r {v} <<< {value}; export {v}; {run}",
    "env {v}={value} {run}",
    "for {v} in {value}; do export {v}; {run}; done",
    "for {v} in {value}; do {run}; done",
)


def _code_variable(draw: _Draw, inner: _Built) -> str:
    variable, value, run = draw(st.sampled_from(_CODE_VARIABLES))
    setter = draw(st.sampled_from(_VARIABLE_SETTERS))
    if value == "<(echo {q})" and "read" in setter:
        setter = _VARIABLE_SETTERS[1]  # a process substitution is not a word read can take
    return setter.format(v=variable, value=value.format(q=_quote(draw, inner.text)), run=run)


def _substitution(draw: _Draw, inner: _Built) -> str:
    text = inner.text
    forms = [
        f"echo $({text})",
        f'echo "$({text})"',
        f"cat <({text})",
        f"tee >({text}) </dev/null",
        f": ${{x:-$({text})}}",
        f"x=$({text})",
        f"echo $(( 0 + $({text}) 0 ))",
    ]
    # Words bash expands where a grammar may show no substitution (PERM-16): the pattern of a
    # ``${x#...}`` operator, a ``${}`` inside double quotes whose single quotes bash keeps literal.
    forms.extend(
        f"x=1; : {word.format(c=f'$({text})')}"
        for word in (
            "${{x#{c}}}",
            "${{x%%{c}}}",
            "${{x/a/{c}}}",
            "${{x//?/{c}}}",
            "${{x^{c}}}",
            "${{x,,{c}}}",
        )
    )
    forms.extend((f": ${{x:-<({text})}}", f"x=1; : \"${{x:+'$({text})'}}\""))
    if "`" not in text and "\\" not in text:
        tick = f"`{text}`"
        forms.extend(
            (
                f"echo {tick}",
                f": ${{x:-{tick}}}",
                f": ${{x:={tick}}}",
                f": ${{x:-${{y:-{tick}}}}}",
                f"x=1; : ${{x#{tick}}}",
                f': "${{x-\'"{tick}"\'}}"',
                f"cat <<EOF >/dev/null\n{tick}\nEOF\n",
                f"cat <<-EOF >/dev/null\n{tick}\n\tEOF\n",
                # Inside backticks bash turns \` into ` and \$ into $ before it reads the text again.
                f"echo `echo \\{tick[:-1]}\\``",
                f'echo `echo "\\$({text})"`',
            )
        )
    return draw(st.sampled_from(forms))


def _as_simple(draw: _Draw, inner: _Built) -> str:
    """``inner`` as one simple command (a compound goes into ``bash -c``)."""
    return inner.text if inner.simple else f"bash -c {_quote(draw, inner.text)}"


def _exec(draw: _Draw, inner: _Built) -> str:
    command = _as_simple(draw, inner)
    forms = (
        f"exec {command}",
        f"exec -a x {command}",
        f"(exec {command})",
        f"command {command}",
        f"builtin command {command}",
        f"coproc {command}",
        f"time {command}",
        f"! {command}",
    )
    return draw(st.sampled_from(forms))


@functools.cache
def _catalogue(kinds: tuple[str, ...]) -> tuple[CatalogueEntry, ...]:
    return tuple(entry for entry in load_catalogue() if entry.kind in kinds)


def catalogue_programs() -> tuple[str, ...]:
    """The catalogued programs (the oracle must run them for real to see what they start)."""
    return tuple(sorted({entry.program.split(" ")[0] for entry in load_catalogue()}))


def _finder(draw: _Draw, inner: _Built) -> str:
    words = inner.text if inner.simple else f"bash -c {_quote(draw, inner.text)}"
    return draw(
        st.sampled_from(
            (
                f"find . -maxdepth 0 -exec {words} \\;",
                f"find / -maxdepth 0 -execdir {words} {{}} +",
                f"echo . | xargs {words}",
                f"printf '%s\\0' . | xargs -0 {words}",
                f"xargs -a /dev/null -r {words} || {words}",
            )
        )
    )


def _catalogued(draw: _Draw, inner: _Built, kinds: tuple[str, ...]) -> str:
    """A line in which a catalogue entry of ``kinds`` is given ``inner``.

    Half the draws take an entry the oracle confirmed at mining time, with the form that worked (a
    shrunk finding names one); the others any entry with any escape and tail.
    """
    entries = _catalogue(kinds)
    confirmed = tuple(entry for entry in entries if entry.confirmed)
    use_confirmed = bool(confirmed) and not draw(st.booleans())
    entry = draw(st.sampled_from(confirmed if use_confirmed else entries))
    if entry.confirmed is not None and use_confirmed:
        escape, tail = entry.confirmed
    else:
        escape = draw(st.sampled_from(ESCAPES))
        tails = tuple(f" {t}" for t in GIT_TRIGGERS) if entry.kind == "config-command" else TAILS
        tail = draw(st.sampled_from(tails))
    value = _quote(draw, entry.escape_for(escape) + inner.text)
    # A key is set for one run (``git -c``), in a repository's configuration, or in the repository
    # ``git clone`` makes, by any spelling of clone's ``-c, --config`` (session 31's red team).
    how = (
        draw(st.sampled_from(("-c", "repository", *_CLONE_CONFIG)))
        if entry.kind == "config-command"
        else "-c"
    )
    return entry.command_line(
        _as_simple(draw, inner),
        value,
        tail,
        in_repository=how == "repository",
        clone_option=how if how in _CLONE_CONFIG else "",
    )


_CLONE_CONFIG = ("-c ", "-c", "--config ", "--config=")


def _wrapper(draw: _Draw, inner: _Built) -> str:
    return _catalogued(draw, inner, ("wrapper",))


def _option_command(draw: _Draw, inner: _Built) -> str:
    return _catalogued(draw, inner, ("option-command",))


def _option_script(draw: _Draw, inner: _Built) -> str:
    return _catalogued(draw, inner, ("option-script",))


# git's ``ext::`` transport runs its URL's command once a setting lets it (git-remote-ext(1)): ``%``
# escapes a space inside the command's one argument, ``%%`` is ``%``.
_EXT_ALLOWED = (
    "git -c protocol.ext.allow=always",
    "git -c protocol.ext.allow=user",
    "git -c protocol.allow=always",
    "GIT_ALLOW_PROTOCOL=ext git",
    "git -C . -c protocol.ext.allow=always",
)


def _ext_transport(draw: _Draw, inner: _Built) -> str:
    url = "ext::sh -c " + inner.text.replace("%", "%%").replace(" ", "% ")
    trigger = draw(st.sampled_from(("ls-remote {}", "clone -q {} r")))
    return f"{draw(st.sampled_from(_EXT_ALLOWED))} {trigger.format(_quote(draw, url))}"


def _config_command(draw: _Draw, inner: _Built) -> str:
    if draw(st.integers(min_value=0, max_value=4)) == 0:
        return _ext_transport(draw, inner)
    return _catalogued(draw, inner, ("config-command",))


def _environment_command(draw: _Draw, inner: _Built) -> str:
    if draw(st.booleans()):
        return _catalogued(draw, inner, ("environment-command",))
    # The variable names a program the line writes (``GREP=./c zgrep``): its value shows no command.
    script = f"printf '#!/bin/sh\\n%s\\n' {_quote(draw, inner.text)} > c; chmod +x c; "
    return script + _catalogued(draw, _Built("./c", simple=True), ("environment-command",))


def _hexed(text: str) -> str:
    return text.encode().hex()


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# Each interpreter's code that runs the shell command ``text``, spelled in the interpreter's own
# encodings, and how the interpreter takes code: (program, inline flag, script suffix).
def _python(draw: _Draw, text: str) -> str:
    literal = draw(
        st.sampled_from(
            (
                repr(text),
                f"bytes.fromhex({_hexed(text)!r}).decode()",
                f"''.join(map(chr,{[ord(c) for c in text]!r}))",
                f"__import__('base64').b64decode({_b64(text)!r}).decode()",
                f"__import__('codecs').decode({codecs.encode(text, 'rot13')!r},'rot13')",
            )
        )
    )
    call = draw(
        st.sampled_from(
            (
                "import os;os.system({})",
                "__import__('os').system({})",
                "import subprocess;subprocess.run({},shell=True)",
                "import os;os.popen({}).read()",
                "getattr(__import__('o'+'s'),'sys'+'tem')({})",
                "exec('import os;os.system('+repr({})+')')",
            )
        )
    )
    return call.format(literal)


def _perl(draw: _Draw, text: str) -> str:
    forms = [f'pack("H*","{_hexed(text)}")', "join('',map(chr," + ",".join(str(ord(c)) for c in text) + "))"]
    if "{" not in text and "}" not in text:
        forms.append(f"q{{{text}}}")
    literal = draw(st.sampled_from(forms))
    call = draw(st.sampled_from(("system({})", "exec({})", "my $c={}; `$c`", "my $c={}; qx($c)")))
    return call.format(literal) + ";"


def _node(draw: _Draw, text: str) -> str:
    literal = draw(
        st.sampled_from(
            (
                '"' + "".join(f"\\x{ord(c):02x}" for c in text) + '"',
                f'Buffer.from("{_b64(text)}","base64").toString()',
                "String.fromCharCode(" + ",".join(str(ord(c)) for c in text) + ")",
            )
        )
    )
    call = draw(
        st.sampled_from(
            (
                'require("child_process").execSync({})',
                'process.mainModule.require("child_process").execSync({})',
            )
        )
    )
    return call.format(literal)


def _awk(draw: _Draw, text: str) -> str:
    octal = '"' + "".join(f"\\{ord(c):03o}" for c in text) + '"'
    chars = 'sprintf("' + "%c" * len(text) + '",' + ",".join(str(ord(c)) for c in text) + ")"
    literal = draw(st.sampled_from((octal, chars)))
    body = draw(
        st.sampled_from(
            ("BEGIN{{system({})}}", "BEGIN{{c={}; c | getline; close(c)}}", 'BEGIN{{print "" | {}}}')
        )
    )
    return body.format(literal)


def _tcl(draw: _Draw, text: str) -> str:
    escaped = "".join(f"\\x{ord(c):02x}" for c in text)
    literal = draw(st.sampled_from((f'"{escaped}"', f"[binary format H* {_hexed(text)}]")))
    return f"exec sh -c {literal}"


# (encoder, programs, inline option or "" when the program takes code only from a file or stdin)
_INTERPRETERS: tuple[tuple[Callable[[_Draw, str], str], tuple[str, ...], str], ...] = (
    (_python, ("python3",), "-c"),
    (_perl, ("perl",), "-e"),
    (_node, ("node",), "-e"),
    (_awk, ("awk", "mawk"), ""),
    (_tcl, ("tclsh",), ""),
)
_INTERPRETER = st.sampled_from(_INTERPRETERS)


def _interpreter_code(draw: _Draw, inner: _Built) -> tuple[str, str, str]:
    encode, programs, inline = draw(_INTERPRETER)
    return draw(st.sampled_from(programs)), inline, encode(draw, inner.text)


def _interpreter_inline(draw: _Draw, inner: _Built) -> str:
    program, inline, code = _interpreter_code(draw, inner)
    if program == "tclsh":
        program, inline, code = "perl", "-e", _perl(draw, inner.text)
    return f"{program}{' ' + inline if inline else ''} {_quote(draw, code)}"


# The spellings mawk(1) reads a program file with: ``-f file``, and ``-W exec file`` abbreviated,
# attached and combined with another -W option by commas (PERM-17).
_AWK_FILE_OPTIONS = ("-f", "-W exec", "-We", "-Wexe", "-W interactive,exec", "-Wi,e", "-v v=1 -W e")


def _interpreter_script(draw: _Draw, inner: _Built) -> str:
    program, _, code = _interpreter_code(draw, inner)
    path = draw(st.sampled_from(("f", "f.py", "f.pl", "f.js", "s", "/tmp/f")))
    flag = " " + draw(st.sampled_from(_AWK_FILE_OPTIONS)) if program in ("awk", "mawk") else ""
    return f"echo {_quote(draw, code)} > {path}; {program}{flag} {path}"


def _interpreter_stdin(draw: _Draw, inner: _Built) -> str:
    program, _, code = _interpreter_code(draw, inner)
    if program in ("awk", "mawk"):
        return f"{program} -f {_descriptor_path(draw, 0)} <<< {_quote(draw, code)}"
    q = _quote(draw, code)
    return draw(
        st.sampled_from(
            (
                f"{program} <<< {q}",
                f"echo {q} | {program}",
                f"{program} - <<< {q}",
                f"{program} < <(echo {q})",
            )
        )
    )


_CARRIERS: dict[str, Callable[[_Draw, _Built], str]] = {
    "substitution": _substitution,
    "shell-string": _shell_string,
    "shell-input": _shell_input,
    "written-script": _written_script,
    "function": _function,
    "code-variable": _code_variable,
    "exec": _exec,
    "wrapper": _wrapper,
    "finder": _finder,
    "option-command": _option_command,
    "option-script": _option_script,
    "config-command": _config_command,
    "environment-command": _environment_command,
    "interpreter-inline": _interpreter_inline,
    "interpreter-script": _interpreter_script,
    "interpreter-stdin": _interpreter_stdin,
}
CARRIER_FAMILIES: tuple[str, ...] = tuple(_CARRIERS)
"""The families of productions that carry a command (see the module's docstring)."""


@functools.cache
def composed_real_programs() -> tuple[str, ...]:
    """What the bash oracle must run for real (``BashSandbox.running_for_real``) to judge a composed line.

    The catalogued programs, the interpreters, and the programs the carriers write and mark files with.
    """
    return (
        *catalogue_programs(),
        "cat",
        "tee",
        "chmod",
        "mkdir",
        "git",
        "python3",
        "perl",
        "node",
        "awk",
        "mawk",
        "tclsh",
    )


_ALLOWED = ("npm test", "git status", "ls -la", "make lint", "cat README.md")
_JOINERS = ("; ", " && ", " || ", " | ", "\n", " & ")


@st.composite
def _composed(
    draw: _Draw,
    targets: tuple[str, ...],
    arguments: tuple[str, ...],
    outer: tuple[str, ...],
    max_depth: int,
    allowed: tuple[str, ...],
) -> ComposedCommand:
    target = draw(st.sampled_from(targets))
    built = _leaf(draw, target, arguments)
    depth = draw(st.integers(min_value=min(1, max_depth), max_value=max_depth))
    chain: list[str] = []
    for level in range(depth):
        names = outer if level == depth - 1 else CARRIER_FAMILIES
        name = draw(st.sampled_from(names))
        built = _Built(_CARRIERS[name](draw, built), simple=False)
        chain.append(name)
    line, prefix = built.text, ""
    after_allowed: bool = draw(st.booleans())
    if allowed and after_allowed:
        prefix = draw(st.sampled_from(allowed))
        line = f"{prefix}{draw(st.sampled_from(_JOINERS))}{line}"
    return ComposedCommand(target, arguments, line, tuple(reversed(chain)), prefix, built.text)


def composed_commands(
    targets: Sequence[str] = ("rm",),
    *,
    arguments: Sequence[str] = ("-rf", "x"),
    families: Sequence[str] = CARRIER_FAMILIES,
    max_depth: int = 3,
    allowed: Sequence[str] = _ALLOWED,
) -> st.SearchStrategy[ComposedCommand]:
    """Lines that run a ``target`` with ``arguments`` through one to ``max_depth`` composed carriers.

    With ``max_depth`` 0, the target's command alone (its name and words spelled every way, with
    redirections between the words). ``families`` limits the outermost carrier (the one classified as the mechanism); the inner ones
    are drawn from all. Some lines start with an ``allowed`` command and a joiner.
    """
    unknown = sorted(set(families) - set(CARRIER_FAMILIES))
    if unknown:
        raise ValueError(f"unknown carrier families {unknown}: choose from {CARRIER_FAMILIES}")
    if not targets or max_depth < 0:
        raise ValueError("composed_commands needs at least one target and max_depth >= 0")
    return _composed(tuple(targets), tuple(arguments), tuple(families), max_depth, tuple(allowed))
