"""What an interpreter's code runs, evaluates and writes: literal targets, or why one is built (PERM-15, PERM-17).

Reading code for a literal name is not knowing what it runs. Code is read for its targets: every call
of an API that starts a program, evaluates code or writes a file must name its target as a literal
constant the engine reads (``system("make")``, ``open(F, ">", "out.txt")``); a target the code builds
when it runs (concatenation, a variable, ``chr``/``join``/``format``, code read from a file or its input
and evaluated, a name looked up by a string) makes :attr:`CodeTargets.built` say why, and the caller
treats the code as able to run or write anything. Python is read from its syntax tree
(:mod:`~reference_impl.permissions._python_targets`); JavaScript (node), Perl and awk from their tokens,
each API list mined from the language's own documentation (node's module exports, Perl's
``Pod::Functions``, awk's manual). Code of any other language is not read: built.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from reference_impl.permissions._awk_options import awk_program
from reference_impl.permissions._code_modules import (
    js_decoded,
    node_module_unread,
    perl_module_unread,
    perl_module_writes,
)
from reference_impl.permissions._interpreter_options import interpreter_run
from reference_impl.permissions._program_model import INLINE_CODE, unread_program
from reference_impl.permissions._python_targets import python_targets

__all__ = ["CodeTargets", "code_language", "code_targets", "file_language", "line_code"]


@dataclass(frozen=True)
class CodeTargets:
    """The commands code runs and the paths it writes, as literals; ``built``: why some target is not one."""

    runs: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    built: str | None = None
    """Why the code may run a program or evaluate code named only when it runs."""
    writes_built: str | None = None
    """Why the code may write a file named only when it runs."""
    moves: tuple[str | None, ...] = ()
    """The directories the code changes to or starts programs in (None: one only known when it runs):
    its relative writes and the commands it runs may be there."""
    handed: tuple[str, ...] = ()
    """Literal strings given to functions not known to only read: each may name a path written."""


_LANGUAGES = {
    "python": "python",
    "pypy": "python",
    "node": "javascript",
    "nodejs": "javascript",
    "perl": "perl",
    "awk": "awk",
    "gawk": "awk",
    "mawk": "awk",
    "nawk": "awk",
}


def code_language(program: str) -> str | None:
    """The language an interpreter (a basename, ``python3.12``) runs, when the engine reads it."""
    return _LANGUAGES.get(re.sub(r"[0-9.]+$", "", program))


_EXTENSIONS = {".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript"}
_EXTENSIONS |= {".pl": "perl", ".pm": "perl", ".pmc": "perl", ".awk": "awk"}


def file_language(path: str, text: str) -> str | None:
    """The language of a script file, by its extension or its ``#!`` line (None: not one read here)."""
    for extension, language in _EXTENSIONS.items():
        if path.endswith(extension):
            return language
    first = text.partition("\n")[0]
    if first.startswith("#!"):
        words = first[2:].split()
        program = words[1] if words and words[0].endswith("/env") and len(words) > 1 else (words or [""])[0]
        return code_language(program.rsplit("/", 1)[-1])
    return None


def line_code(program: str, args: Sequence[str | None], stdin: str | None = None) -> CodeTargets | None:
    """What the code a command line hands its interpreter runs and writes; None when it hands none.

    Inline code (``python3 -c``, ``perl -e A -e B``, ``node --eval``, an awk program), or the
    here-document an interpreter reads as its program. Code the line does not hold (read from a pipe or
    a file as standard input, an awk ``-f`` file) or of a language not read here is built: unknown.
    A script file or module is the project's (read by the rules where its files are followed).
    """
    language = code_language(program)
    if language == "awk":
        programs = awk_program(args)
        if programs is None:
            why = "awk runs a program read from a file"
            return CodeTargets(built=why, writes_built=why)
        texts = programs
    else:
        run = interpreter_run(program, args)
        if run is None:
            unread = unread_program(program, args, stdin)
            if unread is not None and INLINE_CODE in unread:
                return code_targets(None, "")  # inline code of a language the engine does not read
            return None
        if run.kind == "inline":
            texts = run.code
        elif run.kind == "input":
            texts = (stdin,)
        else:
            return None
    if any(text is None for text in texts):
        why = f"{program} runs code only known when it runs (from its input, or a word bash expands)"
        return CodeTargets(built=why, writes_built=why)
    found = [code_targets(language, str(text)) for text in texts]
    if language == "perl":  # ``-MIPC::Open3``: a module the switches load for the code
        modules = [
            w[2:].lstrip("-").split("=")[0] for w in args if w is not None and w.startswith(("-M", "-m"))
        ]
        found += [CodeTargets(built=w, writes_built=w) for w in map(perl_module_unread, modules) if w]
        found += [CodeTargets(writes_built=w) for w in map(perl_module_writes, modules) if w]
    return CodeTargets(
        tuple(r for f in found for r in f.runs),
        tuple(w for f in found for w in f.writes),
        next((f.built for f in found if f.built), None),
        next((f.writes_built for f in found if f.writes_built), None),
        tuple(m for f in found for m in f.moves),
        tuple(h for f in found for h in f.handed),
    )


# --- tokens ------------------------------------------------------------------------------------

# A token: (kind, text). Kinds: "str" (a literal string, its value), "built" (a string with
# interpolation, or another form whose value is made when it runs), "run" (a command-running literal
# such as a backquoted string), "id", "num", "op" (punctuation).
Token = tuple[str, str]

# An identifier as ECMAScript's IdentifierName: letters (any script's), ``$``, ``_``, and ``\uXXXX`` or
# ``\u{X...}`` escapes of them, which name the same binding (``exe\u0063Sync`` is ``execSync``).
_JS_ESCAPE = r"\\u(?:[0-9A-Fa-f]{4}|\{[0-9A-Fa-f]+\})"
_JS_TOKEN = re.compile(
    r"""(?P<space>\s+)|(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
    rf"""|(?P<tmpl>`(?:[^`\\]|\\.)*`)|(?P<id>(?:[^\W\d]|\$|{_JS_ESCAPE})(?:[\w$]|{_JS_ESCAPE})*)"""
    r"""|(?P<num>\d[\w.]*)|(?P<op>\?\.|=>|[^\s\w])""",
    re.DOTALL,
)
_PERL_QUOTE = re.compile(r"(q|qq|qw|qx|m|qr|s|tr|y)(?=\s*[^\w\s,;=)}])")
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def _unescape(text: str) -> str | None:
    r"""A quoted literal's value; None when an escape is the language's own to decode (``\\x72``)."""
    body = text[1:-1]
    if "\\" not in body:
        return body
    plain = re.sub(r"\\([\\'\"/ ])", r"\1", body)
    return None if "\\" in plain else plain


def _after_operand(tokens: list[Token]) -> bool:
    """Whether the previous token ends an operand (so ``/`` divides rather than starts a pattern)."""
    if not tokens:
        return False
    kind, text = tokens[-1]
    return kind in ("str", "num", "built") or (kind == "id" and text not in _KEYWORDS) or text in (")", "]")


def _divides(tokens: list[Token]) -> bool:
    """Whether ``/`` divides in JavaScript or Perl: after an operand, or after ``}``.

    A ``}`` may close an object literal or a hash subscript (``{} / 2``, ``$h{a} / 2``: division) or a
    block (a pattern may follow): the reader takes the reading under which it reads the most code.
    """
    return _after_operand(tokens) or (bool(tokens) and tokens[-1][1] == "}")


_KEYWORDS = frozenset({"return", "typeof", "case", "in", "of", "and", "or", "not", "if", "unless", "split"})


def _skip_pattern(code: str, at: int, delimiter: str) -> int:
    """The index just past a pattern or quoted body from ``at`` to its unescaped closing delimiter."""
    closing, depth, i = _PAIRS.get(delimiter, delimiter), 1, at
    while i < len(code):
        c = code[i]
        if c == "\\":
            i += 2
            continue
        if c == "[" and delimiter == "/":
            end = code.find("]", i + 1)
            i = end + 1 if end > 0 else len(code)
            continue
        if c == delimiter and closing != delimiter:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unterminated")


def _js_tokens(code: str) -> list[Token]:
    """JavaScript's tokens, each literal and name as its value (escapes decoded), member access normalised.

    ``a["b"]`` and ``a?.["b"]`` are ``a.b``: a member named by a literal is that member, however spelled.
    """
    tokens: list[Token] = []
    at = 0
    while at < len(code):
        if code[at] == "/" and code[at + 1 : at + 2] not in ("/", "*") and not _divides(tokens):
            end = _skip_pattern(code, at + 1, "/")
            tokens.append(("num", "regex"))  # a regular expression literal: a value, runs nothing
            at = end + len(re.match(r"[a-z]*", code[end:]).group())  # type: ignore[union-attr]
            continue
        match = _JS_TOKEN.match(code, at)
        if match is None:
            raise ValueError(f"unreadable at {at}")
        kind = match.lastgroup or "op"
        text = match.group()
        at = match.end()
        if kind in ("space", "comment"):
            continue
        if kind == "str":
            tokens.append(("str", js_decoded(text[1:-1])))
        elif kind == "tmpl":
            tokens.append(("str", js_decoded(text[1:-1])) if "${" not in text else ("built", text))
        elif kind == "id":
            tokens.append(("id", js_decoded(text)))
        else:
            tokens.append((kind, text))
        _literal_member(tokens)
    return tokens


def _literal_member(tokens: list[Token]) -> None:
    """Rewrite a just-closed ``[ "name" ]`` member access (after an operand or ``?.``) as ``. name``."""
    if len(tokens) < 4 or tokens[-1][1] != "]" or tokens[-2][0] != "str" or tokens[-3][1] != "[":
        return
    before = tokens[:-3]
    if before and before[-1][1] == "?.":
        tokens[-4:] = [("op", "."), ("id", tokens[-2][1])]
    elif _after_operand(before):
        tokens[-3:] = [("op", "."), ("id", tokens[-2][1])]


def _perl_tokens(code: str) -> list[Token]:
    tokens: list[Token] = []
    at = 0
    while at < len(code):
        c = code[at]
        if c.isspace():
            at += 1
            continue
        if c == "#" and (at == 0 or code[at - 1] != "$"):  # a comment, but for ``$#array``'s last index
            end = code.find("\n", at)
            at = len(code) if end < 0 else end
            continue
        if _PERL_END.match(code, at) and (at == 0 or code[at - 1] == "\n"):
            break  # perl compiles no further (SelfLoader's evaluating the rest is a module not modelled)
        if _perl_pod(code, at, tokens):
            cut = re.compile(r"^=cut\b.*$", re.MULTILINE).search(code, at)
            at = len(code) if cut is None else cut.end()  # documentation, up to its ``=cut`` line
            continue
        if code.startswith("<<", at) and re.match(r"<<~?\s*['\"A-Za-z_]", code[at:]):
            raise ValueError("here-document")  # its body is text the tokens do not follow
        quote = _PERL_QUOTE.match(code, at) if not tokens or tokens[-1][1] not in ("->", "{", "$") else None
        if quote is not None and (at == 0 or not (code[at - 1].isalnum() or code[at - 1] in "_$@%&")):
            op = quote.group(1)
            start = quote.end()
            while start < len(code) and code[start].isspace():
                start += 1
                if code[start : start + 1] == "#":  # ``q #...``: a comment; the delimiter follows it
                    start = code.find("\n", start) if "\n" in code[start:] else len(code)
            delimiter = code[start]
            end = _skip_pattern(code, start + 1, delimiter)
            body = code[start + 1 : end - 1]
            if op in ("m", "qr", "s"):
                tokens += _perl_pattern_code(body)
            if op in ("s", "tr", "y"):
                if delimiter in _PAIRS:  # ``s{a}{b}``: a second bracketed part
                    while end < len(code) and code[end].isspace():
                        end += 1
                    end = _skip_pattern(code, end + 1, code[end])
                else:
                    end = _skip_pattern(code, end, delimiter)
                flags = re.match(r"[a-z]*", code[end:]).group()  # type: ignore[union-attr]
                end += len(flags)
                tokens.append(("built", "s///e") if op == "s" and "e" in flags else ("num", "pattern"))
            elif op in ("m", "qr"):
                tokens.append(("num", "pattern"))
            elif op == "qx":
                tokens.append(_perl_string(body, delimiter != "'", "run"))
            else:
                tokens.append(_perl_string(body, op == "qq", "str"))
            at = end
            continue
        if c in "\"'`":
            end = _skip_pattern(code, at + 1, c)
            tokens.append(_perl_string(code[at + 1 : end - 1], c != "'", "run" if c == "`" else "str"))
            at = end
            continue
        if c == "/" and not _divides(tokens):
            end = _skip_pattern(code, at + 1, "/")
            tokens += _perl_pattern_code(code[at + 1 : end - 1])
            at = end + len(re.match(r"[a-z]*", code[end:]).group())  # type: ignore[union-attr]
            tokens.append(("num", "pattern"))
            continue
        match = re.compile(r"[A-Za-z_][\w]*(?:::\w+)*|\d[\w.]*|->|=>|::|[$@%&*]\{|\S").match(code, at)
        assert match is not None
        text = match.group()
        at = match.end()
        kind = "id" if text[0].isalpha() or text[0] == "_" else "num" if text[0].isdigit() else "op"
        tokens.append((kind, text))
    return tokens


_PERL_END = re.compile(r"__(?:END|DATA)__[ \t]*(?:\n|$)")


def _perl_pod(code: str, at: int, tokens: list[Token]) -> bool:
    r"""Whether a POD block starts at ``at``: ``=word`` opening a line where a statement may begin (perlpod).

    Elsewhere (``my $x\n=f();``) a ``=`` opening a line is an assignment: code, read as code.
    """
    return (
        code[at] == "="
        and (at == 0 or code[at - 1] == "\n")
        and code[at + 1 : at + 2].isalpha()
        and (not tokens or tokens[-1][1] in (";", "{", "}"))
    )


# A regular expression's code: ``(?{ code })`` runs it as the pattern matches, ``(??{ code })`` runs it
# and matches its value as a pattern, ``(*{ code })`` (perl 5.37.8) runs it optimistically (perlre).
_PERL_PATTERN_CODE = re.compile(r"\(\?\??\{|\(\*\{")


def _perl_pattern_code(body: str) -> list[Token]:
    """The tokens of the code blocks a pattern holds, each a statement of its own: code, not string data."""
    tokens: list[Token] = []
    for match in _PERL_PATTERN_CODE.finditer(body):
        end = _skip_pattern(body, match.end(), "{")  # the block's braces nest as code's do
        tokens += [("op", ";"), *_perl_tokens(body[match.end() : end - 1]), ("op", ";")]
    return tokens


def _perl_string(body: str, interpolates: bool, kind: str) -> Token:
    if interpolates and re.search(r"(?<!\\)[$@]", body):
        return ("built-run" if kind == "run" else "built", body)
    value = body if not interpolates else _unescape(f'"{body}"')
    if value is None:
        return ("built", body)
    return (kind, value)


_WORD = re.compile(r"[A-Za-z_$][\w$]*")


# --- reading calls -----------------------------------------------------------------------------


def _call_arguments(tokens: list[Token], at: int, parens_optional: bool) -> tuple[list[Token], int] | None:
    """The tokens of the argument list starting at ``at`` (after the function's name), and where it ends.

    ``f(a, b)``; with ``parens_optional`` (Perl) also ``f a, b;`` up to the statement's end.
    None when no argument list follows (the name is referred to, not called).
    """
    if at < len(tokens) and tokens[at][1] == "(":
        depth, i = 0, at
        while i < len(tokens):
            if tokens[i][1] in ("(", "[", "{", "${", "@{", "%{", "&{", "*{"):
                depth += 1
            elif tokens[i][1] in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    return tokens[at + 1 : i], i + 1
            i += 1
        return tokens[at + 1 :], len(tokens)
    if not parens_optional:
        return None
    i = at
    while i < len(tokens) and tokens[i][1] not in (";", "}", "or", "and", "if", "unless", "||", "&&"):
        i += 1
    return tokens[at:i], i


_LITERAL_PUNCTUATION = frozenset({",", "[", "]", "=>", ":", "{", "}", "(", ")"})


def _literal_strings(arguments: list[Token], *, handle_first: bool = False) -> list[str] | None:
    """The strings of an argument list made only of literals (strings, numbers, lists, option maps).

    An identifier is allowed only as an option map's key (``{stdio: "inherit"}``), ``true``/``false``,
    or, with ``handle_first``, as a file handle before the first comma (``open(my $fh, ...)``).
    """
    strings: list[str] = []
    in_handle = handle_first
    for index, (kind, text) in enumerate(arguments):
        if in_handle:
            if text == ",":
                in_handle = False
            elif kind == "built" or text in ("(", "{"):
                return None
            continue
        following = arguments[index + 1][1] if index + 1 < len(arguments) else ""
        if kind == "str":
            strings.append(text)
        elif (
            kind == "num"
            or text in _LITERAL_PUNCTUATION
            or (kind == "id" and (following in (":", "=>") or text in ("true", "false", "null", "undef")))
        ):
            continue
        else:
            return None
    return strings


@dataclass(frozen=True)
class _Language:
    runs: frozenset[str]
    evaluates: frozenset[str]
    writes: frozenset[str]
    reflects: frozenset[str]  # names through which a built name reaches any function
    parens_optional: bool = False


# node: the exports of child_process, vm, fs (and fs/promises), worker_threads that run a program,
# evaluate code or write a file, as ``node -e 'Object.keys(require("fs"))'`` lists them.
_NODE = _Language(
    runs=frozenset(
        [
            "exec",
            "execSync",
            "execFile",
            "execFileSync",
            "spawn",
            "spawnSync",
            "fork",
            "_forkChild",
            "ChildProcess",
        ]
    ),
    evaluates=frozenset(
        [
            "eval",
            "Function",
            "require",
            "import",
            "runInContext",
            "runInNewContext",
            "runInThisContext",
            "Script",
            "compileFunction",
            "SourceTextModule",
            "SyntheticModule",
            "Worker",
            "getBuiltinModule",
            "setTimeout",
            "setInterval",
            "setImmediate",
            "execArgv",
        ]
    ),
    writes=frozenset(
        [
            "writeFile",
            "writeFileSync",
            "appendFile",
            "appendFileSync",
            "createWriteStream",
            "copyFile",
            "copyFileSync",
            "cp",
            "cpSync",
            "rename",
            "renameSync",
            "symlink",
            "symlinkSync",
            "link",
            "linkSync",
            "mkdir",
            "mkdirSync",
            "mkdtemp",
            "mkdtempSync",
            "truncate",
            "truncateSync",
            "open",
            "openSync",
            "rm",
            "rmSync",
            "unlink",
            "unlinkSync",
            "rmdir",
            "rmdirSync",
            "chmod",
            "chmodSync",
            "chown",
            "chownSync",
            "utimes",
            "utimesSync",
            "lchmod",
            "lchown",
            "lutimes",
            "outputFile",
        ]
    ),
    reflects=frozenset(
        [
            "constructor",
            "__proto__",
            "_compile",
            "_load",
            "binding",
            "_linkedBinding",
            "dlopen",
            "Reflect",
            "getOwnPropertyNames",
            "getOwnPropertyDescriptor",
            "getOwnPropertyDescriptors",
            "globalThis",
            "global",
            "with",
            "mainModule",
            "entries",
            "values",
            "__defineGetter__",
            "__lookupGetter__",
            "apply",
            "bind",
            "call",
            "prototype",
        ]
    ),
)

# Perl: Pod::Functions' "Process" functions that start a program, "Flow"/"Modules" keywords that
# evaluate code, "File" and "I/O" functions that create or change a file.
_PERL = _Language(
    runs=frozenset(["system", "exec", "readpipe", "syscall"]),
    evaluates=frozenset(["eval", "evalbytes", "do", "require"]),
    writes=frozenset(
        [
            "open",
            "sysopen",
            "rename",
            "link",
            "symlink",
            "mkdir",
            "rmdir",
            "unlink",
            "truncate",
            "chmod",
            "chown",
            "utime",
            "dbmopen",
            "copy",
            "move",
            "cp",
            "mv",
            "tie",
        ]
    ),
    reflects=frozenset(
        ["can", "AUTOLOAD", "goto", "UNIVERSAL::can", "CORE::GLOBAL", "main::", "__PACKAGE__"]
    ),
    parens_optional=True,
)


def _read_tokens(tokens: list[Token], language: _Language, perl: bool, loads_followed: bool) -> CodeTargets:
    runs: list[str] = []
    writes: list[str] = []
    nested_moves: list[str | None] = []
    handed: list[str] = []
    built: dict[bool, str] = {}  # why a target is built, for runs (False) and writes (True)

    def note(why: str, write: bool = False) -> None:
        """A built run (or code) may also write anything; a built write runs nothing."""
        built.setdefault(True, why)
        if not write:
            built.setdefault(False, why)

    for index, (kind, text) in enumerate(tokens):
        previous = tokens[index - 1][1] if index else ""
        following = tokens[index + 1][1] if index + 1 < len(tokens) else ""
        if kind == "built" and text == "s///e":
            note("s///e evaluates the replacement as code")
            continue
        if kind == "run":
            runs.append(text)
            continue
        if kind == "built-run":
            note("backquotes run a command built when the code runs")
            continue
        if (
            kind == "built"
            and not perl
            and "${" in text
            and _WORD.findall(text)
            and (
                set(_WORD.findall(text))
                & (language.runs | language.evaluates | language.writes | language.reflects)
            )
        ):
            note("a template's ${...} reaches an API the engine reads only as a call")
            continue
        if (perl and text in ("&{", "*{", "${", "@{", "%{")) or (perl and text == "&" and following == "$"):
            note(f"{text} reaches a name only known when the code runs")
            continue
        if not perl and text == "createRequire":
            # A require function of its own (``const r = createRequire(...); r("m")``): its loads go unseen.
            note(
                "createRequire makes a require whose modules are loaded by a name the reader does not follow"
            )
            continue
        if perl and text == "->" and following == "$":
            note("a method called by a name only known when the code runs")
            continue
        if not perl and text == "[" and tokens[index - 1 : index] and _after_operand(tokens[:index]):
            key = tokens[index + 1 : index + 3]
            if not (len(key) == 2 and key[0][0] in ("str", "num") and key[1][1] == "]"):
                note("a member looked up by a name only known when the code runs")
                continue
        named = (kind == "id" and previous not in ("->", "$", "@", "%")) or (kind == "str" and "::" in text)
        if perl and (named or text.endswith(".pm")) and (unread := perl_module_unread(text)) is not None:
            note(unread)
            continue
        if perl and (named or text.endswith(".pm")) and (writer := perl_module_writes(text)) is not None:
            note(writer, write=True)  # it writes; it runs nothing the reader does not see
            continue
        if perl and text == "re" and previous in ("use", "no"):
            # ``use re "eval"``: a pattern built when the code runs may hold code blocks that run.
            pragma = _call_arguments(tokens, index + 1, True)
            if previous == "use" and pragma and any("eval" in t for _, t in pragma[0]):
                note("use re 'eval' runs code in patterns built when the code runs")
            continue
        if kind != "id":
            continue
        if not perl and text in ("import", "from") and previous != "." and tokens[index + 1 : index + 2]:
            # ``import "m"``, ``import x from "m"``, ``export * from "m"``: the module a static import loads.
            unread = node_module_unread(tokens[index + 1][1]) if tokens[index + 1][0] == "str" else None
            if unread is not None:
                note(unread)
                continue
        if perl and text.startswith("CORE::"):
            text = text.removeprefix("CORE::")  # the builtin itself, by its full name
        if perl and "::" in text and previous not in ("use", "no", "require"):
            # ``POSIX::system``, ``File::Copy::copy``: a module's function of a builtin's name is read as it.
            text = text.rsplit("::", 1)[-1] or text
        if text in language.reflects or text.rsplit("::", 1)[-1] in language.reflects:
            note(f"{text} reaches any function by a name made when the code runs")
            continue
        if previous in ("sub", "function", "package", "use", "no") or (perl and previous in ("$", "@", "%")):
            continue  # a name being declared, a module used at compile time, a variable
        if perl and previous == "->" and text not in language.writes:
            continue  # a method of an object: not a builtin
        known = text in language.runs or text in language.evaluates or text in language.writes
        if not known:
            if not perl and following == "(" and text not in _JS_READS_ONLY:
                # A function node's lists do not hold (``process.report.writeReport(".git/config")``):
                # a literal it is given may be a path it writes.
                called = _call_arguments(tokens, index + 1, False)
                handed.extend(t for k, t in (called[0] if called else []) if k == "str")
            continue
        if perl and previous in ("&", "\\"):
            note(f"{text} is referred to as a function, not called on literals")
            continue
        if perl and text in ("eval", "do") and following == "{":
            continue  # a block, not a string of code
        if perl and text == "require" and index + 1 < len(tokens) and tokens[index + 1][0] == "id":
            continue  # ``require Module``: a module of the installation, not a name built
        if perl and text in ("eval", "do", "require") and following in (";", "}", ""):
            note(f"{text} evaluates $_, code only known when it runs")
            continue
        if loads_followed and not perl and text == "import" and following != "(":
            continue  # ``import x from "m"``, ``import.meta``: the modules it loads are followed (_module_search)
        found = _call_arguments(tokens, index + 1, language.parens_optional)
        if found is None:
            note(f"{text} is referred to without being called on literals", text in language.writes)
            continue
        arguments, _ = found
        timer = not perl and text in ("setTimeout", "setInterval", "setImmediate")
        if timer and arguments and arguments[0][0] != "str":
            continue  # a function to call later, not code as a string
        if text in ("require", "import", "do", "getBuiltinModule"):
            names = _literal_strings(arguments)
            if names is None:
                note(f"{text} loads a module named when the code runs")
                continue
            unread = next((w for w in map(node_module_unread, names) if w), None) if not perl else None
            if unread is not None:
                note(unread)
                continue
            if loads_followed:
                continue  # the file a literal name loads is read where the program finds it
            if any(name.startswith((".", "/")) or (perl and "." in name) for name in names):
                note(f"{text} runs the code of a file ({names[0]}), which is not read here")
                continue
            continue
        strings = _literal_strings(
            arguments, handle_first=perl and text in ("open", "sysopen", "dbmopen", "tie")
        )
        if strings is None:
            what = (
                "a command" if text in language.runs else "code" if text in language.evaluates else "a path"
            )
            # Perl's ``open`` runs a command when its mode says so (``-|``): built, it may do either.
            note(f"{text} is given {what} built when the code runs", what == "a path" and not perl)
            continue
        if text in language.runs and strings:
            # One string is shell text; several are a program and its arguments (no shell).
            runs.append(strings[0] if len(strings) == 1 else shlex.join(strings))
        elif text in language.evaluates:
            nested = code_targets("perl" if perl else "javascript", strings[0]) if strings else CodeTargets()
            for why, write in ((nested.built, False), (nested.writes_built, True)):
                if why is not None:
                    note(why, write)
            runs.extend(nested.runs)
            writes.extend(nested.writes)
            nested_moves.extend(nested.moves)
            handed.extend(nested.handed)
        elif perl and text == "open":
            _perl_open(strings, runs, writes)
        else:
            writes.extend(strings)
    # ``process.chdir``, Perl's ``chdir`` (File::chdir's ``$CWD``), a ``cwd`` option of child_process
    # (a key, not ``process.cwd()`` reading it): read as a move to a directory not known (tokens do
    # not say which call a literal belongs to).
    moving = any(
        _MOVING.fullmatch(text) or (not perl and text == "cwd" and (i == 0 or tokens[i - 1][1] != "."))
        for i, (kind, text) in enumerate(tokens)
        if kind in ("id", "str")
    )
    moves = (None,) if moving else tuple(nested_moves)
    return CodeTargets(tuple(runs), tuple(writes), built.get(False), built.get(True), moves, tuple(handed))


# JavaScript functions (and methods) that only compute or read: a literal given to one names nothing
# written. Any other function node's lists do not hold may write what a literal names.
_JS_READS_ONLY = frozenset(
    {"log", "error", "warn", "info", "debug", "dir", "table", "existsSync", "exists", "readFileSync"}
    | {"readFile", "statSync", "lstatSync", "stat", "lstat", "readdirSync", "readdir", "access", "accessSync"}
    | {"realpathSync", "realpath", "readlinkSync", "readlink", "join", "resolve", "dirname", "basename"}
    | {"extname", "relative", "normalize", "parse", "stringify", "split", "replace", "replaceAll"}
    | {"startsWith", "endsWith", "includes", "indexOf", "trim", "slice", "substring", "toString"}
    | {"toUpperCase", "toLowerCase", "match", "matchAll", "test", "push", "map", "filter", "forEach"}
    | {"keys", "values", "entries", "cwd", "String", "Number", "Boolean", "Array", "Object", "Symbol"}
    | {"concat", "padStart", "padEnd", "repeat", "at", "get", "has", "set", "add", "then", "catch"}
    | {"RegExp", "Date", "Error", "TypeError", "URL", "encodeURIComponent", "decodeURIComponent", "write"}
)
_MOVING = re.compile(r"(?:.*::)?f?chdir|\$CWD|@CWD")


def _perl_open(strings: list[str], runs: list[str], writes: list[str]) -> None:
    """Perl's ``open``: a mode (``>``, ``|-``) then a path or command, or one string holding both."""
    if len(strings) == 1:
        spec = strings[0].strip()
        if spec.startswith("|") or spec.endswith("|"):
            runs.append(spec.strip("|").strip())
        elif spec.startswith((">", "+")):
            writes.append(spec.lstrip(">+<").strip())
        return
    mode, rest = strings[0].strip(), strings[1:]
    if "|" in mode and rest:
        runs.append(rest[0] if len(rest) == 1 else shlex.join(rest))
    elif ">" in mode or "+" in mode:
        writes.extend(rest[:1])


# --- awk -----------------------------------------------------------------------------------------

_AWK_TOKEN = re.compile(
    r"""(?P<space>[ \t]+|\\\n)|(?P<end>[\n;{}])|(?P<comment>\#[^\n]*)|(?P<str>"(?:[^"\\\n]|\\.)*")"""
    r"""|(?P<id>[A-Za-z_]\w*)|(?P<num>\d[\w.]*)|(?P<op>\|&|>>|\|\||&&|[^\s\w])"""
)


def _awk_tokens(code: str) -> list[Token]:
    tokens: list[Token] = []
    at = 0
    while at < len(code):
        if code[at] == "/" and not _after_operand(tokens) and not (tokens and tokens[-1][1] == "$"):
            at = _skip_pattern(code, at + 1, "/")
            tokens.append(("num", "pattern"))
            continue
        match = _AWK_TOKEN.match(code, at)
        if match is None:
            raise ValueError(f"unreadable at {at}")
        kind, text, at = match.lastgroup or "op", match.group(), match.end()
        if kind in ("space", "comment"):
            continue
        if kind == "str":
            value = _unescape(text)
            tokens.append(("str", value) if value is not None else ("built", text))
        else:
            tokens.append(("op" if kind == "end" else kind, text))
    return tokens


def _awk_targets(code: str) -> CodeTargets:
    """Awk's ``print > F``, ``print >> F``, ``print | C``, ``C | getline``, ``system(C)``: literal or built."""
    tokens = _awk_tokens(code)
    runs: list[str] = []
    writes: list[str] = []
    in_print, depth = False, 0
    for index, (kind, text) in enumerate(tokens):
        if kind == "id" and text in ("print", "printf"):
            in_print, depth = True, 0
            continue
        if text in ("\n", ";", "{", "}"):
            in_print = False
            continue
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        target = tokens[index + 1] if index + 1 < len(tokens) else ("", "")
        after = tokens[index + 2][1] if index + 2 < len(tokens) else "\n"
        single = target[0] == "str" and after in ("\n", ";", "}", "")
        if in_print and depth == 0 and text in (">", ">>", "|", "|&"):
            if not single or text == "|&":
                what = f"print {text} names its target only when the code runs"
                return CodeTargets(built=what) if text != ">" and text != ">>" else _awk_rest(what, tokens)
            (runs if text == "|" else writes).append(target[1])
            in_print = False
        elif text in ("|", "|&") and target[1] == "getline":
            source = tokens[index - 1] if index else ("", "")
            if source[0] != "str" or text == "|&":
                return CodeTargets(built="getline reads from a command built when the code runs")
            runs.append(source[1])
        elif kind == "id" and text == "system":
            found = _call_arguments(tokens, index + 1, False)
            strings = _literal_strings(found[0]) if found is not None else None
            if strings is None or len(strings) != 1:
                return CodeTargets(built="system() is given a command built when the code runs")
            runs.extend(strings)
        elif text == "@":
            return CodeTargets(built="an indirect call of a function named when the code runs")
    return CodeTargets(tuple(runs), tuple(writes))


def _awk_rest(why: str, tokens: list[Token]) -> CodeTargets:
    """A print to a file named when it runs: the program's runs are still read (a pipe is not a write)."""
    runs = any(t[1] in ("|", "|&", "system", "@") for t in tokens)
    return CodeTargets(built=why if runs else None, writes_built=why)


def code_targets(language: str | None, code: str, loads_followed: bool = False) -> CodeTargets:
    """What ``code`` in ``language`` (see :func:`code_language`) runs and writes, or why it is not known.

    ``loads_followed``: the modules and files the code loads by a literal name are read where its
    program finds them (a project file's, by :mod:`_module_search`), so loading one is no unknown.
    """
    try:
        if language == "python":
            found = python_targets(code)
            return CodeTargets(
                tuple(found.runs),
                tuple(found.writes),
                found.built,
                found.writes_built,
                tuple(found.moves),
                tuple(found.handed),
            )
        if language == "javascript":
            return _read_tokens(_js_tokens(code), _NODE, False, loads_followed)
        if language == "perl":
            return _read_tokens(_perl_tokens(code), _PERL, True, loads_followed)
        if language == "awk":
            return _awk_targets(code)
    except (ValueError, IndexError, RecursionError):
        why = f"the {language} code is not read to its end"
        return CodeTargets(built=why, writes_built=why)
    why = f"code of {language or 'this interpreter'} is not read"
    return CodeTargets(built=why, writes_built=why)
