"""What each way a turn can end is worth in chances to win: the win-unit payoff of a turn.

One function for everything that values a turn's endings by the evaluator: the turn-taker's
chance to win from the position each ending leaves (:func:`ending_chances`: every claim,
every steal, the bust with the rules' R9 variant; exact when the ending ends the game,
R10, R11), and, from those, the payoff the turn programme (:mod:`harness.analysis.turn`)
is solved for (:func:`win_payoff`: the best claim R7 offers at each total, the bust).
``win-optimal`` plays this programme; the win-unit account (:mod:`harness.analysis.units`),
the coach and the diff judge by it. Pure computation, cached per position (a cache never
changes a value, only its cost).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.game.board import Claim, legal_claims
from harness.game.rules import Rules
from harness.winprob.evaluator import Evaluator, evaluator
from harness.winprob.position import Position, endings

MAX_TOTAL = 40  # eight worms (R2): the turn programme's highest total

Claims = dict[tuple[int, int | None], float]

_CACHE: dict[tuple[Position, Rules], WinPayoff] = {}
_CACHE_MAX = 16_384


@dataclass(frozen=True)
class WinPayoff:
    """A turn's payoff in the turn-taker's chance to win.

    ``claims[(tile, victim)]``: the chance after that claim (victim None: from the
    grill); ``bust``: the chance after the bust (R9); ``stop[s]``: the best claim R7
    (with the rules' ``lower_tile``) offers a stop at total s with a worm, None where it
    offers none (the :class:`harness.analysis.turn.Payoff` the programme is solved for);
    ``before``: the evaluator's chance of the turn-taker at the turn's start;
    ``vectors[(tile, victim)]`` and ``bust_vector``: every seat's chance after each
    ending (``claims`` and ``bust`` are the turn-taker's parts); ``chosen[s]``: the claim
    whose value ``stop[s]`` is (:func:`stop_claims`), None where ``stop[s]`` is.
    """

    claims: Claims
    bust: float
    stop: tuple[float | None, ...]
    before: float
    vectors: dict[tuple[int, int | None], tuple[float, ...]] = field(default_factory=dict)
    bust_vector: tuple[float, ...] = ()
    chosen: tuple[tuple[int, int | None] | None, ...] = ()


def ending_vectors(
    position: Position, rules: Rules, judge: Evaluator | None = None
) -> tuple[dict[tuple[int, int | None], tuple[float, ...]], tuple[float, ...]]:
    """Every seat's chance to win after each way ``position.to_move``'s turn can end:
    every claim ``(tile, victim)`` and the bust, by ``judge`` (default: the evaluator of
    ``rules``; :func:`harness.winprob.endings` gives the after-positions)."""
    ends = endings(position, rules)
    judge = evaluator(rules) if judge is None else judge
    chances = judge.chances_many([after for _, after in ends])
    claims: dict[tuple[int, int | None], tuple[float, ...]] = {}
    bust: tuple[float, ...] = ()
    for (ending, _), chance in zip(ends, chances, strict=True):
        if ending is None:
            bust = tuple(chance)
        else:
            claims[ending] = tuple(chance)
    return claims, bust


def ending_chances(
    position: Position, rules: Rules, judge: Evaluator | None = None
) -> tuple[Claims, float]:
    """The chance of ``position.to_move`` to win after each way its turn can end: every
    claim ``(tile, victim)`` and the bust (:func:`ending_vectors`, the turn-taker's part)."""
    vectors, bust = ending_vectors(position, rules, judge)
    return _turn_takers(vectors, position.to_move), bust[position.to_move]


def _turn_takers(vectors: dict[tuple[int, int | None], tuple[float, ...]], seat: int) -> Claims:
    """Each ending's chance of ``seat`` (the turn-taker), from every seat's."""
    return {claim: chance[seat] for claim, chance in vectors.items()}


def stop_values(position: Position, claims: Claims, lower_any: bool) -> tuple[float | None, ...]:
    """The best claim's value at each total 0..40 (R7 through
    :func:`harness.game.board.legal_claims`, the engine's one definition), None where a
    stop claims nothing: the value of the claim :func:`stop_claims` names."""
    return _values(stop_claims(position, claims, lower_any), claims)


def _values(chosen: tuple, claims: Claims) -> tuple[float | None, ...]:
    return tuple(None if c is None else claims[c] for c in chosen)


def _tile(claim: Claim) -> int:
    return claim.tile


def stop_claims(
    position: Position, claims: Claims, lower_any: bool
) -> tuple[tuple[int, int | None] | None, ...]:
    """The claim the best play makes at each total 0..40 (None where a stop claims
    nothing): one whose value is :func:`stop_values`' there, ties broken as the native
    engine's ``stop_values`` breaks them (a grill tile over a steal; under ``lower_any``
    the lowest of the grill tiles of the best value). What the win account's vector
    (:mod:`harness.analysis.units`) values every seat's chance of a stop by."""
    seat = position.to_move
    tops = tuple(s[-1] if s else 0 for s in position.stacks)
    grill = position.grill
    out: list[tuple[int, int | None] | None] = []
    for total in range(MAX_TOTAL + 1):
        best: tuple[int, int | None] | None = None
        steal: tuple[int, int | None] | None = None
        for c in sorted(legal_claims(seat, total, True, grill, tops, lower_any), key=_tile):
            move = (c.tile, c.victim)
            if c.victim is not None:
                steal = move
            elif best is None or claims[move] > claims[best]:
                best = move  # ascending tiles: the first of the best value stays
        if steal is not None and (best is None or claims[steal] > claims[best]):
            best = steal
        out.append(best)
    return tuple(out)


def win_payoff(position: Position, rules: Rules) -> WinPayoff:
    """The win-unit payoff of the turn of ``position.to_move`` (cached per position)."""
    key = (position, rules)
    found = _CACHE.get(key)
    if found is None:
        seat = position.to_move
        vectors, bust_vector = ending_vectors(position, rules)
        claims = _turn_takers(vectors, seat)
        chosen = stop_claims(position, claims, rules.lower_tile == "any")
        before = evaluator(rules).chances(position)[seat]
        found = WinPayoff(claims, bust_vector[seat], _values(chosen, claims), before, vectors,
                          bust_vector, chosen)  # fmt: skip
        if len(_CACHE) >= _CACHE_MAX:
            del _CACHE[next(iter(_CACHE))]
        _CACHE[key] = found
    return found


__all__ = [
    "Claims",
    "WinPayoff",
    "ending_chances",
    "ending_vectors",
    "stop_claims",
    "stop_values",
    "win_payoff",
]
