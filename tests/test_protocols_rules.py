"""Every tool-call rule of ``shared/design/PROTOCOLS.md`` has its test, and the scripted servers answer its real text.

PROTOCOLS.md lists the rules of the Chat Completions, Responses and Gemini APIs, each with a short id
and, where one was found, the API's exact 400 text. The rule tests live in one module per API
(``tests/test_<api>_validation.py``), each opening its docstring with the ids it proves
(``"R-DUPCALL / R-DUPOUT: ..."``). Read from the design document itself, so a rule added there without a
test fails here; skipped when the design documents are not beside the checkout.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROTOCOLS = ROOT.parent / "shared" / "design" / "PROTOCOLS.md"
RULE_TESTS = {
    "C": ROOT / "tests" / "test_chat_validation.py",
    "R": ROOT / "tests" / "test_responses_validation.py",
    "G": ROOT / "tests" / "test_gemini_validation.py",
}
_ID = re.compile(r"\b[CRG]-[A-Z0-9]+\b")
#: What varies in a quoted text (an index, an id, an elision): the literal pieces between them are the rule's own words.
_VARIES = re.compile(r"\d+|…|XXX|\.\.\.|'[^']*'|call_\w*|fc_\w*|rs_\w*|resp_\w*")


def _rows() -> list[tuple[list[str], str]]:
    """(ids, the exact error text column) of every row of PROTOCOLS.md's rule tables."""
    if not PROTOCOLS.is_file():
        pytest.skip(f"the design documents are not beside the checkout ({PROTOCOLS} is absent)")
    rows = []
    for line in PROTOCOLS.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3 and _ID.match(cells[0]):
            rows.append((_ID.findall(cells[0]), cells[2]))
    return rows


def _rule_ids() -> list[str]:
    return [rule for ids, _ in _rows() for rule in ids]


def _tests_by_rule() -> dict[str, list[str]]:
    """Rule id -> the tests whose docstring opens with it (before the first colon)."""
    found: dict[str, list[str]] = {}
    for path in RULE_TESTS.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                head = (ast.get_docstring(node) or "").split(":", 1)[0]
                if head.startswith("Property"):
                    continue  # a property names the rules it samples in parentheses, not as its subject
                for rule in _ID.findall(head):
                    found.setdefault(rule, []).append(f"{path.name}::{node.name}")
    return found


def test_protocols_lists_the_29_rules_the_issue_counts() -> None:
    """PROTOCOLS.md's tables hold 29 rule rows' worth of ids (its own count), none twice."""
    ids = _rule_ids()
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    # Rows sharing a test (``R-NAME, R-TOOLNAMES, R-PTC``) count once each in the document's 29.
    assert len(ids) >= 29, ids


def test_every_protocols_rule_has_its_own_test() -> None:
    """Each rule id of PROTOCOLS.md is the subject of at least one test in its API's validation module."""
    tests = _tests_by_rule()
    missing = [rule for rule in _rule_ids() if rule not in tests]
    assert not missing, f"PROTOCOLS.md rules without a test (docstring opening 'ID:'): {missing}"
    stray = sorted(set(tests) - set(_rule_ids()))
    assert not stray, f"tests name rules PROTOCOLS.md does not list: {stray}"


def _literal_pieces(text: str) -> list[str]:
    return [p.strip() for p in _VARIES.split(text) if len(p.strip()) >= 12]


def _rule_test_strings() -> dict[str, str]:
    """Rule id -> the literal text of every string in its tests (decorators included), NUL-separated.

    An f-string contributes its parts between fields, so an expected body written with an index
    filled in still shows the rule's words.
    """
    found: dict[str, list[str]] = {}
    for path in RULE_TESTS.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
                continue
            head = (ast.get_docstring(node) or "").split(":", 1)[0]
            strings = [
                n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            ]
            for rule in [] if head.startswith("Property") else _ID.findall(head):
                found.setdefault(rule, []).extend(strings)
    return {rule: "\0".join(strings) for rule, strings in found.items()}


def test_each_rule_with_an_api_text_is_asserted_word_for_word() -> None:
    """Each exact 400 text of PROTOCOLS.md (its words between indexes, ids and quoted names) is asserted by its rule's test.

    The tests compare the scripted server's whole answer with the body they expect; this checks
    that what they expect is PROTOCOLS.md's text. Only a row's first quoted text is the API's (the
    rest are variants, codes and params); rows without one (checker rules, ``as C-NAME``) have none.
    """
    strings = _rule_test_strings()
    absent = {}
    for ids, column in _rows():
        quoted = re.findall(r"`([^`]+)`", column)
        texts = [q for q in quoted if " " in q and not q.startswith(("code:", "param:"))]
        for text in texts[:1]:
            asserted = "\0".join(strings.get(rule, "") for rule in ids)
            pieces = [p for p in _literal_pieces(text) if p not in asserted]
            if pieces:
                absent["/".join(ids)] = pieces
    assert not absent, f"rule texts no test of the rule asserts: {absent}"
