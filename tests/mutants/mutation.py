"""Automatic mutation testing of one ``reference_impl`` module with cosmic-ray, against its requirements only.

    pip install 'cosmic-ray==8.7.0'
    python tests/mutants/mutation.py reference_impl/request/_notices.py --jobs 2
    python tests/mutants/mutation.py reference_impl/execution/_results.py --jobs 2 --out build/mutation

For each module, :data:`MODULE_REQUIREMENTS` names the requirement IDs whose tests exercise it; each
cosmic-ray mutant (one operator applied at one place) runs only those tests
(``--toolharness-requirement=ID``, strict level, ``--exitfirst``, the derandomised
``toolharness-mutants`` profile), so a mutant is killed when a conformance test of the module's own
requirements fails.

The work tree is never mutated: each job gets a copy of the project (tracked and untracked,
non-ignored files, as they are in the work tree) under ``--out``, and cosmic-ray mutates and tests
there (one ``local`` run for ``--jobs 1``, ``http`` workers otherwise, one per copy). The session
database (``<out>/<module>.sqlite``), cosmic-ray's report (``<out>/<module>.txt``) and the survivors'
diffs (``<out>/<module>-survivors.md``) are written under ``--out``; the last line printed is
``<module>: K/N killed (P%), S survived, T timeouts``.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent

__all__ = ["MODULE_REQUIREMENTS", "main", "suite_command"]

# Which requirements' tests exercise each module (the conformance suite's own view of it).
MODULE_REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "reference_impl/request/_notices.py": ("DEFER-3", "DELTA"),
    "reference_impl/execution/_results.py": ("RESULT", "PAIR-4"),
    "reference_impl/request/_builder.py": ("DEFER-2", "DEFER-6", "DEFER-8", "CACHE", "PAIR-6"),
    "reference_impl/request/_cache_keys.py": ("CACHE",),
    "reference_impl/request/_schemas.py": ("CACHE-3", "CACHE-4", "SNAP"),
    "reference_impl/request/_discovery.py": ("DEFER-7",),
    "reference_impl/search/_toolsearch.py": ("DEFER-4", "DEFER-5"),
    "reference_impl/search/_index.py": ("DEFER-5",),
    "reference_impl/tools/_defer.py": ("DEFER-1", "DEFER-8"),
    "reference_impl/tools/_pool.py": ("CACHE-2",),
    "reference_impl/execution/_scheduler.py": ("CONC", "PAIR"),
    "reference_impl/execution/_pipeline.py": ("EXEC", "PAIR"),
    "reference_impl/permissions/_engine.py": ("PERM",),
}


def suite_command(requirements: tuple[str, ...]) -> str:
    """The pytest command cosmic-ray runs per mutant: the requirements' conformance tests, first failure stops."""
    selected = " ".join(f"--toolharness-requirement={rid}" for rid in requirements)
    return (
        f"{sys.executable} -m pytest --toolharness-conformance --toolharness-level=strict {selected} "
        "--hypothesis-profile=toolharness-mutants -p no:cacheprovider -x -q --no-header conformance"
    )


def _project_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name and (PROJECT_ROOT / name).is_file()]


def _copy_project(destination: Path) -> None:
    if destination.exists():
        shutil.rmtree(destination)
    for name in _project_files():
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT_ROOT / name, target)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _config(module: str, requirements: tuple[str, ...], timeout: float, workers: list[str]) -> str:
    distributor = (
        '[cosmic-ray.distributor]\nname = "local"\n'
        if not workers
        else '[cosmic-ray.distributor]\nname = "http"\n\n[cosmic-ray.distributor.http]\nworker-urls = '
        + json.dumps(workers)
        + "\n"
    )
    return (
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(module)}\n"
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(suite_command(requirements))}\n\n" + distributor
    )


def _environment(copy: Path) -> dict[str, str]:
    # The copy's packages, not the editable install's (which points at the work tree).
    env = dict(os.environ)
    env["PYTHONPATH"] = str(copy)
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("CI", None)
    return env


def _cosmic_ray(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    executable = str(Path(sys.executable).parent / "cosmic-ray")
    return subprocess.run([executable, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _outcomes(session: Path, cwd: Path, env: dict[str, str]) -> list[dict[str, object]]:
    dumped = _cosmic_ray("dump", str(session), cwd=cwd, env=env)
    rows: list[dict[str, object]] = []
    for line in dumped.stdout.splitlines():
        work_item, result = json.loads(line)
        rows.append({"item": work_item, "result": result})
    return rows


def _annotation_lines(source: str) -> set[int]:
    """Lines inside a type annotation: with ``from __future__ import annotations`` they never run."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        annotations: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            annotations.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        for annotation in annotations:
            if annotation is not None:
                lines.update(range(annotation.lineno, (annotation.end_lineno or annotation.lineno) + 1))
    return lines


def _skip_equivalent(session: Path, module_file: Path) -> int:
    """Mark mutants in annotations as skipped: equivalent by construction (annotations are strings here)."""
    # cosmic-ray is installed for this script only (no stubs, not a project dependency).
    from cosmic_ray.work_db import use_db  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cosmic_ray.work_item import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        WorkerOutcome,
        WorkResult,
    )

    source = module_file.read_text(encoding="utf-8")
    if "from __future__ import annotations" not in source:
        return 0
    inside = _annotation_lines(source)
    skipped = 0
    with use_db(str(session)) as db:
        for item in list(db.pending_work_items):
            if all(m.start_pos[0] in inside and m.end_pos[0] in inside for m in item.mutations):
                db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
                skipped += 1
    return skipped


def _write_survivors(rows: list[dict[str, object]], path: Path, module: str) -> int:
    lines = [f"# Surviving mutants of `{module}`", ""]
    count = 0
    for row in rows:
        result = row["result"]
        if not isinstance(result, dict) or result.get("test_outcome") != "survived":
            continue
        count += 1
        item = row["item"]
        assert isinstance(item, dict)
        mutation = item["mutations"][0]
        lines += [
            f"## {mutation['operator_name']} #{mutation['occurrence']} at line {mutation['start_pos'][0]}",
            "",
            "```diff",
            str(result.get("diff", "")).strip(),
            "```",
            "",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


def main(argv: list[str] | None = None) -> int:
    """Run cosmic-ray on one module and print its score."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "module", help="a module of MODULE_REQUIREMENTS, e.g. reference_impl/request/_notices.py"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="parallel workers, each in its own copy (default 1)"
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds per mutant before it counts as killed"
    )
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "build" / "mutation", help="output folder")
    parser.add_argument("--requirement", action="append", help="override the module's requirement IDs")
    parser.add_argument(
        "--report", action="store_true", help="only score the module's existing session (also while it runs)"
    )
    args = parser.parse_args(argv)
    module: str = args.module
    if args.report:
        out_dir: Path = args.out.resolve()
        print(_score(out_dir / (module.replace("/", ".").removesuffix(".py") + ".sqlite"), module, out_dir))
        return 0
    requirements = tuple(args.requirement or MODULE_REQUIREMENTS.get(module, ()))
    if not requirements:
        parser.error(
            f"no requirements known for {module!r}: pass --requirement ID or add it to MODULE_REQUIREMENTS"
        )
    out: Path = args.out.resolve()
    stem = module.replace("/", ".").removesuffix(".py")
    copies = [out / f"{stem}-copy{n}" for n in range(max(1, args.jobs))]
    for copy in copies:
        _copy_project(copy)
    session, config = out / f"{stem}.sqlite", out / f"{stem}.toml"
    session.unlink(missing_ok=True)
    workers: list[subprocess.Popen[bytes]] = []
    urls: list[str] = []
    try:
        if args.jobs > 1:
            for copy in copies:
                port = _free_port()
                executable = str(Path(sys.executable).parent / "cosmic-ray")
                workers.append(
                    subprocess.Popen(
                        [executable, "http-worker", "--port", str(port)],
                        cwd=copy,
                        env=_environment(copy),
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
                urls.append(f"http://127.0.0.1:{port}")
            time.sleep(3)
        config.write_text(_config(module, requirements, args.timeout, urls), encoding="utf-8")
        cwd, env = copies[0], _environment(copies[0])
        started = time.monotonic()
        done = _cosmic_ray("init", str(config), str(session), cwd=cwd, env=env)
        if done.returncode == 0:
            _skip_equivalent(session, cwd / module)
            done = _cosmic_ray("exec", str(config), str(session), cwd=cwd, env=env)
        if done.returncode != 0:
            print(done.stdout + done.stderr, file=sys.stderr)
            return 2
        seconds = time.monotonic() - started
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait()
    print(
        f"{_score(session, module, out)}; requirements {' '.join(requirements)}; {seconds:.0f} s with {args.jobs} job(s)"
    )
    return 0


def _score(session: Path, module: str, out: Path) -> str:
    """Write the report and the survivors of ``session``, and say its score (over the mutants run so far)."""
    stem = session.stem
    report = subprocess.run(
        [str(Path(sys.executable).parent / "cr-report"), "--show-diff", str(session)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    (out / f"{stem}.txt").write_text(report, encoding="utf-8")
    rows = _outcomes(session, out, dict(os.environ))
    results = [r["result"] for r in rows if isinstance(r["result"], dict)]
    skipped = sum(1 for r in results if r.get("worker_outcome") == "skipped")
    done = [r for r in results if r.get("worker_outcome") != "skipped"]
    killed = sum(1 for r in done if r.get("test_outcome") == "killed")
    abnormal = sum(1 for r in done if r.get("worker_outcome") in ("abnormal", "exception"))
    survived = _write_survivors(rows, out / f"{stem}-survivors.md", module)
    pending = len(rows) - len(results)
    percent = 100.0 * killed / len(done) if done else 0.0
    return (
        f"{module}: {killed}/{len(done)} killed ({percent:.1f}%), {survived} survived, {abnormal} abnormal (timeout or crash), "
        f"{skipped} skipped (in annotations), {pending} not run"
    )


if __name__ == "__main__":
    sys.exit(main())
