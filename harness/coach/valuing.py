"""A decision valued exactly from the question a seat was asked: what the coach sees.

A seat is asked three kinds of question (``pick``, ``stop``, ``claim``) with a view that
shows the board and the turn so far. From the view alone, every option of the question
has its exact value for the turn's worm swing (:mod:`harness.analysis.account`: the
payoff ``optimal`` maximises, solved once per board and cached), so a wrapper around a
seat can value each answer as it is given, whichever engine asks (the Python engine, or
the native one calling a Python seat back). The numbers are the account's to the last
bit: the same solved arrays, the same operations in the same order
(tests/coach/test_coach.py checks them against :class:`~harness.analysis.account.Accountant`).

In chances to win (``unit="win"``, the commands' default) the same, with the win-unit
account's payoff (:mod:`harness.analysis.units`): every ending valued by the
turn-taker's chance to win after it, by :mod:`harness.winprob`'s evaluator; the values
are then the win-unit account's, to the last bit.

A :class:`Moment` keeps what a person needs to see the decision again: the board, the
dice set aside before the last keep and the roll it came from (``harness analyze roll``
takes them), the turn's number.

An answer is read by its plain value, with the engine's own readers
(:func:`harness.game.engine.plain_int`, :func:`~harness.game.engine.plain_pair`); an answer that is
not legal is not valued (the engine makes it the seat's forfeit).
"""

from __future__ import annotations

import sys
from array import array
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from harness.analysis.account import (
    Decision,
    Option,
    claim_options,
    claim_value,
    solved,
    swing_payoff,
)
from harness.analysis.board import tile_ranges
from harness.analysis.roll import TurnPosition
from harness.analysis.turn import CHILD, LOOKUP, STATES, WORM_BIT
from harness.analysis.units import turn_payoff, win_claim_options, win_solved
from harness.game.board import mask_of
from harness.game.engine import plain_int, plain_pair
from harness.game.rules import DICE, face_name
from harness.game.view import View
from harness.interrupts import reraise_if_user


@dataclass(frozen=True)
class Board:
    """The board of one of a seat's turns and its payoff in ``unit`` (stop value per
    total, bust value; ``claims``: every claim's value in chances to win, None in worms);
    the turn's solved values (:attr:`value`, :attr:`roll`) on first use."""

    turn: int
    seat: int
    players: int
    grill: tuple[int, ...]
    tops: tuple[int, ...]  # every seat's top tile, 0 for none
    lower_any: bool
    stop: tuple[float | None, ...]
    bust: float
    unit: str = "worms"
    claims: dict | None = None

    @classmethod
    def of(cls, view: View, unit: str = "worms") -> Board:
        grill = tuple(view.grill)
        tops = tuple(t or 0 for t in view.tops)
        lower_any = view.rules.lower_tile == "any"
        if unit == "win":
            pay = turn_payoff(mask_of(grill), view.stacks, view.seat, view.rules)
            return cls(view.turn, view.seat, view.players, grill, tops, lower_any,
                       pay.stop, pay.bust, unit, pay.claims)  # fmt: skip
        stop, bust = swing_payoff(grill, tops, view.seat, lower_any)
        return cls(view.turn, view.seat, view.players, grill, tops, lower_any, stop, bust)

    @cached_property
    def _solved(self) -> tuple[array, array]:
        if self.claims is not None:
            return win_solved(self.stop, self.bust)
        return solved(self.stop, self.bust)

    def claim_worth(self, move: tuple[int, int | None]) -> float:
        """What the claim ``(tile, victim)`` is worth in the board's unit."""
        if self.claims is not None:
            return self.claims[move]
        return claim_value(move, self.players)

    def claim_options(self, total: int) -> tuple[Option, ...]:
        """Every claim R7 offers a stop at ``total``, valued in the board's unit, best first."""
        if self.claims is not None:
            pay = _Pay(self.claims)
            return win_claim_options(pay, mask_of(self.grill), self.tops, self.seat, total,
                                     self.lower_any)  # fmt: skip
        return claim_options(self.grill, self.tops, self.seat, total, self.lower_any)

    @property
    def value(self) -> array:
        """Every state's value under best play, having just kept (the account's V)."""
        return self._solved[0]

    @property
    def roll(self) -> array:
        """Every state's value of rolling on under best play (the account's R)."""
        return self._solved[1]


@dataclass(frozen=True)
class Moment:
    """Where a decision was taken, for a person to look at again: the board (plain
    values), the dice set aside before the roll the decision follows, that roll (a stop
    and a claim follow the pick of the last roll), and the dice set aside at the decision
    itself (after the keep, for a stop or a claim)."""

    turn: int
    seat: int
    players: int
    grill: tuple[int, ...]
    tops: tuple[int, ...]
    lower_any: bool
    before: tuple[int, ...]
    roll: tuple[int, ...]
    kept: tuple[int, ...]

    @classmethod
    def of(cls, board: Board, before: tuple, roll: tuple, kept: tuple) -> Moment:
        b = board
        return cls(b.turn, b.seat, b.players, b.grill, b.tops, b.lower_any, before, roll, kept)

    def position(self) -> TurnPosition:
        """The board with the dice set aside before the roll: what ``analyze roll`` takes."""
        return TurnPosition(self.grill, self.tops, self.seat, self.before, self.lower_any)

    def analyze_command(self) -> str:
        """``harness analyze roll ...`` for this roll on this board: every option of it,
        valued (the seat's opponents' tops in turn order after it, as the command takes
        them)."""
        n = self.players
        others = [self.tops[(self.seat + j) % n] for j in range(1, n)]
        words = ["harness analyze roll", dice_text(self.roll), "--grill", tile_ranges(self.grill)]
        if self.before:
            words += ["--kept", dice_text(self.before)]
        if any(others):
            words += ["--tops", ",".join(map(str, others))]
        if self.tops[self.seat]:
            words += ["--held", str(self.tops[self.seat])]
        words += ["--players", str(n)]
        if self.lower_any:
            words.append("--lower-any")
        return " ".join(words)


def dice_text(faces: tuple[int, ...]) -> str:
    """Dice as the commands take them: ``W,W,5,3`` (highest first)."""
    return ",".join(face_name(f) for f in sorted(faces, reverse=True))


def state_of(view: View) -> int:
    """The turn state the view shows (faces kept, dice left, total)."""
    return LOOKUP[view.kept_faces, view.dice_left, view.total]


def read_answer(kind: str, answer: Any, choices: Any) -> Any:
    """The plain move an answer stands for, as the engine reads it: a face, True / False,
    a (tile, victim) claim among ``choices``; None for an answer the engine refuses (the
    seat's forfeit, R5-R7) or one whose reading raises (a plugin's ``__index__``)."""
    if kind == "pick" and type(answer) is int:  # the common case, the engine's fast path
        return answer if answer in choices else None
    if kind == "stop" and (answer is True or answer is False):
        return answer
    try:
        if kind == "pick":
            face = plain_int(answer)
            return face if face in choices else None
        if kind == "stop":
            return plain_stop(answer)
        tile, victim, pair = plain_pair(answer)
    except BaseException as exc:
        reraise_if_user(exc)
        return None
    legal = [(c[0], c[1]) for c in choices]
    return next((m for m in legal if m[0] == tile and (not pair or m[1] == victim)), None)


def plain_stop(answer: Any) -> bool | None:
    """A stop answer as the engine reads it (True, False, numpy's bool, 0 or 1); None for
    anything else (the engine's forfeit, R6)."""
    if answer is True or answer is False:
        return answer
    numpy = sys.modules.get("numpy")
    if numpy is not None and type(answer) is numpy.bool_:
        return answer.item() is True
    value = plain_int(answer)
    return None if value not in (0, 1) else value == 1


def value_pick(board: Board, view: View, face: int) -> Decision:
    """Keeping ``face`` from the roll the view shows, valued with every other keep (best
    first; a tie keeps the higher face first)."""
    i = state_of(view)
    base = i << 6
    counts = view.counts
    value = board.value
    options = [
        Option(f, value[CHILD[base | f << 3 | counts[f] - 1]]) for f in reversed(view.choices)
    ]
    best = max(o.value for o in options)
    chosen = value[CHILD[base | face << 3 | counts[face] - 1]]
    options.sort(key=lambda o: -o.value)
    return Decision("pick", i, tuple(options), face, best - chosen)


def value_stop(board: Board, view: View, stopped: bool) -> Decision | None:
    """Stop or roll on after a keep (R6), valued against the other option; None where no
    stop is on offer with dice left (the engine does not ask there)."""
    i = state_of(view)
    mask, left, total = STATES[i]
    here = board.stop[total] if mask & WORM_BIT else None
    if here is None or not left:
        return None
    best = board.value[i]
    rolling = board.roll[i]
    chosen = here if stopped else rolling
    options = sorted((Option("stop", here), Option("roll", rolling)), key=lambda o: -o.value)
    return Decision("stop", i, tuple(options), "stop" if stopped else "roll", best - chosen)


def value_claim(board: Board, view: View, move: tuple[int, int | None], choices: Any) -> Decision:
    """The claim ``move`` among ``choices`` (R7), valued for the swing against the best."""
    legal = {(c[0], c[1]) for c in choices}
    options = tuple(o for o in board.claim_options(view.total) if o.move in legal)
    chosen = next(o.value for o in options if o.move == move)
    return Decision("claim", state_of(view), options, move, options[0].value - chosen)


@dataclass(frozen=True)
class _Pay:
    """The claims' values, as :func:`harness.analysis.units.win_claim_options` reads them."""

    claims: dict


def dice_of(kept: tuple[int, ...]) -> int:
    """Dice left after ``kept`` were set aside."""
    return DICE - len(kept)


__all__ = [
    "Board",
    "Moment",
    "dice_of",
    "dice_text",
    "plain_stop",
    "read_answer",
    "state_of",
    "value_claim",
    "value_pick",
    "value_stop",
]
