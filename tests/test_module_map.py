"""CONTRIBUTING.md's module map is the tree: every module is listed, and every listed module exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("reference_impl", "pytest_toolharness")
_ROW = re.compile(r"^\| `(?P<path>(?:reference_impl|pytest_toolharness)/[\w/]+\.py)` \|", re.M)


def mapped_modules(text: str) -> list[str]:
    """The module paths the map's table rows name, in order."""
    return [match["path"] for match in _ROW.finditer(text)]


def tree_modules() -> set[str]:
    """Every module of the two packages; a package ``__init__.py`` only when it is not the top one's
    sub-package export list (those are described once, in a sentence of the map)."""
    found: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            if path.name == "__init__.py" and path.parent != ROOT / package:
                continue
            found.add(rel)
    return found


def test_every_module_is_in_the_map_and_every_mapped_module_exists() -> None:
    mapped = mapped_modules((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    assert len(mapped) == len(set(mapped)), "a module is listed twice in CONTRIBUTING.md"
    tree = tree_modules()
    missing = sorted(tree - set(mapped))
    stale = sorted(set(mapped) - tree)
    assert not missing, f"modules missing from CONTRIBUTING.md's module map: {missing}"
    assert not stale, f"CONTRIBUTING.md's module map lists modules that don't exist: {stale}"


def test_the_map_reader_finds_rows() -> None:
    text = "| `reference_impl/tools/_tool.py` | tools |\n| `docs/x.md` | no |\n"
    assert mapped_modules(text) == ["reference_impl/tools/_tool.py"]
