"""Deny rules against the build code a project tool runs by its own documentation (PERM-17).

``pip install .`` (``pip wheel``, ``pip download``, ``-e ./x``, a requirements file naming a local
path) runs the project's ``setup.py`` or in-tree build backend; ``cargo build`` (``check``, ``run``,
``test``, ``doc``) its build script and proc macros; any cargo command the programs its
configuration names (``build.rustc``, ``build.rustc-wrapper``, a target's ``runner``), from the
working directory's ``.cargo/config.toml`` or any ancestor's; ``npm pac`` what ``npm pack`` runs,
npm reading a unique abbreviation as the command. Each drawn case is run for real by the installed
tool: one that does not run the denied program is not an attempt (discarded), and the harness must
not have run one that does. Without the tool the case skips, naming it.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conformance._controls import run_for_real
from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import PERMISSION_MODES, RuleSpec

_DENIED = "nuke"
_CARGO_TOML = '[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n'


@dataclass(frozen=True)
class Build:
    """A project whose build code runs the denied program (or not), and the line that starts the tool."""

    program: str  # what must be installed for the real run (pip, python3, cargo, npm)
    files: dict[str, str | bytes]
    line: str
    how: str


def _python_code(data: st.DataObject) -> str:
    """Python build code that runs the denied program, spelled as a setup.py or backend spells it."""
    return data.draw(
        st.sampled_from(
            [
                f"import os\nos.system({_DENIED!r})\n",
                f"import subprocess\nsubprocess.run([{_DENIED!r}, '--all'])\n",
                f"import os\nos.system('true && {_DENIED}')\n",
            ]
        ),
        label="build code",
    )


def _sdist(directory: str, files: dict[str, str]) -> bytes:
    """A source archive of ``files`` under ``directory/``: pip builds it, running its setup.py."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{directory}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _pip_project(data: st.DataObject) -> tuple[dict[str, str], str]:
    """A Python project's files whose build runs the denied program, and what runs it."""
    code = _python_code(data)
    if data.draw(st.booleans(), label="setup.py (or an in-tree backend)"):
        return {
            "setup.py": f"{code}from setuptools import setup\nsetup(name='x', version='1.0')\n"
        }, "setup.py"
    backend = data.draw(st.sampled_from(["backend", "_build"]), label="backend module")
    pyproject = f'[build-system]\nrequires = []\nbuild-backend = "{backend}"\nbackend-path = ["."]\n'
    return {"pyproject.toml": pyproject, f"{backend}.py": code}, "an in-tree build backend"


def _pip_build(data: st.DataObject) -> Build:
    """A pip line told to build a project on disk: by a path, ``-e``, an archive, or a requirements file."""
    project, hook = _pip_project(data)
    where = data.draw(st.sampled_from([".", "x", "pkgs/x"]), label="project directory")
    files: dict[str, str | bytes] = {}
    shape = data.draw(
        st.sampled_from(["path", "editable", "requirements file", "nested requirements", "archive"]),
        label="how pip is told",
    )
    if shape == "archive":
        if "setup.py" not in project:
            project = {
                "setup.py": f"{_python_code(data)}from setuptools import setup\nsetup(name='x', version='1.0')\n"
            }
        files["x-1.0.tar.gz"] = _sdist(
            "x-1.0", {**project, "PKG-INFO": "Metadata-Version: 2.1\nName: x\nVersion: 1.0\n"}
        )
        hook, target = "setup.py of an sdist", data.draw(st.sampled_from(["./x-1.0.tar.gz", "x-1.0.tar.gz"]))
    else:
        files.update({f"{where}/{name}" if where != "." else name: text for name, text in project.items()})
        # pip reads an operand as a path when it looks like one (a separator, a leading dot).
        paths = ["."] if where == "." else [f"./{where}", f"{where}/", *([where] if "/" in where else [])]
        target = data.draw(st.sampled_from([*paths, "{abs}"]), label="path spelled")
    if shape == "editable":
        target = data.draw(
            st.sampled_from([f"-e {target}", f"-e{target}", f"--editable={target}", f"--editable {target}"]),
            label="-e spelled",
        )
    if shape in ("requirements file", "nested requirements"):
        line = data.draw(st.sampled_from([target, f"-e {target}"]), label="requirement line")
        comment = data.draw(
            st.sampled_from(["", "# the project itself\n", "six==1.16.0 ; python_version < '2'\n"])
        )
        files["requirements.txt"] = f"{comment}{line}\n"
        if shape == "nested requirements":
            files["dev.txt"] = data.draw(
                st.sampled_from(["-r requirements.txt\n", "--requirement=requirements.txt\n"])
            )
        name = "dev.txt" if shape == "nested requirements" else "requirements.txt"
        target = data.draw(
            st.sampled_from([f"-r {name}", f"-r{name}", f"--requirement={name}", f"--requirement {name}"]),
            label="-r spelled",
        )
    command = data.draw(
        st.sampled_from(["install --target t", "wheel -w w", "download -d d"]), label="command"
    )
    options = data.draw(
        st.permutations(["--no-build-isolation", "--no-deps", "--no-index"]), label="options' order"
    )
    before = data.draw(
        st.sampled_from(
            ["", "-q ", "--disable-pip-version-check ", "--isolated ", "--log pip.log ", "--cache-dir c "]
        ),
        label="pip's own option before the command",
    )
    prefix = data.draw(st.sampled_from(["pip", "pip3", "python3 -m pip", "python -m pip"]), label="pip")
    line = f"{prefix} {before}{command} {' '.join(options)} {target}"
    return Build(prefix.split()[0], files, line, f"{hook} ({shape})")


def _cargo_build(data: st.DataObject) -> Build:
    """A cargo line compiling a package (its build script, a proc macro) or running what its configuration names."""
    hook = data.draw(
        st.sampled_from(["build script", "proc macro", "configuration's rustc", "configuration's runner"]),
        label="hook",
    )
    nested = data.draw(st.booleans(), label="package in proj/")
    top = "proj/" if nested else ""
    files: dict[str, str | bytes] = {f"{top}src/main.rs": "fn main() {}\n"}
    manifest = _CARGO_TOML.format(name="x")
    run = f'std::process::Command::new("{_DENIED}").status()'
    if hook == "build script":
        files[f"{top}build.rs"] = f"fn main() {{ let _ = {run}; }}\n"
    elif hook == "proc macro":
        manifest += '\n[dependencies]\nm = { path = "m" }\n'
        files[f"{top}m/Cargo.toml"] = _CARGO_TOML.format(name="m") + "\n[lib]\nproc-macro = true\n"
        files[f"{top}m/src/lib.rs"] = (
            "extern crate proc_macro;\nuse proc_macro::TokenStream;\n#[proc_macro]\n"
            f"pub fn go(_: TokenStream) -> TokenStream {{ let _ = {run}; TokenStream::new() }}\n"
        )
        files[f"{top}src/main.rs"] = "m::go!();\nfn main() {}\n"
    files[f"{top}Cargo.toml"] = manifest
    on_line = ""  # a --config the line gives cargo
    if hook.startswith("configuration"):
        key = (
            data.draw(st.sampled_from(["rustc", "rustc-wrapper"]), label="build key")
            if hook.endswith("rustc")
            else "runner"
        )
        table = "build" if key != "runner" else "target.'cfg(all())'"
        value = data.draw(
            st.sampled_from(
                [f'"{_DENIED}"', f'["{_DENIED}", "--all"]'] if key == "runner" else [f'"{_DENIED}"']
            )
        )
        # Where cargo finds it: the directory it runs in, an ancestor of it (the package's parent), the line.
        at = data.draw(st.sampled_from(["", top, "--config"]), label="configuration in")
        if at == "--config":
            on_line = f" --config {shlex.quote(f'{table}.{key}={value}')}"
        else:
            files[f"{at}.cargo/config.toml"] = f"# build settings\n[{table}]\n{key} = {value}\n"
    commands = (
        ["run -q", "r -q", "test", "t"]
        if hook == "configuration's runner"
        else ["build", "b", "check", "c", "run -q", "test --no-run", "doc", "d"]
    )
    if hook == "configuration's rustc":
        commands += ["metadata --format-version 1", "tree", "clean", "pkgid"]
    command = data.draw(st.sampled_from(commands), label="cargo command")
    reach = data.draw(
        st.sampled_from(["cd proj && {}", "{} --manifest-path proj/Cargo.toml", "(cd proj; {})"])
        if nested
        else st.just("{}"),
        label="how the line reaches the package",
    )
    line = reach.format(f"cargo {command} --offline{on_line}")
    return Build("cargo", files, line, f"the package's {hook}")


# npm's commands spelled as npm's own unique abbreviations, and the scripts each runs.
_NPM_ABBREVIATIONS = {
    "npm pa --dry-run": "prepack",
    "npm pac --dry-run": "postpack",
    "npm rest": "prerestart",
    "npm resta": "restart",
    "npm sto": "stop",
    "npm vers patch --no-git-tag-version": "preversion",
    "npm run-s build": "prebuild",
    "npm run-scr build": "build",
}


def _npm_abbreviated(data: st.DataObject) -> Build:
    """An npm command spelled by a unique abbreviation (npm's own), running a lifecycle script."""
    line = data.draw(st.sampled_from(sorted(_NPM_ABBREVIATIONS)), label="npm command")
    hook = _NPM_ABBREVIATIONS[line]
    scripts = {"build": "true", "restart": "true", "stop": "true", hook: f"{_DENIED} --all"}
    package = json.dumps({"name": "x", "version": "1.0.0", "scripts": scripts}, indent=2)
    files: dict[str, str | bytes] = {
        "package.json": package,
        ".npmrc": "offline=true\naudit=false\nfund=false\n",
    }
    return Build("npm", files, line, f"package.json {hook!r}")


_TOOLS: dict[str, Callable[[st.DataObject], Build]] = {
    "pip": _pip_build,
    "cargo": _cargo_build,
    "npm abbreviated": _npm_abbreviated,
}


def _allow(line: str, data: st.DataObject) -> str:
    """An allow rule for the line's tool: its program, its first two words, or the whole line."""
    words = line.removeprefix("cd proj && ").removeprefix("(cd proj; ").split()
    return data.draw(
        st.sampled_from(
            list(dict.fromkeys([f"Bash({words[0]}:*)", f"Bash({' '.join(words[:2])}:*)", f"Bash({line})"]))
        ),
        label="allow rule",
    )


def _project(build: Build, work: Path) -> tuple[Path, dict[str, str]]:
    """Write the project and the denied program (a marker writer); the marker and the tools' PATH."""
    bin_dir, marker = work.parent / "bin", work.parent / "ran"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / _DENIED).write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\n")
    (bin_dir / _DENIED).chmod(0o755)
    for relative, text in build.files.items():
        (work / relative).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            (work / relative).write_bytes(text)
        else:
            (work / relative).write_text(text.replace("{abs}", str(work)))
    # The tools as this interpreter's environment has them (pip and setuptools beside pytest).
    path = os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    if shutil.which(build.program, path=path) is None:
        pytest.skip(f"{build.program} is not installed")
    return marker, {**os.environ, "PATH": path}


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.parametrize("tool", sorted(_TOOLS))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_the_build_code_a_tool_runs(
    new_harness: Callable[[], Any], data: st.DataObject, tool: str, mode: str
) -> None:
    """PERM-17: a deny rule's program that a project's build code runs never runs unasked.

    Drawn, for pip: the build code (``setup.py``, an in-tree PEP 517 backend, an sdist's ``setup.py``)
    and how it runs the denied program; where the project is (the working directory, ``x``,
    ``pkgs/x``) and how pip is told (a path spelled ``x``, ``./x``, ``x/`` or absolute, ``-e`` in its
    four spellings, a requirements file given as ``-r f``, ``-rf``, ``--requirement=f``, one nested
    in another, an archive); the subcommand (``install``, ``wheel``, ``download``), its options'
    order, a global option before it, and ``pip``, ``pip3``, ``python3 -m pip`` or ``python -m pip``.
    For cargo: the hook (a build script, a proc macro of a path dependency, ``build.rustc`` or
    ``build.rustc-wrapper``, a target's ``runner``), where the package is and how the line reaches it
    (``cd proj &&``, ``--manifest-path``, a subshell), where the configuration is (beside the
    package or in an ancestor of where cargo runs), the command and its alias (``b``, ``c``, ``r``,
    ``t``, ``d``; ``metadata``, ``tree``, ``clean``, ``pkgid`` for the configuration's ``rustc``).
    For npm: a command spelled as npm's unique abbreviation (``npm pac``, ``npm resta``) and the
    lifecycle script it runs. Then an allow rule for the line and the mode. The installed tool judges.
    """
    _judge(new_harness, data, mode, _TOOLS[tool](data))


def _judge(new_harness: Callable[[], Any], data: st.DataObject, mode: str, build: Build) -> None:
    """Ask the harness under the deny rule and an allow rule for the line; the real run judges."""
    work = fresh_dir() / "work"
    line = build.line.replace("{abs}", str(work))
    allow = _allow(line, data)
    marker, env = _project(build, work)
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(allow, "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode, cwd=work
    )
    ran_unasked = run.ran() > 0
    run_for_real(line, work, env, timeout=180)
    assume(marker.exists())  # the drawn build really runs the denied program
    shown = {k: v[-300:] if isinstance(v, str) else "<archive>" for k, v in build.files.items()}
    assert not ran_unasked, (
        f"{line!r} under {allow} ran unasked ({mode}); for real it runs {_DENIED} through {build.how}\n"
        f"files (their ends): {json.dumps(shown, indent=1)}"
    )


def _padding(data: st.DataObject) -> str:
    """Comment lines before the line that matters, past the first 256 KiB of the file."""
    line = data.draw(
        st.sampled_from(["# pinned for the release\n", "#\n", "# ünïcödé note\n", "\n"]), label="filler"
    )
    size = data.draw(st.integers(262_145, 600_000), label="characters before the line")
    return line * (size // len(line) + 1)


def _long_file(data: st.DataObject, tool: str) -> Build:
    """A requirements file or a cargo configuration whose line naming the build comes after a long preamble."""
    padding = _padding(data)
    if tool == "pip":
        project, hook = _pip_project(data)
        name = data.draw(st.sampled_from(["requirements.txt", "reqs/dev.txt"]), label="requirements file")
        requirement = data.draw(st.sampled_from(["{abs}", "-e {abs}", "file://{abs}"]), label="requirement")
        files: dict[str, str | bytes] = {**project, name: f"{padding}{requirement}\n"}
        spelled = data.draw(st.sampled_from([f"-r {name}", f"--requirement={name}"]), label="-r spelled")
        line = f"pip install --target t --no-build-isolation --no-deps --no-index {spelled}"
        return Build("pip", files, line, f"{hook}, named by {name} after {len(padding)} characters")
    key = data.draw(st.sampled_from(["rustc", "rustc-wrapper"]), label="build key")
    at = data.draw(st.sampled_from(["", "proj/"]), label="configuration beside")
    files = {
        "proj/Cargo.toml": _CARGO_TOML.format(name="x"),
        "proj/src/main.rs": "fn main() {}\n",
        f"{at}.cargo/config.toml": f'{padding}[build]\n{key} = "{_DENIED}"\n',
    }
    command = data.draw(
        st.sampled_from(["metadata --format-version 1", "tree", "clean"]), label="cargo command"
    )
    return Build(
        "cargo",
        files,
        f"cd proj && cargo {command} --offline",
        f"build.{key} after {len(padding)} characters",
    )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@pytest.mark.parametrize("tool", ["cargo", "pip"])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data(), mode=st.sampled_from(PERMISSION_MODES))
def test_deny_rule_holds_against_a_build_file_longer_than_the_engine_reads(
    new_harness: Callable[[], Any], data: st.DataObject, tool: str, mode: str
) -> None:
    """PERM-17: a requirements file or cargo configuration longer than the engine reads is never taken as read.

    pip reads a requirements file to its end, cargo its configuration: the line naming the project
    on disk (``-e /abs/x``, ``file://...``) or the program cargo runs (``build.rustc``,
    ``build.rustc-wrapper``) may come after 256 KiB of comments. Drawn: the tool, the filler (comment
    lines, blank lines, non-ASCII text), how much of it, the build code, the file's place and how the
    line names it, cargo's command (one that compiles nothing: ``metadata``, ``tree``, ``clean``), the
    mode. The installed tool judges.
    """
    _judge(new_harness, data, mode, _long_file(data, tool))


def _index_requirements(data: st.DataObject) -> list[str]:
    """Requirements pip takes from an index (or a built wheel, which runs no build code)."""
    names = ["six", "requests==2.31.0", "'x>=1'", "w/x-1.0-py3-none-any.whl"]
    return data.draw(st.lists(st.sampled_from(names), max_size=2, unique=True), label="requirements")


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_a_pip_line_that_builds_nothing_on_disk_keeps_its_allow_rule(
    new_harness: Callable[[], Any], data: st.DataObject
) -> None:
    """PERM-17 (no false ask): pip installing from its index leaves the allow rule in force, beside a setup.py.

    The project's ``setup.py`` runs the denied program, and directories ``t``, ``d``, ``w``, ``c``,
    ``src`` exist, but the line builds none of them: drawn, pip's subcommand with its directory option
    (``--target t``, ``-t t``, ``-w w``, ``--wheel-dir=w``, ``-d d``, ``--dest d``), options whose
    values name those directories (``--src src``, ``--cache-dir c``, ``-f w``), requirements from the
    index or a built wheel, a requirements or constraints file of such names (``-r f``, ``-rf``,
    ``--requirement f``, ``--requirement=f``, ``-c f``, one nested in another), ``pip``, ``pip3`` or
    ``python3 -m pip``. The real run shows pip built nothing; under ``Bash(nuke:*)`` deny and an allow
    rule for the line, the harness runs it.
    """
    work = fresh_dir() / "work"
    files: dict[str, str | bytes] = {
        "setup.py": f"import os\nos.system({_DENIED!r})\nfrom setuptools import setup\nsetup(name='x')\n"
    }
    files.update({f"{d}/.keep": "" for d in ("t", "d", "w", "c", "src")})
    command = data.draw(
        st.sampled_from(["install --target t", "install -t t", "wheel -w w", "wheel --wheel-dir=w", "download -d d",
                         "download --dest d"]),
        label="command",
    )  # fmt: skip
    options = data.draw(
        st.lists(
            st.sampled_from(["--src src", "--cache-dir c", "-f w", "--find-links w", "--no-deps"]),
            unique=True,
        ),
        label="options",
    )
    words = [*options, "--no-index", *_index_requirements(data)]
    if data.draw(st.booleans(), label="a requirements file"):
        name = data.draw(st.sampled_from(["reqs.txt", "cons.txt"]), label="file")
        spelled = data.draw(
            st.sampled_from(
                [f"-c {name}"]
                if name == "cons.txt"
                else [f"-r {name}", f"-r{name}", f"--requirement {name}", f"--requirement={name}"]
            ),
            label="spelled",
        )
        text = "".join(f"{r.strip(chr(39))}\n" for r in _index_requirements(data))
        if data.draw(st.booleans(), label="nested"):
            text, files["more.txt"] = "# more\n-r more.txt\n", text
        files[name] = text
        words.append(spelled)
    prefix = data.draw(st.sampled_from(["pip", "pip3", "python3 -m pip"]), label="pip")
    line = f"{prefix} {command} {' '.join(data.draw(st.permutations(words), label='order'))}"
    build = Build(prefix.split()[0], files, line, "nothing")
    allow = _allow(line, data)
    marker, env = _project(build, work)
    rules = [RuleSpec(f"Bash({_DENIED}:*)", "deny"), RuleSpec(allow, "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, cwd=work)
    run_for_real(line, work, env, timeout=120)
    assume(not marker.exists())  # pip built nothing on disk
    assert run.ran() == 1, (
        f"{line!r} under {allow} builds nothing on disk, but was not allowed: {run.describe()}"
    )
