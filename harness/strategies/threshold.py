"""The threshold strategy: roll on until the total reaches a target."""

from __future__ import annotations

from harness.strategies._common import most_points
from harness.strategy import WORM, Bound, Strategy, View


class Threshold(Strategy):
    """Sets aside the most points (a worm first when it has none) and stops once the total
    reaches target."""

    name = "threshold"
    bounds = {"target": Bound(21, 40)}

    def __init__(self, target: int = 27) -> None:
        self.target = target

    def pick(self, view: View) -> int:
        if not view.has_worm and WORM in view.choices and view.dice_left <= 4:
            return WORM
        return most_points(view)

    def stop(self, view: View) -> bool:
        return view.total >= self.target
