"""A package named on the command line from a path, an archive or a repository runs its own code (PERM-17).

``npm install ./x.tgz`` runs x's ``preinstall``, ``npm install git+ssh://...`` runs git and ssh, ``uv
add ./lib`` builds lib; cargo with ``net.git-fetch-with-cli`` fetches a git dependency with git (and
ssh). A registry spec (``lodash``, ``@types/node@^20``) stays as before. Real npm judges the tarball.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from tests.test_rules import BASH


def _decide(line: str, cwd: Path, deny: str = "Bash(nuke:*)", mode: str = "bypassPermissions") -> str:
    rules = (parse_rule(deny, "deny", "userSettings"),)
    return decide_permission(
        BASH, {"command": line}, PermissionContext(mode=mode, rules=rules, cwd=cwd)
    ).behavior


def test_a_local_tarball_runs_its_preinstall_for_real_and_is_asked(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    work, bin_dir = tmp_path / "work", tmp_path / "bin"
    (work / "t" / "package").mkdir(parents=True)
    bin_dir.mkdir()
    marker = tmp_path / "ran"
    (bin_dir / "nuke").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (bin_dir / "nuke").chmod(0o755)
    (work / "t" / "package" / "package.json").write_text(
        json.dumps({"name": "x", "version": "1.0.0", "scripts": {"preinstall": "nuke"}})
    )
    with tarfile.open(work / "x.tgz", "w:gz") as archive:
        archive.add(work / "t" / "package", arcname="package")
    shutil.rmtree(work / "t")
    (work / ".npmrc").write_text("offline=true\naudit=false\nfund=false\nupdate-notifier=false\n")
    line = "npm install --no-save ./x.tgz"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, timeout=120, check=False)
    assert marker.exists(), "npm did not run the tarball's preinstall"
    assert _decide(line, work) == "ask"


@pytest.mark.parametrize(
    "line",
    [
        "npm install ./x.tgz",
        "npm install x.tgz",
        "npm install ../dep",
        "npm i x@file:../d",
        "npm install --no-audit --no-fund git+ssh://git@example.invalid/r.git",
        "npm install user/repo",
        "npm install github:user/repo",
        "npm install https://example.invalid/x.tgz",
        "npm add x@user/repo#main",
        "npm pack ../x",
        "npm cache add ./x",
        "yarn add ./x",
        "pnpm add file:../x",
        "uv pip install ./x",
        "uv add ./x",
        "uv add git+https://example.invalid/r",
        "poetry add ../lib",
    ],
)
def test_a_package_from_source_is_asked(line: str, tmp_path: Path) -> None:
    assert _decide(line, tmp_path) == "ask", line


@pytest.mark.parametrize(
    "line",
    [
        "npm install lodash",
        "npm i -D @types/node",
        "npm install lodash@^4.17.0 react@18",
        "npm install x@npm:lodash@4",
        "npm install",
        "npm ci",
        "yarn add lodash",
        "pnpm add react@18",
        "uv add requests",
    ],
)
def test_a_registry_package_stays_allowed(line: str, tmp_path: Path) -> None:
    assert _decide(line, tmp_path) == "allow", line


def test_a_registry_looking_name_that_is_a_directory_here_is_from_source(tmp_path: Path) -> None:
    from reference_impl.permissions._project_hooks import npm_spec_from_source

    (tmp_path / "lib").mkdir()
    assert npm_spec_from_source("lib", str(tmp_path))
    assert not npm_spec_from_source("lodash", str(tmp_path))


@pytest.mark.parametrize("cli", ["config", "environment"])
def test_cargo_fetching_a_git_dependency_with_the_git_program(
    cli: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "cargo-home"))
    (tmp_path / "Cargo.toml").write_text(
        "[package]\nname='x'\nversion='0.1.0'\n[dependencies]\ny={git='ssh://git@example.invalid/r.git'}\n"
    )
    if cli == "config":
        (tmp_path / ".cargo").mkdir()
        (tmp_path / ".cargo" / "config.toml").write_text("[net]\ngit-fetch-with-cli=true\n")
    else:
        monkeypatch.setenv("CARGO_NET_GIT_FETCH_WITH_CLI", "true")
    assert _decide("cargo fetch --quiet", tmp_path, "Bash(ssh:*)") == "ask"
    assert _decide("cargo version", tmp_path, "Bash(ssh:*)") == "allow"


def test_cargo_fetch_without_the_git_program_stays_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "cargo-home"))
    monkeypatch.delenv("CARGO_NET_GIT_FETCH_WITH_CLI", raising=False)
    (tmp_path / "Cargo.toml").write_text(
        "[package]\nname='x'\nversion='0.1.0'\n[dependencies]\ny={git='ssh://git@example.invalid/r.git'}\n"
    )
    assert _decide("cargo fetch --quiet", tmp_path, "Bash(ssh:*)") == "allow"
