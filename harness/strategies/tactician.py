"""The tactician: a board-aware heuristic (steals, the grill, what a bust would cost).

It sets aside the most points like greedy but makes sure of a worm while dice remain,
and stops by weighing the claim on offer (a steal counts the victim's loss too) against
the risk of rolling on: the more faces already kept, the likelier a later roll busts,
and the more its top tile is worth, the more a bust costs. Near the end of the game it
plays the score: safe when leading, bolder when behind. Its defaults were tuned against
greedy with benchmarks/strength_quick.py (2 players, duplicate dice).
"""

from __future__ import annotations

from harness.strategies._common import most_points
from harness.strategy import WORM, Bound, Claim, Strategy, View, worms


def _claim_value(claim: Claim, players: int) -> float:
    """Worms a claim swings: gained, plus the victim's loss shared among the rivals."""
    gain = worms(claim.tile)
    if claim.victim is None:
        return gain
    return gain + gain / (players - 1)


class Tactician(Strategy):
    """Weighs the claim on offer against bust risk and cost, steals when it pays, and plays
    the score in the end game."""

    name = "tactician"
    bounds = {
        "caution": Bound(0, 100, low_open=True),
        "worm_by": Bound(0, 8),  # dice left (R4)
    }

    def __init__(self, caution: float = 1.5, worm_by: int = 3) -> None:
        self.caution = caution
        self.worm_by = worm_by

    def pick(self, view: View) -> int:
        best = most_points(view)
        # No claim without a worm (R7): take the worms while dice remain to do so.
        if (
            best != WORM
            and not view.has_worm
            and WORM in view.choices
            and view.dice_left - view.counts[best] <= self.worm_by
        ):
            return WORM
        return best

    def stop(self, view: View) -> bool:
        claims = view.claims
        if not claims:
            return False
        players = view.players
        value = max(_claim_value(c, players) for c in claims)
        left = view.dice_left
        if left <= 2:
            return True
        grill = view.grill
        if len(grill) <= 3:
            scores = view.scores
            lead = scores[view.seat] - max(s for i, s in enumerate(scores) if i != view.seat)
            if lead > 0:
                return True  # leading at the end: bank it
            if lead + value < 0 and left >= 3:
                return False  # this claim cannot close the gap: press on
        # The more faces already kept, the likelier every later roll busts (R5); the
        # more the top tile is worth, the more a bust costs.
        kept = len(view.kept_faces)
        risk = self.caution * (kept / 6 + view.bust_cost() / 8)
        wanted = 1 + (left - 2) * (1 - risk) / 2
        return value >= wanted
