"""The simple strategy: a reference baseline from the literature (issue 5).

The "simple" bot that published Pickomino strategy comparisons measure against (a
memoised expected-worms searcher is reported to win 69% of two-player games against
it), written here from its description:

* keep worms once two or more faces are already set aside (from the third roll on);
* otherwise keep the face whose dice are worth the most points (count x value, the
  worm worth 5); the description gives no tie rule: ties go to the higher face, so to
  the worm over the 5 and to fewer dice;
* stop as soon as any tile can be taken: the engine asks only when a stop claims (R7),
  so every such question is answered yes, steals included.
"""

from __future__ import annotations

from harness.strategies._common import most_points
from harness.strategy import WORM, Strategy, View


class Simple(Strategy):
    """Reference baseline: worms once two faces are set aside, else the most points; stops
    at the first claim."""

    name = "simple"

    def pick(self, view: View) -> int:
        if WORM in view.choices and len(view.kept_faces) >= 2:
            return WORM
        return most_points(view)

    def stop(self, view: View) -> bool:
        return True
