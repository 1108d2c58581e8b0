"""The documentation's code imports only what the packages export, and those imports work.

Every ``from reference_impl... import ...`` / ``from pytest_toolharness... import ...`` and ``import ...``
of those packages in a Python code block of README.md, CONTRIBUTING.md and docs/**/*.md names a
public module (no ``_private`` path component) and, for each name, one in that module's ``__all__``
or a public submodule; then the test imports it for real.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("reference_impl", "pytest_toolharness")
_PYTHON_BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _ours(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def _imports_ours(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and node.module is not None and _ours(node.module)
    return isinstance(node, ast.Import) and any(_ours(alias.name) for alias in node.names)


def _import_lines(path: Path) -> list[tuple[str, int, ast.Import | ast.ImportFrom]]:
    """Each import of our packages in the file's Python blocks, with the document and its line."""
    text = path.read_text(encoding="utf-8")
    found: list[tuple[str, int, ast.Import | ast.ImportFrom]] = []
    for block in _PYTHON_BLOCK.finditer(text):
        first_line = text.count("\n", 0, block.start(1)) + 1
        tree = ast.parse(block.group(1), filename=f"{path.name}:{first_line}")
        for node in ast.walk(tree):
            if _imports_ours(node):
                assert isinstance(node, ast.Import | ast.ImportFrom)
                found.append((path.relative_to(ROOT).as_posix(), first_line + node.lineno - 1, node))
    return found


IMPORTS = [entry for path in _documents() for entry in _import_lines(path)]


def test_the_documents_import_from_the_packages() -> None:
    """The parametrised test below is not vacuous: the documents do show imports."""
    modules = {node.module for _, _, node in IMPORTS if isinstance(node, ast.ImportFrom)}
    assert any(module and module.startswith("reference_impl") for module in modules)
    assert any(module and module.startswith("pytest_toolharness") for module in modules)


def _private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split("."))


@pytest.mark.parametrize(
    ("document", "line", "node"), IMPORTS, ids=[f"{doc}:{line}" for doc, line, _ in IMPORTS]
)
def test_a_documented_import_names_exported_names(document: str, line: int, node: ast.AST) -> None:
    where = f"{document}:{line}: {ast.unparse(node)}"
    if isinstance(node, ast.Import):
        for alias in node.names:
            if _ours(alias.name):
                assert not _private(alias.name), f"{where}: a private module"
                importlib.import_module(alias.name)
        return
    assert isinstance(node, ast.ImportFrom)
    assert node.module is not None
    assert not _private(node.module), f"{where}: a private module"
    module = importlib.import_module(node.module)
    exported = set(getattr(module, "__all__", ()))
    for alias in node.names:
        name = alias.name
        assert not name.startswith("_"), f"{where}: {name} is private"
        if name in exported:
            assert getattr(module, name) is not None
            continue
        # ``from package import submodule``: a public submodule is exported by being one.
        try:
            importlib.import_module(f"{node.module}.{name}")
        except ModuleNotFoundError:
            pytest.fail(f"{where}: {name} is not in {node.module}.__all__")
