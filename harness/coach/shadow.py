"""The diff's seat: a second bot asked the same questions, each parting valued exactly.

:class:`Shadowed` plays one bot (the *primary*) and asks a second one (the *shadow*) every
question the primary is asked, with a view showing the same thing. Where their answers
differ (a *parting*), both choices are valued exactly under the shadow's own play for the
rest of the turn (:class:`OwnPlay`: every roll that can follow is enumerated with its
exact probability and the shadow is asked what it would keep and whether it would stop),
for the turn's worm swing (the account's payoff, :mod:`harness.analysis.account`).

Why the shadow's continuation. With B the shadow in A's games, the performance
difference identity of Markov decision processes says, for every turn,

    V_B(turn start) - V_A(turn start) = E[ sum over A's decisions of Q_B(s, B(s)) - Q_B(s, A(s)) ]

where V_X is the turn's expected swing when X plays it and Q_B(s, x) the expected swing of
choosing x in s and letting B play on. A's decisions where B agrees add 0, so the sum over
the partings of a turn is an unbiased estimate of how much more B's play of that turn is
worth than A's, on A's board; in B's games with A the shadow, the same with the roles
swapped (Q_A, B's boards). No game outcome enters, only exact expectations given the
states reached: that is why a diff finds a difference with far fewer games than a
compare of results.

What a shadow is. The shadow sees a view equal to the primary's (a copy, resynchronised
before every question, its ``rng`` seeded as the primary's), and its ``new_game`` is
called as the primary's is. Its own state follows the primary's decisions, not its own:
a bot that keeps state from its past answers (a count of rolls this turn, a plan made
at the turn's first roll) answers as if it had made the primary's choices. The valuation
also asks the shadow hypothetical questions (the rolls that could follow); the values are
exact for a bot whose answers depend on what its view shows, as every built-in's do
(``optimal`` makes its plan at a turn's first roll, which the valuation never asks).
A state reached along several paths is valued once per turn, with the dice set aside in
the order of the first path (a bot that reads the order of ``view.kept`` sees one of them).
An answer of the shadow the engine would refuse, or an exception it raises, ends the
shadowing of that game and is counted (:attr:`Shadowed.failure` says what).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from harness.analysis.turn import CHILD, STATES, WORM_BIT
from harness.coach.valuing import Board, Moment, read_answer, state_of
from harness.errors import safe_text
from harness.game.board import ALL_FACES, FACES_OF, mask_of
from harness.game.rules import Rules
from harness.game.strategy import Strategy
from harness.game.turn import chance_outcomes
from harness.game.view import View
from harness.interrupts import reraise_if_user


class ShadowFailed(Exception):
    """The shadow raised, or answered what the engine would refuse."""


@dataclass(frozen=True)
class Parting:
    """A question the two bots answer differently: its kind, what the primary and the
    shadow answered, and both answers' exact values under the shadow's play."""

    kind: str
    primary: Any
    shadow: Any
    primary_value: float
    shadow_value: float


class OwnPlay:
    """Exact values of one turn's states when ``strategy`` plays the rest of it.

    ``view`` is the strategy's own view, showing the turn's board; the evaluation writes
    the turn slots of every state it asks about (the caller resynchronises it after).
    ``board`` gives the swing payoff: a claim's worms (a steal's times P / (P - 1): the
    account's :func:`~harness.analysis.account.claim_value`), a bust minus the seat's top
    tile. The rolls that can follow are the turn's chance outcomes
    (:func:`harness.game.turn.chance_outcomes`). Values are memoised per state for the turn.
    """

    def __init__(self, strategy: Strategy, view: View, board: Board) -> None:
        self.strategy = strategy
        self.view = view
        self.board = board
        self._kept: dict[int, float] = {}
        self._rolled: dict[int, float] = {}
        self._claims: dict[int, float] = {}

    # -- the turn slots of a state ----------------------------------------------------------
    def _show(self, i: int, kept: tuple[int, ...]) -> None:
        mask, left, total = STATES[i]
        v = self.view
        v.kept = kept
        v.kept_faces = FACES_OF[mask]
        v.total = total
        v.dice_left = left
        v.has_worm = bool(mask & WORM_BIT)

    def claim_value(self, i: int, kept: tuple[int, ...]) -> float:
        """What a stop in state i is worth when the strategy chooses the claim (R7)."""
        total = STATES[i][2]
        found = self._claims.get(total)
        if found is None:
            self._show(i, kept)
            choices = self.view.claims
            choice = choices[0]
            if len(choices) > 1:
                move = read_answer("claim", _ask(self.strategy.claim, self.view, choices), choices)
                if move is None:
                    raise ShadowFailed(f"its claim with {total} is none of the legal ones (R7)")
                choice = move
            found = self.board.claim_worth((choice[0], choice[1]))
            self._claims[total] = found
        return found

    def kept_value(self, i: int, kept: tuple[int, ...]) -> float:
        """Having set aside ``kept`` (state i): the strategy stops or rolls on (R6-R8)."""
        found = self._kept.get(i)
        if found is not None:
            return found
        mask, left, total = STATES[i]
        found = None
        if mask & WORM_BIT and self.board.stop[total] is not None:  # a stop would claim
            if not left:
                found = self.claim_value(i, kept)
            else:
                self._show(i, kept)
                stop = read_answer("stop", _ask(self.strategy.stop, self.view), None)
                if stop is None:
                    raise ShadowFailed(f"its stop() with {total} is not True or False (R6)")
                if stop:
                    found = self.claim_value(i, kept)
        elif not left:
            found = self.board.bust  # R8: all dice set aside, nothing to claim
        if found is None:
            found = self.roll_value(i, kept)
        self._kept[i] = found
        return found

    def roll_value(self, i: int, kept: tuple[int, ...]) -> float:
        """Rolling on from state i: every roll of the dice left, exactly (R4, R5)."""
        found = self._rolled.get(i)
        if found is not None:
            return found
        mask, left, _ = STATES[i]
        free = ALL_FACES & ~mask
        bust = self.board.bust
        view = self.view
        pick = self.strategy.pick
        total = 0.0
        for roll, p in chance_outcomes(left):
            new = roll.mask & free
            if not new:  # R5: no new face
                total += p * bust
                continue
            self._show(i, kept)
            view.counts = roll.counts
            choices = view.choices = FACES_OF[new]
            face = read_answer("pick", _ask(pick, view), choices)
            if face is None:
                raise ShadowFailed(f"its pick from {list(roll.faces)} is not a legal face (R5)")
            count = roll.counts[face]
            child = CHILD[i << 6 | face << 3 | count - 1]
            total += p * self.kept_value(child, kept + (face,) * count)
        self._rolled[i] = total
        return total


def _ask(method: Callable[..., Any], *args: Any) -> Any:
    try:
        return method(*args)
    except BaseException as exc:
        reraise_if_user(exc)
        raise ShadowFailed(f"it raised {type(exc).__name__}: {safe_text(exc, 200)}") from exc


class Watcher(Protocol):
    """What a :class:`Shadowed` seat tells: every question with a choice, every parting,
    the shadow's failure."""

    def asked(self, kind: str) -> None: ...

    def parted(self, moment: Moment, parting: Parting) -> None: ...

    def failed(self, message: str) -> None: ...


class Shadowed(Strategy):
    """The primary bot plays; the shadow is asked the same questions (module docstring).

    ``watcher`` hears every question with a choice, every parting and the shadow's
    failure (which ends the shadowing of the game); ``failed`` is a failure decided before
    the game (its process died in this game before: the game is played without it). The
    shadow is asked every question, a pick with one legal face too: its state
    (``view.rng`` drawn from, say) follows the primary's questions one for one. The
    primary's answers go to the
    engine untouched. :attr:`error` holds an error of the valuation itself (raised by the
    caller after the game: never the primary's forfeit).
    """

    name = "shadowed"

    def __init__(
        self,
        primary: Strategy,
        shadow: Strategy | None,
        watcher: Watcher,
        failed: str | None = None,
        unit: str = "worms",
    ) -> None:
        self.primary = primary
        self.unit = unit  # what a parting is valued in: "win" or "worms"
        self.shadow = shadow
        self.watcher = watcher
        self.failed_before = failed  # decided before the game (its process died in it)
        self.failure: str | None = None
        self.error: BaseException | None = None
        self._view: View | None = None
        self._turn = -1
        self._board: Board | None = None
        self._play: OwnPlay | None = None
        self._before: tuple[int, ...] = ()
        self._roll: tuple[int, ...] = ()

    def new_game(self, seat: int, rules: Rules) -> None:
        self.primary.new_game(seat, rules)
        if self.shadow is None or self.failed_before is not None:
            self._fail(self.failed_before or "it could not be built")
            return
        try:
            self.shadow.new_game(seat, rules)
        except BaseException as exc:
            reraise_if_user(exc)
            self._fail(f"new_game raised {type(exc).__name__}: {safe_text(exc, 200)}")

    def pick(self, view: View) -> Any:
        answer = self.primary.pick(view)
        self._compare("pick", view, answer, view.choices)
        return answer

    def stop(self, view: View) -> Any:
        answer = self.primary.stop(view)
        self._compare("stop", view, answer, None)
        return answer

    def claim(self, view: View, choices: Sequence[Any]) -> Any:
        answer = self.primary.claim(view, choices)
        self._compare("claim", view, answer, choices)
        return answer

    # -- the comparison --------------------------------------------------------------------
    def _compare(self, kind: str, view: View, answer: Any, choices: Any) -> None:
        mine = read_answer(kind, answer, choices)
        if mine is None or self.failure is not None or self.error is not None:
            return  # the primary's illegal answer is its forfeit; a failed shadow is silent
        try:
            shadow_view = self._sync(view)
            if kind != "pick" or len(choices) > 1:  # a question with a choice
                self.watcher.asked(kind)
            if kind == "pick":
                self._before, self._roll = view.kept, view.rolled
                other = read_answer(kind, _ask(self.shadow.pick, shadow_view), choices)
            elif kind == "stop":
                other = read_answer(kind, _ask(self.shadow.stop, shadow_view), None)
            else:
                other = read_answer(kind, _ask(self.shadow.claim, shadow_view, choices), choices)
            if other is None:
                raise ShadowFailed(f"its {kind}() answer is not legal here (R5-R7)")
            if other != mine:
                self._part(kind, view, mine, other)
        except ShadowFailed as exc:
            self._fail(f"turn {view.turn}, {kind}(): {exc}")
        except Exception as exc:  # the diff's own bug: raised by the caller, not a forfeit
            self.error = exc

    def _fail(self, message: str) -> None:
        self.failure = message
        self.watcher.failed(message)

    def _sync(self, view: View) -> View:
        """The shadow's view, showing exactly what the primary's shows: the whole view at
        the game's first question, the board at a turn's first (as an engine feeds a
        view: ``View.show_turn``), and the turn slots at every question."""
        mine = self._view
        if mine is None:
            mine = self._view = View.from_snapshot(view.snapshot())
            self._turn = view.turn
        elif self._turn != view.turn:
            mine.show_turn(view.turn, mask_of(view.grill), mask_of(view.flipped), view.stacks)
            self._turn = view.turn
            self._board = self._play = None
        mine.counts = view.counts
        mine.choices = view.choices
        mine.kept = view.kept
        mine.kept_faces = view.kept_faces
        mine.total = view.total
        mine.dice_left = view.dice_left
        mine.has_worm = view.has_worm
        return mine

    def _part(self, kind: str, view: View, mine: Any, other: Any) -> None:
        board = self._board
        if board is None:  # the turn's board and payoff: only where the bots part
            board = self._board = Board.of(view, self.unit)
        assert self._view is not None
        if self._play is None:
            self._play = OwnPlay(self.shadow, self._view, board)
        play = self._play
        i = state_of(view)
        kept = view.kept
        if kind == "pick":
            counts = view.counts

            def keep(face: int) -> float:
                c = counts[face]
                return play.kept_value(CHILD[i << 6 | face << 3 | c - 1], kept + (face,) * c)

            values = keep(mine), keep(other)
        elif kind == "stop":
            stop, roll = play.claim_value(i, kept), play.roll_value(i, kept)
            values = (stop, roll) if mine else (roll, stop)
        else:
            values = tuple(board.claim_worth(move) for move in (mine, other))
        self.watcher.parted(
            Moment.of(board, self._before, self._roll, kept),
            Parting(kind, mine, other, values[0], values[1]),
        )


__all__ = ["OwnPlay", "Parting", "ShadowFailed", "Shadowed", "Watcher"]
