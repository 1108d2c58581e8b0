"""Matching ``Bash(...)`` rules against a command: patterns, the rule index, deny and allow (PERM-11).

A rule's content is ``prefix:*`` (legacy), a wildcard pattern or an exact command
(:func:`match_shell_pattern`). A deny or ask rule matches when it matches *any* spelling of any
command bash would run, and may apply to a command whose name is only known at run time
(:func:`shell_deny_match`); allow rules must cover *every* command bash would run, each possibly by
another rule (:func:`shell_allow_match`). The spellings come from
:mod:`~reference_impl.permissions._shell_forms`; rules are indexed by their pattern's first word.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from reference_impl.permissions._bash_reader import ShellCommand, split_command
from reference_impl.permissions._paths import is_within
from reference_impl.permissions._program_grammar import RuleShape, grammar_match, rule_shape
from reference_impl.permissions._rule_matches import AllowMatch, RuleMatch
from reference_impl.permissions._rule_syntax import PermissionRule
from reference_impl.permissions._shell_forms import (
    CD_UNIT,
    AllowUnits,
    allow_candidates,
    allow_units,
    deny_forms,
)
from reference_impl.permissions._wildcard_matching import shell_wildcard_matches

__all__ = [
    "ShellRuleIndex",
    "command_head",
    "match_shell_pattern",
    "pattern_head",
    "rule_matches_shell_part",
    "shell_allow_match",
    "shell_deny_match",
    "shell_rule_index",
]


_UNESCAPED_STAR = re.compile(r"(?<!\\)\*")


def _has_wildcard(pattern: str) -> bool:
    return _UNESCAPED_STAR.search(pattern) is not None


def match_shell_pattern(pattern: str, command: str) -> bool:
    r"""Whether one simple ``command`` matches a ``Bash(...)`` rule's content.

    ``prefix:*`` (legacy) matches ``prefix`` and ``prefix <anything>`` (a word boundary, so
    ``npm test:*`` does not match ``npm testing``); a pattern with ``*`` is a wildcard over the
    whole command (``\*`` is a literal star); anything else must equal the command exactly.
    ``command`` is a form as the engine spells it, never trimmed: a blank ending it is a quoted
    one, part of the last word (``rm '; '`` passes ``"; "``).
    """
    if pattern.endswith(":*") and not pattern.endswith("\\:*"):
        prefix = pattern[:-2]
        return command == prefix or (
            command.startswith(prefix) and command[len(prefix) : len(prefix) + 1] in (" ", "\t", "\n")
        )
    if _has_wildcard(pattern):
        return shell_wildcard_matches(pattern, command)
    return command == pattern.replace("\\*", "*")


_BLANK = re.compile(r"[ \t\n]")


def pattern_head(pattern: str) -> str | None:
    """The command name every command matching ``pattern`` starts with; None if it may be any."""
    head = _BLANK.split(pattern.removesuffix(":*"), maxsplit=1)[0]
    if not head or "*" in head or "\\" in head:
        return None
    return head


def command_head(form: str) -> str:
    """The first word of a form, as :func:`pattern_head` sees it."""
    return _BLANK.split(form.strip(), maxsplit=1)[0]


class ShellRuleIndex:
    """The content rules of one rule list for one shell tool, indexed by their pattern's first word.

    A rule whose pattern starts with a fixed word is only tried on forms starting with that word;
    the others (``Bash(* --force)``) are tried on every form. Results per command are memoised.
    """

    def __init__(self, rules: Sequence[PermissionRule], names: tuple[str, ...]) -> None:
        self.rules = rules
        self.content = [r for r in rules if r.content is not None and r.tool_name in names]
        self.whole = [r for r in rules if r.content is None]
        self.position = {id(rule): position for position, rule in enumerate(rules)}
        self.by_head: dict[str, list[PermissionRule]] = {}
        self.anywhere: list[PermissionRule] = []
        for rule in self.content:
            assert rule.content is not None
            head = pattern_head(rule.content)
            if head is None:
                self.anywhere.append(rule)
            else:
                self.by_head.setdefault(head, []).append(rule)
        self.order = {id(rule): position for position, rule in enumerate(self.content)}
        self.memo: dict[tuple[str, str], RuleMatch | AllowMatch | None] = {}
        self._shapes: dict[int, RuleShape | None] = {}

    def by_grammar(self, commands: Iterable[Sequence[str | None]]) -> tuple[PermissionRule, bool] | None:
        """The earliest rule whose effect a command has as its program reads it; and whether certainly.

        A certain match anywhere wins over a possible one (see
        :mod:`~reference_impl.permissions._program_grammar`).
        """
        best: tuple[PermissionRule, bool] | None = None
        rank: tuple[bool, int] | None = None
        for argv in commands:
            head = argv[0] if argv else None
            for rule in self.by_head.get(head, ()) if head is not None else ():
                shape = self._shape(rule)
                verdict = grammar_match(shape, argv) if shape is not None else None
                if verdict is None:
                    continue
                key = (verdict == "certain", -self.order[id(rule)])
                if rank is None or key > rank:
                    best, rank = (rule, key[0]), key
        return best

    def _shape(self, rule: PermissionRule) -> RuleShape | None:
        key = id(rule)
        if key not in self._shapes:
            assert rule.content is not None
            self._shapes[key] = rule_shape(rule.content)
        return self._shapes[key]

    def first(self, forms: Iterable[str]) -> PermissionRule | None:
        """The earliest rule matching any of ``forms``."""
        best: PermissionRule | None = None
        for form in forms:
            for rules in (self.by_head.get(command_head(form), ()), self.anywhere):
                for rule in rules:
                    assert rule.content is not None
                    if best is not None and self.order[id(rule)] >= self.order[id(best)]:
                        continue
                    if match_shell_pattern(rule.content, form):
                        best = rule
        return best

    def lookup(self, key: tuple[str, str]) -> tuple[bool, RuleMatch | AllowMatch | None]:
        if key in self.memo:
            return True, self.memo[key]
        return False, None

    def remember(self, key: tuple[str, str], value: RuleMatch | AllowMatch | None) -> None:
        if len(self.memo) >= 4096:
            self.memo.clear()
        self.memo[key] = value


_SHELL_INDEXES: dict[tuple[int, tuple[str, ...]], ShellRuleIndex] = {}
_SHORT_SHELL_INDEXES: dict[tuple[tuple[PermissionRule, ...], tuple[str, ...]], ShellRuleIndex] = {}


def shell_rule_index(rules: Sequence[PermissionRule], names: tuple[str, ...]) -> ShellRuleIndex:
    """The index of ``rules`` for a shell tool called ``names`` (cached per rule list)."""
    if len(rules) <= 8:
        # Short lists are often made per call: keyed by value (equal rules match alike), so a
        # list rebuilt for every call still finds its index and its memo of commands.
        short = (tuple(rules), names)
        found = _SHORT_SHELL_INDEXES.get(short)
        if found is None:
            if len(_SHORT_SHELL_INDEXES) >= 256:
                del _SHORT_SHELL_INDEXES[next(iter(_SHORT_SHELL_INDEXES))]
            found = _SHORT_SHELL_INDEXES[short] = ShellRuleIndex(short[0], names)
        return found
    # Keyed by identity (the engine hands the same candidate list for the same tool); the entry
    # holds the list, so the id can't be reused while cached.
    key = (id(rules), names)
    index = _SHELL_INDEXES.get(key)
    if index is None or index.rules is not rules:
        if len(_SHELL_INDEXES) >= 64:
            del _SHELL_INDEXES[next(iter(_SHELL_INDEXES))]
        index = _SHELL_INDEXES[key] = ShellRuleIndex(rules, names)
    return index


def shell_deny_match(
    rules: Sequence[PermissionRule], names: tuple[str, ...], command: str
) -> RuleMatch | None:
    """The first deny/ask shell rule matching any spelling of ``command`` (memoised per rule list)."""
    index = shell_rule_index(rules, names)
    known, cached = index.lookup(("deny", command))
    if known:
        return cached if isinstance(cached, RuleMatch) else None
    found: RuleMatch | None = None
    if index.content:
        forms = deny_forms(command)
        rule = index.first(sorted(forms.forms))
        read = index.by_grammar(forms.commands) if rule is None else None
        if rule is not None:
            found = RuleMatch(rule, True, f"matched rule {rule.text}")
        elif read is not None and read[1]:
            found = RuleMatch(
                read[0], True, f"matched rule {read[0].text} (as the program reads its arguments)"
            )
        elif forms.opaque is not None:
            first = index.content[0]
            found = RuleMatch(first, False, f"{forms.opaque}: it could run what rule {first.text} covers")
        elif forms.possible and (helper := index.first(sorted(forms.possible))) is not None:
            found = RuleMatch(
                helper,
                False,
                f"it may start a program rule {helper.text} covers: what the line doesn't show decides (a remote's URL, signing settings, an archive's compression, a helper its own files name)",
            )
        elif read is not None:
            found = RuleMatch(
                read[0],
                False,
                f"its arguments may mean what rule {read[0].text} names, as the program reads them",
            )
        elif forms.unread:
            first = index.content[0]
            why = forms.unread[0][0]
            found = RuleMatch(
                first,
                False,
                f"{why}: it could run what rule {first.text} covers",
                unread=tuple(unread_forms for _, unread_forms in forms.unread),
            )
    index.remember(("deny", command), found)
    return found


def _cover(
    index: ShellRuleIndex, units: AllowUnits | None, directories: tuple[Path, ...]
) -> tuple[AllowMatch | None, bool]:
    """The allow rules covering each unit (every command bash would run), or None.

    And whether a ``cd`` was judged against the disk (then the answer can't be remembered).
    """
    if units is None:
        return None, False
    used: list[PermissionRule] = []
    here: set[str] | None = {os.path.realpath(directories[0])} if directories else None
    judged = False
    for forms in units:
        if forms[0].startswith(CD_UNIT):
            judged = True
            here = _change_directory(here, forms[0][len(CD_UNIT) :], directories)
            if here is not None and all(is_within(d, directories) for d in here):
                continue  # ``cd`` inside the working directories needs no rule
            forms = forms[1:]
        rule = index.first(forms)
        if rule is None:
            return None, judged
        used.append(rule)
    if not used:
        return None, judged  # only ``cd``s: nothing for a rule to allow
    texts = ", ".join(dict.fromkeys(r.text for r in used))
    return AllowMatch(tuple(dict.fromkeys(used)), f"every command it runs is allowed ({texts})"), judged


def _change_directory(here: set[str] | None, target: str, directories: tuple[Path, ...]) -> set[str] | None:
    """Every directory the shell may be in after ``cd target``, or None when that isn't known.

    A ``cd`` in a subshell does not last, so each earlier one may or may not have happened: the
    places are every directory reached by some of them. ``CDPATH`` would search elsewhere for a
    bare name. Links are followed as they are on disk now (the line writes nothing before).
    """
    if here is None or not directories or (os.environ.get("CDPATH") and not target.startswith(("/", "."))):
        return None
    after = here | {os.path.realpath(os.path.join(d, target)) for d in here}
    return after if len(after) <= 16 else None


def shell_allow_match(
    rules: Sequence[PermissionRule],
    names: tuple[str, ...],
    command: str,
    directories: Sequence[Path] = (),
) -> AllowMatch | None:
    """The allow rules that cover every command bash would run for ``command`` (memoised).

    ``directories`` are the working directories (the current one first): a ``cd`` that stays in
    them needs no rule, as a test (``[ -d x ]``) needs none.
    """
    index = shell_rule_index(rules, names)
    known, cached = index.lookup(("allow", command))
    if known:
        return cached if isinstance(cached, AllowMatch) else None
    if not index.content:
        return None
    found, judged = _cover(index, allow_units(split_command(command)), tuple(directories))
    if not judged:
        index.remember(("allow", command), found)
    return found


def rule_matches_shell_part(rule: PermissionRule, command: ShellCommand, index: int) -> bool:
    """Whether an allow rule's content matches part ``index`` of ``command`` itself (wrapped commands aside)."""
    assert rule.content is not None
    return any(match_shell_pattern(rule.content, form) for form in allow_candidates(command.parts[index]))
