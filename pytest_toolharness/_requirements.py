"""The requirement catalogue: what the conformance suite checks, loaded from ``conformance/requirements.toml``.

The catalogue is package data so that the plugin, the report and the suite agree on one list of IDs,
levels, profiles and areas. It is validated on load: a malformed catalogue is a bug in the package, and the
error names the entry.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = [
    "CORE_PROFILE",
    "PROFILES",
    "REQUIRES_MARKER",
    "Catalogue",
    "Level",
    "Requirement",
    "item_requirement_ids",
    "load_catalogue",
    "parse_catalogue",
]

_ID_RE = re.compile(r"^([A-Z]+)-([1-9][0-9]*)$")

CORE_PROFILE = "core"
"""The profile every adapter claims unless it says otherwise."""

PROFILES: tuple[str, ...] = (CORE_PROFILE, "claude-code")
"""Every profile, in report order: ``core`` (any harness on the Messages API), ``claude-code`` (the seeds' design)."""

REQUIRES_MARKER = "toolharness_requires"
"""The marker of the adapter capabilities a test needs (``@requires(...)``, :mod:`pytest_toolharness.adapters`)."""


class Level(enum.Enum):
    """How binding a requirement is: a MUST failure fails the run, a SHOULD one only in strict mode."""

    MUST = "MUST"
    SHOULD = "SHOULD"


@dataclass(frozen=True)
class Requirement:
    """One catalogue entry."""

    id: str
    level: Level
    area: str
    title: str
    source: str
    profile: str = CORE_PROFILE
    """``core`` or ``claude-code``: a requirement of a profile the adapter does not claim is "not claimed"."""


class Catalogue:
    """The requirements in catalogue order, with lookup by ID and area."""

    def __init__(self, requirements: Iterable[Requirement], areas: Mapping[str, str]) -> None:
        self._by_id: dict[str, Requirement] = {}
        for requirement in requirements:
            if requirement.id in self._by_id:
                raise ValueError(f"requirement catalogue: duplicate id {requirement.id!r}")
            if requirement.area not in areas:
                raise ValueError(
                    f"requirement catalogue: {requirement.id!r} is in area {requirement.area!r}, "
                    "which is not listed in [areas]"
                )
            self._by_id[requirement.id] = requirement
        self.areas: dict[str, str] = dict(areas)

    def __iter__(self) -> Iterator[Requirement]:
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, requirement_id: object) -> bool:
        return requirement_id in self._by_id

    def __getitem__(self, requirement_id: str) -> Requirement:
        try:
            return self._by_id[requirement_id]
        except KeyError:
            raise KeyError(f"unknown requirement id {requirement_id!r}") from None

    def select(self, selectors: Iterable[str]) -> list[Requirement]:
        """The requirements matching any selector: an exact ID (``PERM-1``) or an area (``PERM``).

        ``PERM-1`` does not select ``PERM-10``: IDs match exactly. An unknown selector raises
        ``ValueError`` naming it, because a typo would otherwise silently select nothing.
        """
        chosen: set[str] = set()
        unknown: list[str] = []
        for selector in selectors:
            key = selector.strip().upper()
            if key in self._by_id:
                chosen.add(key)
            elif key in self.areas:
                chosen.update(r.id for r in self if r.area == key)
            else:
                unknown.append(selector)
        if unknown:
            raise ValueError(
                "unknown requirement selector(s): "
                + ", ".join(repr(u) for u in unknown)
                + f" (use an ID such as 'PAIR-1' or an area: {', '.join(self.areas)})"
            )
        # Catalogue order, never set order.
        return [r for r in self if r.id in chosen]


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"requirement catalogue: {where} needs a non-empty string {key!r}")
    return value


def parse_catalogue(data: Mapping[str, Any]) -> Catalogue:
    """Build a :class:`Catalogue` from the parsed TOML document, validating every entry."""
    areas = data.get("areas")
    if not isinstance(areas, dict) or not all(isinstance(v, str) for v in areas.values()):
        raise ValueError("requirement catalogue: [areas] must map area names to titles")
    entries = data.get("requirement")
    if not isinstance(entries, list) or not entries:
        raise ValueError("requirement catalogue: no [[requirement]] entries")
    requirements: list[Requirement] = []
    for number, entry in enumerate(entries, start=1):
        where = f"entry {number}"
        if not isinstance(entry, dict):
            raise ValueError(f"requirement catalogue: {where} is not a table")
        requirement_id = _text(entry, "id", where)
        match = _ID_RE.match(requirement_id)
        if match is None:
            raise ValueError(f"requirement catalogue: id {requirement_id!r} is not of the form AREA-N")
        where = repr(requirement_id)
        profile = _text(entry, "profile", where)
        if profile not in PROFILES:
            raise ValueError(
                f"requirement catalogue: {where} has profile {profile!r}; expected one of {', '.join(PROFILES)}"
            )
        level_text = _text(entry, "level", where)
        try:
            level = Level(level_text)
        except ValueError:
            raise ValueError(
                f"requirement catalogue: {where} has level {level_text!r}; expected MUST or SHOULD"
            ) from None
        requirements.append(
            Requirement(
                id=requirement_id,
                level=level,
                area=match.group(1),
                title=_text(entry, "title", where),
                source=_text(entry, "source", where),
                profile=profile,
            )
        )
    return Catalogue(requirements, areas)


@cache
def load_catalogue() -> Catalogue:
    """The packaged catalogue (``conformance/requirements.toml``), parsed once per process."""
    # Imported here: the plugin's entry point imports this module in every pytest run.
    import tomllib
    from importlib import resources

    text = resources.files("conformance").joinpath("requirements.toml").read_text(encoding="utf-8")
    return parse_catalogue(tomllib.loads(text))


def item_requirement_ids(item: Any, catalogue: Catalogue) -> tuple[str, ...]:
    """The requirement IDs of a test from its ``@pytest.mark.requirement(id, level)`` markers.

    The level is optional; when given it must be the catalogue's level, so a test can't quietly
    downgrade a MUST. Raises ``ValueError`` naming the test and the problem.
    """
    ids: list[str] = []
    for mark in item.iter_markers("requirement"):
        args = list(mark.args)
        requirement_id = mark.kwargs.get("id", args.pop(0) if args else None)
        level = mark.kwargs.get("level", args.pop(0) if args else None)
        if args or set(mark.kwargs) - {"id", "level"}:
            raise ValueError(f"{item.nodeid}: use @pytest.mark.requirement(id, level), got {mark}")
        if not isinstance(requirement_id, str) or requirement_id not in catalogue:
            raise ValueError(f"{item.nodeid}: unknown requirement id {requirement_id!r}")
        expected = catalogue[requirement_id].level.value
        if level is not None and level != expected:
            raise ValueError(
                f"{item.nodeid}: {requirement_id} is a {expected} requirement, but is marked {level!r}"
            )
        ids.append(requirement_id)
    return tuple(dict.fromkeys(reversed(ids)))
