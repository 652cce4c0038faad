"""Every option of a roll, valued exactly: what to keep, and whether to stop after it.

A roll's decision is a keep (R5) and then, where a stop would claim with dice left, stop
or roll on (R6, R7). :func:`roll_options` values every such option for the turn's worm
swing (:mod:`harness.analysis.account`: the payoff ``optimal`` maximises, a steal worth
its worms times P / (P - 1), a bust minus the player's top tile), best first, each with
its regret against the best. ``harness analyze roll`` prints it; hints for a person at
the table and the coach read the same values. Given a win-unit payoff
(:func:`harness.analysis.units.turn_payoff`: every ending worth the turn-taker's chance
to win after it), the same options are valued in chances to win instead. Pure
computation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.analysis.account import claim_options, solved, swing_payoff
from harness.analysis.turn import CHILD, STATES, WORM_BIT, state_index
from harness.analysis.units import win_claim_options, win_solved
from harness.errors import HarnessError
from harness.game.board import mask_of
from harness.game.rules import DICE, FACE_POINTS, face_name, worms
from harness.winprob import WinPayoff


@dataclass(frozen=True)
class TurnPosition:
    """A turn in progress as the analysis needs it: the board and what is set aside.

    ``grill``: face-up tiles; ``tops[v]``: seat v's top tile (0 for none); ``seat``: whose
    turn it is; ``kept``: the dice set aside so far (one face per die).
    """

    grill: tuple[int, ...]
    tops: tuple[int, ...]
    seat: int
    kept: tuple[int, ...] = ()
    lower_any: bool = False

    def __post_init__(self) -> None:
        if not 2 <= len(self.tops) <= 7:
            raise HarnessError(f"{len(self.tops)} players: a game has 2 to 7 (R3)")
        if not 0 <= self.seat < len(self.tops):
            raise HarnessError(f"seat {self.seat} is not a seat 0..{len(self.tops) - 1}")
        if len(self.kept) > DICE:
            raise HarnessError(f"{len(self.kept)} dice set aside; there are {DICE} (R2)")

    @property
    def state(self) -> int:
        """The turn state after setting aside ``kept`` (ValueError-free: one line)."""
        kept = self.kept  # in any order: only the faces and their points matter
        try:
            return state_index(set(kept), DICE - len(kept), sum(FACE_POINTS[f] for f in kept))
        except ValueError as exc:
            raise HarnessError(str(exc)) from None

    @property
    def players(self) -> int:
        return len(self.tops)


@dataclass(frozen=True)
class RollOption:
    """One option after a roll: keep ``count`` dice of ``face``, then ``then`` ("stop",
    "roll" on, or "end": no dice left, the turn ends with a claim or a bust), worth
    ``value`` worms of swing; ``regret`` is what it gives up against the best option;
    ``claim`` the (tile, victim) a stop takes (victim None: the grill)."""

    face: int
    count: int
    then: str
    value: float
    regret: float
    claim: tuple[int, int | None] | None = None

    def describe(self) -> str:
        keep = f"keep {self.count} x {face_name(self.face)}"
        if self.then == "stop":
            tile, victim = self.claim if self.claim else (0, None)
            return f"{keep}, stop: {claim_words(tile, victim)}"
        if self.then == "roll":
            return f"{keep}, roll on"
        return f"{keep}, end of the turn"


@dataclass(frozen=True)
class RollAnalysis:
    """A roll's options best first, what the turn was worth before the roll
    (``expected``), at best after it (``best``), and so the roll's ``luck``; a roll with no
    new face has no option (``bust``: the turn ends, worth ``best``)."""

    position: TurnPosition
    roll: tuple[int, ...]
    expected: float
    best: float
    options: tuple[RollOption, ...]

    @property
    def luck(self) -> float:
        return self.best - self.expected

    @property
    def bust(self) -> bool:
        return not self.options

    def option(self, face: int, then: str | None = None) -> RollOption:
        """The option that keeps ``face`` (then ``then``, or the better way on)."""
        for o in self.options:
            if o.face == face and (then is None or o.then == then):
                return o
        raise HarnessError(f"keeping {face_name(face)} is not an option of this roll (R5)")


def roll_options(
    position: TurnPosition, roll: Sequence[int], win: WinPayoff | None = None
) -> RollAnalysis:
    """Every legal option of ``roll`` in ``position``, valued exactly, best first (ties:
    the higher face, stopping before rolling on); in worms of swing, or in chances to win
    for the turn's win-unit payoff ``win``. HarnessError, one line, for a roll that
    cannot happen there (a wrong number of dice, a face that is not 1-6)."""
    roll = tuple(roll)
    i = position.state
    mask, left, total = STATES[i]
    if len(roll) != left:
        raise HarnessError(f"a roll of {len(roll)} dice with {left} dice left to roll (R4)")
    if any(type(f) is not int or not 1 <= f <= 6 for f in roll):
        raise HarnessError(f"roll {list(roll)}: faces are 1-5 and W (6) (R2)")
    stop, bust = payoff_of(position, win)
    value, roll_value = solved(stop, bust) if win is None else win_solved(stop, bust)
    counts = [roll.count(f) for f in range(7)]
    options: list[RollOption] = []
    for f in range(6, 0, -1):
        if not counts[f] or mask >> f & 1:
            continue
        child = CHILD[i << 6 | f << 3 | counts[f] - 1]
        c_mask, c_left, c_total = STATES[child]
        here = stop[c_total] if c_mask & WORM_BIT else None
        if c_left == 0:
            options.append(RollOption(f, counts[f], "end", value[child], 0.0, None))
            continue
        if here is not None:
            claim = best_claim(position, c_total, win)
            options.append(RollOption(f, counts[f], "stop", here, 0.0, claim))
        options.append(RollOption(f, counts[f], "roll", roll_value[child], 0.0))
    order = {"stop": 0, "end": 1, "roll": 2}
    options.sort(key=lambda o: (-o.value, -o.face, order[o.then]))
    best = options[0].value if options else float(bust)
    ranked = tuple(
        RollOption(o.face, o.count, o.then, o.value, best - o.value, o.claim) for o in options
    )
    return RollAnalysis(position, roll, roll_value[i], best, ranked)


def option_lines(analysis: RollAnalysis) -> list[str]:
    """The options as ``harness analyze roll`` prints them (the hints of a person's seat
    print the same lines): a header, then one line per option, best first."""
    return option_table((o.describe(), o.value, o.regret) for o in analysis.options)


def claim_words(tile: int, victim: int | None, *, worm_count: bool = False) -> str:
    """A claim as every option list words it: ``take 28`` from the grill, ``steal 28 from
    seat 1`` (``worm_count``: ``take 28 (2 worms)``)."""
    shown = f"{tile} ({worms(tile)} worm{'' if worms(tile) == 1 else 's'})" if worm_count else tile
    return f"take {shown}" if victim is None else f"steal {shown} from seat {victim}"


def option_table(rows: Iterable[tuple[str, float, float]]) -> list[str]:
    """Options as lines: a header, then (what, value, regret) one per line, the numbers in
    columns however long the longest option's words (a steal's are the longest)."""
    rows = list(rows)
    width = max([34, *(len(what) for what, _, _ in rows)])
    lines = [f"  {'option':<{width}} {'value':>9} {'regret':>8}"]
    lines += [f"  {what:<{width}} {value:>+9.4f} {regret:>8.4f}" for what, value, regret in rows]
    return lines


def payoff_of(position: TurnPosition, win: WinPayoff | None) -> tuple[tuple, float]:
    """The turn's (stop value per total, bust value): the worm swing's, or ``win``'s."""
    if win is None:
        return swing_payoff(position.grill, position.tops, position.seat, position.lower_any)
    return win.stop, win.bust


def claim_values(position: TurnPosition, total: int, win: WinPayoff | None) -> tuple:
    """Every claim R7 offers a stop at ``total``, valued (worms, or ``win``'s chances),
    best first."""
    if win is None:
        return claim_options(
            position.grill, position.tops, position.seat, total, position.lower_any
        )
    return win_claim_options(
        win, mask_of(position.grill), position.tops, position.seat, total, position.lower_any
    )


def best_claim(
    position: TurnPosition, total: int, win: WinPayoff | None = None
) -> tuple[int, int | None]:
    """The best claim a stop at ``total`` takes (in the payoff's unit)."""
    return claim_values(position, total, win)[0].move


def position_of(
    grill: Sequence[int],
    tops: Sequence[int],
    held: int | None,
    kept: Sequence[int] = (),
    players: int | None = None,
    lower_any: bool = False,
) -> TurnPosition:
    """A position from what a person types: the grill, the opponents' top tiles (seats
    1, 2, ... in turn, 0 for an empty stack), your own top (``held``, seat 0) and the dice
    set aside. ``players`` defaults to one more than the tops given (at least 2)."""
    others = [int(t) for t in tops]
    n = players if players is not None else max(2, len(others) + 1)
    if len(others) > n - 1:
        raise HarnessError(f"{len(others)} opponents' tops for {n} players")
    others += [0] * (n - 1 - len(others))
    return TurnPosition(
        tuple(sorted(grill)), (held or 0, *others), 0, tuple(kept), lower_any=lower_any
    )


__all__ = [
    "RollAnalysis",
    "RollOption",
    "TurnPosition",
    "best_claim",
    "claim_values",
    "option_lines",
    "option_table",
    "position_of",
    "roll_options",
]
