"""Luck and skill in chances to win: the account of every turn in the turn-taker's win
probability, beside the worm account (:mod:`harness.analysis.account`).

The payoff. A turn's ending is worth the turn-taker's chance to win the game from the
position it leaves, by :mod:`harness.winprob`'s evaluator (exact when the ending ends the
game, R10, R11: a tie a shared first place): :func:`harness.winprob.win_payoff`, the one
function ``win-optimal`` plays for too. The turn programme solved for it gives every
state its value under best play for that payoff, and the account is the worm account's
with that payoff in place of the worm swing:

* **par** = ``roll[START]``: the turn's chance to win under best play, before its first roll;
* **luck** of a roll = V*(roll) - ``roll[state]`` (mean zero given everything before the
  roll, whoever decides: ``roll[state]`` is the mean of V* over the roll's exact
  distribution);
* **regret** of a decision = the best option's value - the chosen one's, >= 0.

Per turn, exactly (to float rounding, about 1e-15 a term):
**par + sum(luck) - sum(regret) = the evaluator's chance after the turn** (``swing`` of a
:class:`WinTurn`). ``before`` is the evaluator's chance at the turn's start; ``par -
before`` is what best play of the turn adds to it (0 for an evaluator that is a fixed
point of the turn programme; with an approximate evaluator it is the evaluator's own
error, never luck or skill). So a seat's chance moves over its turn by
``(par - before) + luck - regret``.

The ledgers hold the same fields as the worm account's, in chances to win (``wluck`` =
``luck``: win-unit luck is already win-weighted).

**The vector** (``vector[j]``, stored as ``winvec``): each roll's luck in *every* seat's
chance, not only the roller's. For seat j, its chance under the roller's best play (the
programme's policy: each roll's best keep, :func:`harness.analysis.turn.best_keep`, its
stops, and at each total the claim :func:`harness.winprob.stop_claims` names) after the
roll, minus that chance's mean over the roll (:func:`harness.analysis.turn.policy_arrays`:
the same turn graph valued with j's ending chances). Mean zero given the game before the
roll, whoever decides; the roller's own part is its luck above. At two players the other
seat's part is the roller's luck negated (the chances sum to one), so no second
programme is evaluated. A seat's ``vector[j]`` sums its part of every roll of the game: the
control of its win share at any player count (at two players ``winluck`` minus the other
seat's; at three or more it sees what a roll does to the seats that did not roll). Kept
only when asked for (``vector=True``: the stored account's), as it costs a programme a
seat. The native account (account.inc.c) mirrors all of it, float for float
(harness/native/sources.py).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, replace

import numpy as np

from harness.analysis.account import Accountant, Decision, Option, TurnAccount
from harness.analysis.turn import (
    START,
    Payoff,
    best_keep,
    policy_arrays,
    policy_keeps,
    solve_arrays,
)
from harness.game.board import legal_claims, tiles_of
from harness.game.rules import Rules
from harness.winprob import Position, WinPayoff, win_payoff

UNITS = ("win", "worms")
"""The units an account is kept in: chances to win (the default) or worms of swing."""

# (stop, bust) -> (value, roll): win payoffs seldom repeat across turns, so a small
# cache (one turn's arrays are ~31 kB) serves the coach's and the account's repeats.
_SOLVED: dict[tuple, tuple[array, array, tuple[np.ndarray, np.ndarray]]] = {}
_SOLVED_MAX = 256


def check_unit(unit: str) -> str:
    """``unit`` if it is one of :data:`UNITS`, else a one-line error (ConfigError)."""
    from harness.errors import ConfigError, shown

    if unit not in UNITS:
        raise ConfigError(f"unit {shown(unit)} is not one of: {', '.join(UNITS)}")
    return unit


def win_solved(stop: tuple, bust: float) -> tuple[array, array]:
    """(value, roll) of every state of the turn for a win-unit payoff (cached)."""
    return _win_programme(stop, bust)[:2]  # type: ignore[return-value]


def win_play(stop: tuple, bust: float) -> tuple[np.ndarray, np.ndarray]:
    """The best play of a win-unit payoff, (value, stops) as :func:`solve_arrays` gives
    them (cached with :func:`win_solved`): what the vector evaluates other seats under."""
    return _win_programme(stop, bust)[2]


def _win_programme(stop: tuple, bust: float) -> tuple[array, array, tuple[np.ndarray, np.ndarray]]:
    key = (stop, bust)
    found = _SOLVED.get(key)
    if found is None:
        value, roll, stops = solve_arrays(Payoff(stop, bust))
        found = (array("d", value.tobytes()), array("d", roll.tobytes()), (value, stops))
        if len(_SOLVED) >= _SOLVED_MAX:
            del _SOLVED[next(iter(_SOLVED))]
        _SOLVED[key] = found
    return found


def turn_payoff(grill: int, stacks: tuple, seat: int, rules: Rules) -> WinPayoff:
    """The win-unit payoff of ``seat``'s turn on a board (grill mask, stacks bottom to top)."""
    return win_payoff(Position(grill, tuple(tuple(s) for s in stacks), seat), rules)


def win_claim_options(
    payoff: WinPayoff, grill: int, tops: tuple[int, ...], seat: int, total: int, lower_any: bool
) -> tuple[Option, ...]:
    """Every claim R7 offers a stop at ``total`` (with a worm), valued in chances to win,
    best first (ties in R7's order: :func:`harness.game.board.legal_claims`)."""
    claims = legal_claims(seat, total, True, grill, tops, lower_any)
    options = [Option((c.tile, c.victim), payoff.claims[c.tile, c.victim]) for c in claims]
    options.sort(key=lambda o: -o.value)  # stable
    return tuple(options)


@dataclass
class WinTurn(TurnAccount):
    """A turn's account in chances to win; ``before``: the evaluator's chance of the
    turn-taker at the turn's start (``swing``: its chance after the turn)."""

    before: float = 0.0

    @property
    def drift(self) -> float:
        """par - before: what the turn programme adds to the evaluator's chance (its error)."""
        return self.par - self.before


class WinAccountant(Accountant):
    """The luck and skill account in chances to win (an observer, as :class:`Accountant`).

    Only the payoff differs from the worm account: each turn's (stop, bust) values and
    its claims' values are the evaluator's (:func:`harness.winprob.win_payoff`); the
    rolls' luck and the picks' and stops' regrets are the worm accountant's code on them.
    """

    unit = "win"

    def __init__(self, rules: Rules, vector: bool = False, **kwargs) -> None:  # noqa: ANN003
        super().__init__(rules, **kwargs)
        self.rules = rules
        self._payoff: WinPayoff | None = None
        self._grill_mask = 0
        #: with ``vector``: each seat's part of every roll's luck (stored as ``winvec``).
        #: Off by default: at three players or more it evaluates the turn's programme for
        #: every other seat (2.4-2.9x the account's CPU on the Python engine), which the
        #: coach, the diff and the hints never read.
        self.keeps_vector = vector
        self.vector = [0.0] * rules.players
        self._vector_before = list(self.vector)
        # the turn's other seats: (seat, its ending chance after a bust, value, roll)
        self._others: list[tuple[int, float, np.ndarray, np.ndarray]] = []

    def turn_started(self, turn: int, seat: int) -> None:
        self._close(None, "")
        board = self.board
        if board is None:
            raise RuntimeError("a WinAccountant hears a game that did not hand it its board")
        payoff = self._payoff = turn_payoff(board.grill, tuple(board.stacks), seat, self.rules)
        self._grill_mask = board.grill
        grill = self._grill = tiles_of(board.grill)
        tops = self._tops = tuple(board.tops)
        self._stop, self._bust = payoff.stop, payoff.bust
        self._value, self._roll = win_solved(payoff.stop, payoff.bust)
        self._state = START
        self._free = 0x7E  # faces 1-6 not yet set aside
        self._pending = -1
        self._seat = seat
        ledger = self._ledger = self.ledgers[seat]
        self._open, self._before = seat, replace(ledger)  # a forfeit's turn: taken back
        par = self._roll[START]
        ledger.turns += 1
        ledger.par += par
        self._k = 1.0  # win-unit luck is its own win weight: wluck == luck
        self._vector_before = list(self.vector)
        self._others = self._other_seats(payoff, seat)
        if self._detail:
            self._current = WinTurn(turn, seat, par, 1.0, grill, tops, before=payoff.before)

    def _other_seats(
        self, payoff: WinPayoff, seat: int
    ) -> list[tuple[int, float, np.ndarray, np.ndarray]]:
        """Every other seat's chance under the roller's best play of this turn, per state
        (three players or more; at two the roller's luck negated is the other's)."""
        if self.players < 3 or not self.keeps_vector:
            return []
        play = win_play(payoff.stop, payoff.bust)
        keeps = policy_keeps(play)  # the roller's play: one for every seat
        others = []
        for j in range(self.players):
            if j != seat:
                stop = tuple(None if c is None else payoff.vectors[c][j] for c in payoff.chosen)
                bust = payoff.bust_vector[j]
                values, roll = policy_arrays(play, Payoff(stop, bust), keeps)
                others.append((j, bust, values, roll))
        return others

    def _rolled(self, roll_faces: tuple[int, ...], counts, mask: int) -> float:  # noqa: ANN001
        best = super()._rolled(roll_faces, counts, mask)
        if not self.keeps_vector:
            return best
        i, seat = self._state, self._seat
        luck = best - self._roll[i]  # the roller's part: its luck, as booked
        vector = self.vector
        vector[seat] += luck
        if self.players == 2:
            vector[1 - seat] += -luck
            return best
        new = mask & self._free
        child = best_keep(self._value, i, counts, new) if new else -1
        for j, bust, values, roll in self._others:
            vector[j] += (bust if child < 0 else float(values[child])) - float(roll[i])
        return best

    def finish(self) -> None:
        if self._open >= 0:  # a forfeit's turn: nothing of it counts, for any seat
            self.vector[:] = self._vector_before
        super().finish()

    def claimed(self, seat: int, claim, total: int) -> None:  # noqa: ANN001
        self._settle_pending(True)
        payoff = self._payoff
        assert payoff is not None
        move = (claim.tile, claim.victim)
        chosen = payoff.claims[move]
        regret = self._stop[total] - chosen
        ledger = self._ledger
        ledger.regret_claim += regret
        options = win_claim_options(
            payoff, self._grill_mask, self._tops, seat, total, self.lower_any
        )
        if len(options) > 1:
            ledger.claims += 1
        if self._current is not None:
            self._current.decisions.append(Decision("claim", self._state, options, move, regret))
        self._open = -1
        self._close(chosen, "claim" if claim.victim is None else "steal")


def accountant_for(unit: str, rules: Rules, **kwargs) -> Accountant:  # noqa: ANN003
    """The accountant of ``unit`` ("win" or "worms") for ``rules``."""
    if check_unit(unit) == "win":
        return WinAccountant(rules, **kwargs)
    return Accountant(rules, **kwargs)


__all__ = [
    "UNITS",
    "WinAccountant",
    "WinTurn",
    "accountant_for",
    "check_unit",
    "turn_payoff",
    "win_claim_options",
    "win_play",
    "win_solved",
]
