"""A bot with one real parameter whose best value lies inside its range: the tuner's
harder benchmark (benchmarks/tune_one.py --bot lean).

Threshold's play (the most points, a worm first when it has none), but it stops at a
total that rises with the dice left: total >= 21 + lean x dice_left. ``lean`` 0 is
threshold(target=21); a little lean keeps rolling while many dice are left; too much
rolls into busts.
"""

from __future__ import annotations

from harness.strategies._common import most_points
from harness.strategy import WORM, Bound, Strategy, View


class WormBy(Strategy):
    """Stops at 21 (threshold's best against greedy) and sets a worm aside, when it has
    none, once ``worm_by`` dice or fewer are left: too early wastes dice on a worm, too
    late risks none."""

    name = "worm-by"
    bounds = {"worm_by": Bound(0, 8)}

    def __init__(self, worm_by: float = 1.0) -> None:
        self.worm_by = worm_by

    def pick(self, view: View) -> int:
        if not view.has_worm and WORM in view.choices and view.dice_left <= self.worm_by:
            return WORM
        return most_points(view)

    def stop(self, view: View) -> bool:
        return view.total >= 21


class Lean(Strategy):
    name = "lean"
    bounds = {"lean": Bound(0, 6)}

    def __init__(self, lean: float = 3.0) -> None:
        self.lean = lean

    def pick(self, view: View) -> int:
        if not view.has_worm and WORM in view.choices and view.dice_left <= 4:
            return WORM
        return most_points(view)

    def stop(self, view: View) -> bool:
        return view.total >= 21 + self.lean * view.dice_left
