"""PERM-15 mutant: files a program writes under names it derives are not judged, only its words."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "cp -b -S rc f .bash (a backup named .bashrc), gzip -S rc .bash, csplit -f .bash -b 'rc%.0d', "
    "cp -r src/. . and tar xf t.tar holding .bashrc run unasked in bypassPermissions: the names a "
    "program derives (backup suffixes, compressors' suffixes, numbered pieces, trees, archives) are not read"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._line_writes",
        "derived_names",
        lambda _original: lambda *_args, **_kwargs: [],
    )
)
