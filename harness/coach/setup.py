"""The coach's and the diff's field and settings as one checked value.

Who the bot meets and on what (``opponents``, ``rules`` and ``players``, ``deals``,
``seed``, ``max_turns``), how every seat plays (``settings``: the
:class:`~harness.seats.settings.SeatSettings`) and how the work and the answer are cut
(``workers``, ``situations``, ``examples``, and the coach's ``bands``) travel together as a
:class:`CoachSetup` (:func:`harness.coach.coach`) or a :class:`DiffSetup`
(:func:`harness.coach.diff`): one frozen value each, with its own defaults, checked here,
once, with one wording (messages name the key: ``deals: 0; must be at least 1``, in the
words of every bound, :func:`harness.tourney.config.bounds.integer_problem`).

Each function takes the value (``setup=``) or its keywords, converted once at its door
(:meth:`Setup.of`): a keyword of None is one not given, and ``setup=`` with a keyword is
one line. The seat settings' keywords (``engine``, ``move_time``, ``game_time``,
``isolation``) are the seat settings', checked in their words
(:func:`harness.seats.settings.settings_from`). Where the values come from a command
line, :meth:`SetupError.for_option` names the option instead (``--deals: 0; ...``,
``--opponent: ...``).

Whole numbers are read by their index (``operator.index``: numpy's ints are whole numbers,
a bool is not), a word by its characters: what a subclass's own methods say never counts.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar

from harness.analysis.units import UNITS
from harness.coach.situations import BANDS, UNIT_BANDS, check_bands
from harness.errors import ConfigError
from harness.game.engine import DEFAULT_MAX_TURNS
from harness.game.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from harness.game.strategy import Strategy
from harness.plugins import StrategySpec, shown
from harness.seats.settings import (
    PLAYING_KEYS,
    SeatSettings,
    SettingsError,
    given_once,
    seat_settings_in,
)
from harness.tourney.config.bounds import BOUNDS, MAX_ENTRANTS, MAX_WORKERS, checked_integer

#: The opponents a bot meets when none are named.
DEFAULT_OPPONENTS = ("simple",)
#: The most deals a coach or a diff plays (the command's ``--deals`` allows as many).
MAX_DEALS = 10_000_000
# The bounds of the value's whole numbers: (lowest, highest, why the highest).
DEALS = (1, MAX_DEALS, "deals of a coach or a diff")
WORKERS = (1, MAX_WORKERS, "worker processes")
SITUATIONS = (0, 1000, "situations listed")
EXAMPLES = (0, 50, "example positions played again")
PLAYERS = (MIN_PLAYERS, MAX_PLAYERS, "a table seats 2 to 7, R3")

#: The command-line option of each key whose option is not ``--`` and the key.
OPTIONS = {"opponents": "--opponent"}


class SetupError(SettingsError):
    """A coach's or a diff's setting out of its bounds: ``key`` and ``problem`` apart, so
    that a command can name its option instead (:meth:`for_option`); str() is
    ``key: problem``."""

    def for_option(self) -> ConfigError:
        """The same mistake naming the command-line option: ``--deals: ...``."""
        option = OPTIONS.get(self.key, "--" + self.key.replace("_", "-"))
        return ConfigError(f"{option}: {self.problem}")


def whole(key: str, value: Any, low: int, high: int, why: str) -> int:
    """``value`` as a plain int from ``low`` to ``high`` (``why``: the reason for the
    highest); SetupError naming ``key`` otherwise, in every bound's words
    (:func:`harness.tourney.config.bounds.integer_problem`)."""
    return checked_integer(key, value, low, high, why, SetupError)


def checked_opponents(value: Any) -> tuple[Any, ...]:
    """The opponents as a tuple of strategies (a name or reference, a spec, a class or an
    instance); one of them alone is one opponent. Resolved later, when the field is made
    (:func:`harness.coach.deals.make_field`): nothing of a plugin runs here."""
    if isinstance(value, (str, StrategySpec, Strategy)) or (
        isinstance(value, type) and issubclass(value, Strategy)
    ):
        value = (value,)
    if isinstance(value, (bytes, dict, set, frozenset)) or not hasattr(value, "__iter__"):
        raise SetupError("opponents", f"expected a list of strategies, got {shown(value)}")
    items = []
    for item in value:
        if len(items) == MAX_ENTRANTS:
            raise SetupError("opponents", f"more than {MAX_ENTRANTS}; give at most {MAX_ENTRANTS}")
        if isinstance(item, str):
            items.append(str.__str__(item))  # its characters, as a plain str
        elif isinstance(item, (StrategySpec, Strategy)) or (
            isinstance(item, type) and issubclass(item, Strategy)
        ):
            items.append(item)
        else:
            raise SetupError(
                "opponents",
                f"expected a strategy (a name, a reference, a class or an instance), got "
                f"{shown(item)}",
            )
    if not items:
        raise SetupError("opponents", "give at least one opponent")
    return tuple(items)


def checked_rules(rules: Any, players: Any) -> Rules:
    """The rules at ``players`` seats (None: the rules' own count, else 2); a count given
    both ways must agree."""
    count = None if players is None else whole("players", players, *PLAYERS)
    if isinstance(rules, Rules) and count is not None and rules.players != count:
        raise SetupError(
            "players", f"{count}, but the rules given are for {rules.players} players (R3)"
        )
    return Rules.coerce(rules, players=count)


def checked_bands(value: Any) -> tuple[float, float, float]:
    """The error bands (:func:`harness.coach.situations.check_bands`), naming ``bands``."""
    try:
        return check_bands(value)
    except ValueError as exc:
        raise SetupError("bands", str(exc)) from None


S = TypeVar("S", bound="Setup")


@dataclass(frozen=True)
class Setup:
    """What the coach and the diff share: the field and the settings (see the module
    docstring). Checked once, when built (SetupError, one line naming the key)."""

    opponents: tuple[Any, ...] = DEFAULT_OPPONENTS
    rules: Rules | str | dict | None = None  # a Rules once checked (None: official)
    players: int | None = None  # the rules' count once checked (None: theirs, else 2)
    deals: int | None = None
    seed: int = 1
    max_turns: int = DEFAULT_MAX_TURNS
    settings: SeatSettings = SeatSettings()
    workers: int = 1
    situations: int = 10
    examples: int = 3
    unit: str = "win"  # what a decision is valued in: chances to win, or worms of swing

    #: What the value is called in a message (``setup: expected a CoachSetup, ...``).
    noun: ClassVar[str] = "setup"
    #: True where ``deals`` None is allowed (the diff's sequential rule).
    open_deals: ClassVar[bool] = False

    def __post_init__(self) -> None:
        rules = checked_rules(self.rules, self.players)
        checked: dict[str, Any] = {
            "opponents": checked_opponents(self.opponents),
            "rules": rules,
            "players": rules.players,
            "seed": whole("seed", self.seed, *BOUNDS["seed"]),
            "max_turns": whole("max_turns", self.max_turns, *BOUNDS["max_turns"]),
            "workers": whole("workers", self.workers, *WORKERS),
            "situations": whole("situations", self.situations, *SITUATIONS),
            "examples": whole("examples", self.examples, *EXAMPLES),
        }
        if self.deals is not None or not self.open_deals:
            checked["deals"] = whole("deals", self.deals, *DEALS)
        if self.unit not in UNITS:
            raise SetupError("unit", f"{shown(self.unit)} is not one of: {', '.join(UNITS)}")
        if not isinstance(self.settings, SeatSettings):
            raise SetupError("settings", f"expected a SeatSettings, got {shown(self.settings)}")
        for key, value in checked.items():
            object.__setattr__(self, key, value)

    @property
    def engine(self) -> str:
        """The engine the seat settings ask for (auto, python, native)."""
        return self.settings.engine

    @classmethod
    def of(cls: type[S], setup: S | None = None, **given: Any) -> S:
        """The value a public function was given, converted once at its door: ``setup``,
        or this class's defaults with the keywords that are not None in place (the seat
        settings' among them: ``settings=`` or ``engine=``, ``move_time=``, ...); not
        both (SetupError, one line). An unknown keyword is a TypeError, as Python's."""
        own = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - own - set(PLAYING_KEYS))
        if unknown:
            raise TypeError(f"{cls.noun}: unexpected keyword argument {unknown[0]!r}")
        if setup is not None:
            if type(setup) is not cls:
                raise SetupError("setup", f"expected a {cls.__name__}, got {shown(setup)}")
            given_once("setup", f"the {cls.noun}", [k for k, v in given.items() if v is not None],
                       SetupError)  # fmt: skip
            return setup
        settings = seat_settings_in(given, SetupError)
        return cls(settings=settings, **{k: v for k, v in given.items() if v is not None})


@dataclass(frozen=True)
class CoachSetup(Setup):
    """The coach's setup: 1,000 deals, 10 situations, 3 examples and the error bands
    (inaccuracy, mistake, blunder, in the unit: None, the unit's default,
    :data:`~harness.coach.situations.UNIT_BANDS`)."""

    deals: int = 1000
    bands: tuple[float, float, float] | None = None

    noun: ClassVar[str] = "coach's setup"

    def __post_init__(self) -> None:
        super().__post_init__()
        bands = UNIT_BANDS[self.unit] if self.bands is None else self.bands
        object.__setattr__(self, "bands", checked_bands(bands))


@dataclass(frozen=True)
class DiffSetup(Setup):
    """The diff's setup: ``deals`` None (the default) plays until the answer is settled, at
    most :data:`harness.coach.stopping.MAX_DEALS`; 8 situations and 2 examples each way."""

    deals: int | None = None
    situations: int = 8
    examples: int = 2

    noun: ClassVar[str] = "diff's setup"
    open_deals: ClassVar[bool] = True


SETUP_KEYS = tuple(f.name for f in fields(CoachSetup))
"""The keys a coach's setup holds, in order (the diff's: the same but ``bands``)."""

__all__ = [
    "BANDS",
    "DEFAULT_OPPONENTS",
    "MAX_DEALS",
    "CoachSetup",
    "DiffSetup",
    "SETUP_KEYS",
    "Setup",
    "SetupError",
    "checked_bands",
    "whole",
]
