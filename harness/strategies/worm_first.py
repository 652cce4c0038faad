"""The worm-first strategy: never be caught without a worm."""

from __future__ import annotations

from harness.strategies._common import most_points
from harness.strategy import WORM, Bound, Strategy, View


class WormFirst(Strategy):
    """Sets aside worms at the first chance, then the most points; stops at target or when
    few dice are left."""

    name = "worm-first"
    # A total of 40 takes all 8 dice (R2); fewer than 8 dice are always left to roll.
    bounds = {"target": Bound(0, 40), "min_dice": Bound(0, 8)}

    def __init__(self, target: int = 25, min_dice: int = 3) -> None:
        self.target = target
        self.min_dice = min_dice

    def pick(self, view: View) -> int:
        if not view.has_worm and WORM in view.choices:
            return WORM
        return most_points(view)

    def stop(self, view: View) -> bool:
        return view.total >= self.target or view.dice_left < self.min_dice
