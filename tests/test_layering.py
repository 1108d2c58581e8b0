"""The dependency direction: conformance -> plugin -> adapter -> harness, and nothing else.

- The import graph keeps the import-linter contracts of ``pyproject.toml`` (``[tool.importlinter]``),
  checked on grimp's graph of every import, those inside functions included: no import cycle among
  siblings at any depth, modules or subpackages; a ``_private`` module is imported only from inside
  its own package (so the suite imports the plugin's public names only); the layers inside each
  package; only the reference adapter imports the harness. A planted package shows each breach
  reported.

- Nothing in ``pytest_toolharness`` outside its reference adapter (``adapters/reference/``), and
  nothing in ``conformance``, imports ``reference_impl``, not even by a string handed to
  ``importlib.import_module`` (which the graph doesn't see), and at run time importing them loads no
  harness.
- Nothing outside ``reference_impl`` imports a private module of it, in the product, the benchmarks
  and the test that builds a harness on the public API (``tests/test_reuse.py``). Other tests
  under ``tests/`` may test the harness's internals white-box, as pytest's own tests do, and the
  mutants patch private names by design.
- ``reference_impl`` keeps at most 8 top-level modules; the rest lives in subpackages. Its top level
  re-exports at most 50 names; every other public name is in its subpackage's ``__all__``.
- The plugin's own wire encoder agrees with the harness's byte for byte.
"""

from __future__ import annotations

import ast
import importlib
import json
import math
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference_impl
from pytest_toolharness.wire import wire_bytes as plugin_wire_bytes
from pytest_toolharness.wire import wire_json as plugin_wire_json

ROOT = Path(__file__).resolve().parent.parent
HARNESS = "reference_impl"
REFERENCE_ADAPTER = ROOT / "pytest_toolharness" / "adapters" / "reference"
MAX_TOP_LEVEL_MODULES = 8
MAX_TOP_LEVEL_NAMES = 50


def _modules(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, with its line, at any depth (``from a import b`` gives ``a.b`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def _is_harness(module: str) -> bool:
    return module == HARNESS or module.startswith(f"{HARNESS}.")


def _is_harness_private(module: str) -> bool:
    return _is_harness(module) and any(part.startswith("_") for part in module.split(".")[1:])


def _plugin_and_suite_modules() -> list[Path]:
    return [
        path
        for path in _modules("pytest_toolharness", "conformance")
        if REFERENCE_ADAPTER not in path.parents
    ]


def test_only_the_reference_adapter_imports_the_harness() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in _plugin_and_suite_modules()
        for line, module in imported_modules(path)
        if _is_harness(module)
    ]
    assert not offenders, (
        "only pytest_toolharness/adapters/reference may import reference_impl:\n" + "\n".join(offenders)
    )


def test_nothing_outside_the_harness_imports_its_private_modules() -> None:
    paths = [*_modules("pytest_toolharness", "conformance", "benchmarks"), ROOT / "tests" / "test_reuse.py"]
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in paths
        for line, module in imported_modules(path)
        if _is_harness_private(module)
    ]
    assert not offenders, "use reference_impl's public names:\n" + "\n".join(offenders)


def test_the_benchmarks_use_the_plugins_public_names() -> None:
    """The benchmarks sit outside the import contracts' packages; they measure the public API too."""
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in _modules("benchmarks")
        for line, module in imported_modules(path)
        if module.startswith("pytest_toolharness.")
        and any(part.startswith("_") for part in module.split(".")[1:])
    ]
    assert not offenders, "use pytest_toolharness's public names:\n" + "\n".join(offenders)


def test_importing_the_plugin_and_the_suite_loads_no_harness() -> None:
    """At run time too: a lazy import or a re-export can't smuggle the harness in."""
    names = [_module_name(path) for path in _plugin_and_suite_modules() if path.name != "conftest.py"]
    script = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        f"loaded = sorted(m for m in sys.modules if m == {HARNESS!r} or m.startswith({HARNESS + '.'!r}))\n"
        "print(','.join(loaded))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert completed.stdout.strip() == "", f"importing the plugin and suite loaded {completed.stdout.strip()}"


def test_the_guard_sees_an_offending_import(tmp_path: Path) -> None:
    """The checker itself: imports at any depth, in every spelling, are found."""
    module = tmp_path / "m.py"
    module.write_text(
        "import reference_impl\n"
        "def f():\n"
        "    from reference_impl.permissions._engine import decide\n"
        "    import importlib\n"
        "    importlib.import_module('reference_impl.tools._tool')\n"
        "from reference_impl.search import _index\n",
        encoding="utf-8",
    )
    modules = [name for _, name in imported_modules(module)]
    assert sorted(m for m in modules if _is_harness_private(m)) == [
        "reference_impl.permissions._engine",
        "reference_impl.permissions._engine.decide",
        "reference_impl.search._index",
        "reference_impl.tools._tool",
    ]
    assert _is_harness("reference_impl")
    assert not _is_harness_private("reference_impl.tools")


def test_the_harness_has_few_top_level_modules() -> None:
    top = sorted(path.name for path in (ROOT / HARNESS).glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, f"reference_impl has {len(top)} top-level modules: {top}"
    packages = sorted(path.parent.name for path in (ROOT / HARNESS).glob("*/__init__.py"))
    assert packages, "reference_impl has no subpackages"


def _harness_packages() -> list[ModuleType]:
    names = sorted(path.parent.name for path in (ROOT / HARNESS).glob("*/__init__.py"))
    return [reference_impl, *(importlib.import_module(f"{HARNESS}.{name}") for name in names)]


def test_every_public_name_of_the_harness_is_importable_and_typed() -> None:
    """Each package's ``__all__`` resolves, without repeats; the top level is a small front door."""
    for package in _harness_packages():
        missing = [name for name in package.__all__ if not hasattr(package, name)]
        assert not missing, f"{package.__name__}.__all__ names what it lacks: {missing}"
        assert sorted(package.__all__) == sorted(set(package.__all__)), package.__name__
        assert (package.__doc__ or "").strip(), f"{package.__name__} has no docstring"
    assert len(reference_impl.__all__) <= MAX_TOP_LEVEL_NAMES, len(reference_impl.__all__)
    for needed in ("ToolInput", "ToolState", "Tool", "decide_permission", "RequestBuilder", "AgentSession"):
        assert needed in reference_impl.__all__
    # The top level only re-exports: each of its names is one of a subpackage's (the wire encoder aside).
    subpackage_names = {name for package in _harness_packages()[1:] for name in package.__all__}
    assert set(reference_impl.__all__) - subpackage_names == {"wire_bytes", "wire_json"}
    assert (ROOT / HARNESS / "py.typed").is_file()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values)
def test_the_plugin_encodes_the_wire_exactly_as_the_harness(value: object) -> None:
    """SNAP-2: the scripted server's and the snapshot's bytes are the harness's bytes (and the SDK's)."""
    assert plugin_wire_json(value) == reference_impl.wire_json(value)
    assert plugin_wire_bytes(value) == reference_impl.wire_bytes(value)
    assert json.loads(plugin_wire_json(value)) == json.loads(json.dumps(value))


@pytest.mark.parametrize("bad", [{1, 2}, frozenset({"a"}), {"k": {3}}, math.nan, math.inf])
def test_both_encoders_refuse_what_has_no_stable_or_valid_bytes(bad: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        plugin_wire_json(bad)
    with pytest.raises((TypeError, ValueError)):
        reference_impl.wire_json(bad)


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
