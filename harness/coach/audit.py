"""The coach's seat: a bot's every answer valued as it is given, and the tally of them.

:class:`Audited` wraps a strategy instance. The engine asks it as it would ask the bot
(pick, stop, claim, with the same view), it asks the bot, hands the bot's answer back
untouched (so the game is the bot's own, forfeits included), and on the way values the
answer exactly against every other option of the question
(:mod:`harness.coach.valuing`). It works the same whichever engine asks: on the native
engine the audited seat is a Python seat called back from C, beside native opponents.

:class:`CoachTally` sums the decisions up per deal (the unit every interval clusters on,
:mod:`harness.stats`), per kind of decision and per error band, and keeps every
situation where the bot erred (:class:`~harness.coach.situations.Situation`) with its
count, its regret and where its costliest instance was (deal, table, seat order, the
decision's number in the game), so that an example can be played again with its record.
Only completed games count (:mod:`harness.coach.tally`). Tallies of disjoint deals add
up (:meth:`CoachTally.merge`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.analysis.account import Decision, claim_options
from harness.coach.situations import (
    BANDS,
    END_GAME_TILES,
    KINDS,
    TIE,
    Situation,
    band_of,
    claim_text,
    faces_text,
    move_text,
    roll_text,
)
from harness.coach.tally import GAME_FIELDS, DealTally, Where
from harness.coach.valuing import (
    Board,
    Moment,
    read_answer,
    value_claim,
    value_pick,
    value_stop,
)
from harness.game.rules import DICE, FACE_POINTS, WORM, Rules
from harness.game.strategy import Strategy
from harness.game.view import View

Sink = Callable[[Moment, Decision], None]


class Audited(Strategy):
    """A strategy whose every answer is valued as it is given (see the module docstring).

    ``sink(moment, decision)`` hears each valued decision. The wrapper never changes an
    answer; what the bot raises, the engine gets (the bot's forfeit). An error of the
    valuation itself is kept in :attr:`error` (the caller raises it after the game: a
    bug of the coach must never pass for the bot's forfeit).
    """

    name = "audited"

    def __init__(self, inner: Strategy, sink: Sink, unit: str = "worms") -> None:
        self.inner = inner
        self.sink = sink
        self.unit = unit  # what each answer is valued in: "win" or "worms"
        self.error: BaseException | None = None
        self._board: Board | None = None
        self._before: tuple[int, ...] = ()
        self._roll: tuple[int, ...] = ()

    def new_game(self, seat: int, rules: Rules) -> None:
        self.inner.new_game(seat, rules)

    def pick(self, view: View) -> Any:
        answer = self.inner.pick(view)
        self._audit("pick", view, answer, view.choices)
        return answer

    def stop(self, view: View) -> Any:
        answer = self.inner.stop(view)
        self._audit("stop", view, answer, None)
        return answer

    def claim(self, view: View, choices: Sequence[Any]) -> Any:
        answer = self.inner.claim(view, choices)
        self._audit("claim", view, answer, choices)
        return answer

    def _audit(self, kind: str, view: View, answer: Any, choices: Any) -> None:
        move = read_answer(kind, answer, choices)
        if move is None or self.error is not None:
            return  # not a legal answer: the engine makes it the bot's forfeit
        try:
            board = self._board
            if board is None or board.turn != view.turn:
                board = self._board = Board.of(view, self.unit)
            if kind == "pick":
                self._before, self._roll = view.kept, view.rolled
                decision = value_pick(board, view, move)
            elif kind == "stop":
                decision = value_stop(board, view, move)
            else:
                decision = value_claim(board, view, move, choices)
            if decision is not None:
                self.sink(Moment.of(board, self._before, self._roll, view.kept), decision)
        except Exception as exc:  # the coach's own bug: raised after the game, not a forfeit
            self.error = exc


def situation_of(moment: Moment, kind: str) -> Situation:
    """Where a decision of ``kind`` was taken, as a person reads it
    (:class:`~harness.coach.situations.Situation`)."""
    seen = moment.before if kind == "pick" else moment.kept
    total = sum(FACE_POINTS[f] for f in seen)
    reach = None
    if WORM in seen:
        found = claim_options(moment.grill, moment.tops, moment.seat, total, moment.lower_any)
        reach = found[0].move if found else None
    top = moment.tops[moment.seat]
    return Situation(
        kind=kind,
        dice=len(moment.roll) if kind == "pick" else DICE - len(seen),
        roll=roll_text(moment.roll) if kind == "pick" else "-",
        total=total,
        set_aside=faces_text(seen),
        in_reach=claim_text(reach),
        at_risk=str(top) if top else "-",
        end_game=len(moment.grill) <= END_GAME_TILES,
    )


#: The coach's key of an error: where, what the bot did, the better move.
Key = tuple[Situation, str, str]


def coach_key(moment: Moment, decision: Decision) -> Key:
    kind = decision.kind
    did, better = move_text(kind, decision.chosen), move_text(kind, decision.best.move)
    return situation_of(moment, kind), did, better


# -- the tally ----------------------------------------------------------------------------
# Per deal, per kind: decisions with a choice, their regret, the part of it in the end
# game, decisions that were not best, and the decisions in each band.
PER_KIND = ("decisions", "regret", "end_game", "errors", "band1", "band2", "band3")
FIELDS = GAME_FIELDS + tuple(f"{k}_{f}" for k in KINDS for f in PER_KIND)


@dataclass
class Seen:
    """A situation's count, its summed regret and its costliest instance."""

    count: int = 0
    regret: float = 0.0
    worst: float = -1.0
    where: Where | None = None

    def add(self, regret: float, where: Where) -> None:
        self.count += 1
        self.regret += regret
        if regret > self.worst:  # the first of equals: the same whatever the workers
            self.worst, self.where = regret, where

    def merge(self, other: Seen) -> None:
        self.count += other.count
        self.regret += other.regret
        if other.worst > self.worst or (
            other.worst == self.worst
            and other.where is not None
            and self.where is not None
            and other.where < self.where
        ):
            self.worst, self.where = other.worst, other.where


class CoachTally(DealTally):
    """The coach's sums over some deals (see the module docstring)."""

    FIELDS = FIELDS

    def __init__(self, bands: tuple[float, float, float] = BANDS, catch: int | None = None) -> None:
        super().__init__(catch)
        self.bands = bands
        self.situations: dict[Key, Seen] = {}

    def add(self, moment: Moment, decision: Decision) -> None:
        """One valued decision of the bot (an :class:`Audited` sink)."""
        row = self.game_row
        where = self.place(moment, decision)
        if not decision.choice:
            return  # one legal option: nothing was decided
        kind = decision.kind
        regret = decision.regret
        base = self.index(f"{kind}_decisions")
        row[base] += 1
        row[base + 1] += regret
        if len(moment.grill) <= END_GAME_TILES:
            row[base + 2] += regret
        if regret > TIE:
            row[base + 3] += 1
            band = band_of(regret, self.bands)
            if band:
                row[base + 3 + band] += 1
            key = coach_key(moment, decision)
            self.later(lambda: self._seen(key, regret, where))

    def _seen(self, key: Key, regret: float, where: Where) -> None:
        """An error, counted once its game has completed."""
        seen = self.situations.get(key)
        if seen is None:
            seen = self.situations[key] = Seen()
        seen.add(regret, where)

    def merge(self, other: DealTally) -> None:
        """Add a tally of other deals (in deal order: sums come out the same)."""
        assert isinstance(other, CoachTally)
        super().merge(other)
        for key, seen in other.situations.items():
            found = self.situations.get(key)
            if found is None:
                self.situations[key] = Seen(seen.count, seen.regret, seen.worst, seen.where)
            else:
                found.merge(seen)


__all__ = [
    "FIELDS",
    "PER_KIND",
    "Audited",
    "CoachTally",
    "Key",
    "Seen",
    "Where",
    "coach_key",
    "situation_of",
]
