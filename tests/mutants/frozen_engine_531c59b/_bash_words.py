r"""Bash's words as bash reads them: quote removal, ANSI-C strings, globs, here-document delimiters.

The syntax tree gives a word as written; these give its value after bash's quote removal
(``'rm'``, ``\rm``, ``r""m`` and ``$'\x72m'`` are all ``rm``), say whether an unquoted part of it
is a pattern bash expands, read the delimiter after ``<<``, and join line continuations.
"""

from __future__ import annotations

import re

__all__ = [
    "ansi_c_value",
    "continuation_joins",
    "heredoc_delimiter",
    "is_globby",
    "unquote_double",
    "unquote_word",
]

_GLOB_CHARACTERS = re.compile(r"[*?\[{]")


def is_globby(raw: str) -> bool:
    """Whether an unquoted part of ``raw`` is a glob, a brace expansion or a tilde."""
    if raw.startswith("~"):
        return True
    if _GLOB_CHARACTERS.search(raw) is None:
        return False  # no pattern character at all, quoted or not
    quote = ""
    i = 0
    while i < len(raw):
        c = raw[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c == "\\":
            i += 2
            continue
        elif c in "'\"":
            quote = c
        elif c in "*?[{":
            return True
        i += 1
    return False


_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r"}
_ANSI_SIMPLE |= {"t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_c_value(body: str) -> str:
    """The value of ``$'body'`` (bash's ANSI-C quoting)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[e])
        elif e in "01234567":
            digits = re.match(r"[0-7]{0,2}", body[i:])
            assert digits is not None
            out.append(chr(int(e + digits.group(), 8) & 0xFF))
            i += len(digits.group())
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = re.match(rf"[0-9A-Fa-f]{{1,{width}}}", body[i:])
            if digits is None:
                out.append("\\" + e)
            else:
                out.append(chr(min(int(digits.group(), 16), 0x10FFFF)))
                i += len(digits.group())
        elif e == "c" and i < len(body):
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)


def unquote_word(raw: str) -> str:
    """An unquoted word's value: a backslash quotes the next character, a backslash-newline disappears."""
    if "\\" not in raw:
        return raw
    return re.sub(r"\\(.)", lambda m: "" if m.group(1) == "\n" else m.group(1), raw, flags=re.DOTALL)


def unquote_double(body: str) -> str:
    """A double-quoted string's value (no expansions in it): a backslash quotes only $ ` " and itself."""
    if "\\" not in body:
        return body
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), body)


_DELIMITER_ENDS = frozenset(" \t\n;&|<>()")
"""Unquoted, these end the word after ``<<``: bash's delimiter never contains them."""


def heredoc_delimiter(written: str) -> str | None:
    """The delimiter bash reads from the word after ``<<`` (quotes removed), or None if it is not one word."""
    delimiter: list[str] = []
    index = 0
    while index < len(written):
        char = written[index]
        if char == "\\":
            if index + 1 == len(written):
                return None
            delimiter.append(written[index + 1])
            index += 2
            continue
        if char in "'\"":
            close = written.find(char, index + 1)
            if close < 0 or (char == '"' and "\\" in written[index + 1 : close]):
                return None  # unbalanced, or escapes inside double quotes: not modelled
            delimiter.append(written[index + 1 : close])
            index = close + 1
            continue
        if char in _DELIMITER_ENDS:
            return None
        delimiter.append(char)
        index += 1
    return "".join(delimiter) or None


def continuation_joins(command: str) -> str | None:
    """``command`` with its backslash-newlines removed, when one joins two non-blank characters."""
    if not re.search(r"[^\s\\]\\\n[^\s]", command):
        return None
    return re.sub(r"(?<!\\)((?:\\\\)*)\\\n", r"\1", command)
