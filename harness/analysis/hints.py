"""Hints: every option of a decision valued exactly, from a strategy's view or a board.

The same values as ``harness analyze roll`` and the coach (the turn's worm swing under
best play afterwards, :mod:`harness.analysis.account`; or, with ``unit="win"``, the
turn-taker's chance to win, the win-unit account's values, :mod:`harness.analysis.units`),
for whoever decides: a person at
the table (``harness play you ...``), a notebook, a strategy that wants to look. A view is
the one a strategy is handed (:class:`harness.view.View`); a board is a
:class:`~harness.analysis.roll.TurnPosition` (the grill, every seat's top tile, whose
turn, the dice set aside)::

    from harness.analysis.hints import roll_hints, stop_hints

    class Curious(Strategy):
        def pick(self, view):
            return roll_hints(view).options[0].face      # the best keep
        def stop(self, view):
            return stop_hints(view)[0].move == "stop"    # the better of stop / roll on

A decision is asked at one of three moments, and a view alone does not say which (after a
keep it still shows the roll it was kept from): :func:`roll_hints` before a pick,
:func:`stop_hints` after it (stop or roll on, R6), :func:`claim_hints` when a stop may
take more than one tile (R7). Pure computation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.analysis.account import solved
from harness.analysis.roll import (
    RollAnalysis,
    TurnPosition,
    claim_values,
    claim_words,
    payoff_of,
    roll_options,
)
from harness.analysis.turn import STATES, WORM_BIT
from harness.analysis.units import check_unit, turn_payoff, win_solved
from harness.errors import HarnessError
from harness.game.board import mask_of
from harness.game.view import View
from harness.winprob import WinPayoff


@dataclass(frozen=True)
class Hint:
    """One option of a stop or claim decision: the move (``"stop"``, ``"roll"``, or a
    claim as a (tile, victim) pair, victim None for the grill), what it is worth (in worms
    of swing, or in chances to win), what it gives up against the best option, and how a
    person reads it."""

    move: Any
    value: float
    regret: float
    text: str


def position_of_view(view: View) -> TurnPosition:
    """The board and the dice set aside that ``view`` shows, as the analysis takes them."""
    return TurnPosition(
        tuple(view.grill),
        tuple(t or 0 for t in view.tops),
        view.seat,
        tuple(view.kept),
        lower_any=view.rules.lower_tile == "any",
    )


def win_of_view(view: View, unit: str) -> WinPayoff | None:
    """The turn's win-unit payoff (``unit="win"``: from the view's board and stacks), or
    None for worms."""
    if check_unit(unit) == "worms":
        return None
    return turn_payoff(mask_of(tuple(view.grill)), view.stacks, view.seat, view.rules)


def roll_hints(view: View, unit: str = "worms") -> RollAnalysis:
    """Before a pick: every keep of the roll the view shows (and, where a stop would
    claim, stop or roll on after it), valued exactly, best first: what ``harness analyze
    roll`` prints for this position (in ``unit``: "worms" or "win")."""
    if not view.choices:
        raise HarnessError("no roll to pick from: roll_hints is for the moment of a pick (R5)")
    return roll_options(position_of_view(view), view.rolled, win_of_view(view, unit))


def stop_options(position: TurnPosition, win: WinPayoff | None = None) -> tuple[Hint, ...]:
    """Stop or roll on, having set aside ``position.kept`` (R6), best first (a tie: stop);
    in worms, or in chances to win for the win-unit payoff ``win``.

    () where there is nothing to decide: no worm set aside or nothing to claim (R7), or no
    dice left (the turn ends either way, R8).
    """
    mask, left, total = STATES[position.state]
    stop, bust = payoff_of(position, win)
    here = stop[total] if mask & WORM_BIT else None
    if here is None or not left:
        return ()
    _, roll = solved(stop, bust) if win is None else win_solved(stop, bust)
    claim = claim_values(position, total, win)[0]
    options = [
        ("stop", here, f"stop and {_claim_text(claim.move)}"),
        ("roll", roll[position.state], f"roll {left} {'die' if left == 1 else 'dice'} on"),
    ]
    options.sort(key=lambda o: -o[1])  # stable: a tie keeps the stop first
    best = options[0][1]
    return tuple(Hint(move, value, best - value, text) for move, value, text in options)


def stop_hints(view: View, unit: str = "worms") -> tuple[Hint, ...]:
    """After a keep: stop or roll on (:func:`stop_options` of the view's position)."""
    return stop_options(position_of_view(view), win_of_view(view, unit))


def claim_hints(
    view: View, choices: Sequence[Any] | None = None, unit: str = "worms"
) -> tuple[Hint, ...]:
    """When a stop may take more than one tile: every legal claim valued for the swing (a
    steal counts the victim's loss too) or, ``unit="win"``, for the chance to win, best
    first. ``choices`` (what ``Strategy.claim`` is given) default to the view's
    ``claims``; only those are returned."""
    position = position_of_view(view)
    options = claim_values(position, view.total, win_of_view(view, unit))
    wanted = {(c[0], c[1]) for c in (view.claims if choices is None else choices)}
    found = [o for o in options if o.move in wanted]
    if not found:
        raise HarnessError(f"nothing to claim with {view.total} (R7)")
    best = found[0].value
    return tuple(Hint(o.move, o.value, best - o.value, _claim_text(o.move)) for o in found)


def _claim_text(move: tuple[int, int | None]) -> str:
    return claim_words(*move, worm_count=True)


__all__ = [
    "Hint",
    "claim_hints",
    "position_of_view",
    "roll_hints",
    "stop_hints",
    "stop_options",
    "win_of_view",
]
