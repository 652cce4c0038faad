"""The greedy strategy: most points now, stop at the first chance."""

from __future__ import annotations

from harness.strategies._common import most_points
from harness.strategy import Strategy, View  # noqa: F401


class Greedy(Strategy):
    """Sets aside the face worth the most points and stops as soon as it can claim a tile."""

    name = "greedy"

    pick = staticmethod(most_points)

    def stop(self, view: View) -> bool:
        return True
