"""Code a package or toolchain manager runs, named by an option or a project file (PERM-17, PERM-15).

pip's options whose value names an interpreter (``--python``: pip runs itself again under it) or a
place it finds distributions in (``--find-links``, ``--index-url``: a local one's sdists are built),
in any spelling optparse reads; a local wheel ``pip install --target`` unpacks; rustup's
``rust-toolchain(.toml)`` naming a toolchain by its path (``cargo`` is rustup's proxy). Session 33's
red team (specs 37, 38, 41-45, 84, 87).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from reference_impl.permissions import PermissionContext, decide_permission, rules_from_strings
from tests.test_rules import BASH

_SDIST = {"d/x-1.0.tar.gz": "not read: its build backend would run"}


def _decide(line: str, files: dict[str, str], tmp_path: Path, mode: str = "default", allow: str = "") -> str:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text.replace("@P@", str(tmp_path)), encoding="utf-8")
    rules = (*rules_from_strings(["Bash(nuke:*)"], "deny", "userSettings"),)
    if allow:
        rules += tuple(rules_from_strings([allow], "allow", "userSettings"))
    context = PermissionContext(mode=mode, rules=rules, cwd=tmp_path, project_root=tmp_path)
    return decide_permission(BASH, {"command": line.replace("@P@", str(tmp_path))}, context).behavior


@pytest.mark.parametrize(
    ("line", "files"),
    [
        ("pip --python=./evil list", {"evil": "#!/bin/sh\nnuke\n"}),
        ("python3 -m pip --python ./evil list", {"evil": "#!/bin/sh\nnuke\n"}),
        ("pip --python=v freeze", {"v/bin/python": "#!/bin/sh\nnuke\n"}),
        ("pip --pyth ./evil list", {"evil": "#!/bin/sh\nnuke\n"}),
        ("pip install --no-index -f ./d x", _SDIST),
        ("pip install --no-index -fd x", _SDIST),
        ("pip install --no-index -qf d x", _SDIST),
        ("pip download --no-index --find-links d x -d out", _SDIST),
        ("pip install --find-l=d x", _SDIST),
        ("pip wheel -i file://@P@/simple x", {"simple/x/index.html": ""}),
        ("pip install --extra-index-url ./simple x", {"simple/x/index.html": ""}),
        ("pip install -r req.txt", {**_SDIST, "req.txt": "--no-index\n--find-links ./d\nx\n"}),
        ("cargo --version", {"rust-toolchain": "@P@/tc\n", "tc/bin/cargo": "#!/bin/sh\nnuke\n"}),
        ("cargo version", {"rust-toolchain.toml": '[toolchain]\npath = "@P@/tc"\n'}),
        ("rustc -V", {"rust-toolchain.toml": '[toolchain]\nchannel = "../tc"\n'}),
        ("cargo --version", {"rust-toolchain.toml": "[toolchain\n"}),
        ("cargo +/opt/tc --version", {}),
    ],
)
def test_code_an_option_or_a_toolchain_file_names_is_not_read(
    tmp_path: Path, line: str, files: dict[str, str]
) -> None:
    """PERM-17: under a deny rule the named code could meet, the line asks, whatever allows the tool."""
    program = line.split()[0]
    assert _decide(line, files, tmp_path, allow=f"Bash({program}:*)") == "ask", line


@pytest.mark.parametrize(
    ("line", "files"),
    [
        ("pip list", {}),
        ("pip install -r requirements.txt", {"requirements.txt": "requests==2.0\n"}),
        ("pip install --pre requests", {}),
        ("pip install --python-version 3.11 --only-binary=:all: -d out x", {}),
        ("pip install -i https://pypi.org/simple requests", {}),
        ("pip install --no-index -f w six", {"w/six-1.0-py3-none-any.whl": ""}),
        ("pip wheel -w w --find-links w six", {"w/.keep": ""}),
        ("cargo --version", {"rust-toolchain.toml": '[toolchain]\nchannel = "1.80"\n'}),
        ("cargo --version", {"rust-toolchain": "stable\n"}),
        ("rustc --version", {}),
    ],
)
def test_everyday_lines_are_not_asked(tmp_path: Path, line: str, files: dict[str, str]) -> None:
    """The index, a channel by name, a requirements file of names: nothing the project holds runs."""
    program = line.split()[0]
    assert _decide(line, files, tmp_path, allow=f"Bash({program}:*)") == "allow", line


def _wheel(path: Path, member: str) -> None:
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(member, "{}")
        wheel.writestr("x-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: x\nVersion: 1.0\n")


@pytest.mark.parametrize(
    ("line", "member", "behavior"),
    [
        ("pip install --no-deps --target . x-1.0-py3-none-any.whl", ".claude/settings.json", "ask"),
        ("python3 -m pip install -t. x-1.0-py3-none-any.whl", ".git/hooks/pre-commit", "ask"),
        ("pip install --targ=. x-1.0-py3-none-any.whl", ".bashrc", "ask"),
        ("pip install --prefix . x-1.0-py3-none-any.whl", "x/__init__.py", "ask"),
        ("pip install --prefix=. -f . x", "x/__init__.py", "ask"),
        ("pip install --target . requests", "x/__init__.py", "allow"),
        ("pip install --target build x-1.0-py3-none-any.whl", "x/__init__.py", "allow"),
        ("pip install x-1.0-py3-none-any.whl", ".claude/settings.json", "allow"),
    ],
)
def test_a_wheel_installed_into_the_project_writes_its_members(
    tmp_path: Path, line: str, member: str, behavior: str
) -> None:
    """PERM-15: ``--target``'s members are judged as an archive's; a prefix's local ones unknown; the index's not judged."""
    _wheel(tmp_path / "x-1.0-py3-none-any.whl", member)
    assert _decide(line, {}, tmp_path, mode="bypassPermissions") == behavior, line


@pytest.mark.parametrize(
    ("shims", "files", "behavior"),
    [
        (".asdf/shims", {".tool-versions": "nodejs path:@P@/tc\n"}, "ask"),
        (".asdf/shims", {".tool-versions": "nodejs 20.1.0\n"}, "allow"),
        (".nodenv/shims", {".node-version": "../../tc\n"}, "ask"),
        (".local/share/mise/shims", {"mise.toml": "[tools]\nnode = '20'\n"}, "ask"),
        (".local/share/mise/shims", {}, "allow"),
    ],
)
def test_a_version_managers_shim_runs_what_the_project_file_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shims: str, files: dict[str, str], behavior: str
) -> None:
    """PERM-17: ``node -v`` run by asdf's (mise's, nodenv's) shim: a version named by a path is the project's program."""
    shim = tmp_path / "home" / shims / "node"
    shim.parent.mkdir(parents=True)
    shim.write_text("#!/bin/sh\n", encoding="utf-8")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim.parent}:/usr/bin:/bin")
    work = tmp_path / "work"
    work.mkdir()
    assert _decide("node -v", files, work, allow="Bash(node:*)") == behavior
