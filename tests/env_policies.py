"""Policies on the observation (harness.env.encoding) for the environment tests.

:func:`greedy_policy` plays built-in ``greedy``'s rule reading nothing but the
observation vector and the mask: the most points (ties to the higher face, the worm over
the 5), stop as soon as a stop is offered, and of several claims the greatest worm swing
(a steal counts its worms twice; ties to the higher tile). :func:`legal_oracle` is the
legal set of a question written from the rules text and the view, not from the engine.
"""

from __future__ import annotations

import numpy as np

from harness.env.encoding import (
    CLAIM,
    OFFSETS,
    PICK,
    ROLL_ON,
    SEAT_BLOCK,
    STOP,
    STOP_OR_ROLL,
    claim_action,
)

POINTS = np.array([1, 2, 3, 4, 5, 5])  # R2: faces 1..5 and the worm (5 points)
TILE_WORMS = np.array([(t - 17) // 4 for t in range(21, 37)])  # R1


def greedy_policy(obs: np.ndarray, mask: np.ndarray) -> int:
    phase = int(np.argmax(obs[:3]))
    if phase == PICK:
        at = OFFSETS["roll"]
        counts = np.rint(obs[at : at + 6] * 8)
        score = counts * POINTS * 8 + np.arange(1, 7)
        score[mask[:6] == 0] = -1
        return int(np.argmax(score))
    if phase == STOP_OR_ROLL:
        return STOP
    rival_tops = np.zeros(16)
    for j in range(1, 7):
        at = OFFSETS["seats"] + SEAT_BLOCK * j
        rival_tops += obs[at + 3 : at + 19]
    swing = TILE_WORMS * (1 + (rival_tops > 0)) * 64 + np.arange(16)
    swing[mask[8:] == 0] = -1
    return 8 + int(np.argmax(swing))


def legal_oracle(view, phase: int) -> set[int]:
    """The answers the rules allow to ``phase`` (R5-R7), from the view's plain values."""
    if phase == PICK:
        kept = set(view.kept)
        return {face - 1 for face in set(view.rolled) if face not in kept}
    if phase == STOP_OR_ROLL:
        return {STOP, ROLL_ON}
    assert phase == CLAIM
    total, grill, seat = view.total, view.grill, view.seat
    under = [t for t in grill if t <= total]
    tiles = set(under if view.rules.lower_tile == "any" else under[-1:])
    tiles |= {top for s, top in enumerate(view.tops) if s != seat and top == total}
    return {claim_action(t) for t in tiles}


def random_masked(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    return np.argmax(masks * rng.random(masks.shape), axis=-1)
