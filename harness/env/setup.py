"""The environments' settings as one checked value.

The agent's seat (``seat``, ``seating``), the dice, the reward and what an illegal action
does (``reward``, ``illegal``, ``illegal_reward``), the turn cap (``max_turns``: the
engine's :data:`~harness.game.engine.DEFAULT_MAX_TURNS` unless given), the record, the
render mode and the seat settings (``settings``: the engine and the opponents' limits)
travel together as an :class:`EnvSetup`, checked here once, with one wording (messages
name the key: ``reward: expected one of margin, win, swing, got 'points'``). The four
environments (:class:`~harness.env.gym.PickominoEnv`, :class:`~harness.env.vector.
VectorEnv`, :class:`~harness.env.aec.PickominoAEC`, :class:`~harness.env.single.
SingleAgent`) each take the value (``setup=``) or its keywords, converted once at their
door (:meth:`EnvSetup.of`): not both, and a keyword or a setting one of them does not
play by (the AEC environment has no agent seat to choose) is one line.

The seat settings' keywords (``engine``, ``move_time``, ``game_time``, ``isolation``) go
into ``settings`` and are checked in the seat settings' words
(:mod:`harness.seats.settings`); a mistake in them is an :class:`EnvSetupError` too. It is
a ValueError (what the environments have always raised) and a
:class:`~harness.seats.settings.SettingsError` (key and problem apart). Every word is
read by its characters and every number by its base value: what a subclass's own methods
say never counts.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields, replace
from typing import Any

from harness.env.game import ILLEGAL, REWARDS
from harness.game.dice import DICE_MODES
from harness.game.engine import DEFAULT_MAX_TURNS
from harness.game.seating import DEFAULT_SEATING, SEATINGS
from harness.plugins import shown
from harness.seats.settings import (
    PLAYING_KEYS,
    SeatSettings,
    SettingsError,
    given_once,
    seat_settings_in,
)
from harness.tourney.config.bounds import BOUNDS, checked_integer

RENDER_MODES = (None, "ansi")


class EnvSetupError(SettingsError, ValueError):
    """An environment's setting out of its bounds or choices: one line, ``key: problem``."""


def checked_word(key: str, value: Any, allowed: tuple[str, ...]) -> str:
    """``value`` as one of ``allowed``, a plain str (judged by its characters)."""
    plain = str.__str__(value) if isinstance(value, str) else None
    if plain is None or plain not in allowed:
        raise EnvSetupError(key, f"expected one of {', '.join(allowed)}, got {shown(value)}")
    return plain


def checked_seat(value: Any) -> int | str:
    """``"rotate"`` or a seat number (its range is the table's: :class:`~harness.env.game.
    Schedule` checks it against the players)."""
    if isinstance(value, str) and str.__str__(value) == "rotate":
        return "rotate"
    if isinstance(value, int) and not isinstance(value, bool) and int.__int__(value) >= 0:
        return int.__int__(value)
    raise EnvSetupError("seat", f"expected 'rotate' or a seat number, got {shown(value)}")


def checked_reward(key: str, value: Any) -> float:
    """``value`` as a finite float: a NaN or an infinity would poison every return it is
    summed into (and a bool or a word is no reward)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise EnvSetupError(key, f"expected a number, got {shown(value)}")
    if isinstance(value, (int, float)):  # the base value: a subclass's conversions never run
        plain = float.__float__(value) if isinstance(value, float) else int.__int__(value)
    else:
        plain = value  # another real number (numpy's float32): its own conversion
    try:
        number = float(plain)
    except (OverflowError, TypeError, ValueError):
        number = math.inf
    if not math.isfinite(number):
        raise EnvSetupError(key, f"expected a finite number, got {shown(value)}")
    return number


@dataclass(frozen=True)
class EnvSetup:
    """How an environment plays (see the module docstring); the defaults are docs/rl.md's.
    Checked once, when built (:class:`EnvSetupError`, one line naming the key)."""

    seat: int | str = "rotate"  # the agent's seat: "rotate" through the orders, or fixed
    seating: str = DEFAULT_SEATING  # the design the agent rotates through
    dice: str = "duplicate"  # duplicate | independent (harness.game.dice)
    reward: str = "margin"  # margin | win | swing (harness.env.game)
    illegal: str = "penalty"  # penalty | raise: what an action the mask forbids does
    illegal_reward: float = -1.0  # what a penalty pays
    max_turns: int = DEFAULT_MAX_TURNS  # the turn cap: a game past it is truncated
    record: bool = False  # keep each episode's game record (the Python engine only)
    render_mode: str | None = None  # None | "ansi"
    settings: SeatSettings = SeatSettings()  # the engine, and the opponents' limits

    def __post_init__(self) -> None:
        if not isinstance(self.settings, SeatSettings):
            raise EnvSetupError("settings", f"expected a SeatSettings, got {shown(self.settings)}")
        if type(self.record) is not bool:
            raise EnvSetupError("record", f"expected True or False, got {shown(self.record)}")
        render = self.render_mode
        if not (render is None or (isinstance(render, str) and str.__str__(render) == "ansi")):
            raise EnvSetupError("render_mode", f"expected None or 'ansi', got {shown(render)}")
        checked = {
            "seat": checked_seat(self.seat),
            "seating": checked_word("seating", self.seating, SEATINGS),
            "dice": checked_word("dice", self.dice, DICE_MODES),
            "reward": checked_word("reward", self.reward, REWARDS),
            "illegal": checked_word("illegal", self.illegal, ILLEGAL),
            "illegal_reward": checked_reward("illegal_reward", self.illegal_reward),
            "max_turns": checked_integer(
                "max_turns", self.max_turns, *BOUNDS["max_turns"], EnvSetupError
            ),
            "render_mode": None if render is None else "ansi",
        }
        for key, value in checked.items():
            object.__setattr__(self, key, value)

    @property
    def engine(self) -> str:
        """The engine the seat settings ask for: auto, python or native."""
        return self.settings.engine

    def without(self, *keys: str) -> EnvSetup:
        """This setup with ``keys`` at their defaults (what an environment hands a part
        of itself that does not play by them)."""
        defaults = {f.name: f.default for f in fields(self) if f.name in keys}
        return replace(self, **defaults)

    @classmethod
    def of(
        cls, owner: str, uses: frozenset[str], setup: EnvSetup | None = None, **given: Any
    ) -> EnvSetup:
        """The value ``owner`` (an environment's name) was given, converted once at its
        door: ``setup``, or the defaults with the keywords in place (the seat settings'
        among them: ``settings=`` or ``engine=``, ``move_time=``, ...); not both. ``uses``:
        the keys it plays by; another keyword is a TypeError (as Python's), a setup with
        another key set is one line (EnvSetupError)."""
        seat_keys = set(PLAYING_KEYS) if "settings" in uses else set()
        unknown = sorted(set(given) - uses - seat_keys)
        if unknown:
            raise TypeError(f"{owner}() got an unexpected keyword argument {unknown[0]!r}")
        if setup is not None:
            if type(setup) is not cls:
                raise EnvSetupError("setup", f"expected an EnvSetup, got {shown(setup)}")
            seats_none = {*PLAYING_KEYS, "settings"}  # None there: not given (the seats' rule)
            spelled = [k for k, v in given.items() if v is not None or k not in seats_none]
            given_once("setup", "the environment's setup", spelled, EnvSetupError)
            for f in fields(cls):
                value = getattr(setup, f.name)
                if f.name not in uses and value != f.default:
                    raise EnvSetupError(
                        f.name, f"{shown(value)}; {owner} does not play by it (leave it unset)"
                    )
            return setup
        settings = seat_settings_in(given, EnvSetupError)
        return cls(settings=settings, **given)


SETUP_KEYS = frozenset(f.name for f in fields(EnvSetup))
"""Every key of the setup: what the Gymnasium environment plays by."""

__all__ = [
    "EnvSetup",
    "EnvSetupError",
    "RENDER_MODES",
    "SETUP_KEYS",
    "checked_reward",
]
