r"""Shell commands built from bash's grammar (PERM-16, PERM-17).

:func:`shell_attempts` draws a command line that starts from a command an allow rule covers (the
*prefix*, e.g. ``npm test``) and hides a *payload* program (``rm``) in it the way bash would still
run it, or the way a careless lexer would think it runs: every kind of blank (bash separates
words only at space, tab and newline), quoting, escapes, comments, redirections (``>&word``,
escaped ``\>``), here-documents (their delimiters in any quoting, lines in the body that only
look like the end) and here-strings, command and process substitutions, subshells
and groups, ``${...}`` with nested quotes, ANSI-C quoting, ``$IFS``, globbed and path-qualified
names, wrappers with options (``sudo -u x``, ``env -u X``, ``timeout -s KILL 5``, ``nice -5``,
``xargs -n1``, ...), ``bash -c`` and ``eval``. Some draws do not run the payload at all (it sits
in a comment or a quoted word): the oracle of what they run is
:mod:`pytest_toolharness._strategies.bash_oracle`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

__all__ = [
    "EvaluatedAttempt",
    "ShellAttempt",
    "command_name_spellings",
    "evaluated_code_attempts",
    "shell_attempts",
    "shell_blanks",
    "variable_name_contexts",
    "wrapped_commands",
]

DEFAULT_PREFIXES = ("npm test", "git status", "ls -la", "make lint", "cat README.md")
DEFAULT_PAYLOADS = ("rm", "curl", "chmod")

_BLANKS = (" ", "\t", "  ", " \t ")
_NOT_BLANKS = ("\v", "\f", "\r", "\xa0", "\u2003", "\u3000")


# The strategy functions are cached and the draws below use module-level strategies: a strategy
# built inside a draw is built and validated again for every example, most of the drawing time.
@functools.cache
def shell_blanks(*, odd: bool = True) -> st.SearchStrategy[str]:
    r"""What separates two words: real blanks (space, tab, runs of them).

    With ``odd``, also characters bash does *not* treat as blanks (``\v``, ``\f``, ``\r``, NBSP,
    Unicode spaces), on which a lexer that uses ``str.split()`` disagrees with bash.
    """
    real = st.sampled_from(_BLANKS)
    return st.one_of(real, real, st.sampled_from(_NOT_BLANKS)) if odd else real


@functools.cache
def command_name_spellings(name: str) -> st.SearchStrategy[str]:
    r"""Ways to write the command name ``name`` that bash runs as ``name`` (or, for globs, may).

    Quoted (``'rm'``, ``"rm"``), escaped (``\rm``), split by empty quotes (``r''m``), ANSI-C
    (``$'rm'``, ``$'\x72m'``), path-qualified (``/bin/rm``, ``/usr/bin/rm``), globbed
    (``/usr/bin/r?``), brace-expanded, joined by a line continuation.
    """
    head, tail = name[0], name[1:]
    hexed = "".join(f"\\x{ord(c):02x}" for c in name)
    octal = "".join(f"\\{ord(c):03o}" for c in name)
    return st.sampled_from(
        [
            name,
            f"'{name}'",
            f'"{name}"',
            f"\\{name}",
            f"{head}''{tail}",
            f'{head}""{tail}',
            f"{head}\\{tail}" if tail else name,
            f"$'{name}'",
            f"$'{hexed}'",
            f"$'{octal}'",
            f"/bin/{name}",
            f"/usr/bin/{name}",
            f"/usr/bin/{head}?{tail[1:]}" if len(name) > 1 else name,
            f"/usr/bin/[{head}]{tail}",
            f"{head}\\\n{tail}" if tail else name,
            f"{{{name},}}",
        ]
    )


_WRAPPERS = (
    "",
    "time ",
    "time -p ",
    "nice ",
    "nice -5 ",
    "nice -n 10 ",
    "timeout 5 ",
    "timeout -s KILL 5 ",
    "timeout --kill-after=1 5s ",
    "nohup ",
    "stdbuf -o0 ",
    "stdbuf -oL -e0 ",
    "env ",
    "env -i ",
    "env -u HOME ",
    "env FOO=1 ",
    "/usr/bin/env ",
    "sudo ",
    "sudo -u nobody ",
    "sudo -E -- ",
    "xargs ",
    "xargs -n1 ",
    "xargs -I{} ",
    "exec ",
    "command ",
    "builtin command ",
    "FOO=1 ",
    "NODE_ENV=test ",
    "A=1 B=2 ",
    # Programs that run their arguments as a command (not harmless: they need a rule of their own).
    "flock /tmp/l ",
    "flock -n /tmp/l ",
    "taskset 1 ",
    "taskset -c 0 ",
    "chrt 1 ",
    "setsid ",
    "ionice -c 3 ",
    "chroot / ",
    "unshare -r ",
    "strace -f -o /dev/null ",
    "pkexec ",
    "busybox ",
    "runuser -u nobody -- ",
    "systemd-run --user ",
)


_WRAPPER = st.sampled_from(_WRAPPERS)
_WRAPPER_PAIRS = st.tuples(_WRAPPER, _WRAPPER)
_MAYBE_WRAPPED = st.one_of(st.none(), _WRAPPER_PAIRS)


def wrapped_commands(command: str) -> st.SearchStrategy[str]:
    """``command`` behind zero, one or two wrappers, each with or without options."""
    return _WRAPPER_PAIRS.map(lambda pair: f"{pair[0]}{pair[1]}{command}")


@dataclass(frozen=True)
class ShellAttempt:
    """One drawn command line: the allowed ``prefix``, the ``payload`` program and the ``command``."""

    prefix: str
    payload: str
    command: str


_JOINERS = ("; ", ";", " && ", "&&", " || ", " | ", "|", " |& ", " & ", "&", "\n", "\n\n", " ;\n")
_JOINER = st.sampled_from(_JOINERS)
# A payload's arguments; ``{blank}`` is a drawn blank.
_PAYLOAD_ARGS = st.sampled_from(("", "{blank}-rf{blank}x", "{blank}x", "${IFS}x", "{blank}'a b'"))


# Plain functions of the caller's draw, not composite strategies: one of those built per example is
# validated again each time.
def _payload_command(draw: st.DrawFn, payload: str) -> str:
    name = draw(command_name_spellings(payload))
    blank = draw(shell_blanks())
    core = name + draw(_PAYLOAD_ARGS).replace("{blank}", blank)
    wrappers = draw(_MAYBE_WRAPPED)
    return core if wrappers is None else f"{wrappers[0]}{wrappers[1]}{core}"


_EMBED_BLANK = st.one_of(shell_blanks(), st.sampled_from(_NOT_BLANKS))
# The productions where lexers and bash disagree most (comments, quotes, escapes, odd blanks, where a
# here-document ends) are drawn as often as the plain joints.
_EMBED_KIND = st.one_of(
    st.integers(min_value=0, max_value=52), st.integers(min_value=16, max_value=25), st.sampled_from((28, 52))
)


_TERMINATOR_TAIL = st.sampled_from(("{blank}x", "{joiner}{hidden}", "{blank}{hidden}", "{joiner}x"))
# A here-document's delimiter in bash's quotings (each is ``EOF`` after quote removal), and lines of
# its body that look like the delimiter but do not end it for bash: a grammar that ends the body on
# one, or not on the real end, misplaces the commands after it.
_HEREDOC_DELIMITER = st.one_of(
    st.sampled_from(("EOF", "'EOF'", '"EOF"', "\\EOF", "E\\OF")),
    st.sampled_from(("E''OF", 'E""OF', "$'EOF'", "'E'OF")),  # quoted in pieces: where grammars misread most
)
_HEREDOC_DECOYS = st.lists(
    st.sampled_from(("E''OF", "'EOF'", "E$x", " EOF", "EOF ", "\\EOF", "$'EOF'", "EOFX", "\tEOF")), max_size=2
)
_HEREDOC_DASH = st.booleans()


def _embed(draw: st.DrawFn, allowed: str, hidden: str) -> str:
    """``allowed`` and ``hidden`` combined by one production of bash's grammar."""
    blank = draw(_EMBED_BLANK)
    kind = draw(_EMBED_KIND)
    program, _, arguments = hidden.partition(" ")
    joiner = draw(_JOINER)
    if kind <= 5:
        left, right = (hidden, allowed) if draw(st.booleans()) else (allowed, hidden)
        return f"{left}{joiner}{right}"
    if kind == 52:
        # The payload runs after the here-document's real end, past lines that only look like it.
        dash = draw(_HEREDOC_DASH)
        body = "".join(f"{line}\n" for line in ("body", *draw(_HEREDOC_DECOYS)))
        end = "\tEOF" if dash else "EOF"
        return f"{allowed}{blank}<<{'-' if dash else ''}{draw(_HEREDOC_DELIMITER)}\n{body}{end}\n{hidden}"
    if kind == 28:
        # The terminator line carries more words (bash reads the here-document to the end, while
        # a grammar may end it there, or take ``EOF;cmd`` on the first line as the delimiter).
        tail = draw(_TERMINATOR_TAIL).format(blank=blank, joiner=joiner, hidden=hidden)
        return f"{allowed}{blank}<<EOF{joiner}{hidden}\nbody\nEOF{tail}"
    forms = {
        6: f"{allowed}{blank}$({hidden})",
        7: f"{allowed}{blank}`{hidden}`",
        8: f'{allowed}{blank}"$({hidden})"',
        9: f"{allowed}{blank}<({hidden})",
        10: f"{allowed}{blank}>({hidden})",
        11: f"({hidden}){joiner}{allowed}",
        12: f"{{ {hidden}; }}{joiner}{allowed}",
        13: f"{allowed}{blank}${{x:-$({hidden})}}",
        14: f'{allowed}{blank}${{x:-"$({hidden})"}}',
        15: f"{allowed}{blank}<<EOF\n$({hidden})\nEOF",
        16: f"{allowed}{blank}<<EOF{joiner}{hidden}\nbody\nEOF",
        17: f"{allowed}{blank}<<'EOF'\n{hidden}\nEOF",  # data, not run
        18: f"{allowed}{blank}# ; {hidden}",  # a comment, not run
        19: f"{allowed}{blank}a#;{hidden}",  # '#' inside a word is no comment
        20: f"{allowed}{blank}\\;{hidden}",  # an escaped ';' is a word
        21: f"{allowed}{blank}>$({hidden})",
        22: f"{allowed}{blank}>&$({hidden})",
        23: f"{allowed}{blank}<<<$({hidden})",
        24: f"{allowed}{blank}'$({hidden})'",  # quoted: not run
        25: f"{allowed}{blank}\\\n;{hidden}",
        26: f"{allowed}{joiner}bash -c '{hidden}'",
        27: f"{allowed}{joiner}eval '{hidden}'",
        # Programs that run a script given as an option, or their words joined.
        29: f"{allowed}{joiner}su -c '{hidden}' root",
        30: f"{allowed}{joiner}flock /tmp/l -c '{hidden}'",
        31: f"{allowed}{joiner}watch -n 1 {hidden}",
        32: f"{allowed}{joiner}ssh host '{hidden}'",
        33: f"{allowed}{joiner}script -qc '{hidden}' /dev/null",
        # Programs that run a command given in an option or in code of their own language.
        34: f"{allowed}{joiner}tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='{hidden}' /etc/hostname",
        35: f"{allowed}{joiner}git -c alias.z='!{hidden}' z",
        36: f"{allowed}{joiner}split --filter='{hidden}' /etc/hostname",
        37: f"{allowed}{joiner}awk 'BEGIN {{ system(\"{hidden}\") }}'",
        38: f"{allowed}{joiner}sed -n '1e {hidden}' /etc/hostname",
        39: f"{allowed}{joiner}perl -e 'system(q({hidden}))'",
        40: f"{allowed}{joiner}python3 -c 'import os; os.system(\"{hidden}\")'",
        41: f"{allowed}{joiner}make -f /dev/null --eval='all:; {hidden}'",
        45: f"{allowed}{joiner}python3 - <<< 'import os; os.system(\"{hidden}\")'",
        # A command other programs take from their environment.
        42: f"{allowed}{joiner}TAR_OPTIONS=\"--checkpoint=1 --checkpoint-action='exec={hidden}'\" tar -cf /dev/null /etc/hostname",
        43: f"{allowed}{joiner}GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.z GIT_CONFIG_VALUE_0='!{hidden}' git z",
        44: f"{allowed}{joiner}export GIT_CONFIG_PARAMETERS=\"'alias.z=!{hidden}'\"; git z",
        # env splits a string into a command, its own way, however the option is spelled.
        46: f"{allowed}{joiner}env --split-string='{hidden}'",
        47: f"{allowed}{joiner}env -vS'{hidden}'",
        48: f"{allowed}{joiner}env -S '-i {hidden}'",
        49: f'{allowed}{joiner}env --s="{hidden.replace(" ", chr(92) + "_")}"',
        # A program the line makes under another name, then runs by its path.
        50: f"{allowed}{joiner}cp /usr/bin/{program} ./t; ./t {arguments}",
        51: f"{allowed}{joiner}ln -s /usr/bin/{program} t && ./t {arguments}",
    }
    return forms[kind]


_PREFIX_ARGS = st.sampled_from(("", " -q", " src/", " 2>&1", " >/dev/null", " --all -n 10"))


@st.composite
def _attempt(
    draw: st.DrawFn, prefixes: st.SearchStrategy[str], payloads: st.SearchStrategy[str]
) -> ShellAttempt:
    prefix = draw(prefixes)
    payload = draw(payloads)
    allowed = prefix + draw(_PREFIX_ARGS)
    if draw(st.integers(min_value=0, max_value=4)) == 0:
        first, second = draw(_WRAPPER_PAIRS)
        allowed = f"{first}{second}{allowed}"
    hidden = _payload_command(draw, payload)
    command = _embed(draw, allowed, hidden)
    if draw(st.integers(min_value=0, max_value=5)) == 0:
        command = _embed(draw, command, _payload_command(draw, payload))
    return ShellAttempt(prefix=prefix, payload=payload, command=command)


def shell_attempts(
    prefixes: Sequence[str] = DEFAULT_PREFIXES, payloads: Sequence[str] = DEFAULT_PAYLOADS
) -> st.SearchStrategy[ShellAttempt]:
    """Command lines that start from an allowed ``prefix`` and hide a ``payload`` program.

    Built from bash's grammar (lists, pipelines, substitutions, subshells, groups, here-documents,
    redirections, comments, quoting, escapes, blanks of every kind, wrappers with options, nested
    shells, programs that run a command given in an option or in their own code: ``tar``, ``git``,
    ``split``, ``awk``, ``sed``, ``perl``, ``python3``, ``make``, ``env -S`` in its spellings, or from
    their environment: ``TAR_OPTIONS``, ``GIT_CONFIG_*``); some hide the payload where bash
    does not run it. Shrinks toward ``prefix; payload``.
    """
    return _attempt(st.sampled_from(tuple(prefixes)), st.sampled_from(tuple(payloads)))


# Code that bash evaluates although the command line shows no command: an array subscript in a
# name a builtin takes, arithmetic on a variable holding one, indirect and prompt expansions, and
# variables whose value bash runs. ``{cmd}`` is the hidden command (no quote characters in it).
_EVALUATED: tuple[tuple[str, str], ...] = (
    ("printf", "printf -v 'a[$({cmd})]' y"),
    ("read", "read 'a[$({cmd})]' <<< y"),
    ("test", "test -v 'a[$({cmd})]'"),
    ("[", "[ -v 'a[$({cmd})]' ]"),
    ("let", "let 'a[$({cmd})]=1'"),
    ("echo", "x='a[$({cmd})]'; echo $(( x ))"),
    ("echo", "x='a[$({cmd})]'; echo ${{!x}}"),
    ("echo", "x='$({cmd})'; echo \"${{x@P}}\""),
    ("echo", "x='a[$({cmd})]'; echo ${{b[x]}}"),
    ("echo", "x='a[$({cmd})]'; echo ${{y:x}}"),
    ("true", "x='a[$({cmd})]'; (( x )); true"),
    ("true", "x='a[$({cmd})]'; [[ x -eq 0 ]]; true"),
    ("true", "x='a[$({cmd})]'; for (( i = x; 0; )); do :; done; true"),
    ("echo", "declare -n r='a[$({cmd})]'; echo $r"),
    ("echo", "x='a[$({cmd})]'; declare -i n=$x; echo"),
    ("bash", "BASH_ENV=<(echo '{cmd}') bash -c true"),
    ("bash", "PS4='$({cmd})' bash -xc true"),
    # History expansion (composed below): ``!!`` brings back the earlier line's text unquoted.
    ("env", "env 'BASH_FUNC_ls%%=() {{ {cmd}; }}' bash -c ls"),
    # Data the line holds, run as a script: sourced input, callbacks, a file it writes and runs.
    ("source", "source <(echo '{cmd}')"),
    (".", ". /dev/stdin <<< '{cmd}'"),
    ("source", "source /dev/stdin <<EOF\n{cmd}\nEOF"),
    ("mapfile", "mapfile -C '{cmd}' -c 1 <<< y"),
    ("readarray", "readarray -C '{cmd}' -c 1 <<< y"),
    ("bash", "bash /dev/stdin <<< '{cmd}'"),
    ("bash", "bash -s -- a <<EOF\n{cmd}\nEOF"),
    ("bash", "echo '{cmd}' > s.sh; bash s.sh"),
    ("bash", "echo '{cmd}' | tee s.sh >/dev/null; bash ./s.sh"),
    ("chmod", "printf '%s\\n' '{cmd}' > s; chmod +x s; ./s"),
    # Bash's own integer variables evaluate whatever is written to them as arithmetic, however written.
    ("echo", "for OPTIND in 'a[$({cmd})]'; do :; done; echo"),
    ("echo", "read SRANDOM <<< 'a[$({cmd})]'; echo"),
    ("echo", "printf -v RANDOM %s 'a[$({cmd})]'; echo"),
    ("echo", "x='a[$({cmd})]'; OPTIND=$x; echo"),
    # Positional parameters (and $0) the line sets are values arithmetic evaluates in turn.
    ("echo", "set -- 'a[$({cmd})]'; echo $(( $1 ))"),
    ("true", "set -- x 'a[$({cmd})]'; shift; (( $1 )); true"),
    ("echo", "set -- 'a[$({cmd})]'; echo ${{b[$1]}}"),
    ("echo", "BASH_ARGV0='a[$({cmd})]'; echo $(( $0 ))"),
    # An expansion that assigns (exported under ``set -a``) as ``TAR_OPTIONS=...`` does: tar runs it.
    (
        "tar",
        "set -a; : \"${{TAR_OPTIONS:=--checkpoint=1 --checkpoint-action='exec={cmd}'}}\"; "
        "tar -cf /dev/null /etc/hostname",
    ),
    (
        "tar",
        "set -a; echo \"${{TAR_OPTIONS=--checkpoint=1 --checkpoint-action='exec={cmd}'}}\" >/dev/null; "
        "tar -cf /dev/null /etc/hostname",
    ),
)
# History expansion, once the line turns it on (each spelling of set's and shopt's options, which
# a mutant of shopt -o's reading showed the list lacked), recalled by any event designator.
_HISTORY_ON = (
    "set -o history -H",
    "set -H; set -o history",
    "set -o history; set -o histexpand",
    "shopt -o -s history histexpand",
    "shopt -s -o histexpand history",
    "set -Ho history",
)
_HISTORY_RECALLS = ('"!!"', '"!-1"', '"!echo"', '"!?$(?"', '"!$"')
_EVALUATED += tuple(
    ("echo", f"{on}\necho '{substitution}'\necho {recall}")
    for on in _HISTORY_ON
    for substitution, recall in zip(
        ("$({cmd})", "`{cmd}`", "$({cmd})", "$({cmd})", "$({cmd})"), _HISTORY_RECALLS, strict=True
    )
)
# A variable with the integer attribute evaluates every value written to it as arithmetic, whoever
# writes it: each declaring builtin and attribute bundle, with each way of writing a variable.
_INTEGER_DECLARATIONS = ("declare -i", "typeset -i", "declare -xi", "declare -il", "declare -ri")
_INTEGER_WRITES = (
    "n='a[$({cmd})]'",
    "n+='a[$({cmd})]'",
    "read n <<< 'a[$({cmd})]'",
    "printf -v n %s 'a[$({cmd})]'",
    "for n in 'a[$({cmd})]'; do :; done",
)
_EVALUATED += tuple(
    dict.fromkeys(
        (
            "echo",
            f"{declare} n='a[$({{cmd}})]'; echo"
            if "r" in declare.split()[1]
            else f"{declare} n; {write}; echo",
        )
        for declare in _INTEGER_DECLARATIONS
        for write in _INTEGER_WRITES
    )
)


@dataclass(frozen=True)
class EvaluatedAttempt:
    """A command line hiding ``payload`` where bash evaluates text as code.

    ``visible`` is the program the line shows, ``prefix`` the allowed command put before it (if any).
    """

    visible: str
    payload: str
    command: str
    prefix: str | None = None


_EVALUATED_ARGS = st.sampled_from(("", " -rf x", " x"))
_EVALUATED_FORMS = st.sampled_from(_EVALUATED)
_EVALUATED_PREFIX = st.none() | st.sampled_from(DEFAULT_PREFIXES)
_EVALUATED_JOINER = st.sampled_from(("; ", " && ", "\n"))


@functools.cache
def _quote_free_spellings(name: str) -> st.SearchStrategy[str]:
    return command_name_spellings(name).filter(lambda n: "'" not in n and "\n" not in n)


# Composed: where bash evaluates a value as arithmetic (``@V@``: a name or parameter holding
# ``a[$(cmd)]``), or takes a variable name (``@N@``: a subscripted name), x how the value got there,
# x a wrapper before a builtin. ``@CMD@`` is the hidden command.
_ARITHMETIC_CONTEXTS = (
    ("echo", "echo $(( @V@ ))"),
    ("echo", "echo $[@V@]"),
    ("true", "(( @V@ )); true"),
    ("echo", "echo ${b[@V@]}"),
    ("echo", "echo ${#b[@V@]}"),
    ("true", "[[ @V@ -@OP@ 0 ]]; true"),
    ("true", "for (( i = @V@; 0; )); do :; done; true"),
    ("let", "@W@let n=@V@"),
    ("true", "b[@V@]=1; true"),
    ("echo", "case 1 in $(( @V@ ))) ;; esac; echo"),
    ("echo", "echo ${@P@:@V@}"),
    ("echo", 'echo "${@P@:0:@V@}"'),
)
# Every kind of parameter a substring expansion takes: a variable, an element, positional, special.
_SUBSTRING_PARAMETERS = ("y", "b[0]", "b[@]", "0", "1", "10", "@", "*", "$", "?", "-", "_")
# Every builtin that takes a variable name, as it takes it: where one assigns, it gives the name
# the value ``y`` (``declare``, ``typeset``: ``1``; ``wait -p``: a process id).
_NAME_CONTEXTS = (
    ("printf", "@W@printf -v @N@ y"),
    ("read", "@W@read @N@ <<< y"),
    ("read", "@W@read -ra @N@ <<< y"),
    ("printf", "@W@printf -v@N@ y"),
    ("wait", "sleep 0 & @W@wait -np @N@"),
    ("test", "@W@test -v @N@"),
    ("[", "@W@[ -v @N@ ]"),
    ("true", "[[ -v @N@ ]]; true"),
    ("declare", "@W@declare @N@=1"),
    ("typeset", "@W@typeset @N@=1"),
    ("echo", "@W@declare -n r=@N@; echo $r"),
    ("getopts", "@W@getopts y: @N@ -y z"),  # the option letter found: ``y``
    ("mapfile", "@W@mapfile -t @N@ <<< y"),
    ("readarray", "@W@readarray -t @N@ <<< y"),
    ("export", "@W@export @N@=y"),
    ("readonly", "@W@readonly @N@=y"),
)
_BUILTIN_WRAPPERS = ("", "builtin ", "command ", "command -p ", "command -- ")
# Where an ``echo`` context's expansion stands (``@X@``): itself, or the word of another parameter
# expansion, quoted or not, nested: tree-sitter-bash shows ``$[x]`` there as text and ``$((x))`` as
# a subshell running ``x``, while bash evaluates them as it does on their own (session 32).
_EMBEDDINGS = ("@X@", "${z:-@X@}", '"${z:-@X@}"', "${z-@X@}", "${z:=@X@}", "${z:-${w:-@X@}}", '"${z:-"@X@"}"')
# How a value reaches the name: (template with @BODY@, the name or parameter that holds it).
_VALUE_SETTERS = (
    ("x='a[$(@CMD@)]'; @BODY@", "x"),
    ("for x in 'a[$(@CMD@)]'; do @BODY@; done", "x"),
    ("read -r x <<< 'a[$(@CMD@)]'; @BODY@", "x"),
    ("printf -v x %s 'a[$(@CMD@)]'; @BODY@", "x"),
    ("set -- 'a[$(@CMD@)]'; @BODY@", "1"),
)


# A declaration bash reads a value of again as an array's ``(...)``, expanding what it holds
# (session 37's red team): an array made by its options (``-a``, ``-A``, with others beside them), or
# one already made, for ``declare``/``typeset``/``local``. ``@V@`` is the value, ``@O@`` ``=`` or ``+=``.
_COMPOUND_DECLARATIONS = (
    ("declare", "declare -a x@O@@V@"),
    ("declare", "declare -ag x@O@@V@"),
    ("declare", "declare -a -- x@O@@V@"),
    ("typeset", "typeset -a x@O@@V@"),
    ("export", "export -a x@O@@V@"),
    ("readonly", "readonly -a x@O@@V@"),
    ("declare", "x=(); declare x@O@@V@"),
    ("typeset", "x=(); typeset x@O@@V@"),
    ("declare", "declare -a y=(1) x@O@@V@"),
)
# The value, once quote removal is done: ``(...)`` holding the command, spelled three ways, or a
# variable's value only known when it runs.
_COMPOUND_VALUES = (
    "'($(@CMD@))'",
    "'(`@CMD@`)'",
    '"(\\$(@CMD@))"',
    "'(a $(@CMD@))'",
    "'([1]=$(@CMD@))'",
    '"$v"',
    "$v",
)
# Brace expansion comes before every other expansion: a ``$`` the parser keeps literal, ending one
# of its alternatives, stands before what follows the braces (``{$,}{x@P}`` is ``${x@P}``).
_BRACE_DOLLARS = ("{$,}", "{,$}", "{a,$}", "{a$,b}", '{"",$}', "{$,$}", "{{$,},}")
_BRACE_MADE = (
    ("x='$(@CMD@)'", "echo @B@{x@P}"),
    ("x='`@CMD@`'", "echo @B@{x[0]@P}"),
    ("x='a[$(@CMD@)]'", "echo @B@[x]"),
    ("x='a[$(@CMD@)]'; b=(1)", "echo @B@{b[x]}"),
    ("x='a[$(@CMD@)]'; y=yy", "echo @B@{y:x}"),
)


@st.composite
def _compound_declaration(draw: st.DrawFn) -> tuple[str, str]:
    """(the builtin, a line where it reads a value holding ``@CMD@`` again as an array's elements)."""
    visible, body = draw(st.sampled_from(_COMPOUND_DECLARATIONS))
    value = draw(st.sampled_from(_COMPOUND_VALUES))
    line = body.replace("@O@", draw(st.sampled_from(["=", "+="]))).replace("@V@", value)
    return visible, ("v='($(@CMD@))'; " + line) if "$v" in value else line


@st.composite
def _brace_made_expansion(draw: st.DrawFn) -> tuple[str, str]:
    """(``echo``, a line where brace expansion joins a literal ``$`` to text that then runs ``@CMD@``)."""
    setter, body = draw(st.sampled_from(_BRACE_MADE))
    return "echo", f"{setter}; {body.replace('@B@', draw(st.sampled_from(_BRACE_DOLLARS)))}"


@st.composite
def _name_context(draw: st.DrawFn, name: str) -> tuple[str, str]:
    visible, body = draw(st.sampled_from(_NAME_CONTEXTS))
    return visible, body.replace("@N@", name).replace("@W@", draw(st.sampled_from(_BUILTIN_WRAPPERS)))


def variable_name_contexts(name: str) -> st.SearchStrategy[tuple[str, str]]:
    """(the builtin, a line where it takes ``name`` as a variable's name): ``read name <<< y``, ``printf -v``...

    Every builtin that takes a variable name, as the evaluated-code draws use them, behind
    ``builtin``/``command`` or not. Most assign ``name`` the value ``y`` (``declare`` and ``typeset``
    ``1``, ``wait -p`` a process id); ``test -v`` and ``declare -n`` only read it.
    """
    return _name_context(name)


@st.composite
def _composed_evaluation(draw: st.DrawFn) -> tuple[str, str]:
    """(the visible program, a ``str.format`` template with ``{cmd}``) composed from the pieces above."""
    shape = draw(st.sampled_from(["arithmetic", "name", "compound", "braces"]))
    if shape in ("compound", "braces"):
        visible, line = draw(_compound_declaration() if shape == "compound" else _brace_made_expansion())
        return visible, line.replace("{", "{{").replace("}", "}}").replace("@CMD@", "{cmd}")
    setter, holder = draw(st.sampled_from(_VALUE_SETTERS))
    if shape == "arithmetic":
        visible, body = draw(st.sampled_from(_ARITHMETIC_CONTEXTS))
        value = holder if holder != "1" else "$1"
        if holder != "1" and draw(st.booleans()):
            value = draw(st.sampled_from(["$x", "${x}"]))
        body = body.replace("@V@", value)
        body = body.replace("@OP@", draw(st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"])))
        body = body.replace("@P@", draw(st.sampled_from(_SUBSTRING_PARAMETERS)))
        if body.startswith("echo "):
            body = "echo " + draw(st.sampled_from(_EMBEDDINGS)).replace("@X@", body[len("echo ") :])
        line = setter.replace("@BODY@", body)
    else:
        visible, body = draw(st.sampled_from(_NAME_CONTEXTS))
        if draw(st.booleans()):
            line = body.replace("@N@", "'a[$(@CMD@)]'")
        else:
            line = setter.replace("@BODY@", body.replace("@N@", '"$x"' if holder == "x" else '"$1"'))
    line = line.replace("@W@", draw(st.sampled_from(_BUILTIN_WRAPPERS)))
    return visible, line.replace("{", "{{").replace("}", "}}").replace("@CMD@", "{cmd}")


@st.composite
def _evaluated(draw: st.DrawFn, payloads: Sequence[str]) -> EvaluatedAttempt:
    payload = draw(st.sampled_from(payloads))
    name = draw(_quote_free_spellings(payload))
    args = draw(_EVALUATED_ARGS)
    visible, template = draw(st.one_of(_EVALUATED_FORMS, _composed_evaluation()))
    command = template.format(cmd=name + args)
    prefix = draw(_EVALUATED_PREFIX)
    if prefix is not None:
        command = f"{prefix}{draw(_EVALUATED_JOINER)}{command}"
    return EvaluatedAttempt(visible=visible, payload=payload, command=command, prefix=prefix)


def evaluated_code_attempts(
    payloads: Sequence[str] = DEFAULT_PAYLOADS,
) -> st.SearchStrategy[EvaluatedAttempt]:
    r"""Command lines where bash runs a ``payload`` command no parser sees as one.

    Bash evaluates array subscripts wherever it evaluates a variable name or arithmetic
    (``printf -v 'a[$(rm x)]' y``, ``read``, ``test -v``, ``let``, ``declare -n``, ``$((x))``,
    ``${b[x]}``, ``${y:x}``, ``(( ))``, ``[[ x -eq 0 ]]``, C-style ``for``, a value written to an
    integer variable, bash's own ``OPTIND``/``RANDOM``/... included, a positional parameter or ``$0``
    in arithmetic after ``set --``/``shift``/``BASH_ARGV0=``), expands ``${!x}``
    and ``${x@P}`` again (also where brace expansion makes one: ``{$,}{x@P}``), reads a declaration's
    quoted ``(...)`` value again as an array's elements (``declare -a x='($(rm x))'``), and runs the
    values of ``BASH_ENV``, ``PS4`` and exported functions
    (and what a variable set by ``${V:=...}`` under ``set -a`` gives a program: ``TAR_OPTIONS``);
    data the line holds run as a script (``source <(...)``, ``. /dev/stdin <<<``, ``mapfile -C``,
    a file it writes and then runs). ``visible`` is the program the line shows (an allow rule for
    it must not cover the payload).
    """
    return _evaluated(tuple(payloads))
