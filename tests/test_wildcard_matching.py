"""``reference_impl.permissions._wildcard_matching`` answers as a regex engine does, without backtracking (PERM-11, PERM-14).

On drawn small patterns and texts (where backtracking costs nothing), both matchers agree with
Python's ``re`` on the regex the pattern stands for: a ``Bash(...)`` pattern's ``*`` as ``.*``
(and its one trailing ``" *"`` optional), a glob's steps as ``[^/]*``, ``.*``, ``(?:.*/)?`` and
classes. Which steps a gitignore glob is made of is judged by git itself
(``conformance/test_path_rule_globs.py``). The cost on a near miss is measured in
``benchmarks/`` (``permission_wildcard_ratio_*``), never timed here.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._wildcard_matching import GlobMatcher, GlobToken, shell_wildcard_matches


def _shell_regex(pattern: str) -> re.Pattern[str]:
    """The regex a ``Bash(...)`` wildcard pattern stands for (``\\*`` and ``\\\\`` escaped)."""
    pieces: list[str] = []
    stars = 0
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "*\\":
            pieces.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if pattern[i] == "*":
            pieces.append(".*")
            stars += 1
        else:
            pieces.append(re.escape(pattern[i]))
        i += 1
    regex = "".join(pieces)
    if stars == 1 and pattern.endswith(" *") and not pattern.endswith("\\ *"):
        regex = regex[: -len(re.escape(" ") + ".*")] + "(?:" + re.escape(" ") + ".*)?"
    return re.compile(regex, re.DOTALL)


_SHELL_PIECES = st.sampled_from(["a", "b", " ", "*", "\\*", "\\\\", "\\", "ab", " *", "\n"])


@settings(max_examples=400, deadline=None)
@given(
    pattern=st.lists(_SHELL_PIECES, min_size=1, max_size=7).map("".join),
    command=st.text(alphabet="ab *\\\n", max_size=12),
)
@example(pattern="ls *", command="ls")
@example(pattern="ls *", command="lsx")
@example(pattern="a\\ *", command="a\\")
@example(pattern="a*a*b", command="aab")
@example(pattern="*", command="")
def test_a_shell_wildcard_matches_as_its_regex_does(pattern: str, command: str) -> None:
    """PERM-11: ``shell_wildcard_matches`` agrees with the pattern's regex (patterns holding an unescaped ``*``)."""
    if re.search(r"(?<!\\)\*", pattern) is None:
        return  # not a wildcard pattern: matched as an exact command elsewhere
    assert shell_wildcard_matches(pattern, command) == bool(_shell_regex(pattern).fullmatch(command))


_CLASSES = {"?": "[^/]", "[ab]": "(?!/)[ab]", "[!a]": "[^/a]"}
_STEPS = st.sampled_from(["a", "b", "/", ".", *_CLASSES, "segment", "any", "dirs"])


def _token(step: str) -> GlobToken:
    if step in _CLASSES:
        return GlobToken("class", one=re.compile(_CLASSES[step], re.DOTALL))
    if step in ("segment", "any", "dirs"):
        return GlobToken(step)
    return GlobToken("char", step)


def _glob_regex(tokens: list[GlobToken]) -> re.Pattern[str]:
    runs = {"segment": "[^/]*", "any": ".*", "dirs": "(?:.*/)?"}
    return re.compile(
        "".join(
            re.escape(t.text) if t.kind == "char" else t.one.pattern if t.one is not None else runs[t.kind]
            for t in tokens
        ),
        re.DOTALL,
    )


@settings(max_examples=400, deadline=None)
@given(steps=st.lists(_STEPS, max_size=7), text=st.text(alphabet="ab/.\n", max_size=10))
@example(steps=["dirs", "a"], text="x/y/a")
@example(steps=["dirs", "a"], text="a")
@example(steps=["a", "dirs", "b"], text="a/b")
@example(steps=["segment", "a"], text="b/a")
def test_a_glob_matches_as_its_regex_does(steps: list[str], text: str) -> None:
    """PERM-11: ``GlobMatcher`` agrees with its steps' regex on the whole text and on each directory of it."""
    tokens = [_token(step) for step in steps]
    matcher, regex = GlobMatcher(tokens), _glob_regex(tokens)
    assert matcher.fullmatch(text) == bool(regex.fullmatch(text))
    segments = text.split("/")
    directories = any(regex.fullmatch("/".join(segments[:k])) for k in range(1, len(segments) + 1))
    assert matcher.matches_a_directory_of(text) == directories


def test_a_near_miss_is_answered() -> None:
    """PERM-14: near misses a backtracking regex would spend hours on (8 wildcards, 4,000 characters) are answered.

    Not a timing: the regex engine would not return within the test run at all.
    """
    assert not shell_wildcard_matches("a*a*a*a*a*a*a*a*b", "a" * 4_000)
    dirs = GlobMatcher(
        [GlobToken("dirs"), GlobToken("char", "a"), GlobToken("char", "/")] * 6 + [GlobToken("char", "b")]
    )
    assert not dirs.fullmatch("a/" * 2_000 + "c")
    assert not dirs.matches_a_directory_of("a/" * 2_000 + "c")
