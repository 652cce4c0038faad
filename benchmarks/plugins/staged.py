"""A bot with six bounded parameters: the tuner's six-parameter benchmark
(benchmarks/tune_six.py).

Two of its parameters shape what it sets aside, one when it makes sure of a worm, three
when it stops, by the dice left. Its defaults are deliberately poor (it stops late,
at 30, as threshold(target=30) does: 3.9% against greedy), so a tune has a large gain
to find; where the best lies is measured, not assumed (benchmarks/tune_six.py plays
the tuned values and sweeps each parameter around the best of them).
"""

from __future__ import annotations

from harness.strategy import FACE_POINTS, WORM, Bound, Strategy, View


class Staged(Strategy):
    """Sets aside the face whose dice score most, a die costing ``spend`` points and a
    worm valued ``worm_value`` (5 as a score); makes sure of a worm once ``worm_by`` dice
    or fewer are left; stops, when a tile is on offer, once the total reaches ``stop3``,
    ``stop2`` or ``stop1`` with 3 or more, 2, or 1 dice left."""

    name = "staged"
    bounds = {
        "spend": Bound(0, 5),
        "worm_value": Bound(3, 8),
        "worm_by": Bound(0, 8),
        "stop3": Bound(21, 36, integer=True),
        "stop2": Bound(21, 36, integer=True),
        "stop1": Bound(21, 36, integer=True),
    }

    def __init__(
        self,
        spend: float = 2.5,
        worm_value: float = 5.0,
        worm_by: float = 2.0,
        stop3: int = 30,
        stop2: int = 30,
        stop1: int = 30,
    ) -> None:
        self.spend = spend
        self.worm_by = worm_by
        # Each face's worth per die set aside, the cost of the die taken out.
        self.worth = tuple(
            (worm_value if face == WORM else FACE_POINTS[face]) - spend for face in range(7)
        )
        self.stops = (stop1, stop1, stop2, stop3)  # by dice left: 0, 1, 2, 3 or more

    def pick(self, view: View) -> int:
        choices = view.choices
        if not view.has_worm and WORM in choices and view.dice_left <= self.worm_by:
            return WORM
        counts, worth = view.counts, self.worth
        return max(choices, key=lambda f: (counts[f] * worth[f], f))

    def stop(self, view: View) -> bool:
        left = view.dice_left
        if view.total < self.stops[left if left < 3 else 3]:
            return False
        return bool(view.claims)
