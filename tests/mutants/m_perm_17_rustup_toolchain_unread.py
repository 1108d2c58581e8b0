"""PERM-17 mutant: rustup's proxies are judged without the project's toolchain file."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "cargo --version beside a rust-toolchain.toml whose [toolchain] path is the project's tc/: only "
    ".cargo/config* is read, so the toolchain's bin/cargo that rustup runs is not"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._project_files",
        "_tool_commands",
        rewrite("rustup_toolchain_from_project(words, cwd) if name in RUSTUP_PROXIES else None", "None"),
    )
)
