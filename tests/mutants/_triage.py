"""Triage of the automatic mutation run's survivors, read from ``mutation-triage.toml``.

A surviving mutant is either a gap in the suite (a test to write) or one of two kinds that no test
can or should kill, each recorded with its reason:

- ``equivalent``: the mutated module behaves the same (``x == ""`` turned into ``x is ""`` where
  CPython's empty string is a singleton; a check the code before it already made);
- ``unspecified``: it behaves differently, but only in what no requirement of the catalogue states
  (how a size is worded in a message, a defensive branch for a file system the harness never meets).

A rule names its place by the module and the original line's text (stripped), which survives edits
elsewhere in the module, or a whole function (its innermost enclosing ``def``), and optionally the
cosmic-ray operators it covers (``fnmatch`` patterns). A rule whose line or function is no longer in
its module is stale; ``tests/test_mutation_runner.py`` catches it.
"""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, cast

__all__ = [
    "TRIAGE_FILE",
    "VERDICTS",
    "TriageRule",
    "classify",
    "enclosing_function",
    "load_rules",
    "stale_rules",
]

TRIAGE_FILE: Final = Path(__file__).with_name("mutation-triage.toml")
VERDICTS: Final = ("equivalent", "unspecified")
Verdict = Literal["equivalent", "unspecified"]
_KEYS: Final = frozenset({"module", "source", "function", "verdict", "reason", "operators"})


@dataclass(frozen=True)
class TriageRule:
    """Survivors at ``source`` (or in ``function``) of ``module``, of ``operators`` or any, are ``verdict``."""

    module: str
    source: str
    verdict: Verdict
    reason: str
    operators: tuple[str, ...] = ()
    function: str = ""

    def matches(self, module: str, operator: str, line: str, function: str = "") -> bool:
        """Whether a mutant by ``operator`` on original ``line`` (in ``function``) of ``module`` is this rule's."""
        if module != self.module:
            return False
        if self.source and line.strip() != self.source:
            return False
        if self.function and function != self.function:
            return False
        return not self.operators or any(fnmatch.fnmatchcase(operator, p) for p in self.operators)


def load_rules(path: Path = TRIAGE_FILE) -> list[TriageRule]:
    """The rules of ``path`` (``[[survivor]]`` tables); ValueError naming the entry for a malformed one."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown_tables = set(data) - {"survivor"}
    if unknown_tables:
        raise ValueError(f"{path}: unknown table(s) {sorted(unknown_tables)}; expected [[survivor]]")
    rules: list[TriageRule] = []
    for number, entry in enumerate(data.get("survivor", []), start=1):
        where = f"{path.name}: [[survivor]] #{number}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: not a table")
        extra = set(entry) - _KEYS
        missing = {"module", "verdict", "reason"} - set(entry)
        if extra or missing:
            raise ValueError(f"{where}: unknown keys {sorted(extra)}, missing keys {sorted(missing)}")
        if not entry.get("source") and not entry.get("function"):
            raise ValueError(f"{where}: needs a source line or a function")
        if entry["verdict"] not in VERDICTS:
            raise ValueError(f"{where}: verdict {entry['verdict']!r} is not one of {VERDICTS}")
        operators = entry.get("operators", [])
        if not isinstance(operators, list) or not all(isinstance(o, str) for o in operators):
            raise ValueError(f"{where}: operators must be a list of strings")
        for key in ("module", "reason"):
            if not isinstance(entry[key], str) or not entry[key].strip():
                raise ValueError(f"{where}: {key} must be a non-empty string")
        for key in ("source", "function"):
            if not isinstance(entry.get(key, ""), str):
                raise ValueError(f"{where}: {key} must be a string")
        rules.append(
            TriageRule(
                module=entry["module"],
                source=entry.get("source", "").strip(),
                function=entry.get("function", ""),
                verdict=cast(Verdict, entry["verdict"]),
                reason=" ".join(entry["reason"].split()),
                operators=tuple(operators),
            )
        )
    return rules


def classify(
    rules: list[TriageRule], module: str, operator: str, line: str, function: str = ""
) -> TriageRule | None:
    """The first rule for this survivor, or None: a gap in the suite."""
    return next((rule for rule in rules if rule.matches(module, operator, line, function)), None)


def enclosing_function(tree: ast.Module, line: int) -> str:
    """The name of the innermost ``def`` around ``line`` (its decorators count as its lines), or ""."""
    best: tuple[int, str] | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        if start <= line <= (node.end_lineno or node.lineno) and (best is None or start > best[0]):
            best = (start, node.name)
    return best[1] if best else ""


def stale_rules(rules: list[TriageRule], root: Path) -> list[str]:
    """Each rule whose module is missing or no longer has its line, said in one line."""
    stale: list[str] = []
    for rule in rules:
        file = root / rule.module
        if not file.is_file():
            stale.append(f"{rule.module}: no such module")
            continue
        text = file.read_text(encoding="utf-8")
        if rule.source and rule.source not in {line.strip() for line in text.splitlines()}:
            stale.append(f"{rule.module}: no line {rule.source!r}")
        names = {
            n.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        if rule.function and rule.function not in names:
            stale.append(f"{rule.module}: no function {rule.function!r}")
    return stale
