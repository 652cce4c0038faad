"""The exact turn backup: what a position is worth when its mover plays the turn for
its own chance under the current model.

For each position: every way the turn can end (:func:`harness.winprob.endings`, the
engine's own claim and bust), each after-position valued by the model (exactly by R11
when the ending ends the game), the mover's chance per stop total built as R7 offers
the claims (the highest grill tile at or below the total, a steal at exactly the total,
the better of the two; as ``optimal`` builds its stop values), the turn's dynamic
programme solved (:func:`harness.analysis.turn.solve_arrays`) and the exact
distribution of how that play ends (per total, bust). The target is that distribution's
mixture of the after-positions' chance vectors. At two players it is the mover's value
of the programme and its complement (the chances sum to one), with no distribution to
compute.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from harness.analysis.turn import LAYERS, MAX_TOTAL, N_STATES, START, STATES, Payoff, solve_arrays
from harness.game.rules import Rules
from harness.winprob import Position, endings, features, result_shares

_TOTALS = np.array([s for _, _, s in STATES], dtype=np.intp)


@cache
def _flow() -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None]:
    """Per layer of dice left: each roll row's candidate states (padded with the slot of
    minus infinity, N_STATES; a bust row holds N_STATES + 1), its state and probability."""
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None] = []
    for layer in LAYERS:
        if layer.n == 0:
            out.append(None)
            continue
        width = max(len(r) for r in layer.rows)
        kids = np.full((len(layer.rows), width), N_STATES, dtype=np.intp)
        for r, row in enumerate(layer.rows):
            kids[r, : len(row)] = row
        state = np.empty(len(layer.rows), dtype=np.intp)
        for offset, span in enumerate(layer.spans):
            state[span.start : span.stop] = layer.lo + offset
        out.append((kids, state, kids[:, 0] == N_STATES + 1, np.asarray(layer.prob)))
    return out


def outcomes(value: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, float]:
    """How the turn ends from its start under the play of ``value``/``stops`` (as
    :func:`solve_arrays` gives them): the probability of stopping at each total 0..40 and
    of a bust. The vectorised counterpart of :meth:`Solution.outcomes` (ties between
    keeps go to the higher face, as there; no tolerance)."""
    ext = np.concatenate([value, [-np.inf, -np.inf]])
    mass = np.zeros(N_STATES)
    mass[START] = 1.0
    ended = np.zeros(MAX_TOTAL + 1)
    bust = 0.0
    for layer, flow in zip(reversed(LAYERS), reversed(_flow()), strict=True):
        lo, hi = layer.lo, layer.hi
        m = mass[lo:hi].copy()
        s = stops[lo:hi]
        ended += np.bincount(_TOTALS[lo:hi][s], weights=m[s], minlength=MAX_TOTAL + 1)
        m[s] = 0.0
        if flow is None:  # R8: all dice kept and nothing to claim
            bust += float(m.sum())
            continue
        kids, state, busts, prob = flow
        share = m[state - lo] * prob
        bust += float(share[busts].sum())
        keep = ~busts
        best = kids[np.arange(len(kids)), ext[kids].argmax(axis=1)]
        mass += np.bincount(best[keep], weights=share[keep], minlength=N_STATES)
    return ended, bust


def stop_choices(position: Position, ends: Sequence, mine: Sequence[float],
                 rules: Rules) -> list[int | None]:  # fmt: skip
    """Per total 0..40, the index (into ``ends``) of the claim a stop there makes for
    the mover's best chance (R7; ``lower_tile: any``: the best grill tile at or below),
    None where no claim is offered."""
    grill = {e[0][0]: i for i, e in enumerate(ends) if e[0] is not None and e[0][1] is None}
    steals = [(e[0][0], i) for i, e in enumerate(ends) if e[0] is not None and e[0][1] is not None]
    lower_any = rules.lower_tile == "any"
    choice: list[int | None] = [None] * (MAX_TOTAL + 1)
    current = None
    for total in range(MAX_TOTAL + 1):
        if total in grill:
            i = grill[total]
            if not lower_any or current is None or mine[i] > mine[current]:
                current = i
        choice[total] = current
    for tile, i in steals:
        if choice[tile] is None or mine[i] > mine[choice[tile]]:
            choice[tile] = i
    return choice


ChanceFn = Callable[[np.ndarray], np.ndarray]
"""Feature rows -> chances (rows, seats from each row's mover)."""


def targets(
    positions: Sequence[Position],
    chances: ChanceFn,
    rules: Rules,
    *,
    tick: Callable[[int], None] | None = None,
    chunk: int = 512,
) -> np.ndarray:
    """The turn backup of every position: chances rotated from its mover (rows x seats)."""
    players = rules.players
    out = np.empty((len(positions), players))
    for lo in range(0, len(positions), chunk):
        part = positions[lo : lo + chunk]
        ends = [endings(p, rules) for p in part]
        afters = [after for e in ends for _, after in e]
        seat_chances = _seat_chances(afters, chances, players)
        at = 0
        for k, (p, e) in enumerate(zip(part, ends, strict=True)):
            vectors = seat_chances[at : at + len(e)]
            at += len(e)
            out[lo + k] = _backup(p, e, vectors, rules)
        if tick is not None:
            tick(len(part))
    return out


def _seat_chances(afters: list[Position], chances: ChanceFn, players: int) -> np.ndarray:
    """Each after-position's chances in seat order: exact at the end (R10, R11)."""
    out = np.empty((len(afters), players))
    todo = []
    for i, a in enumerate(afters):
        if a.over:
            out[i] = result_shares(a)
        else:
            todo.append(i)
    if todo:
        rows = np.array([features(afters[i]) for i in todo], dtype=np.int64)
        rotated = chances(rows)
        for i, r in zip(todo, rotated, strict=True):
            mover = afters[i].to_move
            out[i] = np.roll(r, mover)  # r[k] is seat mover + k
    return out


def _backup(position: Position, ends: list, vectors: np.ndarray, rules: Rules) -> np.ndarray:
    mover = position.to_move
    mine = vectors[:, mover]
    choice = stop_choices(position, ends, mine, rules)
    stop = tuple(None if c is None else float(mine[c]) for c in choice)
    bust_vec = vectors[-1]  # endings() lists the bust last
    value, roll, stops = solve_arrays(Payoff(stop, float(bust_vec[mover])))
    if rules.players == 2:
        v = float(roll[START])
        seat = np.empty(2)
        seat[mover], seat[1 - mover] = v, 1.0 - v
    else:
        ended, bust = outcomes(value, stops)
        seat = bust * bust_vec
        for total in np.nonzero(ended)[0]:
            seat = seat + ended[total] * vectors[choice[total]]
    return np.roll(seat, -mover)  # seats from the mover
