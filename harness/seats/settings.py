"""The seat settings: how the seats of a game play, as one checked value.

``move_time`` and ``game_time`` (seconds, or None for no limit), ``isolation`` (none,
process), ``engine`` (:data:`harness.game.engines.ENGINES`) and ``luck`` (the luck and
skill account: :data:`LUCK_MODES`) travel together as a :class:`SeatSettings`: a
tournament config, a chunk of its work, an SPRT, one game, the coach and the diff all
hold one, and check it here, once, with one wording (messages name the key:
``move_time: 0; give seconds above 0 and at most 3600``). The time limits and the
isolation alone are a :class:`SeatLimits`, what :func:`harness.seats.guard` wraps
seats with.

Where a value comes from a command line, :meth:`SettingsError.for_option` names the
option instead (``--move-time: 0.0; ...``). Every choice is read with the base type's
own methods: a ``str`` subclass with a lying ``__eq__`` is judged by its characters and
stored as a plain ``str``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from harness.errors import ConfigError
from harness.game.engines import ENGINES
from harness.plugins import shown

ISOLATION_MODES = ("none", "process")
# The luck and skill account (harness.analysis.account, docs/luck.md): on, off, or auto:
# on at the tables where it costs little next to the games (a table with a plugin or
# `optimal`), off at tables of the cheap built-ins alone (tourney.plan.table_luck); win:
# on at every table, with the win account's luck (winluck) too: the only mode that keeps it.
LUCK_MODES = ("auto", "on", "off", "win")
MAX_SECONDS = 3600.0  # move_time and game_time: at most an hour
ISOLATED_GAME_TIME = 600.0
"""Seconds of one isolated seat's decisions in one game when no ``game_time`` is given:
an isolated seat is never without a deadline (a seat that loops forfeits with "time")."""

SECONDS_KEYS = ("move_time", "game_time")  # seconds above 0, at most MAX_SECONDS, or None
CHOICES: dict[str, tuple[str, ...]] = {
    "isolation": ISOLATION_MODES,
    "engine": ENGINES,
    "luck": LUCK_MODES,
}
"""The settings that take one word of a list, and the list (in the order messages give)."""


class SettingsError(ConfigError):
    """A seat setting out of its bounds or choices: ``key`` and ``problem`` apart, so that
    a command can name its option instead (:meth:`for_option`); str() is ``key: problem``."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.key, self.problem))

    def for_option(self) -> ConfigError:
        """The same mistake naming the command-line option: ``--move-time: ...``."""
        return ConfigError(f"--{self.key.replace('_', '-')}: {self.problem}")


def checked_seconds(key: str, value: Any) -> float | None:
    """``value`` as seconds (a float above 0, at most :data:`MAX_SECONDS`), or None;
    SettingsError naming ``key`` otherwise (a bool is no number of seconds, nor is NaN)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SettingsError(
            key, f"expected seconds (a number, or null for no limit), got {shown(value)}"
        )
    # The base type's own value: a subclass's comparisons and conversions never run.
    plain = float.__float__(value) if isinstance(value, float) else int.__int__(value)
    if not (0 < plain <= MAX_SECONDS and math.isfinite(plain)):  # NaN fails the first
        raise SettingsError(
            key, f"{shown(value)}; give seconds above 0 and at most {MAX_SECONDS:g}"
        )
    return float(plain)


def checked_choice(key: str, value: Any) -> str:
    """``value`` as one of the words of :data:`CHOICES`\\ [key], a plain str;
    SettingsError naming ``key`` otherwise. For ``luck``, YAML's bare ``on``/``off`` (a
    bool there) means the word as written."""
    allowed = CHOICES[key]
    if isinstance(value, bool) and {"on", "off"} <= set(allowed):
        value = "on" if value else "off"
    plain = str.__str__(value) if isinstance(value, str) else None
    if plain is None or plain not in allowed:
        raise SettingsError(key, f"{shown(value)} is not one of {', '.join(allowed)}")
    return plain


def check_setting(key: str, value: Any) -> Any:
    """The one check of one seat setting (SettingsError naming ``key``): the checked value."""
    if key in SECONDS_KEYS:
        return checked_seconds(key, value)
    if key in CHOICES:
        return checked_choice(key, value)
    raise TypeError(f"check_setting: no seat setting {key!r}")


def any_limit(held: SeatLimits | SeatSettings) -> bool:
    """True when a time limit is on or the seats are isolated: the one test of it."""
    return held.move_time is not None or held.game_time is not None or held.isolation != "none"


@dataclass(frozen=True)
class SeatLimits:
    """The limits a seat's strategy plays under; all off by default. An isolated seat
    always has a deadline: ``game_time`` is :data:`ISOLATED_GAME_TIME` unless given."""

    move_time: float | None = None
    game_time: float | None = None
    isolation: str = "none"

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, check_setting(f.name, getattr(self, f.name)))
        if self.isolation == "process" and self.game_time is None:
            object.__setattr__(self, "game_time", ISOLATED_GAME_TIME)

    @property
    def timed(self) -> bool:
        """True when a time limit is on."""
        return self.move_time is not None or self.game_time is not None

    @property
    def active(self) -> bool:
        """True when any limit is on (then :func:`harness.seats.guard` wraps the strategies)."""
        return any_limit(self)


@dataclass(frozen=True)
class SeatSettings:
    """How the seats of a game play: time limits, isolation, engine and luck account.

    Checked once, when built (SettingsError, one line naming the key); the defaults are a
    tournament config's: no limits, no isolation, ``engine: auto``, ``luck: auto``.
    """

    move_time: float | None = None  # seconds per decision of a seat; None = no limit
    game_time: float | None = None  # seconds of one seat's decisions in one game
    isolation: str = "none"  # "process": each seat's strategy in a process of its own
    engine: str = "auto"  # auto | python | native (the rows are the same with each)
    luck: str = "auto"  # the luck and skill account: auto | on | off | win

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, check_setting(f.name, getattr(self, f.name)))

    @property
    def limits(self) -> SeatLimits:
        """The time limits and the isolation, as :func:`harness.seats.guard` takes them."""
        return SeatLimits(self.move_time, self.game_time, self.isolation)

    @property
    def limited(self) -> bool:
        """True when a seat has a time limit or runs in a process of its own (read by a
        watchdog at every tick: no SeatLimits is built and checked again for it)."""
        return any_limit(self)

    def limit_values(self) -> dict[str, Any]:
        """move_time, game_time and isolation as a chunk key and run.json hold them (as
        set: not the isolated seat's default deadline)."""
        return {
            "move_time": self.move_time,
            "game_time": self.game_time,
            "isolation": self.isolation,
        }

    def with_overrides(self, **changes: Any) -> SeatSettings:
        """These settings with ``changes`` in place (a value of None keeps this one's; so
        a limit is set here, never removed). Checked as when built; unknown keys are a
        TypeError (a caller's mistake, not a user's)."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise TypeError(f"with_overrides: no seat setting {', '.join(unknown)}")
        given = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **given) if given else self

    def refusal(self) -> str | None:
        """Why the native engine may not play under these settings, whatever the seats
        (None: it may): :func:`harness.native.refusal` of them."""
        from harness import native

        return native.refusal(self)


class HoldsSeatSettings:
    """What holds a :class:`SeatSettings` as ``settings`` (a tourney config, a chunk of
    its work, an SPRT's setup) reads each setting as an attribute too:
    ``config.move_time`` is ``config.settings.move_time``."""

    settings: SeatSettings

    @property
    def move_time(self) -> float | None:
        return self.settings.move_time

    @property
    def game_time(self) -> float | None:
        return self.settings.game_time

    @property
    def isolation(self) -> str:
        return self.settings.isolation

    @property
    def engine(self) -> str:
        return self.settings.engine

    @property
    def luck(self) -> str:
        return self.settings.luck


SETTING_KEYS = tuple(f.name for f in fields(SeatSettings))
"""The seat settings' keys, in order: what a config, a command or a caller may give."""


def settings_from(
    settings: SeatSettings | None, default: SeatSettings | None = None, **given: Any
) -> SeatSettings:
    """The seat settings a public function was given, converted once at its door:
    ``settings``, or ``default`` (the function's own defaults; else SeatSettings's) with
    the keywords of :data:`SETTING_KEYS` that are not None in place; not both
    (SettingsError, one line)."""
    if settings is None:
        return (default or SeatSettings()).with_overrides(**given)
    if not isinstance(settings, SeatSettings):
        raise SettingsError("settings", f"expected a SeatSettings, got {shown(settings)}")
    given_once("settings", "the seat settings", [k for k, v in given.items() if v is not None])
    return settings


def given_once(
    key: str, noun: str, spelled: Sequence[str], error: type[SettingsError] | None = None
) -> None:
    """One line (``error``, a SettingsError by default) when a value (``key=``) came with
    keywords that say it again (``spelled``): the one wording of "not both"."""
    if spelled:
        raise (error or SettingsError)(
            key,
            f"given with {', '.join(sorted(spelled))}; give {noun} once ({key}=, or the keywords)",
        )


PLAYING_KEYS = ("engine", "move_time", "game_time", "isolation")
"""The seat settings a caller that keeps no luck account (the coach, the diff, the RL
environments) may give as keywords beside ``settings=``: every key but ``luck``."""


def seat_settings_in(
    given: dict[str, Any], error: type[SettingsError] | None = None
) -> SeatSettings:
    """The seat settings among a caller's keywords, taken out of ``given``: ``settings=``
    or :data:`PLAYING_KEYS` (None: not given), not both; checked in the seat settings'
    words, raised as ``error`` (key and problem kept) where a caller has its own."""
    seats = {k: given.pop(k) for k in PLAYING_KEYS if k in given}
    try:
        return settings_from(given.pop("settings", None), **seats)
    except SettingsError as exc:
        if error is None or isinstance(exc, error):
            raise
        raise error(exc.key, exc.problem) from None


__all__ = [
    "CHOICES",
    "HoldsSeatSettings",
    "PLAYING_KEYS",
    "ISOLATED_GAME_TIME",
    "ISOLATION_MODES",
    "LUCK_MODES",
    "MAX_SECONDS",
    "SECONDS_KEYS",
    "SETTING_KEYS",
    "SeatLimits",
    "SeatSettings",
    "SettingsError",
    "check_setting",
    "checked_choice",
    "checked_seconds",
    "given_once",
    "seat_settings_in",
    "settings_from",
]
