"""The Elo scale: expected scores and Elo differences, and log-strengths in Elo points."""

from __future__ import annotations

import math

from harness.stats.intervals import NAN

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of log-strength


def elo_to_score(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Elo difference giving expected ``score``; +-inf at 1 and 0, nan if undefined."""
    if math.isnan(score):
        return NAN
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)
