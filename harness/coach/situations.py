"""How badly, and where: the error bands and the situation a decision was taken in.

**Bands.** A decision's regret is in worms of swing (:mod:`harness.analysis.account`):
what the best option was worth minus what the chosen one was worth, exactly. The coach
names three bands (:data:`BANDS`): an *inaccuracy* from 0.25 worm, a *mistake* from 0.5,
a *blunder* from 1 worm. Why those: with two players one worm of swing moves a player's
chance to win by about 4 to 8 points (the slope of the account's win model,
1 / (sqrt(2 pi) sigma) with sigma = sqrt(2.5 x worms on the grill): 0.040 at the start
with 40 worms face up, 0.056 at 20, 0.080 at 10), so the bands are about 1-2, 2-4 and
4-8 points of win chance: GNU Backgammon's tutor marks a move *doubtful*, *bad* and
*very bad* at 0.04, 0.08 and 0.16 of equity, that is 2, 4 and 8 points. Lichess's 5, 10
and 15 points are for chess, where a game is about 40 moves and one bad move often
decides it; a Pickomino game is 60 to 80 decisions a player under heavy luck, and a
worm is the smallest tile's worth, so the bands are a quarter, a half and a whole worm.
Anything below 0.25 worm is not flagged (still counted in the losses).

**Phase.** The account values every decision for the worm swing, the turn-optimal payoff.
Near the end of a game a player plays for the win rather than for worms, and a move that
costs worms may raise the chance to win (``optimal`` does so with 4 tiles or fewer on the
grill). So the coach keeps the *end game* (:data:`END_GAME_TILES` grill tiles or fewer)
apart: a regret there is not necessarily a mistake.

**Situation.** A decision's key, as a person reads it (:class:`Situation`): the kind of
decision (pick a face, stop or roll on, choose a claim), the dice (rolled, for a pick;
left, for a stop or claim) and, for a pick, the roll itself (what was rolled decides
what is best: without it two picks would read the same), the total set aside before it,
the faces set aside, the tile
a stop would take now (``in reach``: the best claim at that total, ``-`` without a worm
or a tile), the tile at risk (your top tile, lost on a bust, R9) and the phase. With
what was done and the better move (the coach), or what each of two bots does (the diff),
it is the key that recurs; the coach ranks them by the worms they cost.

Pure: plain values in, plain values out.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any

from harness.game.rules import face_name
from harness.plugins import shown

#: Regret thresholds in worms of swing: inaccuracy, mistake, blunder (see above).
BANDS: tuple[float, float, float] = (0.25, 0.5, 1.0)
#: The same in chances to win: the worm bands times the two-player slope at a game's
#: start (about 0.04 a worm): 1, 2 and 4 points of the chance to win.
WIN_BANDS: tuple[float, float, float] = (0.01, 0.02, 0.04)
#: The default bands of each unit (harness.analysis.units.UNITS).
UNIT_BANDS = {"worms": BANDS, "win": WIN_BANDS}
BAND_NAMES = ("inaccuracy", "mistake", "blunder")
BAND_PLURALS = ("inaccuracies", "mistakes", "blunders")
#: The end game: this many grill tiles or fewer (``optimal``'s default ``endgame``).
END_GAME_TILES = 4
#: Regret below this is a tie, not an error: the float values of one turn are exact to
#: about 1e-15, and distinct values differ by far more.
TIE = 1e-9
KINDS = ("pick", "stop", "claim")
KIND_NAMES = {"pick": "pick a face", "stop": "stop or roll on", "claim": "choose a claim"}


def check_bands(bands: Any) -> tuple[float, float, float]:
    """Three increasing thresholds in worms, each above 0 and below 1e6, as plain floats;
    ValueError saying what is wrong otherwise (a word, a bool or a NaN is no threshold; a
    subclass's own conversions never run)."""
    if isinstance(bands, (str, bytes, dict)) or not hasattr(bands, "__iter__"):
        raise ValueError(f"expected three numbers, got {shown(bands)}")
    values: list[float | int] = []
    for item in islice(bands, 4):
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise ValueError(f"expected three numbers, got {shown(item)}")
        values.append(float.__float__(item) if isinstance(item, float) else int.__int__(item))
    if len(values) != 3:
        raise ValueError(f"{len(values)} thresholds; give three: inaccuracy, mistake, blunder")
    if not all(0 < v < 1e6 for v in values) or not values[0] < values[1] < values[2]:
        said = ", ".join(shown(v) for v in values)
        raise ValueError(f"{said}: give three increasing numbers > 0")
    return (float(values[0]), float(values[1]), float(values[2]))


def band_of(regret: float, bands: tuple[float, float, float] = BANDS) -> int:
    """0 below the first band, 1 inaccuracy, 2 mistake, 3 blunder."""
    return sum(regret >= b for b in bands)


def faces_text(faces: tuple[int, ...]) -> str:
    """Faces set aside as a person reads them: ``W 5 3`` (worm first), ``-`` for none."""
    return " ".join(face_name(f) for f in sorted(set(faces), reverse=True)) or "-"


def move_text(kind: str, move: Any) -> str:
    """A move as a person reads it: ``keep W``, ``stop``, ``roll on``, ``take 26``,
    ``steal 26 from seat 1``."""
    if kind == "pick":
        return f"keep {face_name(move)}"
    if kind == "stop":  # "stop" / "roll" (a decision's option), or the answer itself
        return "stop" if move is True or move == "stop" else "roll on"
    tile, victim = move
    return f"take {tile}" if victim is None else f"steal {tile} from seat {victim}"


def roll_text(faces: tuple[int, ...]) -> str:
    """A roll as a person reads it: ``W W 5 4 4 3 2 1`` (highest first), ``-`` for none."""
    return " ".join(face_name(f) for f in sorted(faces, reverse=True)) or "-"


def risk_text(risks: set[str] | frozenset[str]) -> str:
    """The tiles at risk of a lesson's situations, as a person reads them: ``24``,
    ``none, 23, 27`` (``-``, no tile, read as none), lowest first."""
    if risks <= {"-"}:
        return "-"
    tiles = sorted((r for r in risks if r != "-"), key=int)
    return ", ".join(["none"] * ("-" in risks) + tiles)


def claim_text(claim: tuple[int, int | None] | None) -> str:
    """What a stop would take, as a person reads it; ``-`` for nothing."""
    if claim is None:
        return "-"
    tile, victim = claim
    return str(tile) if victim is None else f"{tile} (steal)"


@dataclass(frozen=True, order=True)
class Situation:
    """A decision's situation, a person's key (see the module docstring)."""

    kind: str
    dice: int
    roll: str  # a pick's roll, ``W W 5 4 4 3 2 1`` (highest first); ``-`` for a stop, a claim
    total: int
    set_aside: str
    in_reach: str
    at_risk: str
    end_game: bool

    def describe(self) -> str:
        """One line: ``pick a face, rolled W W 5 3 2, total 10 (4 1)``, ``stop or roll
        on, 3 dice left, total 26 (W 5 4), a stop takes 26, 24 at risk``. An ``at_risk``
        of several tiles (the diff's lessons, :func:`lessons`) reads ``24, 27 at risk``."""
        if self.kind == "pick":
            dice = f"rolled {self.roll}"
        else:
            dice = f"{self.dice} {'die' if self.dice == 1 else 'dice'} left"
        parts = [KIND_NAMES[self.kind], dice, f"total {self.total} ({self.set_aside})"]
        parts.append(
            "nothing in reach" if self.in_reach == "-" else f"a stop takes {self.in_reach}"
        )
        if "," in self.at_risk:
            parts.append(f"at risk: {self.at_risk}")
        elif self.at_risk != "-":
            parts.append(f"{self.at_risk} at risk")
        if self.end_game:
            parts.append("end game")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "dice": self.dice,
            "roll": self.roll,
            "total": self.total,
            "set_aside": self.set_aside,
            "in_reach": self.in_reach,
            "at_risk": self.at_risk,
            "end_game": self.end_game,
        }


__all__ = [
    "BANDS",
    "UNIT_BANDS",
    "WIN_BANDS",
    "BAND_NAMES",
    "BAND_PLURALS",
    "END_GAME_TILES",
    "KINDS",
    "KIND_NAMES",
    "TIE",
    "Situation",
    "band_of",
    "check_bands",
    "claim_text",
    "faces_text",
    "move_text",
    "risk_text",
    "roll_text",
]
