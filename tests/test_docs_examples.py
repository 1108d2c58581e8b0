"""The code in README.md and docs/*.md runs, and the documented adapter passes the suite it declares.

Convention: every fenced ``python`` block is executed, in order, in one namespace per document, with a
temporary directory as the current directory and on ``sys.path``. A block right after
``<!-- not-run: reason -->`` is not executed (only compiled). A block right after
``<!-- file: PATH -->`` is written to ``PATH`` instead (importable by the blocks after it); the tests
below also run those files: the adapter of docs/adapters.md through the conformance suite, the wire
test of docs/wire.md through the plugin.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

# Imported so pytester's in-process runs find Hypothesis loaded instead of re-importing it each run.
import hypothesis  # noqa: F401
import pytest

from pytest_toolharness.adapters import CAPABILITIES
from tests.test_option_target import FAKE_HARNESS

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w+-]*)\s*$")
_DIRECTIVE = re.compile(r"^\s*<!--\s*(?P<kind>not-run|file):\s*(?P<value>.+?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced python block: where it starts, its code, and the directive before it."""

    document: str
    line: int
    code: str
    file: str | None = None
    not_run: str | None = None


def python_blocks(text: str, document: str = "<text>") -> list[Block]:
    """The fenced ``python`` blocks of a Markdown text, dedented, with their directives."""
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        if opening["lang"] == "python":
            indent = len(opening["indent"])
            code = "\n".join(line[indent:] for line in lines[index + 1 : end]) + "\n"
            before = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
            directive = _DIRECTIVE.match(before)
            kind, value = (directive["kind"], directive["value"]) if directive else (None, None)
            blocks.append(
                Block(
                    document,
                    index + 2,
                    code,
                    file=value if kind == "file" else None,
                    not_run=value if kind == "not-run" else None,
                )
            )
        index = end + 1
    return blocks


def blocks_of(path: Path) -> list[Block]:
    return python_blocks(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))


def write_files(blocks: list[Block], directory: Path) -> list[Path]:
    written = []
    for block in blocks:
        if block.file is not None:
            path = directory / block.file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.code, encoding="utf-8")
            written.append(path)
    return written


def test_the_block_parser_honours_the_directives() -> None:
    text = (
        "```python\nx = 1\n```\n\n<!-- not-run: needs a GPU -->\n```python\nraise SystemExit\n```\n"
        "<!-- file: pkg/mod.py -->\n\n  ```python\n  y = 2\n  ```\n```toml\nz = 3\n```\n"
    )
    assert python_blocks(text) == [
        Block("<text>", 2, "x = 1\n"),
        Block("<text>", 7, "raise SystemExit\n", not_run="needs a GPU"),
        Block("<text>", 12, "y = 2\n", file="pkg/mod.py"),
    ]


@pytest.mark.parametrize(
    "document", [d for d in DOCUMENTS if blocks_of(d)], ids=lambda p: str(p.relative_to(ROOT))
)
def test_python_blocks_run(document: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = blocks_of(document)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    write_files(blocks, tmp_path)
    before = set(sys.modules)
    namespace: dict[str, object] = {"__name__": f"docs_example_{document.stem}"}
    try:
        for block in blocks:
            # Padded so that a traceback shows the document's own line numbers.
            code = compile("\n" * (block.line - 1) + block.code, block.document, "exec")
            if block.file is None and block.not_run is None:
                exec(code, namespace)
    finally:
        for name in set(sys.modules) - before:
            if str(tmp_path) in str(getattr(sys.modules[name], "__file__", None) or ""):
                del sys.modules[name]


def test_every_documented_block_is_run_or_says_why() -> None:
    blocks = [block for document in DOCUMENTS for block in blocks_of(document)]
    assert len(blocks) >= 15, f"expected the docs' python examples, found {len(blocks)}"
    assert [b.document for b in blocks if b.file == "my_agent/testing.py"] == ["docs/adapters.md"]
    assert [b.document for b in blocks if b.file == "test_echo_wire.py"] == ["docs/wire.md"]


def _backticked(text: str) -> list[str]:
    return re.findall(r"`([a-z_]+)`", text)


def test_documented_capability_names_are_the_table() -> None:
    adapters = (ROOT / "docs" / "adapters.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+)` \|", adapters, flags=re.MULTILINE)
    assert rows == list(CAPABILITIES), "docs/adapters.md's capability table is not CAPABILITIES"
    plugin = (ROOT / "docs" / "plugin.md").read_text(encoding="utf-8")
    known = re.search(r"Known names \([^)]*\): (?P<names>.+?)\.\n", plugin, flags=re.DOTALL)
    assert known is not None, "docs/plugin.md lost its 'Known names (...): ...' sentence"
    assert _backticked(known["names"]) == list(CAPABILITIES)
    for name, capability in CAPABILITIES.items():
        row = next(line for line in adapters.splitlines() if line.startswith(f"| `{name}` |"))
        for method in capability.methods:
            assert f"`{method}" in row or f"`async {method}" in row, f"{name}: {method} is not documented"
        if capability.protocol is not None:
            assert f"`{capability.protocol.__name__}`" in row
        elif capability.feature_of is not None:
            method = CAPABILITIES[capability.feature_of].methods[0]
            assert f"feature of `{method}()`" in row


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    # Inner runs must not append to a real CI step summary.
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def test_the_adapter_example_checks_what_it_declares(pytester: pytest.Pytester) -> None:
    write_files(blocks_of(ROOT / "docs" / "adapters.md"), pytester.path)
    result = pytester.runpytest_subprocess(
        "--toolharness-conformance",
        "--toolharness-adapter=my_agent.testing:toolharness_adapter",
        "--toolharness-report=report.json",
        "-p",
        "no:cacheprovider",
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 5, result.stdout.str()
    assert not {"failed", "errors", "error"} & set(outcomes), result.stdout.str()
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    statuses = {r["id"]: r["status"] for r in report["requirements"]}
    # As docs/adapters.md says: pool and classification check two, CACHE-2 partly (one of its tests needs
    # schemas), the rest is not checked (core) or not claimed (claude-code).
    assert statuses["DEFER-1"] == "passed"
    assert {statuses["CACHE-2"], statuses["PERM-10"]} <= {"passed", "partially checked"}
    assert {s for i, s in statuses.items() if i not in {"CACHE-2", "DEFER-1", "PERM-10"}} == {"not checked"}


def test_the_wire_example_runs_against_a_target(pytester: pytest.Pytester) -> None:
    [test_file] = write_files(blocks_of(ROOT / "docs" / "wire.md"), pytester.path)
    fake = pytester.path / "fake_harness.py"
    fake.write_text(FAKE_HARNESS, encoding="utf-8")
    template = f"{shlex.quote(sys.executable)} {shlex.quote(str(fake))} good {{prompt}}"
    result = pytester.runpytest(f"--toolharness-target={template}", str(test_file), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
