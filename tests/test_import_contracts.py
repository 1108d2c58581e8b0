"""The import graph of the three packages keeps the contracts in pyproject.toml's ``[tool.importlinter]``.

import-linter (on grimp's graph of every import, those inside functions included) checks them:

- no cycle among siblings at any depth: not between two modules, not between two subpackages;
- a private module (``_name``) is imported only from inside its own package: the others use the
  package's public names;
- the layers run one way: ``conformance`` -> ``pytest_toolharness`` -> ``reference_impl``, and inside
  the plugin each layer imports only the ones below it;
- only the reference adapter imports ``reference_impl``.

The contracts are the one source of these rules; this test runs them, and checks on a planted
package that each kind of breach is reported.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(config: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter on ``config`` (no cache written into the checkout)."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config), "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd), "COLUMNS": "400"},
    )


def test_the_project_keeps_every_import_contract() -> None:
    completed = lint_imports(ROOT / "pyproject.toml", ROOT)
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-2000:]
    assert completed.stdout.rstrip().endswith(" 0 broken."), completed.stdout[-6000:]


PLANTED = {
    "pkg/__init__.py": '"""A planted package."""\n',
    "pkg/low/__init__.py": "from pkg.low._a import a\n",
    # A module cycle inside one package, and one through a function-level import.
    "pkg/low/_a.py": "from pkg.low import _b\n\ndef a() -> None: ...\n",
    "pkg/low/_b.py": "def b() -> None:\n    from pkg.low import _a\n",
    "pkg/high/__init__.py": "",
    # A private module of another package, and an import against the layers.
    "pkg/high/_c.py": "from pkg.low._a import a\n",
    "pkg/low/_d.py": "import pkg.high\n",
}

PLANTED_CONFIG = """
[tool.importlinter]
root_packages = ["pkg"]

[[tool.importlinter.contracts]]
name = "acyclic"
type = "acyclic_siblings"
ancestors = ["pkg"]

[[tool.importlinter.contracts]]
name = "private"
type = "private_modules"

[[tool.importlinter.contracts]]
name = "layered"
type = "layers"
layers = ["pkg.high", "pkg.low"]
"""


def test_each_kind_of_breach_is_reported(tmp_path: Path) -> None:
    """The checker itself: a cycle (module or function level), a private import, an upward import."""
    for name, source in PLANTED.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    config = tmp_path / "pyproject.toml"
    config.write_text(textwrap.dedent(PLANTED_CONFIG), encoding="utf-8")
    completed = lint_imports(config, tmp_path)
    assert completed.returncode != 0
    out = completed.stdout
    for contract in ("acyclic BROKEN", "private BROKEN", "layered BROKEN"):
        assert contract in out, out
    assert "pkg.high._c -> pkg.low._a" in out
    assert "pkg.low._d -> pkg.high" in out


@pytest.mark.parametrize("package", ["reference_impl", "pytest_toolharness", "conformance"])
def test_every_contract_covers_the_package(package: str) -> None:
    """A root package left out of the configuration would be checked by nothing."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert package in config["root_packages"]
    acyclic = [c for c in config["contracts"] if c["type"] == "acyclic_siblings"]
    assert any(package in c["ancestors"] for c in acyclic)
    private = [c for c in config["contracts"] if c["type"] == "private_modules"]
    assert private
    assert all("packages_with_private_modules" not in c for c in private)
