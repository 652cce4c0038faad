"""The rules of a game: components (R1, R2), variant keys and presets (RULES.md).

A :class:`Rules` value is immutable and hashable, and round-trips through a plain
dict so that configs and game records can carry it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from harness.errors import RulesError

# R1: sixteen tiles 21..36; worms per tile 21-24 -> 1, 25-28 -> 2, 29-32 -> 3, 33-36 -> 4.
TILES: tuple[int, ...] = tuple(range(21, 37))
LOWEST_TILE = 21
HIGHEST_TILE = 36


def worms(tile: int) -> int:
    """Worms printed on a tile (R1)."""
    if not LOWEST_TILE <= tile <= HIGHEST_TILE:
        raise ValueError(f"no tile {tile!r}: tiles are 21..36 (R1)")
    return (tile - 17) // 4


# R2: eight dice with faces 1-5 and the worm (face 6), which counts 5 points.
DICE = 8
WORM = 6
FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
FACE_POINTS: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 5)  # index = face


def face_name(face: int) -> str:
    """How a face is written for people: 1-5, or 'W' for the worm."""
    return "W" if face == WORM else str(face)


MIN_PLAYERS = 2
MAX_PLAYERS = 7

# The allowed values of every variant key, default (official, R1-R11) first.
VARIANTS: dict[str, tuple[Any, ...]] = {
    "bust_flip": ("highest", "lowest", "none"),
    "flip_without_tile": (False, True),
    "lower_tile": ("highest", "any"),
    "returned_tile": ("keep", "flip"),
}

PRESETS: dict[str, dict[str, Any]] = {
    "official": {},
    "piko-blog": {"bust_flip": "lowest", "flip_without_tile": True},
    "french": {"lower_tile": "any"},
    "short": {"returned_tile": "flip"},
}


@dataclass(frozen=True)
class Rules:
    """One rule set: the number of players and the variant keys of RULES.md."""

    players: int = 2
    bust_flip: str = "highest"
    flip_without_tile: bool = False
    lower_tile: str = "highest"
    returned_tile: str = "keep"

    def __post_init__(self) -> None:
        _check_players(self.players, "rules.players")
        for key, allowed in VARIANTS.items():
            value = getattr(self, key)
            if type(value) is not type(allowed[0]) or value not in allowed:
                shown = ", ".join(_show(v) for v in allowed)
                raise RulesError(
                    f"rules.{key}: {_show(value)} is not one of {shown} (RULES.md variants)"
                )

    # -- conversions -----------------------------------------------------------
    @classmethod
    def preset(cls, name: str, players: int = 2) -> Rules:
        """The rules of a named preset (official, piko-blog, french, short)."""
        if name not in PRESETS:
            raise RulesError(f"rules: unknown preset {name!r}; presets are {', '.join(PRESETS)}")
        return cls(players=players, **PRESETS[name])

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "rules") -> Rules:
        """Rules from a mapping: optional ``preset``, then variant keys; missing = official."""
        if not isinstance(data, dict):
            raise RulesError(f"{where}: expected a mapping of variant keys, got {_show(data)}")
        known = {f.name for f in fields(cls)} | {"preset"}
        for key in data:
            if key not in known:
                raise RulesError(
                    f"{where}: unknown key {key!r}; keys are {', '.join(sorted(known))}"
                )
        base = data.get("preset", "official")
        if not isinstance(base, str) or base not in PRESETS:
            raise RulesError(
                f"{where}.preset: unknown preset {_show(base)}; presets are {', '.join(PRESETS)}"
            )
        values: dict[str, Any] = {"players": 2, **PRESETS[base]}
        values.update({k: v for k, v in data.items() if k != "preset"})
        return cls(**values)

    @classmethod
    def coerce(cls, value: Rules | str | dict | None, players: int | None = None) -> Rules:
        """Accept a Rules, a preset name or a mapping; ``players`` fills in a missing count.

        A count given both ways must agree.
        """
        if value is None:
            value = "official"
        if isinstance(value, Rules):
            rules = value
            explicit = True
        elif isinstance(value, str):
            rules = cls.preset(value, players if players is not None else 2)
            explicit = False
        else:
            explicit = isinstance(value, dict) and "players" in value
            rules = cls.from_dict(value)
        if players is not None and rules.players != players:
            if explicit:
                raise RulesError(
                    f"rules.players is {rules.players} but {players} strategies were given (R3)"
                )
            rules = replace(rules, players=players)
        return rules

    def to_dict(self) -> dict[str, Any]:
        """Every key, explicitly: the form stored in configs and records."""
        return asdict(self)

    def with_players(self, players: int) -> Rules:
        return replace(self, players=players)

    @property
    def preset_name(self) -> str | None:
        """The preset these rules are (any player count), or None for a custom mix."""
        for name, overrides in PRESETS.items():
            if self == Rules(players=self.players, **overrides):
                return name
        return None

    def describe(self) -> str:
        """A short label for people, e.g. 'official, 3 players' or 'bust_flip=none, 2 players'."""
        name = self.preset_name
        if name is None:
            diffs = [
                f"{key}={_show(getattr(self, key))}"
                for key, allowed in VARIANTS.items()
                if getattr(self, key) != allowed[0]
            ]
            name = ", ".join(diffs)
        return f"{name}, {self.players} players"


def _check_players(players: Any, where: str) -> None:
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RulesError(
            f"{where}: {_show(players)} players; a game has {MIN_PLAYERS} to {MAX_PLAYERS} (R3)"
        )


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)
